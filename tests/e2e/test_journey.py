"""The whole mission in a real browser, in each interface language: import, author a rubric,
import two systems' responses, open a blind round, three experts annotate by keyboard, the
judge runs against the simulator, the gate is read, the leaderboard is published (or refused)
and the research files download. The numbers on the pages are checked against the
command-line reports for the same data.

Elements are found by id, name, role and data attributes, never by visible English text, so
one test drives both languages."""

import csv
import io
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, ReviewRound, RubricVersion, System, Vote
from judging.models import JudgeConfig, JudgeRun, PromptTemplate
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import PASSWORD, jsonl_bytes, question
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.judging.conftest import simulator  # noqa: F401 - shared fixture

pytestmark = pytest.mark.browser

SLUG = "journey"
CASES = 10  # x 2 systems = 20 responses; 30% of them make a round of about 6 items
SCENES = [("职场心理", "工作压力"), ("家庭关系", "亲子沟通"), ("情绪困扰", "焦虑")]
EXPERTS = ("expert-a", "expert-b", "expert-c")


def benchmark_file() -> bytes:
    rows = []
    for i in range(1, CASES + 1):
        primary, secondary = SCENES[i % len(SCENES)]
        rows.append(
            question(
                f"j{i}",
                difficulty="hard" if i % 2 else "normal",
                primary_scene=primary,
                secondary_scene=secondary,
            )
        )
    return jsonl_bytes(rows)


def answers_file(system: str) -> bytes:
    return jsonl_bytes(
        [
            {"question_id": f"j{i}", "response": f"{system}：听起来你最近真的很累（{i}）。"}
            for i in range(1, CASES + 1)
        ]
    )


def upload(page, form: str, fields: dict[str, str], name: str, content: bytes) -> None:
    """Fill one of the two import forms and wait for htmx to show its result."""
    scope = page.locator(f"form[action$='/import/{form}/']")
    for field, value in fields.items():
        scope.locator(f"[name={field}]").fill(value)
    scope.locator("input[type=file]").set_input_files(
        {"name": name, "mimeType": "application/x-ndjson", "buffer": content}
    )
    with page.expect_response(lambda r: r.url.endswith(f"/import/{form}/")) as answer:
        scope.locator("button[type=submit]").click()
    assert answer.value.status == 200, answer.value.text()
    expect(page.locator("#import-result .alert.success")).to_be_visible()


def annotate_everything(page, base_url: str, expert_index: int, shot: str) -> int:
    """Keyboard only: open the next item, answer each criterion with 1/0, submit with Enter,
    until the round has nothing left for this expert. Returns the number of items done."""
    page.goto(f"{base_url}/review/")
    page.locator("form[action*='/next/'] button[type=submit]").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/review/work/*/")
    done = 0
    while "/review/work/" in page.url:
        expect(page.locator(".vote-row").first).to_be_focused()
        rows = page.locator(".vote-row").count()
        for position in range(rows):
            hit = (position + done) % 3 != 0
            if expert_index == 2 and position == 0:
                hit = not hit  # one expert disagrees now and then: a 2-1 majority
            page.keyboard.press("1" if hit else "0")
        if expert_index == 0 and done == 0:
            screenshot(page, f"{shot}-annotation")
        current = page.url
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url, current=current: url != current)
        done += 1
    return done


def table_numbers(page, selector: str) -> dict[str, list[str]]:
    """Rows of a table as {group: [cell texts]}: the group is a row's data-group (then its
    first cell, which shows it, is left out) or else the text of its row header."""
    return page.locator(selector).evaluate(
        """table => Object.fromEntries([...table.querySelectorAll('tbody tr')].map(tr => {
             const cells = [...tr.querySelectorAll('td')].map(td => td.textContent.trim());
             return tr.dataset.group !== undefined
               ? [tr.dataset.group, cells.slice(1)]
               : [tr.querySelector('th').firstChild.textContent.trim(), cells];
           }))"""
    )


def percent(value: float) -> str:
    # Every percentage on the reader's pages: one decimal.
    return f"{value * 100:.1f}%"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_whole_journey(e2e, page, simulator, language):  # noqa: F811
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    user_create_with_role(username="res", password=PASSWORD, role=RESEARCHER)
    for name in EXPERTS:
        user_create_with_role(username=name, password=PASSWORD, role=EXPERT)
    shot = f"journey-{language}"
    # A long test on a shared machine: allow slow steps (the judge run is in one request).
    page.set_default_timeout(30_000)

    def sign_in(username: str) -> None:
        page.context.clear_cookies()
        set_language(page, e2e, language)
        login(page, e2e, username, PASSWORD)
        assert page.locator("html").get_attribute("lang") == language

    # The coordinator imports the benchmark through the upload page.
    sign_in("coord")
    page.goto(f"{e2e.url}/import/")
    upload(
        page, "benchmark", {"benchmark": SLUG, "name": "旅程 Journey"}, "q.jsonl", benchmark_file()
    )
    assert Benchmark.objects.get(slug=SLUG).cases.count() == CASES
    screenshot(page, f"{shot}-import")

    # ... edits one criterion of one rubric and publishes it as version 2.
    page.goto(f"{e2e.url}/benchmarks/{SLUG}/cases/j1/rubric/")
    row = page.locator(".editor-row").nth(1)
    with page.expect_response(lambda r: "/rubric/draft/" in r.url):
        row.locator("textarea[name=text]").fill("用一个开放式问题询问最近加班的情况")
        row.locator("input[name=weight]").fill("6")
    page.locator("#change-note").fill("问题更具体，权重提高")
    screenshot(page, f"{shot}-rubric-editor")
    page.locator("#publish-form button[type=submit]").click()
    page.wait_for_url("**/rubric/history/")
    latest = RubricVersion.objects.filter(case__external_id="j1").order_by("-number").first()
    assert latest.number == 2
    assert latest.criteria.get(position=2).weight == 6

    # ... imports the responses of two systems.
    page.goto(f"{e2e.url}/import/")
    for system in ("Alpha", "Beta"):
        upload(
            page,
            "responses",
            {"benchmark": SLUG, "system": system},
            f"{system}.jsonl",
            answers_file(system),
        )
    assert System.objects.filter(responses__case__benchmark__slug=SLUG).distinct().count() == 2

    # ... opens a blind review round over 30% of the responses with 3 raters per item.
    # The benchmark is picked first (the form then offers only its systems).
    page.goto(f"{e2e.url}/review/manage/rounds/new/")
    page.locator("select[name=benchmark]").select_option(str(Benchmark.objects.get(slug=SLUG).pk))
    page.wait_for_url(
        f"**/review/manage/rounds/new/?benchmark={Benchmark.objects.get(slug=SLUG).pk}"
    )
    page.locator("#id_name").fill("第一轮 Round 1")
    for box in page.locator("input[name=systems], input[name=experts]").all():
        box.check()
    page.locator("#id_fraction").fill("0.3")
    page.locator("#id_raters_per_item").fill("3")
    page.locator("main form.card button[type=submit]").click()
    page.wait_for_url("**/review/manage/rounds/*/")
    round_ = ReviewRound.objects.get(benchmark__slug=SLUG)
    items = round_.items.count()
    assert 0 < items < 2 * CASES and round_.raters_per_item == 3
    assert round_.items.filter(rubric_version=latest).count() <= 1  # the new version is frozen

    # Three experts log in one after another and finish their items by keyboard.
    for index, expert in enumerate(EXPERTS):
        sign_in(expert)
        assert annotate_everything(page, e2e.url, index, shot) == items
        assert "Alpha" not in page.content() and "Beta" not in page.content()
    assert Assignment.objects.filter(item__round=round_, status="submitted").count() == 3 * items

    sign_in("coord")
    page.goto(f"{e2e.url}/review/manage/rounds/{round_.pk}/")
    screenshot(page, f"{shot}-review-round")

    # The coordinator points a judge configuration at the simulator and runs it.
    page.goto(f"{e2e.url}/judging/configs/new/")
    page.locator("#id_name").fill("模拟评审 sim")
    page.locator("#id_base_url").fill(simulator.base_url)
    page.locator("#id_model").fill("concord-sim")
    page.locator("#id_prompt").select_option(
        str(PromptTemplate.objects.get(name="judge-zh", version=1).pk)
    )
    page.locator("#id_backoff_seconds").fill("0.01")
    page.locator("#id_is_simulated").check()
    page.locator("main form button[type=submit]").click()
    page.wait_for_url("**/judging/configs/*/")  # the configuration's page, version 1
    config = JudgeConfig.objects.get(name="模拟评审 sim")

    page.goto(f"{e2e.url}/judging/runs/new/")
    page.locator("#id_benchmark").select_option(str(Benchmark.objects.get(slug=SLUG).pk))
    for box in page.locator("input[name=systems]").all():
        box.check()
    page.locator("#id_config").select_option(str(config.pk))
    page.locator("main form[method=post] button[type=submit]").click()
    page.wait_for_url("**/judging/runs/*/")
    expect(page.locator("#run-progress .badge.status-finished")).to_be_visible(timeout=60_000)
    expect(page.locator("#count-done")).to_have_text(str(2 * CASES))
    expect(page.locator("#count-failed")).to_have_text("0")
    expect(page.locator("#count-total")).to_have_text(str(2 * CASES))
    screenshot(page, f"{shot}-judge-run")
    run = JudgeRun.objects.get(benchmark__slug=SLUG, judge_version__config=config)
    assert run.status == JudgeRun.Status.FINISHED

    # A researcher opens the agreement report: the page shows the command line's numbers.
    out = StringIO()
    call_command(
        "agreement_report",
        "--benchmark",
        SLUG,
        "--round",
        round_.name,
        "--judge-run",
        str(run.pk),
        "--format",
        "json",
        stdout=out,
    )
    report = json.loads(out.getvalue())
    assert report["units"] == sum(
        RubricVersion.objects.get(pk=item.rubric_version_id).criteria.count()
        for item in round_.items.all()
    ) - sum(report["excluded"].values())
    sign_in("res")
    page.goto(f"{e2e.url}/benchmarks/{SLUG}/agreement/?round={round_.pk}&run={run.pk}")
    gate = page.locator("#gate")
    expect(gate).to_have_class(
        "card gate passed" if report["gate"]["passed"] else "card gate failed"
    )
    expect(gate).to_have_attribute("data-units", str(report["units"]))
    expect(page.locator("#agreement-value")).to_have_text(percent(report["percent_agreement"]))
    # Units, agreement and interval (then a note on groups too small to read).
    by_system = {
        name: cells[:3]
        for name, cells in table_numbers(page, "table[data-breakdown=system]").items()
    }
    assert by_system == {
        name: [
            str(row["units"]),
            percent(row["percent_agreement"]),
            f"{percent(row['wilson_95'][0])[:-1]}–{percent(row['wilson_95'][1])}",
        ]
        for name, row in report["by_system"].items()
    }
    screenshot(page, f"{shot}-agreement")
    page.locator("form[action$='/agreement/gate/'] button[type=submit]").click()
    expect(
        page.locator(".messages li.success" if report["gate"]["passed"] else ".messages li.warning")
    ).to_be_visible()

    # The coordinator publishes the leaderboard, or is told why the gate refuses it.
    out = StringIO()
    call_command("leaderboard", "--benchmark", SLUG, "--run", str(run.pk), "--json", stdout=out)
    board = json.loads(out.getvalue())
    sign_in("coord")
    page.goto(f"{e2e.url}/benchmarks/{SLUG}/leaderboard/?run={run.pk}")
    shown = table_numbers(page, 'table.board[aria-describedby="ranking-note"]')
    # Cells: rank, overall, [95% interval], normal, hard, decline, cases scored, failed.
    assert {name: [cells[1], *cells[-2:]] for name, cells in shown.items()} == {
        row["system"]: [f"{row['overall']:.2f}", str(row["cases_scored"]), str(row["cases_failed"])]
        for row in board["systems"]
    }
    assert [name for name in shown] == [row["system"] for row in board["systems"]]
    screenshot(page, f"{shot}-leaderboard")
    publish = page.locator("form[action$='/leaderboard/publish/'] button[type=submit]")
    if report["gate"]["passed"]:
        page.locator("#publish-confirm").check()
        publish.click()
        page.wait_for_load_state()
        snapshot = LeaderboardSnapshot.objects.get()
        assert list(snapshot.runs.all()) == [run]
    else:
        # The board says why before anyone clicks, and the button waits for a pass.
        expect(publish).to_be_disabled()
        expect(page.locator("#gate-state")).to_contain_text(
            f"{report['percent_agreement'] * 100:.1f}%"
        )
        assert not LeaderboardSnapshot.objects.exists()
    screenshot(page, f"{shot}-leaderboard-publish")

    # The researcher downloads the tidy file and the PDF report.
    sign_in("res")
    page.goto(f"{e2e.url}/benchmarks/{SLUG}/exports/?round={round_.pk}&run={run.pk}")
    screenshot(page, f"{shot}-exports")
    with page.expect_download() as download:
        page.locator("a[href*='/exports/tidy.csv?']").click()
    rows = list(
        csv.DictReader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8")))
    )
    assert len(rows) == Vote.objects.filter(assignment__item__round=round_).count()
    pdf_link = page.locator("a[href*='/agreement/report.pdf']")
    assert pdf_link.count() == 1
    with page.expect_download() as download:
        pdf_link.click()
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF-")
