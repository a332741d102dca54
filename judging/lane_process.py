"""The entry point of a lane process started by `run_here`.

Kept free of Django imports at module level: a spawned child imports this module before
Django is set up, to find the function it was asked to run."""


def lanes_in_child(run_id: int, lanes: int, database: str, started) -> None:
    import signal

    import django

    # Ctrl-C reaches the whole process group: the parent handles it (it marks the run
    # interrupted, which this process notices and stops for), never a traceback here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    django.setup()
    from django.db import connections

    from judging.services.lanes import lanes_in_threads

    # The parent's database, which under the test runner is not the configured name.
    connections["default"].settings_dict["NAME"] = database
    started.set()  # the parent hands over as many of its lanes' slots
    lanes_in_threads(run_id, lanes, joining=True)
