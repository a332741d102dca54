from dataclasses import dataclass


@dataclass(frozen=True)
class ImportIssue:
    """One problem in an input file, located by line (1-based) and field path."""

    line: int
    message: str
    field: str = ""

    def __str__(self) -> str:
        where = [f"line {self.line}"] if self.line else []
        if self.field:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class RowInvalid(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
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

    def add(self, line: int, message: str, field: str = "") -> None:
        self.count += 1
        if len(self.errors) < ImportRejected.MAX_LISTED:
            self.errors.append(ImportIssue(line, message, field))

    def raise_if_any(self) -> None:
        if self.count:
            raise ImportRejected(self.errors, self.count)
