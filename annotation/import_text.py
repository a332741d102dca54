"""Import problems in the reader's language. The parsers (importing/) keep each message as
its English template and values; this is where it is translated, for pages and the API."""

from django.utils.translation import gettext, gettext_noop

from annotation.importing.issues import ImportIssue, Text

# Values the parsers put into messages that are words, not data: the JSON types they name
# ("expected a string, got integer") and the reasons of Python's JSON parser ("invalid
# JSON: Expecting value at column 1"). Said in the reader's language too.
VALUE_WORDS = frozenset(
    {
        gettext_noop("null"),
        gettext_noop("boolean"),
        gettext_noop("integer"),
        gettext_noop("number"),
        gettext_noop("string"),
        gettext_noop("list"),
        gettext_noop("object"),
        gettext_noop("Expecting value"),
        gettext_noop("Expecting property name enclosed in double quotes"),
        gettext_noop("Expecting ':' delimiter"),
        gettext_noop("Expecting ',' delimiter"),
        gettext_noop("Unterminated string starting at"),
        gettext_noop("Invalid control character at"),
        gettext_noop("Invalid \\escape"),
        gettext_noop("Invalid \\uXXXX escape"),
        gettext_noop("Extra data"),
        gettext_noop("Illegal trailing comma before end of object"),
        gettext_noop("Illegal trailing comma before end of array"),
    }
)


def value_text(value):
    """A message's value in the reader's language when it is one of VALUE_WORDS."""
    return gettext(value) if isinstance(value, str) and value in VALUE_WORDS else value


def message_text(message: str | Text) -> str:
    if isinstance(message, Text):
        template = gettext(message.msgid)
        if not message.params:
            return template
        return template % {key: value_text(value) for key, value in message.params.items()}
    return str(message)


def issue_text(issue: ImportIssue) -> str:
    """The issue with where it is ("line 3, field 'question_id': ...")."""
    message = message_text(issue.message)
    if issue.line and issue.field:
        return gettext("line %(line)d, field '%(field)s': %(message)s") % {
            "line": issue.line,
            "field": issue.field,
            "message": message,
        }
    if issue.line:
        return gettext("line %(line)d: %(message)s") % {"line": issue.line, "message": message}
    if issue.field:
        return gettext("field '%(field)s': %(message)s") % {
            "field": issue.field,
            "message": message,
        }
    return message
