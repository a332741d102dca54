"""Judge selection's calibration → held-out view: each version derived from a round's
calibration part against its parent, on held-out items only (McNemar's exact test, a
bootstrap of whole responses, the cost per 1,000 responses), saying "improved", "no
detectable change" or "worse", and never crediting what it learned on the calibration
part."""

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from statsmodels.stats.contingency_tables import mcnemar

from annotation.models import ReviewItem
from judging.models import Verdict
from leaderboard.selection.calibration_comparison import held_out_comparison, verdict_of
from leaderboard.selection.choice import Agreeing
from leaderboard.selection.selectors.versions import judge_selection
from tests.conftest import client_for
from tests.leaderboard.test_calibration_guard import (  # noqa: F401 - the shared fixture
    bench,
    derive,
    finished_run,
    gold,
    open_round,
    parent_verdict,
    parent_version,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def loop(bench):  # noqa: F811
    """Round R split in half; parent J v1 and three versions derived from R's calibration
    part: v2 right everywhere (improves), v3 wrong everywhere (worse), v4 right on the
    calibration items only and the parent's twin on the held-out ones."""
    benchmark = bench[0]
    round_ = open_round(bench, "R", 0.5)
    calibration = set(
        ReviewItem.objects.filter(round=round_, part="calibration").values_list(
            "response_id", flat=True
        )
    )
    parent = parent_version()
    finished_run(parent, benchmark, parent_verdict)
    behaviours = {
        0.2: gold,
        0.4: lambda r, c: not gold(r, c),
        0.6: lambda r, c: gold(r, c) if r in calibration else parent_verdict(r, c),
    }
    for temperature, verdict in behaviours.items():
        finished_run(derive(parent, round_, temperature), benchmark, verdict)
    return round_, calibration


def test_each_derived_version_against_its_parent_on_held_out_items(loop):
    round_, calibration = loop
    result = judge_selection(round_=round_, resamples=300)
    entries = {entry["derived"]: entry for entry in result["calibration_to_held_out"]}
    assert sorted(entries) == ["J v2", "J v3", "J v4"]
    assert {entry["parent"] for entry in entries.values()} == {"J v1"}
    verdicts = {label: entry["verdict"] for label, entry in entries.items()}
    # v4 is perfect on the calibration items it was built from and the parent's twin on the
    # rest: nothing to credit.
    assert verdicts == {"J v2": "improved", "J v3": "worse", "J v4": "no_detectable_change"}
    assert entries["J v2"]["verdict_text"] == "improved"
    assert entries["J v4"]["verdict_text"] == "no detectable change"
    for entry in entries.values():
        comparison = entry["comparison"]
        assert comparison["units"] == 48 and comparison["responses"] == 12
        assert entry["excluded"] == {"calibration": 48}
        assert comparison["clusters"] == "response"
        assert set(entry["cost_per_1000"]) == {"derived", "parent"}
    twin = entries["J v4"]["comparison"]
    assert (twin["parent_right_only"], twin["derived_right_only"]) == (0, 0)
    assert twin["difference"]["value"] == 0.0

    # The parent's held-out agreement, computed here from the stored verdicts.
    held_out = [
        (response, criterion, hit)
        for response, criterion, hit in Verdict.objects.filter(
            task__run__judge_version__number=1
        ).values_list("task__response_id", "criterion_id", "hit")
        if response not in calibration
    ]
    parent_right = sum(hit == gold(r, c) for r, c, hit in held_out) / len(held_out)
    better = entries["J v2"]["comparison"]
    assert better["difference"]["value"] == pytest.approx(1.0 - parent_right)
    low, high = better["difference_95"]["low"], better["difference_95"]["high"]
    assert 0 < low <= 1.0 - parent_right <= high


def test_mcnemar_equals_statsmodels_and_the_verdict_follows_it():
    rng = np.random.default_rng(3)
    parent, derived = {}, {}
    for response in range(30):
        for criterion in range(4):
            key = (response, criterion)
            parent[key] = Agreeing(bool(rng.random() < 0.7), f"c{response}")
            derived[key] = Agreeing(bool(rng.random() < 0.85), f"c{response}")
    calibration = set(range(10))
    result = held_out_comparison(parent, derived, calibration=calibration, resamples=200)
    kept = [key for key in parent if key[0] not in calibration]
    b = sum(parent[k].agrees and not derived[k].agrees for k in kept)
    c = sum(derived[k].agrees and not parent[k].agrees for k in kept)
    assert (result["units"], result["parent_right_only"], result["derived_right_only"]) == (
        80,
        b,
        c,
    )
    reference = mcnemar([[0, b], [c, 0]], exact=True).pvalue
    assert result["mcnemar_p"]["value"] == pytest.approx(reference, rel=1e-9)
    assert verdict_of(0.1, 0.01) == "improved" and verdict_of(-0.1, 0.01) == "worse"
    assert verdict_of(0.1, 0.2) == "no_detectable_change"
    assert verdict_of(0.0, None) == "no_detectable_change"


def test_the_command_and_the_page_say_it_in_words(loop, researcher):
    round_, _calibration = loop
    out = StringIO()
    call_command("judge_selection", "--round=R", "--resamples=100", "--json", stdout=out)
    entries = json.loads(out.getvalue())["calibration_to_held_out"]
    assert [(e["derived"], e["verdict"]) for e in entries] == [
        ("J v2", "improved"),
        ("J v3", "worse"),
        ("J v4", "no_detectable_change"),
    ]
    text = StringIO()
    call_command("judge_selection", "--round=R", "--resamples=100", stdout=text)
    lines = text.getvalue()
    assert "J v2 vs J v1: improved on 48 held-out units" in lines
    assert "J v3 vs J v1: worse" in lines and "J v4 vs J v1: no detectable change" in lines
    assert "better" not in lines.split("calibration -> held-out")[1]
    url = reverse("judge-selection", args=["hb"]) + f"?round={round_.pk}"
    page = client_for(researcher).get(url).content.decode()
    assert 'id="calibration-to-held-out"' in page
    assert 'data-derived="J v2"' in page and "verdict-improved" in page
    assert "verdict-worse" in page and "verdict-no_detectable_change" in page
    zh = client_for(researcher).get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.status_code == 200 and 'id="calibration-to-held-out"' in zh.content.decode()
