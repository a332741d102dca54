"""Attacker's finding 29: a prompt template with format specs passed the upload check.
"{response:>5000000}" padded every response to five million characters (a dry run estimated
17.5 M prompt tokens for 14 calls), and "{response:{criteria}}" crashed the dry run and
every lane of a real run. A template may use only the documented placeholders, written
plainly: no format spec, no conversion, no attribute or index. The upload says so."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from accounts.roles import COORDINATOR
from judging.models import PromptTemplate
from judging.services.prompts import PromptInvalid, prompt_template_save

HOSTILE = [
    ("{response:>5000000}", "{response:>5000000}"),
    ("{response:{criteria}}", "{response:{criteria}}"),
    ("{response!r}", "{response!r}"),
    ("{criteria.__class__}", "{criteria.__class__}"),
    ("{criteria[0]}", "{criteria[0]}"),
]


@pytest.mark.parametrize(("field", "shown"), HOSTILE)
def test_a_format_spec_or_conversion_in_a_prompt_is_refused_at_upload(world, client, field, shown):
    client.force_login(world["users"][COORDINATOR])
    body = {"system": "You judge a counsellor's reply.", "user": f"{field}\n\n{{criteria}}"}
    if "response" not in field:
        body["user"] += "\n{response}"
    upload = SimpleUploadedFile("p.json", json.dumps(body).encode(), "application/json")
    before = PromptTemplate.objects.count()
    page = client.post(
        reverse("prompt-upload"), {"name": "hostile", "kind": "judge", "file": upload}
    )
    assert page.status_code == 400
    text = page.content.decode()
    assert "only" in text and "placeholder" in text and escape(shown) in text, text[-3000:]
    assert PromptTemplate.objects.count() == before
    with pytest.raises(PromptInvalid, match="placeholder"):
        prompt_template_save(
            name="hostile", kind="judge", system_text=body["system"], user_text=body["user"]
        )
    # Plain placeholders and doubled braces still pass.
    prompt_template_save(
        name="plain",
        kind="judge",
        system_text='Answer as {{"hits": [...]}}',
        user_text="{dialogue}\n{response}\n{criteria} ({criteria_count}) {schema}",
    )


def test_a_stored_template_with_a_format_spec_is_refused_before_a_run_by_name(world):
    """A template kept from before the upload check is refused by name when a dry run or a
    run is asked for, instead of crashing every lane."""
    from annotation.models import Benchmark, System
    from judging.services.run_estimate import run_estimate
    from judging.services.runs import RunNotStartable, judge_run_start
    from tests.conftest import judge_config

    old = PromptTemplate.objects.create(
        name="kept",
        version=1,
        kind="judge",
        language="en",
        system_text="You judge.",
        user_text="{response:{criteria}}\n{criteria}",
    )
    config = judge_config(name="kept-judge", model="m", prompt=old)
    benchmark = Benchmark.objects.get(slug="hb")
    systems = list(System.objects.all())
    for attempt in (
        lambda: run_estimate(benchmark=benchmark, systems=systems, version=config.current_version),
        lambda: judge_run_start(benchmark=benchmark, systems=systems, config=config),
    ):
        with pytest.raises(RunNotStartable, match=r"kept.*\{response:\{criteria\}\}"):
            attempt()
