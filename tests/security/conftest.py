import pytest
from django.core.cache import cache

# The permission matrix's data (users of every role, a round, a run) serves these tests too.
from tests.test_permission_matrix import world  # noqa: F401


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Login failures live in the cache; each test starts with none.
    cache.clear()
    yield
    cache.clear()
