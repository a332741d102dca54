"""T9: items dropped from a round are found from the bundle alone. The bundle carries the
round's sampling frame and seed: the hand-out order is re-derived (an item dropped or moved
changes it), and a round sampled by Concord draws its sample again from the frame."""

import io
import json

import pytest
from django.core.management import call_command

from annotation.review_sampling import Unit, hand_out_order, stratified_sample
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import Verification
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.exports.bundles.verify_sample import check_sample
from leaderboard.models import LeaderboardSnapshot
from tests.leaderboard.bundle_tools import PREFIX, read_files, regenerate_report, write_files

PREFIX_1 = PREFIX.format(id=1)


def test_items_dropped_from_an_imported_round_change_its_hand_out_order(demo_loaded, db, tmp_path):
    snapshot = LeaderboardSnapshot.objects.get()
    path = tmp_path / "demo.zip"
    call_command("bundle", str(snapshot.pk), str(path))
    prefix = PREFIX.format(id=snapshot.gate_id)
    files = read_files(path.read_bytes())
    items = layout.read_csv(files[prefix + layout.ITEMS])
    dropped = {r["response"] for r in items[: len(items) * 3 // 10]}
    keys = {(r["question_id"], r["system"]) for r in items if r["response"] in dropped}
    kept = [r for r in items if r["response"] not in dropped]
    files[prefix + layout.ITEMS] = layout.csv_bytes(
        layout.ITEM_FIELDS, [[r[f] for f in layout.ITEM_FIELDS] for r in kept]
    )
    frame = layout.read_csv(files[prefix + layout.FRAME])
    files[prefix + layout.FRAME] = layout.csv_bytes(
        layout.FRAME_FIELDS,
        [[r[f] for f in layout.FRAME_FIELDS] for r in frame if r["response"] not in dropped],
    )
    votes = layout.read_csv(files[prefix + layout.VOTES])
    files[prefix + layout.VOTES] = layout.csv_bytes(
        layout.VOTE_FIELDS,
        [
            [r[f] for f in layout.VOTE_FIELDS]
            for r in votes
            if (r["question_id"], r["system"]) not in keys
        ],
    )
    regenerate_report(files, prefix, threshold=0.75)
    result = verify_bundle(io.BytesIO(write_files(files)))
    assert "sample" in result.failed()
    assert not result.failed() & {"agreement", "breakdowns", "sequential", "gate_decision"}


def sampled_round(n: int = 90, fraction: float = 0.3, seed: int = 20251) -> dict[str, bytes]:
    """A round's frame, items and sampling record as the bundle writes them, drawn as
    round_open draws: strata by difficulty, scene and system."""
    population = [
        (pk, ("hard" if pk % 3 == 0 else "normal", "职场" if pk % 2 else "家庭", 1 + pk % 2))
        for pk in range(1, n + 1)
    ]
    chosen = stratified_sample([Unit(pk, s) for pk, s in population], fraction=fraction, seed=seed)
    ranks = hand_out_order(chosen, seed=seed)
    frame = [
        [pk, f"q{pk}", f"S{s[2]}", s[2], s[0], s[1], int(pk in ranks), ""] for pk, s in population
    ]
    items = [[i, f"q{pk}", "S", 1, ranks[pk], pk] for i, pk in enumerate(sorted(ranks), start=1)]
    sampling = {
        "method": "stratified",
        "seed": seed,
        "batches": [{"start": 0, "seed": seed, "draw_seed": seed, "fraction": fraction}],
    }
    return {
        PREFIX_1 + layout.FRAME: layout.csv_bytes(layout.FRAME_FIELDS, frame),
        PREFIX_1 + layout.ITEMS: layout.csv_bytes(layout.ITEM_FIELDS, items),
        PREFIX_1 + layout.EVALUATION: json.dumps({"sampling": sampling}).encode(),
    }


def sample_result(files) -> Verification:
    result = Verification()
    check_sample(files, PREFIX_1, result)
    return result


def test_a_sampled_round_draws_its_items_again_from_the_frame():
    result = sample_result(sampled_round())
    assert result.ok and result.status("sample") == "pass"


def test_items_dropped_with_the_order_and_frame_rewritten_are_found_by_the_draw():
    """The forger drops 30% of the items, marks them unsampled in the frame and re-derives
    the hand-out order of the rest: the seeded draw from the frame still gives them."""
    files = sampled_round()
    items = layout.read_csv(files[PREFIX_1 + layout.ITEMS])
    kept = items[len(items) * 3 // 10 :]
    kept_ids = {int(r["response"]) for r in kept}
    order = hand_out_order(kept_ids, seed=20251)
    files[PREFIX_1 + layout.ITEMS] = layout.csv_bytes(
        layout.ITEM_FIELDS,
        [
            [r["item"], r["question_id"], r["system"], 1, order[int(r["response"])], r["response"]]
            for r in kept
        ],
    )
    frame = layout.read_csv(files[PREFIX_1 + layout.FRAME])
    for row in frame:
        row["sampled"] = "1" if int(row["response"]) in kept_ids else "0"
    files[PREFIX_1 + layout.FRAME] = layout.csv_bytes(
        layout.FRAME_FIELDS, [[r[f] for f in layout.FRAME_FIELDS] for r in frame]
    )
    result = sample_result(files)
    assert result.status("sample") == "fail"
    assert any("seeded draw" in p.message for p in result.problems)


def test_a_bundle_without_a_frame_fails_the_sample_check():
    files = sampled_round()
    del files[PREFIX_1 + layout.FRAME]
    assert sample_result(files).status("sample") == "fail"


def test_the_frame_of_a_round_opened_here_draws_its_items_again(demo_loaded, db):
    """The demo's open round was sampled by round_open: its frame is the population as it
    stood at the opening, and the draw from it gives the round's items again."""
    from annotation.models import ReviewItem, ReviewRound
    from leaderboard.exports.bundles.frame import frame_files

    round_ = ReviewRound.objects.get(name="Demo round")
    items = list(
        ReviewItem.objects.filter(round=round_).values_list("response_id", "hand_out_rank")
    )
    files, sampling = frame_files(round_, items, PREFIX_1)
    assert sampling["method"] == "stratified"
    rows = [[i, "q", "S", 1, rank, pk] for i, (pk, rank) in enumerate(items, start=1)]
    files[PREFIX_1 + layout.ITEMS] = layout.csv_bytes(layout.ITEM_FIELDS, rows)
    files[PREFIX_1 + layout.EVALUATION] = json.dumps({"sampling": sampling}).encode()
    result = sample_result(files)
    assert result.ok, result.problems
    frame = layout.read_csv(files[PREFIX_1 + layout.FRAME])
    assert len(frame) > len(items)  # the population, not only the items
    shares = [float(r["inclusion_probability"]) for r in frame]
    assert all(0 <= p <= 1 for p in shares) and sum(shares) == pytest.approx(len(items))
