import pytest

from annotation.models import Benchmark, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from judging.models import JudgeConfig, PromptTemplate
from judging.simulator import start_simulator
from tests.conftest import jsonl_bytes, judge_config, lines, question


@pytest.fixture
def simulator():
    handle = start_simulator(latency_ms=0)
    yield handle
    handle.stop()


@pytest.fixture
def judged_benchmark(db):
    """Four cases, two systems: eight responses to judge."""
    rows = [question(f"c{i}", difficulty="hard" if i % 2 else "normal") for i in range(1, 5)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    for name in ("Alpha", "Beta"):
        answers = [{"question_id": f"c{i}", "response": f"{name} 的回答 {i}"} for i in range(1, 5)]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name=name)
    return Benchmark.objects.get(slug="hb"), list(System.objects.order_by("name"))


@pytest.fixture
def sim_config(simulator):
    def make(**overrides) -> JudgeConfig:
        values = {
            "name": "sim",
            "base_url": simulator.base_url,
            "model": "concord-sim",
            "max_concurrency": 4,
            "max_attempts": 4,
            "timeout_seconds": 5,
            "backoff_seconds": 0.01,
            "prompt": PromptTemplate.objects.get(name="judge-zh", version=1),
            "is_simulated": True,
        }
        values.update(overrides)
        return judge_config(**values)

    return make
