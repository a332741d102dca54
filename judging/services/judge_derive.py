"""Deriving a judge version from what the experts said on a round's calibration part: a new
immutable version of the same configuration, its settings copied from a parent version
(with whatever was learned changed), which records the parent and the round. The gate and
judge selection then judge it on that round's held-out items only."""

from dataclasses import replace

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from annotation.models import ReviewItem, ReviewRound
from core.audit.services import audit_record
from judging import audit_actions, judge_settings
from judging.models import JudgeConfig, JudgeVersion, PromptTemplate
from judging.services.judge_versions import version_settings_of


class DeriveRefused(Exception):
    """The derived version cannot be made; the message says why."""


def judge_version_derive(
    *,
    parent: JudgeVersion,
    round_: ReviewRound,
    note: str,
    prompt: PromptTemplate | None = None,
    temperature: float | None = None,
    examples: list[dict] | None = None,
    user=None,
) -> JudgeVersion:
    """A new version of the parent's configuration with the parent's settings, except the
    `prompt`, `temperature` and few-shot `examples` given, derived from `round_`'s
    calibration part; it becomes the configuration's current version. Raises
    DeriveRefused, writing nothing, when the round has no calibration part, the note is
    empty, or the settings are those of a version the configuration already has (a
    derived version changes something)."""
    note = note.strip()
    if not note:
        raise DeriveRefused(_("Say in a note what the derived version changes, and why."))
    calibration = ReviewItem.objects.filter(round=round_, part=ReviewItem.Part.CALIBRATION)
    if not round_.calibration_share or not calibration.exists():
        raise DeriveRefused(
            _(
                "The round %(round)s has no calibration part: a judge version can be derived "
                "only from a round split when it opened."
            )
            % {"round": round_.name}
        )
    changes = {}
    if prompt is not None:
        changes["prompt"] = prompt
    if temperature is not None:
        changes["temperature"] = temperature
    if examples is not None:
        changes["examples"] = tuple(examples)
    settings = replace(version_settings_of(parent), **changes)
    fingerprint = judge_settings.settings_fingerprint(settings.as_settings())
    with transaction.atomic():
        config = JudgeConfig.objects.select_for_update().get(pk=parent.config_id)
        same = JudgeVersion.objects.filter(config=config, fingerprint=fingerprint).first()
        if same is not None:
            raise DeriveRefused(
                _(
                    "These settings are already %(version)s: a derived version changes "
                    "something (its prompt, its temperature or its examples)."
                )
                % {"version": same.label}
            )
        latest = JudgeVersion.objects.filter(config=config).aggregate(n=Max("number"))["n"] or 0
        version = JudgeVersion.objects.create(
            config=config,
            number=latest + 1,
            fingerprint=fingerprint,
            model=settings.model,
            base_url=settings.base_url,
            prompt=settings.prompt,
            temperature=settings.temperature,
            seed=settings.seed,
            max_output_tokens=settings.max_output_tokens,
            structured_output=settings.structured_output,
            source=settings.source,
            examples=list(settings.examples),
            note=note[:300],
            author=user if getattr(user, "is_authenticated", False) else None,
            parent=parent,
            derived_from_round=round_,
        )
        config.current_version = version
        config.save(update_fields=["current_version"])
        audit_record(
            actor=user,
            action=audit_actions.JUDGE_CONFIG_CHANGED,
            benchmark=round_.benchmark,
            details={
                "config": config.name,
                "current_version": version.number,
                "new_version": True,
                "model": version.model,
                "changed": sorted(changes),
                "derived_from_version": parent.number,
                "derived_from_round": round_.name,
            },
        )
    return version
