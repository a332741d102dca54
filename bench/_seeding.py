"""A synthetic benchmark with systems' answers, imported through the real importers (the
benches that need a database seed with this; Django must be set up)."""

import json


def _jsonl(rows: list[dict]) -> list[bytes]:
    return [(json.dumps(row, ensure_ascii=False) + "\n").encode() for row in rows]


def benchmark_seed(
    *, slug: str, cases: int, criteria_per_case: int, systems: int, padding: str = ""
):
    """The benchmark, its systems (named system-a, system-b, ...) and the question rows.
    `padding` lengthens every answer, for pages whose size should be realistic."""
    from annotation.models import Benchmark, System
    from annotation.services.benchmark_import import benchmark_import
    from annotation.services.responses_import import responses_import
    from bench.synthetic_benchmark import question_rows

    rows = list(question_rows(cases=cases, criteria=cases * criteria_per_case))
    benchmark_import(chunks=_jsonl(rows), benchmark_slug=slug)
    names = [f"system-{chr(ord('a') + i)}" for i in range(systems)]
    for name in names:
        answers = [
            {
                "question_id": row["question_id"],
                "response": f"{name} 的回答：听起来你真的很累。愿意说说最让你难受的是什么吗？"
                f"（{row['question_id']}）{padding}",
            }
            for row in rows
        ]
        responses_import(chunks=_jsonl(answers), benchmark_slug=slug, system_name=name)
    benchmark = Benchmark.objects.get(slug=slug)
    return benchmark, list(System.objects.filter(name__in=names)), rows
