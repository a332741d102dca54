import pytest


def pytest_collection_modifyitems(config, items):
    # Minutes of work and a package download: run only when asked for (`-m deploy`, as
    # .ci/run's deploy stage does), not with every `make test`.
    if "deploy" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="deployment tests run with -m deploy (.ci/run)")
    for item in items:
        if item.get_closest_marker("deploy"):
            item.add_marker(skip)
