"""In each interface language: a coordinator writes a FAQ entry and a worked example; the
expert finds the entry beside the criterion it belongs to and by searching the guidelines
page; after the round closes, the raters of a split item and the coordinator discuss it in
its thread. Elements are found by id, name and attributes, never by visible text; every
page is checked with axe-core."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.models import Ability, Assignment, Benchmark, ItemDiscussionPost, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open, round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.accessibility import axe_violations, describe
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language

# A name no item code or page word can contain by chance.
SYSTEM = "Qzx-系统"

pytestmark = pytest.mark.browser


def a_round_of_three():
    benchmark_import(
        chunks=lines(jsonl_bytes([question(f"c{i}") for i in range(1, 3)])),
        benchmark_slug="hb",
    )
    answers = [{"question_id": f"c{i}", "response": f"我在听（{i}）。"} for i in range(1, 3)]
    responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name=SYSTEM)
    experts = [
        user_create_with_role(username=f"rater{i}", password=PASSWORD, role=EXPERT)
        for i in range(1, 4)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=1.0,
        raters_per_item=3,
    )
    return round_, experts


def switch_user(page, e2e, language, username):
    page.context.clear_cookies()
    set_language(page, e2e, language)
    login(page, e2e, username, PASSWORD)


@pytest.mark.parametrize("language", LANGUAGES)
def test_faq_examples_and_the_thread_on_a_split_item(e2e, page, language):
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    round_, experts = a_round_of_three()
    curiosity = Ability.objects.get(label="好奇心")
    problems = {}

    # The coordinator writes a FAQ entry for the curiosity criteria, and a worked example.
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/review/manage/benchmarks/hb/faq/")
    page.locator("#id_question").fill("问加班的原因算开放式问题吗？")
    page.locator("#id_answer").fill("**算**：只要不是用“是/否”就能回答的问题。")
    page.locator(f"input[name=abilities][value='{curiosity.pk}']").check()
    page.locator("form.stacked button[type=submit]").click()
    expect(page.locator("article.faq-entry")).to_have_count(1)
    problems["faq"] = axe_violations(page)
    screenshot(page, f"faq-manage-{language}")
    page.goto(f"{e2e.url}/review/manage/benchmarks/hb/examples/")
    page.locator("#id_ability").select_option(str(curiosity.pk))
    page.locator("#id_title").fill("开放式提问")
    page.locator("#id_body").fill("回答：“能说说最近发生了什么吗？”\n\n- 第 2 条：**命中**")
    page.locator("form.stacked button[type=submit]").click()
    expect(page.locator("article.example")).to_have_count(1)
    problems["examples"] = axe_violations(page)

    # The expert meets the entry beside the curiosity criterion, and finds it by searching.
    switch_user(page, e2e, language, "rater1")
    page.locator(f"form[action$='/review/rounds/{round_.pk}/next/'] button").click()
    page.wait_for_url("**/review/work/*/")
    faq_link = page.locator(".vote-row").nth(1).locator(".criterion-faq a")
    expect(faq_link).to_have_count(1)
    expect(page.locator(".vote-row").nth(0).locator(".criterion-faq")).to_have_count(0)
    page.goto(e2e.url + faq_link.get_attribute("href"))
    expect(page.locator("article.faq-entry:target")).to_have_count(1)
    expect(page.locator("#examples article.example")).to_have_count(1)
    page.locator("#faq-search").fill("加班")
    page.locator("form[role=search] button[type=submit]").click()
    expect(page.locator("article.faq-entry")).to_have_count(1)
    problems["guidance"] = axe_violations(page)
    screenshot(page, f"guidance-{language}")
    page.locator("#faq-search").fill("没有这个词")
    page.locator("form[role=search] button[type=submit]").click()
    expect(page.locator("article.faq-entry")).to_have_count(0)

    # The three raters split 2-1 on the first criterion; the round closes.
    first = Assignment.objects.get(expert=experts[0])
    for expert, hit in zip(experts, (True, True, False), strict=True):
        mine = (
            first
            if expert == experts[0]
            else Assignment.objects.create(item=first.item, expert=expert)
        )
        votes = [
            VoteInput(c.pk, hit if c.position == 1 else True)
            for c in item_criteria(assignment=mine)
        ]
        assignment_submit(
            assignment=mine, votes=votes, comment="", active_seconds=5, base_revision=0
        )
    assert assignment_next(expert=experts[0], round_=round_) is not None
    thread = f"{e2e.url}/review/items/{first.item_id}/discussion/"
    page.goto(thread)
    expect(page.locator("#post-text")).to_have_count(0)  # open round: no thread yet
    round_set_status(round_=round_, status="closed")

    switch_user(page, e2e, language, "rater3")
    page.locator(f"a[href$='/review/items/{first.item_id}/discussion/']").click()
    page.locator("#post-text").fill("我判为未命中：回应没有提到疲惫。")
    page.locator("#post-text ~ button[type=submit]").click()
    expect(page.locator("article.comment")).to_have_count(1)
    expect(page.locator("a[href*='/rubric/#comments']")).to_have_count(1)
    problems["discussion"] = axe_violations(page)
    screenshot(page, f"discussion-{language}")

    switch_user(page, e2e, language, "coord")
    page.goto(f"{e2e.url}/review/manage/rounds/{round_.pk}/")
    page.locator(f"a[href$='/review/items/{first.item_id}/discussion/']").click()
    page.locator("#post-text").fill("Please add this to the rubric comments.")
    page.locator("#post-text ~ button[type=submit]").click()
    expect(page.locator("article.comment")).to_have_count(2)
    assert ItemDiscussionPost.objects.count() == 2
    assert SYSTEM not in page.content()  # the discussion stays blind to the system

    problems = {name: found for name, found in problems.items() if found}
    assert not problems, "\n".join(f"{name}:\n{describe(v)}" for name, v in problems.items())
