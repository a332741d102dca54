"""The yardsticks of the judge bench: a hand-written script's loop through the bare SDK,
and the whole `judge` command as a researcher runs it, start-up included."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bare_sdk_rate(*, sim, run, lanes: int) -> float:
    """Every task of `run` once, as a hand-written script would call them: `lanes` threads
    sharing one SDK client, the same simulator, the same requests (messages and JSON
    schema), nothing recorded. Returns calls per second."""
    import openai

    from judging.services.execution import criteria_load, task_prepare

    tasks = list(run.tasks.select_related("response__case").order_by("pk"))
    criteria: dict[int, list] = {}
    criteria_load(criteria, {t.rubric_version_id for t in tasks})
    requests = [
        task_prepare(run=run, task=t, criteria=criteria[t.rubric_version_id]).request for t in tasks
    ]
    snapshot = run.settings_snapshot
    client = openai.OpenAI(base_url=snapshot["base_url"], api_key="none", max_retries=0)
    sim.reset()
    pending = list(reversed(requests))
    lock = threading.Lock()

    def caller() -> None:
        while True:
            with lock:
                if not pending:
                    return
                request = pending.pop()
            options = {"model": snapshot["model"], "messages": request.messages}
            if request.response_format is not None:
                options["response_format"] = request.response_format
            reply = client.chat.completions.create(**options, temperature=0.0, max_tokens=4096)
            json.loads(reply.choices[0].message.content)

    started = time.perf_counter()
    threads = [threading.Thread(target=caller) for _ in range(lanes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rate = len(requests) / (time.perf_counter() - started)
    client.close()
    return rate


def command_rate(*, sim, benchmark, systems, lanes: int, database_url: str | None) -> float:
    """`manage.py judge` for the benchmark's systems in a process of its own, fresh calls,
    timed from the process's start to its end (Django's start-up, the run's creation, the
    calls and the summary). Returns its tasks per second."""
    env = {**os.environ, "DEBUG": "false"}
    if database_url:
        env["DATABASE_URL"] = database_url
    command = [
        sys.executable, "manage.py", "judge", "--benchmark", benchmark.slug,
        *(arg for system in systems for arg in ("--system", system.name)),
        "--base-url", sim.base_url, "--model", "concord-sim",
        "--concurrency", str(lanes), "--fresh", "--json",
    ]  # fmt: skip
    sim.reset()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"judge exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    summary = json.loads(done.stdout.decode().strip().splitlines()[-1])
    tasks = summary.get("done", summary.get("tasks"))
    return int(tasks) / seconds
