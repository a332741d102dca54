"""The dataset card (README.md) of a dataset export: a YAML header as the Hugging Face Hub
reads it (licence, languages, configurations with their features and splits) and a body
that says what the tables hold, how the experts were blinded and paid, and how to cite it.

Values in the header are written as JSON scalars, which YAML reads as they are."""

import json
from datetime import date

from annotation.models import ExpertProfile, ReviewRound
from config.version import CONCORD_VERSION
from judging.models import JudgeRun
from leaderboard.interop.dataset_export import SHARD, SPLIT, Table

DESCRIPTIONS = {
    "responses": "one row per response: the case's dialogue (JSON text: a list of "
    "{role, content} turns), the response, and whether the review round sampled it",
    "criteria": "one row per criterion of every rubric version",
    "votes": "one row per vote of the review round, every revision (is_current marks the "
    "rater's submitted one); raters are named by pseudonyms",
    "verdicts": "one row per verdict of the judge run (a task without verdicts has one row "
    "with empty verdict fields)",
    "corrected": "the judge's scores corrected by the experts' votes (prediction-powered "
    "inference), one row per system and score, with 95% intervals",
}


def _q(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def _header(tables: list[Table], *, licence: str, name: str) -> list[str]:
    lines = [
        "---",
        f"license: {_q(licence)}",
        "language:",
        "- zh",
        "- en",
        f"pretty_name: {_q(name)}",
        "tags:",
        "- llm-as-a-judge",
        "- rubric-evaluation",
        "- human-annotation",
        "configs:",
    ]
    for index, table in enumerate(tables):
        lines.append(f"- config_name: {table.name}")
        if index == 0:
            lines.append("  default: true")
        lines += [
            "  data_files:",
            f"  - split: {SPLIT}",
            f"    path: {table.directory}/{SPLIT}-*.parquet",
        ]
    lines.append("dataset_info:")
    for table in tables:
        lines += [f"- config_name: {table.name}", "  features:"]
        for column in table.header:
            lines += [f"  - name: {column}", f"    dtype: {table.dtypes[column]}"]
        lines += ["  splits:", f"  - name: {SPLIT}", f"    num_examples: {len(table.rows)}"]
    lines.append("---")
    return lines


def _blinding_and_pay(round_: ReviewRound | None) -> list[str]:
    if round_ is None:
        return ["No review round is part of this export: it holds no expert votes."]
    experts = list(round_.experts.values_list("pk", flat=True))
    own_rates = ExpertProfile.objects.filter(
        user_id__in=experts, rate_per_item__isnull=False
    ).count()
    difficulty = (
        "were shown whether a case is marked hard"
        if round_.show_difficulty
        else "were not shown whether a case is marked hard"
    )
    lines = [
        f"Review round `{round_.name}`: {round_.raters_per_item} experts were asked to judge "
        "each sampled response, criterion by criterion, each on their own.",
        "",
        "**Blinding.** Experts saw each response under a per-round item code: they were not "
        "shown which system wrote it, the other experts' votes, or the judge's verdicts, and "
        f"they {difficulty}. In these files raters are named by random pseudonyms, drawn "
        "once per benchmark, that say nothing about the person.",
        "",
    ]
    if round_.rate_per_item is not None:
        pay = (
            f"**Pay.** Experts were paid a piece rate of {round_.rate_per_item} per submitted item"
        )
        pay += f"; {own_rates} of them had a rate of their own." if own_rates else "."
    elif own_rates:
        pay = (
            f"**Pay.** {own_rates} of the {len(experts)} experts were paid a piece rate of "
            "their own per submitted item; the round records no rate for the others."
        )
    else:
        pay = "**Pay.** The round records no pay rate: state how the experts were paid."
    if round_.is_calibration:
        pay += " This is a calibration round."
    return [*lines, pay]


def _judge(run: JudgeRun | None) -> list[str]:
    if run is None:
        return ["No judge run is part of this export: it holds no verdicts."]
    version = run.judge_version
    settings = {
        "model": version.model,
        "temperature": version.temperature,
        "seed": version.seed,
        "max_output_tokens": version.max_output_tokens,
        "fingerprint": version.fingerprint,
    }
    return [
        f"Judge run {run.pk}: judge version `{version.label}`, settings "
        f"`{json.dumps(settings, ensure_ascii=False)}`."
    ]


def dataset_card(
    *,
    benchmark,
    round_: ReviewRound | None,
    run: JudgeRun | None,
    tables: list[Table],
    licence: str,
    citation: str,
) -> str:
    name = f"{benchmark.name} ({benchmark.slug})"
    year = date.today().year
    bibtex = citation.strip() or (
        f"@misc{{{benchmark.slug.replace('-', '_')}_{year},\n"
        f"  title = {{{{{benchmark.name}}}: responses, expert votes and judge verdicts}},\n"
        f"  year = {{{year}}},\n"
        f"  note = {{Exported by Concord {CONCORD_VERSION}}}\n"
        "}"
    )
    body = [
        "",
        f"# {name}",
        "",
        benchmark.description.strip() or "Rubric-based evaluation of LLM responses.",
        "",
        "## Tables",
        "",
        "| configuration | file | rows | content |",
        "|---|---|---|---|",
        *(
            f"| `{t.name}` | `{t.directory}/{SHARD}` | {len(t.rows)} | {DESCRIPTIONS[t.name]} |"
            for t in tables
        ),
        "",
        "```python",
        "from datasets import load_dataset",
        'responses = load_dataset("parquet", data_dir="PATH")  # the default: responses',
        'votes = load_dataset("PATH", "votes")  # any table by its configuration',
        "```",
        "",
        "A vote or verdict `hit` is 1 when the response meets the criterion, 0 when it does "
        "not. Criteria are named by question_id, rubric version and position, and by a key "
        "that stays the same across versions.",
        "",
        "## Annotation: blinding and pay",
        "",
        *_blinding_and_pay(round_),
        "",
        "## Judge",
        "",
        *_judge(run),
        "",
        "## Licence",
        "",
        f"`{licence}`"
        + (" (set it with --license before publishing)." if licence == "other" else "."),
        "",
        "## Citation",
        "",
        "```bibtex",
        bibtex,
        "```",
        "",
    ]
    header = _header(tables, licence=licence, name=name)
    return "\n".join(header + body)
