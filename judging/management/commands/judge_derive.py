import json

from django.core.management.base import BaseCommand, CommandError

from judging.management.commands._refs import _parent, _round
from judging.models import PromptTemplate
from judging.services.judge_derive import DeriveRefused, judge_version_derive


def _prompt(ref: str) -> PromptTemplate | None:
    if not ref:
        return None
    name, _, number = ref.partition(":")
    prompts = PromptTemplate.objects.filter(name=name)
    if number:
        if not number.isdigit():
            raise CommandError(f"--prompt takes NAME or NAME:VERSION, not {ref!r}")
        prompts = prompts.filter(version=int(number))
    prompt = prompts.order_by("-version").first()
    if prompt is None:
        raise CommandError(f"no prompt template {ref!r}")
    return prompt


class Command(BaseCommand):
    help = (
        "Make a judge version derived from a review round's calibration part: the parent "
        "version's settings (the judge's current version unless --parent-version), with the "
        "prompt or temperature given, and a note. The gate and judge selection judge it on the "
        "round's held-out items only."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--judge", required=True, help="judge configuration name")
        parser.add_argument(
            "--parent-version", type=int, default=None, help="parent version number"
        )
        parser.add_argument("--from-round", required=True, dest="round", help="name or id")
        parser.add_argument("--note", required=True, help="what changes, and why")
        parser.add_argument("--prompt", default="", help="prompt template NAME[:VERSION]")
        parser.add_argument("--temperature", type=float, default=None)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **opts) -> None:
        parent = _parent(opts["judge"], opts["parent_version"])
        round_ = _round(opts["round"])
        try:
            version = judge_version_derive(
                parent=parent,
                round_=round_,
                note=opts["note"],
                prompt=_prompt(opts["prompt"]),
                temperature=opts["temperature"],
            )
        except DeriveRefused as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            record = {
                "judge_version": version.label,
                "number": version.number,
                "parent": parent.label,
                "derived_from_round": round_.name,
                "note": version.note,
            }
            self.stdout.write(json.dumps(record, ensure_ascii=False))
            return
        self.stdout.write(
            f"{version.label}: derived from {parent.label} on the calibration part of the "
            f"round {round_.name!r}"
        )
