"""The judge and round a command names, shared by judge_derive and judge_fewshot."""

from django.core.management.base import CommandError

from annotation.models import ReviewRound
from judging.models import JudgeConfig, JudgeVersion


def _round(ref: str) -> ReviewRound:
    rounds = ReviewRound.objects.select_related("benchmark")
    found = rounds.filter(pk=int(ref)).first() if ref.isdigit() else None
    found = found or rounds.filter(name=ref).first()
    if found is None:
        raise CommandError(f"no review round {ref!r}")
    return found


def _parent(judge: str, number: int | None) -> JudgeVersion:
    config = JudgeConfig.objects.filter(name=judge).select_related("current_version").first()
    if config is None:
        raise CommandError(f"no judge configuration named {judge!r}")
    if number is None:
        if config.current_version is None:
            raise CommandError(f"the judge {judge!r} has no version yet")
        return config.current_version
    version = JudgeVersion.objects.filter(config=config, number=number).first()
    if version is None:
        raise CommandError(f"the judge {judge!r} has no version {number}")
    return version
