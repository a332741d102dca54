from dataclasses import dataclass


class Text(str):
    """A message that is its English text (what commands print, and what compares equal)
    and also keeps its template and values, so that pages and the API can show it in the
    reader's language (annotation/import_text.py)."""

    msgid: str
    params: dict

    def __new__(cls, msgid: str, params: dict | None = None) -> "Text":
        params = params or {}
        text = super().__new__(cls, msgid % params if params else msgid)
        text.msgid = msgid
        text.params = params
        return text


def _(msgid: str, **params) -> Text:
    # Named like gettext so that makemessages extracts the template into the catalogue;
    # nothing is translated here (this package does not know Django or the reader).
    return Text(msgid, params)


def shown(value: str, limit: int = 40) -> str:
    """A value from the file, quoted and cut short, for a message about it."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


@dataclass(frozen=True)
class ImportIssue:
    """One problem in an input file, located by line (1-based) and field path."""

    line: int
    message: str | Text
    field: str = ""

    def __str__(self) -> str:
        where = [f"line {self.line}"] if self.line else []
        if self.field:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}" if where else str(self.message)

    def as_dict(self) -> dict:
        """The issue as JSON data (a background import keeps its rejection this way)."""
        if isinstance(self.message, Text):
            return {
                "line": self.line,
                "field": self.field,
                "msgid": self.message.msgid,
                "params": self.message.params,
            }
        return {"line": self.line, "field": self.field, "msgid": str(self.message), "params": {}}

    @classmethod
    def from_dict(cls, data: dict) -> "ImportIssue":
        return cls(data["line"], Text(data["msgid"], data.get("params") or {}), data["field"])


class RowInvalid(Exception):
    def __init__(self, field: str, message: str | Text) -> None:
        super().__init__(str(message))
        self.field = field
        self.message = message


class ImportRejected(Exception):
    """Raised when a file has errors; the import wrote nothing."""

    MAX_LISTED = 50

    def __init__(self, errors: list[ImportIssue], total: int | None = None) -> None:
        self.errors = errors[: self.MAX_LISTED]
        self.total = total if total is not None else len(errors)
        super().__init__(self.summary())

    def summary(self) -> str:
        lines = [str(issue) for issue in self.errors]
        if self.total > len(self.errors):
            lines.append(f"... and {self.total - len(self.errors)} more errors")
        return "\n".join(lines)


class IssueCollector:
    """Counts every error, keeps the first few for the message."""

    def __init__(self) -> None:
        self.errors: list[ImportIssue] = []
        self.count = 0

    def add(self, line: int, message: str | Text, field: str = "") -> None:
        self.count += 1
        if len(self.errors) < ImportRejected.MAX_LISTED:
            self.errors.append(ImportIssue(line, message, field))

    def raise_if_any(self) -> None:
        if self.count:
            raise ImportRejected(self.errors, self.count)
