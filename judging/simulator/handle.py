"""Run a simulator in a background thread of this process (tests, development helpers)."""

import threading

from .server import SimulatorServer
from .settings import Settings


class SimulatorHandle:
    """A simulator running in a background thread of this process."""

    def __init__(self, server: SimulatorServer, thread: threading.Thread) -> None:
        self.server, self.thread = server, thread
        host, port = server.server_address[:2]
        self.host, self.port = host, port
        netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.root_url = f"http://{netloc}"
        self.base_url = self.root_url + "/v1"

    def stats(self) -> dict:
        return self.server.stats.snapshot()

    def settings(self) -> dict:
        return self.server.settings.public()

    def configure(self, **settings) -> dict:
        """Change settings of the running server (partial); returns them all."""
        return self.server.configure(settings).public()

    def reset(self) -> None:
        """Zero the statistics and the per-request attempt counters."""
        self.server.reset()

    def stop(self) -> None:
        self.server.stopping.set()  # wakes requests sleeping out a latency or a timeout
        self.server.shutdown()
        self.server.close_connections()
        self.server.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> "SimulatorHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_simulator(
    host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True, **settings
) -> SimulatorHandle:
    """Start a simulator in a background thread; port 0 picks a free port.

    `settings` are the names of `Settings` (latency_ms=..., rate_429=..., api_key=...);
    the environment is not read here (the command line does that)."""
    server = SimulatorServer((host, port), Settings().updated(settings), quiet=quiet)
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.05},
        name=f"concord-simulator-{server.server_address[1]}",
        daemon=True,
    )
    thread.start()
    return SimulatorHandle(server, thread)
