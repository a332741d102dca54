"""The sample and the hand-out order of an evaluation's round, re-derived from its sampling
frame and seed (no Django): the items are those the frame marks sampled; each batch's items
(the opening, then each extension) have the ranks the seeded shuffle gives them, so an item
dropped or moved changes the order and is found; and a round sampled here draws again, from
the frame and the seed, exactly the items it holds. A round sampled where the judge is unsure
draws each response on its own with the chance its frame records (Poisson sampling): the
draw is repeated from those chances and the seed, and each item's recorded probability is
its response's chance in the frame. The correcting round of a corrected board is checked
the same way from `corrected/` (its frame marks exactly its items; a Poisson draw is
repeated)."""

import json

from annotation.review_sampling import Unit, hand_out_order, poisson_sample, stratified_sample
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import SAMPLE, Verification, same

POISSON = "poisson"  # frame.py's method of a round drawn with each response's own chance


def check_sample(files: dict[str, bytes], prefix: str, result: Verification) -> None:
    where = prefix + layout.FRAME
    sampling = json.loads(files[prefix + layout.EVALUATION]).get("sampling")
    if not isinstance(sampling, dict) or where not in files:
        result.fail(
            SAMPLE, where, "the bundle has no sampling frame: the sample cannot be re-derived"
        )
        return
    items = layout.read_csv(files[prefix + layout.ITEMS])
    frame = layout.read_csv(files[where])
    ranks = {int(row["response"]): int(row["hand_out_rank"]) for row in items}
    marked = {int(row["response"]) for row in frame if row["sampled"] == "1"}
    if marked != set(ranks):
        result.fail(
            SAMPLE,
            where,
            f"the frame marks {len(marked)} responses sampled, the round holds {len(ranks)}: "
            f"{len(marked - set(ranks))} sampled items are missing from {layout.ITEMS}",
        )
    batches = sorted(sampling.get("batches") or [{"start": 0}], key=lambda b: b["start"])
    ends = [b["start"] for b in batches[1:]] + [None]
    moved = 0
    for batch, end in zip(batches, ends, strict=True):
        ids = [
            r for r, rank in ranks.items() if rank >= batch["start"] and (end is None or rank < end)
        ]
        order = hand_out_order(
            ids, seed=int(batch.get("seed", sampling.get("seed"))), start=batch["start"]
        )
        moved += sum(1 for r in ids if order[r] != ranks[r])
    if moved:
        result.fail(
            SAMPLE,
            prefix + layout.ITEMS,
            f"{moved} items are not where the seeded hand-out order puts them: items were "
            "dropped, added or moved",
        )
    if sampling.get("method") == "stratified":
        _check_draw(frame, ranks, batches, result, where)
    if sampling.get("method") == POISSON:
        recorded = {int(row["response"]): row["inclusion_probability"] for row in items}
        check_poisson(frame, recorded, batches[0], result, where)
    result.ran_check(
        SAMPLE,
        f"sample and hand-out order of {len(ranks)} items re-derived from the frame "
        f"({sampling.get('method')}, seed {sampling.get('seed')})",
    )


def _check_draw(frame, ranks, batches, result: Verification, where: str) -> None:
    first = batches[0]
    end = batches[1]["start"] if len(batches) > 1 else None
    held = {r for r, rank in ranks.items() if end is None or rank < end}
    units = [
        Unit(int(row["response"]), (row["difficulty"], row["primary_scene"], int(row["system_id"])))
        for row in frame
    ]
    drawn = set(
        stratified_sample(units, fraction=float(first["fraction"]), seed=int(first["draw_seed"]))
    )
    if drawn != held:
        result.fail(
            SAMPLE,
            where,
            f"the seeded draw from the frame gives {len(drawn)} items, {len(drawn - held)} of "
            f"them not in the round, which holds {len(held - drawn)} it does not give",
        )


def check_poisson(frame, recorded: dict, batch: dict, result: Verification, where: str) -> bool:
    """The items are the responses the seeded Poisson draw gives from the frame's chances,
    and each item's recorded probability (`recorded`, by response) is its chance there.
    True when both hold."""
    chances = {int(row["response"]): float(row["inclusion_probability"]) for row in frame}
    ok = True
    for response in sorted(recorded):
        if response not in chances:
            continue  # the frame's sampled marks already name an item outside it
        claimed = recorded[response]
        if claimed in (None, "") or not same(float(claimed), chances[response]):
            result.fail(
                SAMPLE,
                where,
                f"response {response}: its item records the chance {claimed!r}, the frame "
                f"{chances[response]!r}",
            )
            ok = False
    seed = int(batch.get("draw_seed", batch.get("seed")))
    drawn = set(poisson_sample(chances, seed=seed))
    held = set(recorded)
    if drawn != held:
        result.fail(
            SAMPLE,
            where,
            f"the seeded Poisson draw from the frame's chances (seed {seed}) gives "
            f"{len(drawn)} items, {len(drawn - held)} of them not in the round, which holds "
            f"{len(held - drawn)} it does not give: responses {sorted(drawn ^ held)[:10]}",
        )
        ok = False
    return ok


def check_corrected_sample(files: dict[str, bytes], result: Verification) -> None:
    """The correcting round's frame marks exactly its items, and a Poisson draw is repeated
    from the frame's chances; nothing to check for a board without a correcting round."""
    if layout.CORRECTED not in files:
        return
    where = layout.CORRECTED_FRAME
    sampling = (json.loads(files[layout.CORRECTED]).get("corrected_by") or {}).get("sampling_frame")
    if not isinstance(sampling, dict) or where not in files:
        result.fail(SAMPLE, where, "the bundle has no sampling frame of the correcting round")
        return
    frame = layout.read_csv(files[where])
    recorded = {
        int(row["response"]): row["inclusion_probability"]
        for row in layout.read_csv(files[layout.CORRECTED_ITEMS])
    }
    marked = {int(row["response"]) for row in frame if row["sampled"] == "1"}
    if marked != set(recorded):
        result.fail(
            SAMPLE,
            where,
            f"the frame marks {len(marked)} responses sampled, the correcting round holds "
            f"{len(recorded)}: responses {sorted(marked ^ set(recorded))[:10]} differ from "
            f"{layout.CORRECTED_ITEMS}",
        )
    if sampling.get("method") != POISSON:
        result.ran_check(
            SAMPLE, f"the correcting round's {len(recorded)} items are those its frame marks"
        )
        return
    batch = (sampling.get("batches") or [{"seed": sampling.get("seed")}])[0]
    check_poisson(frame, recorded, batch, result, where)
    result.ran_check(
        SAMPLE,
        f"Poisson draw of the correcting round's {len(recorded)} items re-derived from "
        f"{where} (seed {batch.get('draw_seed', batch.get('seed'))})",
    )
