"""Importer fuzzing: arbitrary bytes and mutated valid files, fed to each importer, end in
either a successful import or the importers' own ImportRejected, never in another
exception, and a rejected file leaves every table exactly as it was."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.importing.issues import ImportRejected
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.votes_import import votes_import
from judging.services.judgments_import import judgments_import
from tests.conftest import jsonl_bytes, lines, question, table_counts
from tests.security.hostile import KINDS, hostile, repeatable

CASES = ("c00", "c01", "c02")
SYSTEMS = ("Alpha", "Beta")


@pytest.fixture
def benchmark(db):
    """The benchmark "hb" with three cases and both systems' answers."""
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in CASES])), benchmark_slug="hb")
    for name in SYSTEMS:
        answers = [{"question_id": q, "response": f"{name} 回答 {q}"} for q in CASES]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name=name)


VALID = {
    "benchmark": jsonl_bytes(
        [question(q) for q in CASES]
        + [question("c09", dialogue=[{"role": "A", "content": "新的问题"}])]
    ),
    "responses": jsonl_bytes([{"question_id": q, "response": f"Gamma 回答 {q}"} for q in CASES]),
    "judgments": jsonl_bytes(
        [{"question_id": q, "score_detail": [1, 0, 1, 0], "score_reason": "理由"} for q in CASES]
    ),
    "votes": (
        "rater,question_id,system,criterion,hit,note\n"
        + "".join(
            f"{rater},{q},Alpha,{c},{(c + i) % 2},备注\n"
            for i, rater in enumerate(("ann", "bob", "cat"))
            for q in CASES
            for c in range(1, 5)
        )
    ).encode("utf-8"),
}

IMPORTERS = {
    "benchmark": lambda chunks: benchmark_import(chunks=chunks, benchmark_slug="hb"),
    "responses": lambda chunks: responses_import(
        chunks=chunks, benchmark_slug="hb", system_name="Gamma"
    ),
    "judgments": lambda chunks: judgments_import(
        chunks=chunks, benchmark_slug="hb", system_name="Alpha", judge_name="fuzz-judge"
    ),
    "votes": lambda chunks: votes_import(chunks=chunks, round_name="外部评审", benchmark_slug="hb"),
}


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """The valid file with a few edits: bytes flipped, inserted or removed, a line
    duplicated or dropped, or the file cut short."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "dup", "drop", "cut"]))
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        if kind == "flip" and out:
            out[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            noise = draw(
                st.sampled_from(
                    [
                        b'"',
                        b",",
                        b"\n",
                        b"{",
                        b"]",
                        b"\xff",
                        b"\x00",
                        "中".encode(),
                        b"null",
                        b"-1",
                        b"1e309",
                        b"\\u0000",
                    ]
                )
            )
            out[at:at] = noise
        elif kind == "delete":
            del out[at : at + draw(st.integers(1, 20))]
        elif kind in ("dup", "drop"):
            rows = bytes(out).splitlines(keepends=True)
            if rows:
                i = draw(st.integers(0, len(rows) - 1))
                rows[i : i + 1] = [rows[i], rows[i]] if kind == "dup" else []
                out = bytearray(b"".join(rows))
        elif kind == "cut":
            del out[at:]
    return bytes(out)


def inputs(name: str):
    return st.one_of(st.binary(max_size=2000), mutated(VALID[name]))


def check_importer(name: str, examples: int) -> dict[str, int]:
    outcomes = {"imported": 0, "rejected": 0}

    @repeatable(examples)
    @given(data=inputs(name))
    def run(data: bytes):
        before = table_counts()
        try:
            IMPORTERS[name](lines(data))
        except ImportRejected as rejected:
            assert rejected.errors and str(rejected), "a rejection names what is wrong"
            assert table_counts() == before, "a rejected file wrote something"
            outcomes["rejected"] += 1
        else:
            outcomes["imported"] += 1

    run()
    return outcomes


@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_importer_survives_fuzzing(benchmark, name):
    # The valid file itself imports: the mutations start from something that works.
    before = table_counts()
    IMPORTERS[name](lines(VALID[name]))
    assert table_counts() != before
    outcomes = check_importer(name, examples=120)
    assert outcomes["rejected"] > 0


NUL_FILES = {
    # PostgreSQL cannot store NUL in text: each importer must refuse it as a file error.
    "benchmark": jsonl_bytes(
        [question("c00", rubric=[{"dimension": "其他", "score": 1, "content": "a\x00b"}])]
    ),
    "responses": jsonl_bytes([{"question_id": "c00", "response": "回答\x00"}]),
    "judgments": jsonl_bytes(
        [{"question_id": "c00", "score_detail": [1, 0, 1, 0], "score_reason": "\x00"}]
    ),
    "votes": b"rater,question_id,system,criterion,hit,note\nann,c00,Alpha,1,1,x\x00y\n",
}


@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_a_nul_character_is_a_located_error(benchmark, name):
    before = table_counts()
    with pytest.raises(ImportRejected) as rejected:
        IMPORTERS[name](lines(NUL_FILES[name]))
    assert "NUL" in str(rejected.value) and "line" in str(rejected.value)
    assert table_counts() == before


# --- hostile values in every field --------------------------------------------------------


def _leaves(value, path=()):
    """Paths to every string and number of a parsed row (keys included: ("key", path))."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield ("key", (*path, key))
            yield from _leaves(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _leaves(child, (*path, index))
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        yield ("value", path)


def _put(row, target, replacement):
    kind, path = target
    *parents, last = path
    node = row
    for step in parents:
        node = node[step]
    if kind == "key":
        node[replacement] = node.pop(last)
    else:
        node[last] = replacement


MARKER = "\x01hostile\x01"


@st.composite
def hostile_json_file(draw, data: bytes, kind: str) -> bytes:
    """A valid JSON Lines file with one field (or one key) of one row made hostile."""
    rows = [json.loads(line) for line in data.splitlines()]
    index = draw(st.integers(0, len(rows) - 1))
    row = rows[index]
    target = draw(st.sampled_from(list(_leaves(row))))
    value = draw(hostile(kind))
    raw = kind == "deep" or (kind == "long" and draw(st.booleans()) and target[0] == "value")
    if raw and kind == "long":
        value = "9" * len(value)  # a number too long to read, not a string
    _put(row, target, MARKER if raw else value)
    # A surrogate travels as its JSON escape ("\ud800"); UTF-8 cannot carry it.
    text = json.dumps(row, ensure_ascii=kind == "surrogate" or draw(st.booleans()))
    if raw:
        text = text.replace(json.dumps(MARKER), value)
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    lines[index] = text
    return "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n"


@st.composite
def hostile_csv_file(draw, data: bytes, kind: str) -> bytes:
    """The valid votes file with one cell (or a header name) made hostile; a surrogate goes
    as the bytes a careless encoder writes for it."""
    rows = [line.split(",") for line in data.decode("utf-8").splitlines()]
    row = draw(st.integers(0, len(rows) - 1))
    column = draw(st.integers(0, len(rows[row]) - 1))
    rows[row][column] = draw(hostile(kind)).replace(",", "").replace('"', "")
    text = "\n".join(",".join(cells) for cells in rows) + "\n"
    return text.encode("utf-8", "surrogatepass")


def hostile_file(name: str, kind: str):
    if name == "votes":
        return hostile_csv_file(VALID[name], kind)
    return hostile_json_file(VALID[name], kind)


def check_hostile(name: str, kind: str, examples: int) -> dict[str, int]:
    outcomes = {"imported": 0, "rejected": 0}

    @repeatable(examples)
    @given(data=hostile_file(name, kind))
    def run(data: bytes):
        before = table_counts()
        try:
            IMPORTERS[name](lines(data))
        except ImportRejected as rejected:
            assert rejected.errors and str(rejected), "a rejection names what is wrong"
            assert all(issue.line or issue.field == "" for issue in rejected.errors)
            assert table_counts() == before, "a rejected file wrote something"
            outcomes["rejected"] += 1
        else:
            outcomes["imported"] += 1

    run()
    return outcomes


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_importer_survives_hostile_fields(benchmark, name, kind):
    """Every field (and key) of every row can hold a NUL, a lone surrogate, 5,000 or more
    characters (or digits) or brackets nested 100,000 deep: the importer imports the file or
    rejects it naming the line, and never raises anything else."""
    outcomes = check_hostile(name, kind, examples=40)
    if kind in ("nul", "deep"):
        # Nothing in any format can hold these: most such files are refused.
        assert outcomes["rejected"] > outcomes["imported"], outcomes
