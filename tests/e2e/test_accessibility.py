"""axe-core on every main page, in both languages: no serious or critical violations. The
annotation page also fits a 1280x720 screen and 200% zoom without horizontal scrolling."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, ReviewItem, System
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import guideline_save, round_open
from tests.conftest import PASSWORD
from tests.e2e.accessibility import axe_violations, describe, horizontal_overflow, tab_through
from tests.e2e.conftest import LANGUAGES, login, set_language
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - shared fixture

pytestmark = pytest.mark.browser


@pytest.fixture
def pages(data):  # noqa: F811
    """The agreement fixture's finished round and judge run, plus an open item for a second
    expert and written guidelines, so every page has something to show."""
    round_, run = data
    coordinator = user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    expert = user_create_with_role(username="ax-expert", password=PASSWORD, role=EXPERT)
    benchmark = Benchmark.objects.get(slug="hb")
    guideline_save(
        benchmark=benchmark,
        text="先读完整段对话。\nRead the whole dialogue first.",
        user=coordinator,
    )
    second = round_open(
        benchmark=benchmark,
        name="Second look",
        systems=list(System.objects.all()),
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )
    q = f"round={round_.pk}&run={run.pk}"
    response = ReviewItem.objects.filter(round=round_).values_list("response_id", flat=True)[0]
    coordinator_pages = {
        "home": "/",
        "benchmark-list": "/benchmarks/",
        "benchmark-detail": "/benchmarks/hb/",
        "case-detail": "/benchmarks/hb/cases/c1/",
        "import": "/import/",
        "rubric-editor": "/benchmarks/hb/cases/c1/rubric/",
        "rubric-history": "/benchmarks/hb/cases/c1/rubric/history/",
        "rubric-overview": "/benchmarks/hb/rubrics/",
        "rubric-health": "/benchmarks/hb/rubrics/health/?all=1",
        "rubric-health-versions": "/benchmarks/hb/cases/c1/rubric/health/",
        "review-rounds": "/review/manage/",
        "review-round": f"/review/manage/rounds/{round_.pk}/",
        "review-round-new": "/review/manage/rounds/new/",
        "review-consensus": f"/review/manage/rounds/{round_.pk}/consensus/",
        "review-adjudication": "/review/manage/adjudication/",
        "review-guidelines": "/review/manage/benchmarks/hb/guidelines/",
        "audit-log": "/audit/",
        "review-round-close": f"/review/manage/rounds/{second.pk}/close/",
        "people": "/people/",
        "people-person": f"/people/{expert.pk}/",
        "judge-runs": "/judging/",
        "judge-run-new": "/judging/runs/new/",
        "judge-run": f"/judging/runs/{run.pk}/",
        "judge-config-new": "/judging/configs/new/",
        "agreement": f"/benchmarks/hb/agreement/?{q}",
        "judge-selection": f"/benchmarks/hb/agreement/judges/?round={round_.pk}",
        "disagreements": f"/benchmarks/hb/agreement/disagreements/?{q}",
        "disagreement-case": f"/benchmarks/hb/agreement/disagreements/{response}/?{q}",
        "leaderboard": f"/benchmarks/hb/leaderboard/?run={run.pk}",
        "exports": f"/benchmarks/hb/exports/?{q}",
        "gate-policy": "/benchmarks/hb/gate-policy/",
        "help-page": "/help/statistics/",
    }
    return coordinator_pages, assignment_next(expert=expert, round_=second)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_main_page_passes_axe(e2e, page, pages, language):
    coordinator_pages, open_assignment = pages
    failures: dict[str, str] = {}

    def check(name: str) -> None:
        found = axe_violations(page)
        if found:
            failures[name] = describe(found)

    set_language(page, e2e, language)
    page.goto(f"{e2e.url}/login/")
    check("login")
    login(page, e2e, "coord", PASSWORD)
    for name, path in coordinator_pages.items():
        response = page.goto(f"{e2e.url}{path}")
        assert response.status == 200, f"{name}: {path} answered {response.status}"
        assert page.locator("html").get_attribute("lang") == language
        check(name)

    page.context.clear_cookies()
    set_language(page, e2e, language)
    login(page, e2e, "ax-expert", PASSWORD)
    page.goto(f"{e2e.url}/review/")
    check("review-my-work")
    page.goto(f"{e2e.url}/review/work/{open_assignment.pk}/")
    check("review-annotate")
    page.locator("#open-guidelines").click()
    expect(page.locator("#guidelines")).to_be_visible()
    check("guidelines-panel")
    page.keyboard.press("Escape")
    page.locator("#open-help").click()
    expect(page.locator("#help")).to_be_visible()
    check("keyboard-help")
    page.keyboard.press("Escape")
    page.locator(".skip-panel summary").click()
    check("skip-panel")
    page.goto(f"{e2e.url}/review/rounds/{open_assignment.item.round_id}/submitted/")
    check("review-my-submitted")

    assert not failures, "\n\n".join(f"== {name}\n{text}" for name, text in failures.items())


@pytest.mark.parametrize(
    "viewport",
    [
        pytest.param({"width": 1280, "height": 720}, id="1280x720"),
        # 200% browser zoom on a 1280x720 screen leaves 640x360 CSS pixels.
        pytest.param({"width": 640, "height": 360}, id="200-percent-zoom"),
    ],
)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_annotation_page_needs_no_horizontal_scrolling(e2e, page, pages, viewport, language):
    _, open_assignment = pages
    page.set_viewport_size(viewport)
    set_language(page, e2e, language)
    login(page, e2e, "ax-expert", PASSWORD)
    page.goto(f"{e2e.url}/review/work/{open_assignment.pk}/")
    expect(page.locator(".vote-row").first).to_be_focused()
    assert horizontal_overflow(page) <= 0
    for panel in ("guidelines", "help"):
        page.locator(f"#open-{panel}").click()
        expect(page.locator(f"#{panel}")).to_be_visible()
        assert horizontal_overflow(page) <= 0, panel
        page.keyboard.press("Escape")
        expect(page.locator(f"#{panel}")).to_be_hidden()


def test_the_check_finds_what_it_should(page):
    # Without this, a broken injection would make every page above "pass".
    page.set_content(
        "<html lang='en'><head><title>t</title></head><body><main>"
        "<input type='text'><button></button>"
        "<p style='color:#aaa;background:#fff'>pale</p></main></body></html>"
    )
    found = {v["id"] for v in axe_violations(page)}
    assert {"label", "button-name", "color-contrast"} <= found, found


def test_the_keyboard_reaches_every_control_of_the_annotation_page_with_a_visible_focus(
    e2e, page, pages
):
    _, open_assignment = pages
    login(page, e2e, "ax-expert", PASSWORD)
    page.goto(f"{e2e.url}/review/work/{open_assignment.pk}/")
    expect(page.locator(".vote-row").first).to_be_focused()
    order = tab_through(page)
    reached = {stop["what"] for stop in order}
    criteria = page.locator(".vote-row").count()
    expected = {"button#open-guidelines", "button#open-help", "button#submit-button"}
    expected |= {"textarea#overall-comment[name=comment]", "select#language-select[name=language]"}
    assert expected <= reached, expected - reached
    assert sum(stop["what"] == "li" for stop in order) == criteria
    assert sum(stop["what"].startswith("input[name=hit-") for stop in order) == criteria
    assert sum(stop["what"].startswith("textarea[name=note-") for stop in order) == criteria
    invisible = [s["what"] for s in order if s["outline"] == "none" or s["width"] < 2]
    assert not invisible, f"no visible focus outline on {invisible}"
