"""Import problems in the reader's language. The parsers (importing/) keep each message as
its English template and values; this is where it is translated, for pages and the API."""

from django.utils.translation import gettext

from annotation.importing.issues import ImportIssue, Text


def message_text(message: str | Text) -> str:
    if isinstance(message, Text):
        template = gettext(message.msgid)
        return template % message.params if message.params else template
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
