# The permission matrix's data (users of every role, a round, a run) serves these tests too.
from tests.test_permission_matrix import world  # noqa: F401
