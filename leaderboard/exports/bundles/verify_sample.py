"""The sample and the hand-out order of an evaluation's round, re-derived from its sampling
frame and seed (no Django): the items are those the frame marks sampled; each batch's items
(the opening, then each extension) have the ranks the seeded shuffle gives them, so an item
dropped or moved changes the order and is found; and a round sampled here draws again, from
the frame and the seed, exactly the items it holds."""

import json

from annotation.review_sampling import Unit, hand_out_order, stratified_sample
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import SAMPLE, Verification


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
