"""A case without a scene has one label everywhere: the empty string in machine-readable
outputs (as the leaderboard's scenes and the exports have it) and "(no scene label)" in
the reader's language on pages and in the PDF."""

from django.utils import translation

from leaderboard.report.agreement import GateRule, Unit, agreement_report
from leaderboard.report.wording import group_label


def unit(response: int, scenario: str, judge: bool) -> Unit:
    votes = (("a", True), ("b", True), ("c", False))
    return Unit(
        response, f"q{response}", 1, "情绪感知", "Empathy", "normal", scenario, "S", judge, votes
    )


def test_the_agreement_breakdown_names_a_case_without_scene_as_the_leaderboard_does():
    units = [unit(1, "职场心理 / 工作压力", True), unit(2, "", True), unit(3, "", False)]
    report = agreement_report(units, threshold=0.75, rule=GateRule("point"), resamples=10)
    assert set(report.by_scenario) == {"", "职场心理 / 工作压力"}
    assert report.by_scenario[""]["units"] == 2


def test_pages_name_it_in_the_readers_language():
    with translation.override("en"):
        assert group_label("", "scenario") == "(no scene label)"
    with translation.override("zh-hans"):
        assert group_label("", "scenario") == "（无场景标签）"
    assert group_label("职场心理", "scenario") == "职场心理"
