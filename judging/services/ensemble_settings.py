"""What makes an ensemble judge acceptable, and the panel's members as the lanes call them.
An ensemble is part of a version's settings: changing it makes a new version."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from judging import ensemble_vote
from judging.models import JudgeVersion

if TYPE_CHECKING:
    from judging.services.judge_versions import VersionSettings


def ensemble_refusal(settings: VersionSettings) -> str:
    """Why these ensemble settings are refused, or "" when they are fine."""
    ensemble = settings.ensemble
    if not isinstance(ensemble, dict):
        return _("An ensemble is given by its kind and its samples or members.")
    if settings.source != JudgeVersion.Source.LLM:
        return _("Only a judge that Concord calls can be an ensemble.")
    kind = ensemble.get("kind")
    if kind == ensemble_vote.SELF_CONSISTENCY:
        return _samples_refusal(ensemble.get("samples"), settings.temperature)
    if kind == ensemble_vote.PANEL:
        return _panel_refusal(ensemble.get("members"))
    return _("Unknown kind of ensemble: %(kind)s.") % {"kind": kind}


def _samples_refusal(samples, temperature: float) -> str:
    low, high = ensemble_vote.SAMPLES_MIN, ensemble_vote.SAMPLES_MAX
    if not isinstance(samples, int) or isinstance(samples, bool):
        return _("The number of samples must be a whole number.")
    if not low <= samples <= high or samples % 2 == 0:
        return _(
            "The number of samples must be odd, from %(low)d to %(high)d (so a majority "
            "always exists); %(samples)d was given."
        ) % {"low": low, "high": high, "samples": samples}
    if not temperature > 0:
        return _(
            "Self-consistency needs a temperature above 0: at temperature 0 the samples "
            "are the same answer, and their vote says nothing."
        )
    return ""


def _panel_refusal(members) -> str:
    low, high = ensemble_vote.PANEL_MIN, ensemble_vote.PANEL_MAX
    if not isinstance(members, list) or not all(
        isinstance(m, int) and not isinstance(m, bool) for m in members
    ):
        return _("A panel's members are given by their judge version ids.")
    if not low <= len(members) <= high:
        return _("A panel has from %(low)d to %(high)d judge versions.") % {
            "low": low,
            "high": high,
        }
    if len(set(members)) != len(members):
        return _("A panel names each judge version once.")
    found = {v.pk: v for v in JudgeVersion.objects.filter(pk__in=members)}
    for pk in members:
        version = found.get(pk)
        if version is None:
            return _("No judge version with id %(id)s.") % {"id": pk}
        if version.source != JudgeVersion.Source.LLM:
            return _("%(version)s holds imported verdicts; a panel needs judges it can call.") % {
                "version": version.label
            }
        if version.ensemble:
            return _("%(version)s is an ensemble itself; a panel is made of single judges.") % {
                "version": version.label
            }
    return ""


def panel_members(ensemble: dict) -> list[dict]:
    """Each member version's settings and call settings, as a run's snapshot keeps them
    (the key's variable name, never the key)."""
    versions = {
        v.pk: v
        for v in JudgeVersion.objects.filter(pk__in=ensemble["members"]).select_related(
            "config", "prompt"
        )
    }
    members = []
    for pk in ensemble["members"]:
        version = versions[pk]
        members.append(
            {
                "version": pk,
                "label": version.label,
                "model": version.model,
                "base_url": version.base_url,
                "temperature": version.temperature,
                "seed": version.seed,
                "max_output_tokens": version.max_output_tokens,
                "structured_output": version.structured_output,
                "prompt": version.prompt_id,
                "api_key_env": version.config.api_key_env,
                "timeout_seconds": version.config.timeout_seconds,
            }
        )
    return members


def ensemble_snapshot(version: JudgeVersion) -> dict:
    """The ensemble part of a run's snapshot (nothing for a single judge): the lanes call
    its members from it, whatever becomes of the member versions' configurations."""
    ensemble = version.ensemble
    if not ensemble:
        return {}
    if ensemble["kind"] == ensemble_vote.PANEL:
        return {"ensemble": {"kind": ensemble_vote.PANEL, "members": panel_members(ensemble)}}
    return {"ensemble": dict(ensemble)}


def ensemble_version_save(*, base: JudgeVersion, samples: int, user=None, note: str = ""):
    """The version of `base`'s configuration that takes `samples` samples of `base`'s
    settings and a majority per criterion (found or made; it becomes current). Raises
    ConfigInvalid, writing nothing, for a refused number of samples or temperature."""
    from judging.services.judge_versions import (
        call_settings_of,
        judge_config_save,
        version_settings_of,
    )

    settings = replace(version_settings_of(base), ensemble=ensemble_vote.self_consistency(samples))
    _, version, _ = judge_config_save(
        name=base.config.name,
        settings=settings,
        calls=call_settings_of(base.config),
        config=base.config,
        user=user,
        note=note,
    )
    return version


def panel_version_save(*, name: str, members: list[JudgeVersion], user=None, note: str = ""):
    """The configuration `name` whose current version is a panel of `members`, each
    called with its own settings, a majority of all of them deciding each criterion. The
    panel has no endpoint of its own; the member versions' configurations say how each is
    called. Raises ConfigInvalid, writing nothing, for a refused panel."""
    from judging.models import JudgeConfig
    from judging.services.judge_versions import CallSettings, VersionSettings, judge_config_save

    settings = VersionSettings(
        model=f"panel of {len(members)}",
        prompt=members[0].prompt if members else None,
        structured_output=False,
        ensemble={"kind": ensemble_vote.PANEL, "members": [m.pk for m in members]},
    )
    _, version, _ = judge_config_save(
        name=name,
        settings=settings,
        calls=CallSettings(),
        config=JudgeConfig.objects.filter(name=name).first(),
        user=user,
        note=note,
    )
    return version
