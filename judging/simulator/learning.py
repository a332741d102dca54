"""The simulator's "learns from examples" mode.

A judge prompt may carry a block of worked examples (`<examples version="N">` ...
`</examples>`, as judging.prompting renders it), each naming a criterion and the experts'
verdict on it. The block is read out of the prompt before anything else is drawn, so the
same request with and without examples draws the same verdicts. With `learns_from_examples`
at p > 0, a verdict on a criterion the examples name that differs from the examples'
(majority) verdict is corrected with probability p, drawn from the request's hash: a
judge that follows its examples errs less on criteria like theirs. At p = 0 the examples
change nothing.
"""

import re
from collections import defaultdict

_BLOCK = re.compile(r'<examples version="\d+">.*?</examples>\s*', re.DOTALL)
_EXAMPLE = re.compile(r"<example\b[^>]*>(.*?)</example>", re.DOTALL)
_CRITERION = re.compile(r"^(?:Criterion|评分标准)\s*(?:\[[^\]\n]*\])?\s*[:：]\s*(.+)$", re.M)
_VERDICT = re.compile(
    r"^(?:Experts' verdict|专家结论)\s*[:：]\s*(not met|met|不符合|符合)\s*$", re.M
)
_LEADING_TAG = re.compile(r"^\s*\[[^\]]*\]\s*")


def criterion_key(text: str) -> str:
    """A criterion's text without the bracketed tag a prompt puts before it."""
    return " ".join(_LEADING_TAG.sub("", text).split()).lower()


def strip_examples(text: str) -> str:
    return _BLOCK.sub("", text)


def learned_verdicts(text: str) -> dict[str, bool]:
    """Per criterion the examples in `text` name: the examples' majority verdict (a tie
    teaches nothing)."""
    votes: dict[str, list[bool]] = defaultdict(list)
    for block in _BLOCK.findall(text):
        for body in _EXAMPLE.findall(block):
            criterion, verdict = _CRITERION.search(body), _VERDICT.search(body)
            if criterion and verdict:
                hit = verdict.group(1) in ("met", "符合")
                votes[criterion_key(criterion.group(1))].append(hit)
    learned = {}
    for key, verdicts in votes.items():
        met, unmet = verdicts.count(True), verdicts.count(False)
        if met != unmet:
            learned[key] = met > unmet
    return learned
