"""A disagreement opens the case it is about: the dialogue, the response, the whole rubric
with the judge's verdicts and reasoning and the experts' votes and notes."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from annotation.models import Criterion, Response, Vote
from judging.models import Verdict
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.django_db


def _page(client, name, *args, **params):
    response = client.get(reverse(name, args=["hb", *args]), params)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_each_disagreement_row_opens_its_case_with_the_criterion_highlighted(data, researcher):  # noqa: F811
    round_, run = data
    c1 = Response.objects.get(case__external_id="c1")
    third = Criterion.objects.get(rubric_version__case__external_id="c1", position=3)
    Verdict.objects.filter(task__response=c1, criterion=third).update(
        reasoning="the reply lists eight tips at once"
    )
    Vote.objects.filter(assignment__item__response=c1, criterion=third, hit=False).update(
        note="only three tips, not eight"
    )
    client = client_for(researcher)
    listing = _page(client, "disagreements", round=round_.pk, run=run.pk, direction="judge_only")
    links = re.findall(r'href="([^"]*/disagreements/\d+/[^"]*)"', listing)
    assert links, "the disagreement row links to nothing"
    url = links[0].replace("&amp;", "&")
    assert f"/disagreements/{c1.pk}/" in url and f"criterion={third.pk}" in url

    case = client.get(url).content.decode()
    assert "最近加班太多了" in case, "the dialogue"
    assert c1.text in case and 'id="response-text"' in case
    for position in (1, 2, 3, 4):
        text = Criterion.objects.get(rubric_version__case__external_id="c1", position=position)
        assert text.text in case, f"criterion {position} of the rubric"
    row = case.split(f'id="criterion-{third.pk}"')[1].split("</tr>")[0]
    assert f'id="criterion-{third.pk}" class="highlight disagrees"' in case
    assert "the reply lists eight tips at once" in row and "only three tips, not eight" in row
    assert "1 of 3 hit" in row and re.search(r"E-[A-Z0-9]{4}", row), "votes under pseudonyms"
    assert "e0" not in re.sub(r"<[^>]+>", "", row), "never an expert's user name"


def test_the_case_page_names_abilities_in_the_readers_language(data, researcher):  # noqa: F811
    round_, run = data
    c1 = Response.objects.get(case__external_id="c1")
    client = client_for(researcher)
    english = _page(client, "disagreement-case", c1.pk, round=round_.pk, run=run.pk)
    assert "Verbal Expression" in english and ">言语表达<" not in english
    listing = _page(client, "disagreements", round=round_.pk, run=run.pk)
    assert "Verbal Expression" in listing and "<td>言语表达</td>" not in listing
    with translation.override("zh-hans"):
        client.cookies["django_language"] = "zh-hans"
        chinese = client.get(
            reverse("disagreement-case", args=["hb", c1.pk]),
            {"round": round_.pk, "run": run.pk},
            headers={"accept-language": "zh-hans"},
        ).content.decode()
    assert "言语表达" in chinese


def test_the_disagreements_filter_by_category(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    # c1 #3 is Verbal Expression (Personality), c2 #2 Curiosity (Personality).
    params = {"round": round_.pk, "run": run.pk}
    personality = _page(client, "disagreements", **params, category="Personality")
    assert "2 disagreements" in personality
    emotion = _page(client, "disagreements", round=round_.pk, run=run.pk, category="Emotion")
    assert "0 disagreements" in emotion
    assert '<option value="Personality"' in personality


def test_a_response_outside_the_round_is_not_found(data, researcher, expert):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    url = reverse("disagreement-case", args=["hb", 999999])
    assert client.get(url, {"round": round_.pk, "run": run.pk}).status_code == 404
    c1 = Response.objects.get(case__external_id="c1")
    own = reverse("disagreement-case", args=["hb", c1.pk])
    assert client_for(expert).get(own, {"round": round_.pk, "run": run.pk}).status_code == 403


def test_the_case_page_runs_a_bounded_number_of_queries(
    data,  # noqa: F811
    researcher,
    django_assert_max_num_queries,
):
    """No query per criterion, vote or rater: the session, user and permissions (3), the
    benchmark and its gate policy (2), the round and its items (2), the run (1), the item,
    the task, the verdicts, the pseudonyms, the votes and the criteria (6), the navigation's
    groups (1)."""
    round_, run = data
    c1 = Response.objects.get(case__external_id="c1")
    client = client_for(researcher)
    url = reverse("disagreement-case", args=["hb", c1.pk])
    with django_assert_max_num_queries(15):
        assert client.get(url, {"round": round_.pk, "run": run.pk}).status_code == 200
