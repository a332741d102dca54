"""The clients of the load benchmarks: experts that work through items as the annotation
page leads them, each with an HTTP client and cookie jar of its own, and the recorder of
their latencies and errors."""

import math
import random
import re
import threading
import time
from collections import Counter, defaultdict
from urllib.parse import urlsplit

from bench._stack import PASSWORD, httpx

WORK_PATH = re.compile(r"^/review/work/(\d+)/$")


class Recorder:
    """Latencies per endpoint and errors, shared by the expert threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter = Counter()
        self.samples: list[str] = []
        self.submits = 0
        self.out_of_items = 0
        self.seconds = 0.0  # length of the measured phase
        self.cpu_line = ""
        self.worker_cpu: float | None = None  # gunicorn workers' CPU seconds over the phase

    def latency(self, endpoint: str, seconds: float) -> None:
        with self.lock:
            self.latencies[endpoint].append(seconds)

    def error(self, endpoint: str, what: str) -> None:
        with self.lock:
            self.errors[endpoint] += 1
            if len(self.samples) < 5:
                self.samples.append(f"{endpoint}: {what}")

    def count(self, field: str) -> None:
        with self.lock:
            setattr(self, field, getattr(self, field) + 1)

    def requests(self, endpoints: list[str]) -> int:
        return sum(len(self.latencies[e]) for e in endpoints) + sum(
            self.errors[e] for e in endpoints
        )


def _value(html: str, name: str) -> str:
    found = re.search(rf'name="{re.escape(name)}" value="([^"]*)"', html)
    return found.group(1) if found else ""


class Expert:
    def __init__(
        self,
        *,
        base_url: str,
        username: str,
        recorder: Recorder,
        seed: int,
        think: float,
        keep_alive: int,
        autosave: bool = False,
    ) -> None:
        self.base_url = base_url
        self.think = think
        self.autosave = autosave  # save a draft (as the page does while typing) before submit
        self.username = username
        self.recorder = recorder
        self.rng = random.Random(seed)
        # An idle connection is dropped a second before the server would close it: reusing
        # one that the server is closing at that instant fails with "connection reset".
        self.client = httpx.Client(
            base_url=base_url,
            trust_env=False,
            timeout=30,
            follow_redirects=False,
            limits=httpx.Limits(max_connections=1, keepalive_expiry=max(0, keep_alive - 1)),
        )

    def call(self, endpoint: str, method: str, path: str, **kwargs) -> "httpx.Response | None":
        started = time.perf_counter()
        try:
            response = self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            self.recorder.error(endpoint, f"{type(exc).__name__}: {exc}")
            return None
        self.recorder.latency(endpoint, time.perf_counter() - started)
        if response.status_code not in (200, 302):
            self.recorder.error(endpoint, f"HTTP {response.status_code} for {method} {path}")
            return None
        return response

    def post(self, endpoint: str, path: str, data: dict) -> "httpx.Response | None":
        data = {"csrfmiddlewaretoken": self.client.cookies.get("csrftoken", ""), **data}
        return self.call(
            endpoint, "POST", path, data=data, headers={"Referer": self.base_url + path}
        )

    def login(self) -> bool:
        if self.call("login form", "GET", "/login/") is None:
            return False
        answer = self.post("login", "/login/", {"username": self.username, "password": PASSWORD})
        if answer is None:
            return False
        if answer.status_code != 302:
            self.recorder.error("login", f"{self.username} was refused")
            return False
        return True

    def pause(self) -> None:
        """The expert reading and answering: `think` seconds on average, none by default."""
        if self.think > 0:
            time.sleep(self.think * self.rng.uniform(0.5, 1.5))

    def page(self, location: str) -> "httpx.Response | None":
        return self.call("annotation page", "GET", location)

    def work(self, *, round_id: int, iterations: int, deadline: float) -> None:
        """Ask for an item once, then go from item to item as the page does: each submit
        redirects to the following item. Asks again only when a submit leads back to the
        work list (nothing could be handed out at that moment)."""
        page = None
        for _ in range(iterations):
            if page is None:
                self.pause()
                if time.monotonic() >= deadline:
                    return
                answer = self.post("next", f"/review/rounds/{round_id}/next/", {})
                if answer is None or not self._is_work(answer):
                    return
                page = self.page(urlsplit(answer.headers["location"]).path)
                if page is None:
                    return
            done, page = self._submit(page.text, deadline=deadline)
            if done:
                return

    def _is_work(self, answer) -> bool:
        location = urlsplit(answer.headers.get("location", "")).path
        if answer.status_code == 302 and WORK_PATH.match(location):
            return True
        if answer.status_code == 302 and location == "/review/":
            self.recorder.count("out_of_items")
        else:
            self.recorder.error("next", f"unexpected answer {answer.status_code} {location!r}")
        return False

    def _submit(self, html: str, *, deadline: float) -> "tuple[bool, httpx.Response | None]":
        """Read and answer (a pause), save a draft when autosaving, think again (a pause),
        submit, and open the page the submit redirects to. Returns whether to stop, and the
        following item's page (None: ask for the next item)."""
        action = re.search(r'action="(/review/work/\d+/submit/)"', html)
        criteria = list(dict.fromkeys(re.findall(r'name="hit-(\d+)"', html)))
        if action is None or not criteria:
            self.recorder.error("annotation page", "no submit form or no criteria in the page")
            return True, None
        data = {
            "base_revision": _value(html, "base_revision"),
            "active_seconds": str(self.rng.randint(20, 110)),
            "comment": "",
        }
        for pk in criteria:
            data[f"hit-{pk}"] = self.rng.choice("10")
            data[f"note-{pk}"] = "理由充分" if self.rng.random() < 0.1 else ""
        self.pause()
        autosave_url = re.search(r'data-autosave-url="([^"]+)"', html)
        saving = self.autosave and autosave_url and time.monotonic() < deadline
        if saving and self.post("autosave", autosave_url.group(1), data) is None:
            return True, None
        self.pause()
        if time.monotonic() >= deadline:
            return True, None
        answer = self.post("submit", action.group(1), data)
        if answer is None:
            return True, None
        if answer.status_code != 302:
            self.recorder.error("submit", "the submit was not accepted (page shown again)")
            return True, None
        self.recorder.count("submits")
        location = urlsplit(answer.headers.get("location", "")).path
        if not WORK_PATH.match(location):
            return False, None  # back to the work list: ask for the next item
        following = self.page(location)
        return following is None, following

    def close(self) -> None:
        self.client.close()


def eager_experts(usernames: list[str], *, base_url: str, recorder: Recorder, keep_alive: int):
    """One client per expert, with no pauses between requests (think 0)."""
    return [
        Expert(
            base_url=base_url,
            username=name,
            recorder=recorder,
            seed=i,
            think=0,
            keep_alive=keep_alive,
        )
        for i, name in enumerate(usernames)
    ]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def print_table(recorder: Recorder, endpoints: list[str]) -> None:
    print(f"{'endpoint':<18} {'count':>6} {'req/s':>7} {'p50':>8} {'p95':>8} {'p99':>8}  (ms)")
    for endpoint in endpoints:
        values = recorder.latencies.get(endpoint)
        if not values:
            continue
        figures = [percentile(values, p) * 1000 for p in (50, 95, 99)]
        rate = len(values) / recorder.seconds
        print(
            f"{endpoint:<18} {len(values):>6} {rate:>7.1f} "
            + " ".join(f"{f:>8.1f}" for f in figures)
        )
