"""The methods section from a real round: `methods --json` states the agreement report's own
numbers under its keys, the text says them in both languages, the raters' expertise and pay
come from their profiles and the round, a published board's bundle hash is cited, and the
agreement page opens the paragraph in a field to copy."""

import html
import json
import re
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import ExpertProfile, ReviewRound
from judging.models import JudgeRun
from leaderboard.exports.bundles.citation import bundle_hash
from leaderboard.methods.facts import REPORT_KEYS
from leaderboard.methods.writer import coefficient, percent, percent_range
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.django_db

HEADER_KEYS = ("benchmark", "round", "judge_run", "judge_runs", "judge_version", "coverage")


def printed(capsys, *args) -> dict:
    capsys.readouterr()
    call_command(*args)
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("chosen", [("--judge", "judge"), ("--judge-run", "latest")])
def test_methods_json_carries_the_reports_numbers_under_its_keys(data, capsys, chosen):  # noqa: F811
    where = ("--benchmark", "hb", "--round", "R", *chosen)
    report = printed(capsys, "agreement_report", *where)
    methods = printed(capsys, "methods", *where, "--json")
    for key in ("percent_agreement", "cohen_kappa", "units", "wilson_95", "bootstrap_95"):
        assert key in REPORT_KEYS
    for key in ("humans", "gate", "excluded", "bootstrap", *REPORT_KEYS, *HEADER_KEYS):
        assert methods[key] == report[key], key
    assert methods["units"] == 8 and methods["percent_agreement"] == 0.75
    assert methods["concord_version"] in report["produced_by"]
    assert methods["citations"][0].startswith("Wilson, E. B. (1927)")
    # The text states those numbers, as the pages write them.
    text = methods["text"]
    for value in (
        percent(report["percent_agreement"]),
        percent_range(report["wilson_95"]),
        percent_range(report["bootstrap_95"]),
        coefficient(report["cohen_kappa"]),
        coefficient(report["humans"]["fleiss_kappa"]),
        coefficient(report["humans"]["krippendorff_alpha"]),
        coefficient(report["humans"]["gwet_ac1"]),
        f"of {report['units']} units",
        report["judge_version"]["fingerprint"],
    ):
        assert value in text, value


def test_the_text_is_in_both_languages_and_both_formats(data, capsys):  # noqa: F811
    where = ("--benchmark", "hb", "--round", "R", "--judge", "judge")
    capsys.readouterr()
    call_command("methods", *where)
    english = capsys.readouterr().out
    call_command("methods", *where, "--lang", "zh-hans")
    chinese = capsys.readouterr().out
    call_command("methods", *where, "--lang", "zh-hans", "--format", "tex")
    latex = capsys.readouterr().out
    assert english.startswith("## Methods") and "**Raters.** 3 experts rated" in english
    assert "Outcome: the gate passed." in english and "Concord 0.3.0" in english
    assert "The leaderboard is not published." in english
    assert "## 方法" in chinese and "3 名专家" in chinese and "结果：通过门槛。" in chinese
    assert "一致的比例为 75.0%" in chinese and "Cohen κ 为 0.47" in chinese
    assert latex.startswith("\\section*{方法}") and "75.0\\%" in latex
    assert "Its verdicts were imported from a file" in english  # the judge was imported


def test_raters_expertise_and_pay_come_from_their_profiles_and_the_round(data, capsys):  # noqa: F811
    round_, _run = data
    ReviewRound.objects.filter(pk=round_.pk).update(rate_per_item=Decimal("8.50"))
    experts = sorted(round_.experts.all(), key=lambda user: user.username)
    recorded = [
        (["职场心理", "亲密关系"], True, None),
        (["职场心理"], True, Decimal("9")),
        ([], False, None),
    ]
    for expert, (specialities, calibrated, rate) in zip(experts, recorded, strict=True):
        ExpertProfile.objects.update_or_create(
            user=expert,
            defaults={
                "specialities": specialities,
                "calibrated": calibrated,
                "rate_per_item": rate,
            },
        )
    methods = printed(capsys, "methods", "--benchmark", "hb", "--round", "R", "--json")
    assert methods["raters"] == {
        "count": 3,
        "raters_per_item": 3,
        "specialities": [["职场心理", 2], ["亲密关系", 1]],
        "without_speciality": 1,
        "calibrated": 2,
        "rate_per_item": "8.50",
        "own_rates": 1,
    }
    text = methods["text"]
    assert (
        "Their specialities, as recorded in their expert profiles: 职场心理 (2), 亲密关系 (1)."
        in text
    )
    assert "No speciality is recorded for 1 of them." in text
    assert "a piece rate of 8.50 per item rated, 1 of them at a rate of their own." in text
    assert methods["sample"]["systems"] == ["Sys"] and methods["sample"]["fraction"] == 1.0
    assert (
        "The round drew 100.0% of the responses of Sys" in text
        and not methods["sample"]["imported"]
    )
    assert "random permutation seeded with 20251" in text


def test_a_published_board_is_cited_by_its_bundle_hash(data, coordinator, capsys):  # noqa: F811
    call_command("gate", "--benchmark", "hb", "--round", "R", "--record")
    call_command("publish", "--benchmark", "hb", "--judge", "judge", "--user", coordinator.username)
    snapshot = LeaderboardSnapshot.objects.get()
    methods = printed(capsys, "methods", "--benchmark", "hb", "--round", "R", "--json")
    expected = bundle_hash(snapshot)
    assert re.fullmatch(r"[0-9a-f]{64}", expected)
    assert methods["bundle"] == {"snapshot": snapshot.pk, "sha256": expected}
    assert (
        f"#{snapshot.pk} is archived as an evidence bundle with SHA-256 {expected}"
        in (methods["text"])
    )


def test_the_command_refuses_what_it_cannot_write(data):  # noqa: F811
    with pytest.raises(CommandError, match="No review round nope"):
        call_command("methods", "--benchmark", "hb", "--round", "nope")
    with pytest.raises(CommandError, match="no benchmark with slug 'zz'"):
        call_command("methods", "--benchmark", "zz", "--round", "R")
    with pytest.raises(CommandError, match="invalid choice: 'fr'"):
        call_command("methods", "--benchmark", "hb", "--round", "R", "--lang", "fr")


def _textarea(page) -> str:
    body = page.content.decode()
    found = re.search(r'<textarea id="methods-text"[^>]*>(.*?)</textarea>', body, re.S)
    assert found, body
    return html.unescape(found.group(1))


def test_the_agreement_page_opens_the_paragraph_to_copy(data, researcher, expert, capsys):  # noqa: F811
    round_, _run = data
    client = client_for(researcher)
    agreement = client.get(
        reverse("agreement", args=["hb"]), {"round": round_.pk, "judge": "judge"}
    )
    link = re.search(r'id="methods-link" href="([^"]+)"', agreement.content.decode())
    assert link, "the agreement page links to the methods paragraph"
    url = html.unescape(link.group(1))
    assert url.startswith(reverse("agreement-methods", args=["hb"]))
    page = client.get(url + "&lang=en&format=md")
    assert page.status_code == 200
    capsys.readouterr()
    call_command("methods", "--benchmark", "hb", "--round", str(round_.pk), "--judge", "judge")
    assert _textarea(page) == capsys.readouterr().out
    assert 'data-copy-target="methods-text"' in page.content.decode()
    assert "concord/copy.js" in page.content.decode()
    latex = client.get(url + "&lang=zh-hans&format=tex")
    assert _textarea(latex).startswith("\\section*{方法}")
    # By default in the reader's language.
    assert _textarea(client.get(url)).startswith("## Methods")
    client.cookies["django_language"] = "zh-hans"
    chinese = client.get(url)
    assert _textarea(chinese).startswith("## 方法")
    assert client_for(expert).get(url).status_code == 403


def test_the_page_names_a_bad_choice_and_a_missing_round(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    url = reverse("agreement-methods", args=["hb"])
    bad = client.get(url, {"round": round_.pk, "run": run.pk, "lang": "fr"})
    assert bad.status_code == 400
    assert "English or Simplified Chinese, not “fr”" in html.unescape(bad.content.decode())
    bad = client.get(url, {"round": round_.pk, "run": run.pk, "format": "docx"})
    assert bad.status_code == 400 and "Markdown or LaTeX" in bad.content.decode()
    assert client.get(url, {"round": "nope"}).status_code == 404


def test_without_a_judged_round_the_page_and_the_command_say_why(data, researcher):  # noqa: F811
    round_, run = data
    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRun.Status.CANCELLED)
    page = client_for(researcher).get(
        reverse("agreement-methods", args=["hb"]), {"round": round_.pk}
    )
    assert page.status_code == 200
    body = html.unescape(page.content.decode())
    assert 'id="methods-problem"' in body and "No finished judge run covers every response" in body
    assert "methods-text" not in body.replace('data-copy-target="methods-text"', "")
    with pytest.raises(CommandError, match="No finished judge run covers every response"):
        call_command("methods", "--benchmark", "hb", "--round", "R")
