import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.management.cli import add_evidence_arguments, evidence_from
from leaderboard.methods.facts import MethodsUnavailable, methods_facts
from leaderboard.methods.text import methods_text
from leaderboard.methods.writer import FORMATS, LANGUAGES


class Command(BaseCommand):
    help = (
        "The methods section of a judge's validation on a review round (raters, blinding, "
        "sample, units, majority rule, reliability, agreement with intervals, the gate, the "
        "judge's version, Concord's version, the bundle), from the agreement report's evidence."
    )

    def add_arguments(self, parser) -> None:
        add_evidence_arguments(parser)
        parser.add_argument("--lang", choices=LANGUAGES, default="en")
        parser.add_argument("--format", choices=FORMATS, default="md", dest="fmt")
        parser.add_argument(
            "--json",
            action="store_true",
            help="print the numbers the text states, under the agreement report's keys, "
            "with the text",
        )

    @no_translations
    def handle(self, *args, **opts) -> None:
        evidence = evidence_from(opts)
        try:
            facts = methods_facts(evidence)
        except MethodsUnavailable as exc:
            raise CommandError(str(exc)) from exc
        text = methods_text(facts, lang=opts["lang"], fmt=opts["fmt"])
        if opts["json"]:
            payload = {**facts, "language": opts["lang"], "format": opts["fmt"], "text": text}
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
            return
        self.stdout.write(text, ending="")
