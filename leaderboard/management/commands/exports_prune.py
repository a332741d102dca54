from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.exports.services import export_jobs_prune
from leaderboard.management.cli import add_json_argument, write_result


def _days(value: str) -> float:
    try:
        days = float(value)
    except ValueError:
        days = -1.0
    if not days >= 0 or days == float("inf"):
        raise ValueError(value)
    return days


_days.__name__ = "number of days (0 or more)"  # argparse names the type in its message


class Command(BaseCommand):
    help = (
        "Delete the files of export jobs finished more than DAYS days ago and mark those "
        "jobs expired (their record stays; the exports page no longer offers the file). "
        "Run it from cron, e.g. daily."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than", type=_days, required=True, metavar="DAYS")
        add_json_argument(parser)

    def handle(self, *args, **opts) -> None:
        pruned = export_jobs_prune(older_than=timedelta(days=opts["older_than"]))
        write_result(
            self,
            as_json=opts["json"],
            summary={
                "jobs": pruned.jobs,
                "bytes": pruned.bytes,
                "errors": [{"job": job, "reason": reason} for job, reason in pruned.errors],
            },
            text=f"removed the files of {pruned.jobs} export job(s), {pruned.bytes} bytes freed",
        )
        for job_id, reason in pruned.errors:
            self.stderr.write(f"export job {job_id}: the file could not be removed: {reason}")
        if pruned.errors:
            raise CommandError(f"{len(pruned.errors)} file(s) could not be removed")
