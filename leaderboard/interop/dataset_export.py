"""A benchmark's evidence as a Hugging Face dataset: Parquet tables and a dataset card.

    OUT/data/test-00000-of-00001.parquet       responses (the default configuration)
    OUT/criteria/test-00000-of-00001.parquet   every rubric version's criteria
    OUT/votes/test-00000-of-00001.parquet      the round's votes, raters by pseudonym
    OUT/verdicts/test-00000-of-00001.parquet   the judge run's verdicts
    OUT/corrected/test-00000-of-00001.parquet  the corrected board (round and run)
    OUT/README.md                              the dataset card

`datasets.load_dataset("parquet", data_dir=OUT)` reads the responses (the `data/` shards are
what it looks for first); `load_dataset(OUT, "votes")` reads a table by the card's `configs`.
Parquet is written by fastparquet: the votes, verdicts and corrected tables are the CSV
exports' rows (leaderboard.exports), at full precision.
"""

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import fastparquet
import pandas as pd

from annotation.models import Criterion, Response, ReviewItem, ReviewRound
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard.corrected.export import CORRECTED_HEADER, corrected_rows
from leaderboard.exports.headers import VERDICTS_HEADER, VOTES_HEADER
from leaderboard.exports.tables import verdict_rows, votes_rows

SPLIT = "test"  # an evaluation set: nothing here is for training
SHARD = f"{SPLIT}-00000-of-00001.parquet"
DIRECTORIES = {
    "responses": "data",
    "criteria": "criteria",
    "votes": "votes",
    "verdicts": "verdicts",
    "corrected": "corrected",
}
RESPONSES_HEADER = (
    "benchmark",
    "question_id",
    "system",
    "system_kind",
    "difficulty",
    "primary_scene",
    "secondary_scene",
    "dialogue",
    "response",
    "failed_generation",
    "in_round",
)
CRITERIA_HEADER = (
    "benchmark",
    "question_id",
    "rubric_version",
    "criterion_position",
    "criterion_key",
    "criterion",
    "ability",
    "category",
    "weight",
    "is_catastrophic",
)


@dataclass
class Table:
    name: str
    header: Sequence[str]
    rows: list[list]
    dtypes: dict[str, str] = field(default_factory=dict)  # column -> Hugging Face dtype

    @property
    def directory(self) -> str:
        return DIRECTORIES[self.name]


def _responses(benchmark, round_: ReviewRound | None) -> list[list]:
    sampled = (
        set(ReviewItem.objects.filter(round=round_).values_list("response_id", flat=True))
        if round_ is not None
        else set()
    )
    rows = []
    for pk, *values, dialogue, text, failed in (
        Response.objects.filter(case__benchmark=benchmark)
        .order_by("case__position", "case__external_id", "system__name")
        .values_list(
            "pk",
            "case__external_id",
            "system__name",
            "system__kind",
            "case__difficulty",
            "case__scenario__primary",
            "case__scenario__secondary",
            "case__dialogue",
            "text",
            "failed_generation",
        )
    ):
        # The dialogue as JSON text: a list of {"role", "content"} turns.
        dialogue_text = json.dumps(dialogue, ensure_ascii=False)
        in_round = pk in sampled if round_ is not None else None
        rows.append([benchmark.slug, *values, dialogue_text, text, failed, in_round])
    return rows


def _criteria(benchmark) -> list[list]:
    return [
        [benchmark.slug, qid, version, position, str(key), text, ability, category, weight, cat]
        for qid, version, position, key, text, ability, category, weight, cat in (
            Criterion.objects.filter(rubric_version__case__benchmark=benchmark)
            .order_by(
                "rubric_version__case__position",
                "rubric_version__case__external_id",
                "rubric_version__number",
                "position",
            )
            .values_list(
                "rubric_version__case__external_id",
                "rubric_version__number",
                "position",
                "key",
                "text",
                "ability__label",
                "ability__category__name_en",
                "weight",
                "is_catastrophic",
            )
        )
    ]


def dataset_tables(*, benchmark, round_: ReviewRound | None, run: JudgeRun | None) -> list[Table]:
    """The tables of the dataset: responses and criteria always, votes with a round,
    verdicts with a run, the corrected board with both."""
    tables = [
        Table("responses", RESPONSES_HEADER, _responses(benchmark, round_)),
        Table("criteria", CRITERIA_HEADER, _criteria(benchmark)),
    ]
    if round_ is not None:
        tables.append(Table("votes", VOTES_HEADER, list(votes_rows(round_=round_))))
    if run is not None:
        tables.append(Table("verdicts", VERDICTS_HEADER, list(verdict_rows(run=run))))
    if round_ is not None and run is not None:
        rows = list(corrected_rows(round_=round_, run=run, profile=Profile.HEARTBENCH))
        tables.append(Table("corrected", CORRECTED_HEADER, rows))
    return tables


def _dtype(values: Iterable) -> str:
    """The Hugging Face dtype of a column: every non-null value decides it."""
    kinds = {type(value) for value in values if value is not None}
    if kinds == {bool}:
        return "bool"
    if kinds == {int}:
        return "int64"
    if kinds and kinds <= {int, float}:
        return "float64"
    return "string"


# Nullable types: a missing value is written as null, never as NaN or 0.
_PANDAS = {"bool": "boolean", "int64": "Int64", "float64": "Float64", "string": "object"}


def _frame(table: Table) -> pd.DataFrame:
    columns = {}
    for index, name in enumerate(table.header):
        values = [row[index] for row in table.rows]
        dtype = table.dtypes.setdefault(name, _dtype(values))
        if dtype == "string":
            values = [None if value is None else str(value) for value in values]
        columns[name] = pd.Series(values, dtype=_PANDAS[dtype])
    return pd.DataFrame(columns, columns=list(table.header))


def write_table(table: Table, out: Path) -> Path:
    """Write the table as the one Parquet shard of its directory under `out`."""
    folder = out / table.directory
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SHARD
    fastparquet.write(str(path), _frame(table), compression="SNAPPY", write_index=False)
    return path
