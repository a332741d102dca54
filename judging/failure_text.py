"""Why a judge call failed, in the reader's language.

Judging records each failure as an English sentence (`JudgeTask.last_error`, built in
judging/services/outcomes.py from the messages of llm_client.py, replies.py and
execution.py); those stay as they are, for logs and exports. This module only reads them
back for pages: each known sentence is matched and said again through the catalog, with
its values. A sentence it does not know is shown as written rather than guessed at."""

import re

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.import_text import value_text

_ATTEMPT = re.compile(
    r"^attempt (?P<n>\d+): (?P<inner>.*?)(?: \(gave up after (?P<tries>\d+) attempts\))?$", re.S
)

# (pattern of the English sentence, its translatable template with the same named values)
_SENTENCES = [
    (r"the request timed out", _("the request timed out")),
    (r"rate limited \(HTTP 429\)", _("rate limited (HTTP 429)")),
    (
        r"HTTP (?P<status>\d+) from the endpoint; if the endpoint rejects structured output, "
        r"turn it off in the config",
        _(
            "HTTP %(status)s from the endpoint; if the endpoint rejects structured output, "
            "turn it off in the config"
        ),
    ),
    (r"HTTP (?P<status>\d+) from the endpoint", _("HTTP %(status)s from the endpoint")),
    (r"the endpoint could not be reached", _("the endpoint could not be reached")),
    (
        r"the endpoint's answer could not be read \((?P<kind>[^)]*)\)",
        _("the endpoint's answer could not be read (%(kind)s)"),
    ),
    (
        r"the endpoint answered HTTP (?P<status>\d+) with an empty body, not a chat completion",
        _("the endpoint answered HTTP %(status)s with an empty body, not a chat completion"),
    ),
    (
        r"the endpoint answered HTTP (?P<status>\d+) with JSON that is not a chat completion",
        _("the endpoint answered HTTP %(status)s with JSON that is not a chat completion"),
    ),
    (
        r"the endpoint answered HTTP (?P<status>\d+) with (?P<kind>.+?), not a chat completion; "
        r"is the base URL the API's \(it often ends in /v1\)\?",
        _(
            "the endpoint answered HTTP %(status)s with %(kind)s, not a chat completion; is "
            "the base URL the API's (it often ends in /v1)?"
        ),
    ),
    (
        r"the endpoint answered HTTP (?P<status>\d+) with (?P<kind>.+?), not a chat completion",
        _("the endpoint answered HTTP %(status)s with %(kind)s, not a chat completion"),
    ),
    (r"empty reply", _("empty reply")),
    (
        r"reply is not valid JSON \((?P<error>.*) at column (?P<column>\d+)\)",
        _("reply is not valid JSON (%(error)s at column %(column)s)"),
    ),
    (r"reply has no 'verdicts' list", _("reply has no 'verdicts' list")),
    (
        r"reply has (?P<got>\d+) verdicts for (?P<expected>\d+) criteria",
        _("reply has %(got)s verdicts for %(expected)s criteria"),
    ),
    (r"verdict (?P<index>\d+) is not an object", _("verdict %(index)s is not an object")),
    (
        r"verdict (?P<index>\d+) has a non-boolean 'hit': (?P<value>.*)",
        _("verdict %(index)s has a non-boolean 'hit': %(value)s"),
    ),
    (
        r"verdict (?P<index>\d+) has no criterion number: (?P<value>.*)",
        _("verdict %(index)s has no criterion number: %(value)s"),
    ),
    (
        r"verdict (?P<index>\d+) names criterion (?P<number>.*), not in the rubric or named twice",
        _("verdict %(index)s names criterion %(number)s, not in the rubric or named twice"),
    ),
    (
        r"reply's 'detail' has (?P<got>\d+) verdicts for (?P<expected>\d+) criteria",
        _("reply's 'detail' has %(got)s verdicts for %(expected)s criteria"),
    ),
    (
        r"'detail' element (?P<index>\d+) is not 0 or 1: (?P<value>.*)",
        _("'detail' element %(index)s is not 0 or 1: %(value)s"),
    ),
    (
        r"reply's 'detail' list holds something other than 0 or 1",
        _("reply's 'detail' list holds something other than 0 or 1"),
    ),
    (
        r"no outcome was recorded \(its lane or worker stopped\)",
        _("no outcome was recorded (its lane or worker stopped)"),
    ),
    (r"the attempt broke off \((?P<detail>.*)\)", _("the attempt broke off (%(detail)s)")),
    (
        r"the environment variable (?P<name>\S+) \(the API key\) is not set",
        _("the environment variable %(name)s (the API key) is not set"),
    ),
    (r"cancelled", _("cancelled")),
]
_COMPILED = [(re.compile(f"^{pattern}$", re.S), template) for pattern, template in _SENTENCES]


def _sentence(text: str) -> str:
    for pattern, template in _COMPILED:
        match = pattern.match(text)
        if match:
            values = {key: value_text(value) for key, value in match.groupdict().items()}
            return str(template) % values if values else str(template)
    return text


def failure_text(message: str) -> str:
    """`message` ("attempt 2: empty reply (gave up after 2 attempts)") in the reader's
    language."""
    if not message:
        return ""
    match = _ATTEMPT.match(message)
    if not match:
        return _sentence(message)
    values = {"n": int(match["n"]), "reason": _sentence(match["inner"])}
    if match["tries"]:
        values["tries"] = int(match["tries"])
        return gettext("attempt %(n)d: %(reason)s (gave up after %(tries)d attempts)") % values
    return gettext("attempt %(n)d: %(reason)s") % values
