"""A judge configuration is a series of immutable versions: every setting that can change a
verdict lives in a version, an edit makes a new one, and runs name theirs."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import ImmutableRecordError
from judging.models import JudgeConfig, JudgeVersion, PromptTemplate
from judging.services.judge_versions import (
    CallSettings,
    VersionSettings,
    judge_config_save,
    judge_version_for,
)
from judging.services.runs import judge_run_start
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _prompt(version: int = 1) -> PromptTemplate:
    return PromptTemplate.objects.get(name="judge-zh", version=version)


def _settings(**changes) -> VersionSettings:
    values = {"model": "m", "base_url": "http://127.0.0.1:9/v1", "prompt": _prompt()}
    values.update(changes)
    return VersionSettings(**values)


def test_an_edit_of_a_verdict_setting_makes_a_version_and_others_edit_in_place():
    config, first, created = judge_config_save(name="j", settings=_settings(), calls=CallSettings())
    assert created and first.number == 1 and config.current_version == first
    # How calls are made never changes a verdict: no new version.
    _, same, created = judge_config_save(
        name="j", settings=_settings(), calls=CallSettings(max_concurrency=32), config=config
    )
    assert (same, created) == (first, False)
    assert JudgeConfig.objects.get().max_concurrency == 32
    _, second, created = judge_config_save(
        name="j", settings=_settings(temperature=0.7), calls=CallSettings(), config=config
    )
    assert created and second.number == 2 and second.fingerprint != first.fingerprint
    config.refresh_from_db()
    assert config.current_version == second
    # Back to the first settings: the first version is current again, none is duplicated.
    _, back, created = judge_config_save(
        name="j", settings=_settings(), calls=CallSettings(), config=config
    )
    assert (back, created) == (first, False)
    config.refresh_from_db()
    assert config.current_version == first and JudgeVersion.objects.count() == 2


def test_a_version_never_changes():
    _, version, _ = judge_config_save(name="j", settings=_settings(), calls=CallSettings())
    version.temperature = 1.5
    with pytest.raises(ImmutableRecordError):
        version.save()


def test_the_prompt_counts_by_its_text_and_every_setting_counts():
    base = judge_version_for(config_name="j", settings=_settings(), calls=CallSettings())
    seen = {base.pk}
    for changes in (
        {"model": "m2"},
        {"base_url": "http://127.0.0.1:10/v1"},
        {"temperature": 1.0},
        {"seed": 7},
        {"max_output_tokens": 100},
        {"structured_output": False},
        {
            "prompt": _prompt(version=1).__class__.objects.create(
                name="judge-zh",
                version=99,
                kind=PromptTemplate.Kind.JUDGE,
                system_text=_prompt().system_text + "\n请简洁。",
                user_text=_prompt().user_text,
            )
        },
    ):
        version = judge_version_for(
            config_name="j", settings=_settings(**changes), calls=CallSettings()
        )
        assert version.pk not in seen, changes
        seen.add(version.pk)
    # The same settings find their version again, whatever else happened in between.
    assert judge_version_for(config_name="j", settings=_settings(), calls=CallSettings()) == base


def test_a_run_names_its_version_and_keeps_its_settings(judged_benchmark, sim_config):
    benchmark, systems = judged_benchmark
    config = sim_config()
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)
    version = config.current_version
    assert run.judge_version == version and run.config == config and run.prompt == version.prompt
    snapshot = run.settings_snapshot
    for name in ("model", "base_url", "temperature", "seed", "max_output_tokens"):
        assert snapshot[name] == getattr(version, name)
    assert snapshot["judge_version"] == 1 and snapshot["fingerprint"] == version.fingerprint


def test_the_page_shows_the_versions_and_the_difference_between_two(coordinator, researcher):
    config, _, _ = judge_config_save(name="j", settings=_settings(), calls=CallSettings())
    longer = PromptTemplate.objects.create(
        name="judge-lab",
        version=1,
        kind=PromptTemplate.Kind.JUDGE,
        system_text=_prompt().system_text + "\n只看最后一轮。",
        user_text=_prompt().user_text,
    )
    judge_config_save(
        name="j",
        settings=_settings(temperature=0.3, prompt=longer),
        calls=CallSettings(),
        config=config,
        note="实验室的提示词",
    )
    page = client_for(researcher).get(reverse("judge-config", args=[config.pk]))
    body = page.content.decode()
    assert page.status_code == 200
    assert "Current settings (version 2)" in body and "实验室的提示词" in body
    assert 'data-setting="temperature"' in body and 'data-setting="prompt.name"' in body
    assert "+只看最后一轮。" in body  # the prompt's text, line by line
    older = client_for(researcher).get(reverse("judge-config", args=[config.pk]), {"b": 1})
    assert "Version 1" in older.content.decode()


def test_the_edit_page_makes_a_version_and_says_so(coordinator):
    config, _, _ = judge_config_save(name="j", settings=_settings(), calls=CallSettings())
    form = {
        "name": "j",
        "model": "m",
        "base_url": "http://127.0.0.1:9/v1",
        "prompt": _prompt().pk,
        "structured_output": "on",
        "temperature": 0.5,
        "max_output_tokens": 4096,
        "timeout_seconds": 120,
        "max_concurrency": 8,
        "requests_per_minute": 0,
        "max_attempts": 5,
        "backoff_seconds": 1,
        "price_prompt_per_1k": 0,
        "price_completion_per_1k": 0,
        "note": "warmer",
    }
    client = client_for(coordinator)
    response = client.post(reverse("judge-config-edit", args=[config.pk]), form, follow=True)
    assert "Saved as version 2: runs from now on use it." in response.content.decode()
    config.refresh_from_db()
    assert (config.current_version.number, config.current_version.note) == (2, "warmer")


def test_the_api_edits_make_versions_too(coordinator):
    config, _, _ = judge_config_save(name="j", settings=_settings(), calls=CallSettings())
    client = APIClient()
    client.force_authenticate(coordinator)
    url = reverse("api-judge-config-detail", args=[config.pk])
    same = client.patch(url, {"max_concurrency": 16}, format="json")
    assert same.status_code == 200 and same.json()["current_version"]["number"] == 1
    warmer = client.patch(url, {"temperature": 0.9}, format="json")
    assert warmer.status_code == 200
    assert warmer.json()["current_version"]["number"] == 2
    assert warmer.json()["versions"] == [1, 2] and warmer.json()["max_concurrency"] == 16


def _edit_form(**changes) -> dict:
    form = {
        "name": "j",
        "model": "m",
        "base_url": "http://127.0.0.1:9/v1",
        "prompt": _prompt().pk,
        "structured_output": "on",
        "temperature": 0.7,
        "max_output_tokens": 4096,
        "timeout_seconds": 120,
        "max_concurrency": 8,
        "requests_per_minute": 0,
        "max_attempts": 5,
        "backoff_seconds": 1,
        "price_prompt_per_1k": 0,
        "price_completion_per_1k": 0,
    }
    return {**form, **changes}


def test_the_edit_page_makes_a_self_consistency_version_and_refuses_a_cold_one(coordinator):
    config, _, _ = judge_config_save(
        name="j", settings=_settings(temperature=0.7), calls=CallSettings()
    )
    client = client_for(coordinator)
    url = reverse("judge-config-edit", args=[config.pk])
    cold = client.post(url, _edit_form(temperature=0, ensemble=5))
    assert cold.status_code == 400
    assert "Self-consistency needs a temperature above 0" in cold.content.decode()
    even = client.post(url, _edit_form(ensemble=4))
    assert "must be odd, from 3 to 9" in even.content.decode()
    assert JudgeVersion.objects.filter(config=config).count() == 1
    client.post(url, _edit_form(ensemble=5), follow=True)
    config.refresh_from_db()
    assert config.current_version.ensemble == {"kind": "self_consistency", "samples": 5}
    assert config.current_version.number == 2
    page = client.get(url).content.decode()
    assert 'name="ensemble" value="5"' in page
    detail = client.get(reverse("judge-config", args=[config.pk])).content.decode()
    assert "5 samples per response, the majority per criterion" in detail
    assert 'data-setting="ensemble"' in detail  # the difference from version 1
    # Saving the page unchanged keeps the ensemble; 0 goes back to a single call.
    client.post(url, _edit_form(ensemble=5))
    client.post(url, _edit_form(ensemble=0))
    config.refresh_from_db()
    assert config.current_version.ensemble is None and config.current_version.number == 1


def test_the_api_sets_and_keeps_an_ensemble_and_refuses_a_bad_one(coordinator):
    config, _, _ = judge_config_save(
        name="j", settings=_settings(temperature=0.7), calls=CallSettings()
    )
    client = APIClient()
    client.force_authenticate(coordinator)
    url = reverse("api-judge-config-detail", args=[config.pk])
    five = {"kind": "self_consistency", "samples": 5}
    made = client.patch(url, {"ensemble": five}, format="json")
    assert made.status_code == 200 and made.json()["current_version"]["ensemble"] == five
    kept = client.patch(url, {"max_concurrency": 4}, format="json")
    assert kept.json()["current_version"]["ensemble"] == five
    for bad, words in (
        ({"kind": "self_consistency", "samples": 6}, "must be odd"),
        ({"kind": "panel", "members": [{"id": 1}]}, "judge version ids"),
        (["self_consistency"], "its kind and its samples"),
        ({"kind": "vote"}, "Unknown kind"),
    ):
        refused = client.patch(url, {"ensemble": bad}, format="json")
        assert refused.status_code == 400 and words in str(refused.json()["ensemble"])
    assert JudgeVersion.objects.filter(config=config).count() == 2
