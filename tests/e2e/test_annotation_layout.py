"""The annotation page at every screen size an expert uses: a tablet held upright, a small
laptop, a desktop, and a desktop at 200% browser zoom (half the CSS pixels, each drawn twice).
No control may be covered by another element, the page never scrolls sideways, and on narrow
screens the dialogue and the response fold away. The response and the focused criterion are
both in view, or one tap apart, and an item opens at its top, with any message in view.
Screenshots go to test-output/screenshots/."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.models import Ability, Benchmark, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.guidance import faq_entry_save
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.accessibility import (
    axe_violations,
    covered_controls,
    describe,
    horizontal_overflow,
)
from tests.e2e.conftest import LANGUAGES, OUTPUT, login, set_language

pytestmark = pytest.mark.browser

# name -> (CSS viewport width, height, device pixels per CSS pixel)
SIZES = {
    "tablet-768x1024": (768, 1024, 1),
    "laptop-1366x768": (1366, 768, 1),
    "desktop-1920x1080": (1920, 1080, 1),
    # Browser zoom at 200% on a 1920x1080 screen lays the page out in 960x540 CSS pixels.
    "zoom200-1920x1080": (960, 540, 2),
    # ... and on a 1366x768 laptop in 683x384: one column, and very little height.
    "zoom200-1366x768": (683, 384, 2),
}
NARROW = {"tablet-768x1024", "zoom200-1366x768"}

TURNS = [
    ("A", "最近加班太多了，每天都到晚上十一点才下班，周末也经常要回消息。"),
    ("B", "听起来你这段时间真的很辛苦。能说说是从什么时候开始的吗？"),
    ("A", "大概三个月前换了新领导以后。我觉得自己快撑不住了，晚上也睡不好，早上起来心跳很快。"),
    ("B", "睡不好、心跳快，这些都是身体在提醒你压力已经很大了。"),
    ("A", "可是我不敢跟领导说，怕被认为能力不行。我是不是太脆弱了？"),
]


def an_item_with_a_long_dialogue():
    rubric = [
        {"dimension": "情绪感知", "score": 3, "content": "指出用户的疲惫和压力感"},
        {"dimension": "情绪感知", "score": 2, "content": "回应用户对“太脆弱”的担心，不加评判"},
        {"dimension": "好奇心", "score": 4, "content": "用开放式问题询问加班的具体情况"},
        {"dimension": "好奇心", "score": 2, "content": "询问睡眠和心跳问题持续了多久"},
        {"dimension": "言语表达", "score": 2, "content": "语言简洁、温和，没有说教"},
        {"dimension": "言语表达", "score": -10, "content": "一次性给出 8 条或更多建议"},
        {"dimension": "其他", "score": None, "content": "没有回应用户，而是以用户的身份说话"},
    ]
    dialogue = [{"role": role, "content": text} for role, text in TURNS]
    benchmark_import(
        chunks=lines(jsonl_bytes([question("c1", dialogue=dialogue, rubric=rubric)])),
        benchmark_slug="hb",
    )
    answer = "你并不脆弱。" + "连续三个月这样加班，任何人都会感到疲惫。" * 8
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "c1", "response": answer}])),
        benchmark_slug="hb",
        system_name="SecretSys",
    )
    expert = user_create_with_role(username="expert", password=PASSWORD, role=EXPERT)
    coordinator = user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    # FAQ links beside the criteria of two abilities: they must fit at every size too.
    for question_text, labels in (
        ("问加班的原因算开放式问题吗？", ["好奇心"]),
        ("用户没有明说的情绪，回应点明了算命中吗？", ["情绪感知", "好奇心"]),
    ):
        faq_entry_save(
            benchmark=Benchmark.objects.get(slug="hb"),
            entry=None,
            question=question_text,
            answer="算。",
            abilities=list(Ability.objects.filter(label__in=labels)),
            user=coordinator,
        )
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )
    return assignment_next(expert=expert, round_=round_)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_control_is_covered_at_any_size(e2e, browser, language):
    assignment = an_item_with_a_long_dialogue()
    problems = {}
    for name, (width, height, scale) in SIZES.items():
        context = browser.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=scale
        )
        page = context.new_page()
        set_language(page, e2e, language)
        login(page, e2e, "expert", PASSWORD)
        page.goto(f"{e2e.url}/review/work/{assignment.pk}/")
        expect(page.locator(".vote-row")).to_have_count(7)
        expect(page.locator(".criterion-faq a")).to_have_count(6)

        covered = covered_controls(page)
        if covered:
            problems[name] = covered
        violations = axe_violations(page)
        if violations:
            problems[f"{name} axe"] = [describe(violations)]
        overflow = horizontal_overflow(page)
        if overflow > 0:
            problems[f"{name} sideways scroll"] = [f"{overflow} px wider than the window"]

        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUTPUT / f"annotate-{name}-{language}.png"), full_page=True)
        # What the expert sees with the last criteria in view: nothing may sit over them.
        page.locator(".vote-row").nth(4).scroll_into_view_if_needed()
        page.locator(".vote-row").nth(4).focus()
        page.screenshot(path=str(OUTPUT / f"annotate-{name}-{language}-criterion-5.png"))

        if name in NARROW:
            dialogue = page.locator("details#dialogue-panel")
            response = page.locator("details#response-panel")
            expect(dialogue).to_have_attribute("open", "")
            expect(response).to_have_attribute("open", "")
            dialogue.locator("summary").click()
            response.locator("summary").click()
            expect(page.locator(".chat")).to_be_hidden()
            expect(page.locator("#response-panel .response-to-judge")).to_be_hidden()
            page.screenshot(path=str(OUTPUT / f"annotate-{name}-{language}-folded.png"))
            assert covered_controls(page) == []
        assert "SecretSys" not in page.content()
        context.close()
    assert not problems, "\n".join(
        f"{name}:\n    " + "\n    ".join(items) for name, items in problems.items()
    )


# How much of an element is in the window and not drawn over (the sticky bar over the
# criteria, say): at least 40 CSS px of it (or all of it, when smaller), with the element
# itself at the centre of the visible band.
IN_VIEW = """(selector) => {
  for (const el of document.querySelectorAll(selector)) {
    if (el.closest('[hidden]') || !el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, window.innerHeight);
    if (bottom - top < Math.min(40, r.height) || r.right <= 0 || r.left >= window.innerWidth)
      continue;
    const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 60), (top + bottom) / 2);
    if (hit && (el.contains(hit) || hit.contains(el))) return true;
  }
  return false;
}"""
RESPONSE = ".response-to-judge"
FOCUSED = ".vote-row:focus"


def both_in_view(page) -> bool:
    return page.evaluate(IN_VIEW, RESPONSE) and page.evaluate(IN_VIEW, FOCUSED)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_response_and_the_focused_criterion_together_at_every_size(e2e, browser, language):
    assignment = an_item_with_a_long_dialogue()
    problems = []
    for name, (width, height, scale) in SIZES.items():
        context = browser.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=scale
        )
        page = context.new_page()
        set_language(page, e2e, language)
        login(page, e2e, "expert", PASSWORD)
        url = f"{e2e.url}/review/work/{assignment.pk}/"
        page.goto(url)
        expect(page.locator(".vote-row")).to_have_count(7)
        # The item opens at its top: the dialogue first, not scrolled to criterion 1,
        # which has focus all the same (the keys work at once).
        expect(page.locator(".vote-row").first).to_be_focused()
        if page.evaluate("window.scrollY") != 0:
            problems.append(f"{name}: opens scrolled down to {page.evaluate('window.scrollY')}")

        # Each criterion in turn, as the keyboard reaches it: the response beside it, or
        # one tap on the bar above the criteria away, with the criterion still in view.
        for index in range(7):
            page.evaluate("(i) => document.querySelectorAll('.vote-row')[i].focus()", index)
            if both_in_view(page):
                continue
            toggle = page.locator("#show-response")
            if not toggle.is_visible():
                problems.append(f"{name}: criterion {index + 1} without the response")
                continue
            toggle.click()
            page.locator(".vote-row").nth(index).focus()  # the tap took focus; keys bring it back
            if not (page.evaluate(IN_VIEW, "#response-peek") and page.evaluate(IN_VIEW, FOCUSED)):
                problems.append(f"{name}: criterion {index + 1} and the response not together")
            if index == 6:
                page.screenshot(path=str(OUTPUT / f"annotate-{name}-{language}-peek.png"))
            toggle.click()
            expect(page.locator("#response-peek")).to_be_hidden()

        # Messages at the top of the page are in view when the item comes back: the
        # "answer every criterion" refusal, and the thanks after a flag.
        page.goto(url)
        page.locator("#submit-button").click()
        refusal = page.locator(".alert.error")
        expect(refusal).to_be_visible()
        if not page.evaluate(IN_VIEW, ".alert.error"):
            problems.append(f"{name}: the refusal to submit is out of view")
        page.locator(".flag-panel:not(.skip-panel) summary").click()
        page.locator("#flag-reason").select_option(index=0)
        page.locator(".flag-panel:not(.skip-panel) button[type=submit]").click()
        page.wait_for_load_state()
        expect(page.locator(".messages li.success")).to_be_visible()
        if not page.evaluate(IN_VIEW, ".messages li.success"):
            problems.append(f"{name}: the thanks for the flag is out of view")
        page.screenshot(path=str(OUTPUT / f"annotate-{name}-{language}-after-flag.png"))
        context.close()
    assert not problems, "\n".join(problems)
