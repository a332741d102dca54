"""The corrected board of a bundle, recomputed from its files alone (no Django): the board's
verdicts (`verdicts.jsonl`), the rubrics and taxonomy, and the correcting round's items with
their recorded inclusion probabilities, its votes as they stood at publication and, for a
round sampled where the judge is unsure, every response's chance in its frame
(`corrected/`). The same code the site's corrected board runs (`leaderboard.corrected.
assemble`) decides which responses are labelled, each response's chance and weight, and
every number; the builder writes its result, the verifier compares it with what is claimed."""

import json
from collections import defaultdict

from leaderboard.corrected.assemble import (
    INCOMPLETE,
    NOT_ON_BOARD,
    OTHER_RUBRIC,
    PARTS,
    REFERENCE,
    board_numbers,
    design_probabilities,
    experts_case,
)
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import CORRECTED_SCORES, Verification, same, same_tree
from leaderboard.exports.bundles.verify_board import category, system_cases
from leaderboard.stats.ppi_quantities import ResponsePair

# annotation.review_sampling's designs, without importing Django.
BY_SYSTEM, UNCERTAINTY = "by_system", "uncertainty"
# The numbers checked against the recomputation, as the JSON names them.
CORRECTED_BY_COUNTS = ("sampled_responses", "labelled_responses", "not_labelled", "sampling")


def _probability(text) -> float | None:
    return None if text in (None, "") else float(text)


def _weight(probability: float | None, labelled: bool) -> float | None:
    """The inverse of the response's chance of being in its set (`ppi_quantities`)."""
    if probability is None:
        return None
    if labelled:
        return 1.0 / probability if 0 < probability <= 1 else None
    return 1.0 / (1.0 - probability) if 0 <= probability < 1 else None


def frame_chances(files: dict[str, bytes], keys) -> dict | None:
    """Each judged response's chance as the correcting round recorded it at the opening,
    drawn or not (the uncertainty design's frame carries every one), by (system, case): as
    the site reads `design_chances` (`corrected.inputs`). None when the frame carries none
    (a bundle written before it did): the items' own chances are read then."""
    known = {
        (row["system"], row["question_id"]): float(row["inclusion_probability"])
        for row in layout.read_csv(files.get(layout.CORRECTED_FRAME, b""))
        if row["inclusion_probability"] not in ("", None)
    }
    if not known:
        return None
    return {key: known.get(key) for key in keys}


def corrected_numbers(files: dict[str, bytes], rubrics, taxonomy, header: dict) -> dict:
    """The corrected board's "corrected_by" counts, "rows", "ranks" and "bias_test", and
    the weights used ("weights": rows of `CORRECTED_WEIGHT_FIELDS`), from the bundle's files.
    `header`: the board's profile, its round's raters per item and design, and the bias
    margin (as `corrected/board.json` records them)."""
    cases, _failed = system_cases(files, rubrics, taxonomy)
    versions = {
        (row["system"], row["question_id"]): int(row["rubric_version"])
        for row in layout.read_jsonl(files.get(layout.VERDICTS, b""))
        if row["status"] == "done"
    }
    items = layout.read_csv(files[layout.CORRECTED_ITEMS])
    counts: dict = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in layout.read_csv(files[layout.CORRECTED_VOTES]):
        tally = counts[(row["system"], row["question_id"])][int(row["criterion"])]
        tally[0] += 1
        tally[1] += row["hit"] == "1"
    by_system = header["design"] == BY_SYSTEM

    def group(system: str):
        return system if by_system else None

    by_key = {(row["system"], row["question_id"]): row for row in items}
    chances = design_probabilities(
        [
            (
                key,
                group(key[0]),
                _probability(row["inclusion_probability"]),
                row["reference"] == "1",
            )
            for key, row in by_key.items()
        ],
        {(system, case.case_id): group(system) for system, each in cases.items() for case in each},
    )
    if header["design"] == UNCERTAINTY:
        chances = frame_chances(files, chances.keys()) or chances
    full = int(header["raters_per_item"])
    pairs: dict[str, list[ResponsePair]] = {}
    not_labelled: dict[str, int] = defaultdict(int)
    labelled, seen, weights = 0, set(), []
    for system, each in cases.items():
        for case in each:
            key = (system, case.case_id)
            item, experts = by_key.get(key), None
            if item is not None:
                seen.add(key)
                frozen = int(item["rubric_version"])
                if item["reference"] == "1":
                    not_labelled[REFERENCE] += 1
                elif versions.get(key) != frozen:
                    not_labelled[OTHER_RUBRIC] += 1
                else:
                    rubric = rubrics[layout.rubric_key(case.case_id, frozen)]["rubric"]
                    criteria = [
                        (
                            position,
                            c["dimension"],
                            category(taxonomy, c["dimension"]),
                            c["score"],
                            bool(c["catastrophic"]),
                        )
                        for position, c in enumerate(rubric, start=1)
                    ]
                    found = {p: tuple(v) for p, v in counts.get(key, {}).items()}
                    experts = experts_case(case, criteria, found, full)
                    if experts is None:
                        not_labelled[INCOMPLETE] += 1
            pairs.setdefault(system, []).append(
                ResponsePair(judge=case, experts=experts, probability=chances[key])
            )
            labelled += experts is not None
            weight = _weight(chances[key], experts is not None)
            weights.append(
                [
                    system,
                    case.case_id,
                    int(experts is not None),
                    "" if chances[key] is None else chances[key],
                    "" if weight is None else weight,
                ]
            )
    if by_key.keys() - seen:
        not_labelled[NOT_ON_BOARD] = len(by_key.keys() - seen)
    numbers = board_numbers(pairs, header["profile"], bias_margin=float(header["margin"]))
    return {
        "corrected_by": {
            "sampled_responses": len(items),
            "labelled_responses": labelled,
            "not_labelled": dict(not_labelled),
            "sampling": {"design": header["design"], "weighted": numbers.pop("weighted")},
        },
        **numbers,
        "weights": weights,
    }


def claimed_header(record: dict) -> dict:
    corrected_by = record["corrected_by"]
    return {
        "profile": record["profile"],
        "raters_per_item": corrected_by["raters_per_item"],
        "design": corrected_by["sampling"]["design"],
        "margin": record["bias_test"]["margin"],
    }


def _fail(result: Verification, message: str, file: str = layout.CORRECTED) -> None:
    result.fail(CORRECTED_SCORES, file, message)


def _compare_entry(system: str, what: str, claimed, recomputed: dict, result) -> None:
    if not isinstance(claimed, dict):
        _fail(result, f"{system}: {what} is missing")
        return
    for key, value in recomputed.items():
        if not same_tree(claimed.get(key), value):
            _fail(
                result,
                f"{system}: {what} {key} {claimed.get(key)!r} is claimed, {value!r} is "
                f"recomputed from {layout.CORRECTED_VOTES}, the chances and {layout.VERDICTS}",
            )


def _compare_rows(claimed_rows: list, rows: list, result: Verification) -> None:
    claimed = {row.get("system"): row for row in claimed_rows}
    if [row.get("system") for row in claimed_rows] != [row["system"] for row in rows]:
        _fail(
            result,
            f"the systems in order {[r.get('system') for r in claimed_rows]} are claimed, "
            f"{[r['system'] for r in rows]} are recomputed",
        )
    for row in rows:
        system = row["system"]
        mine = claimed.get(system)
        if mine is None:
            continue
        _compare_entry(system, "overall", mine.get("overall"), row["overall"], result)
        for part in PARTS:
            groups = mine.get(part) if isinstance(mine.get(part), dict) else {}
            for name in sorted(set(groups) - set(row[part])):
                _fail(result, f"{system}: {part} {name} is claimed and not recomputed")
            for name, entry in row[part].items():
                _compare_entry(system, f"{part} {name}", groups.get(name), entry, result)
        for key in ("rank_low", "rank_high"):
            if mine.get(key) != row[key]:
                _fail(result, f"{system}: {key} {mine.get(key)!r} is claimed, {row[key]!r}")


def check_corrected(files: dict[str, bytes], rubrics, taxonomy, result: Verification) -> None:
    board = json.loads(files[layout.BOARD_JSON])
    if layout.CORRECTED not in files:
        if board.get("corrected_by"):
            _fail(result, f"the board names its correcting round {board['corrected_by']!r}, "
                  "and the bundle has no corrected board")  # fmt: skip
            return
        result.skip(
            CORRECTED_SCORES,
            "the board was published without a correcting round: there are no corrected "
            "scores to recompute",
        )
        return
    record = json.loads(files[layout.CORRECTED])
    if record.get("corrected_by", {}).get("round") != board.get("corrected_by"):
        _fail(result, "names another correcting round than board.json")
    recomputed = corrected_numbers(files, rubrics, taxonomy, claimed_header(record))
    for key in CORRECTED_BY_COUNTS:
        claimed = record["corrected_by"].get(key)
        if not same_tree(claimed, recomputed["corrected_by"][key]):
            _fail(
                result,
                f"corrected_by {key} {claimed!r} is claimed, "
                f"{recomputed['corrected_by'][key]!r} is recomputed",
            )
    _compare_rows(record.get("rows") or [], recomputed["rows"], result)
    for block in ("ranks", "bias_test"):
        if not same_tree(record.get(block), recomputed[block]):
            differ = sorted(
                key
                for key in set(record.get(block) or {}) | set(recomputed[block])
                if not same_tree((record.get(block) or {}).get(key), recomputed[block].get(key))
            )
            _fail(result, f"{block} differs from the recomputed one: {', '.join(differ)}")
    written = [
        [row[f] for f in layout.CORRECTED_WEIGHT_FIELDS]
        for row in layout.read_csv(files.get(layout.CORRECTED_WEIGHTS, b""))
    ]
    expected = [[str(v) for v in row] for row in recomputed["weights"]]
    for message in _differing_rows(written, expected):
        _fail(result, message, layout.CORRECTED_WEIGHTS)
    result.ran_check(
        CORRECTED_SCORES,
        f"corrected board of {len(recomputed['rows'])} systems recomputed from "
        f"{recomputed['corrected_by']['labelled_responses']} labelled responses of round "
        f"{record['corrected_by'].get('round')!r}",
    )


def _same_cell(x: str, y: str) -> bool:
    if x == y:
        return True
    try:
        return same(float(x), float(y))
    except ValueError:
        return False


def _differing_rows(written: list, expected: list, most: int = 10) -> list[str]:
    """What differs between the weights written and those the design gives, each row named
    by its system and case (at most `most` of them, then how many more)."""
    if len(written) != len(expected):
        return [
            f"{len(written)} responses' chances and weights are written, the design gives "
            f"{len(expected)}"
        ]
    found = []
    for mine, theirs in zip(written, expected, strict=True):
        for name, x, y in zip(layout.CORRECTED_WEIGHT_FIELDS, mine, theirs, strict=True):
            if not _same_cell(x, y):
                found.append(
                    f"{mine[0]} {mine[1]}: {name} {x!r} is written, {y!r} is given by the "
                    f"design's chances ({layout.CORRECTED_FRAME}, {layout.CORRECTED_ITEMS})"
                )
    if len(found) > most:
        found = [*found[:most], f"and {len(found) - most} more differences"]
    return found
