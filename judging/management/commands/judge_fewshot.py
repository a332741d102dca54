import json

from django.core.management.base import BaseCommand, CommandError

from judging.fewshot import DEFAULT_BUDGET
from judging.management.commands._refs import _parent, _round
from judging.selectors.fewshot import NoProposals, fewshot_proposals
from judging.services.fewshot import Kept, judge_version_with_examples
from judging.services.judge_derive import DeriveRefused


def _record(candidate) -> dict:
    return {
        "item": candidate.item,
        "item_code": candidate.item_code,
        "criterion": candidate.criterion,
        "ability": candidate.ability,
        "criterion_text": candidate.criterion_text,
        "experts": "met" if candidate.expert_hit else "not met",
        "judge": "met" if candidate.judge_hit else "not met",
        "settled": candidate.how,
        "explanation": candidate.explanation,
        "tokens": candidate.tokens,
    }


class Command(BaseCommand):
    help = (
        "Propose few-shot examples for a judge from a review round's calibration part: its "
        "newest finished run's disagreements with what the experts settled (adjudicated or "
        "unanimous), per ability, within a token budget. With --create, make the derived "
        "judge version whose prompt carries them; the gate and judge selection then judge it "
        "on the round's held-out items only."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--round", required=True, help="review round name or id")
        parser.add_argument("--judge", required=True, help="judge configuration name")
        parser.add_argument(
            "--parent-version", type=int, default=None, help="version (default: current)"
        )
        parser.add_argument(
            "--budget", type=int, default=DEFAULT_BUDGET, help="tokens the examples may add"
        )
        parser.add_argument("--create", action="store_true", help="make the derived version")
        parser.add_argument("--note", default="", help="the derived version's note")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **opts) -> None:
        if opts["budget"] < 1:
            raise CommandError("--budget must be a positive number of tokens")
        parent = _parent(opts["judge"], opts["parent_version"])
        round_ = _round(opts["round"])
        try:
            proposals = fewshot_proposals(version=parent, round_=round_, budget=opts["budget"])
        except NoProposals as exc:
            raise CommandError(str(exc)) from exc
        record = {
            "judge_version": parent.label,
            "round": round_.name,
            "run": proposals.run.pk,
            "budget": proposals.budget,
            "tokens": proposals.tokens,
            "disagreements": len(proposals.candidates),
            "examples": [_record(c) for c in proposals.chosen],
        }
        if opts["create"]:
            note = opts["note"] or (
                f"{len(proposals.chosen)} few-shot examples from the calibration part of "
                f"{round_.name}"
            )
            kept = [Kept(c.item, c.criterion, c.explanation) for c in proposals.chosen]
            try:
                version = judge_version_with_examples(
                    parent=parent, round_=round_, kept=kept, note=note
                )
            except DeriveRefused as exc:
                raise CommandError(str(exc)) from exc
            record["created"] = version.label
        if opts["json"]:
            self.stdout.write(json.dumps(record, ensure_ascii=False))
            return
        self.stdout.write(
            f"{parent.label} on {round_.name}: {record['disagreements']} settled calibration "
            f"disagreement(s), {len(proposals.chosen)} proposed ({proposals.tokens} of "
            f"{proposals.budget} tokens)"
        )
        for c in proposals.chosen:
            self.stdout.write(
                f"  {c.item_code} [{c.ability}] {c.criterion_text[:60]}: experts "
                f"{_record(c)['experts']}, judge {_record(c)['judge']} ({c.how})"
            )
        if "created" in record:
            self.stdout.write(f"made {record['created']}")
