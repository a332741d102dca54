"""An Inspect AI eval log, imported as one finished judge run (judging.interop.inspect_log
describes what is read). The judge version records the log's model and generation
settings; the run keeps the log's task, evaluation id and full generation config. The
verdicts go through the judgments import's checks: known cases and responses, one verdict
per criterion of the case's current rubric, no response twice. A log with any problem
writes nothing."""

from django.db import transaction
from django.utils import timezone

from annotation.importing.issues import ImportIssue, ImportRejected, IssueCollector
from annotation.models import Benchmark, System
from annotation.services.responses_import import BenchmarkNotFound
from judging.interop.inspect_log import InspectLog, read_inspect_log, samples_by_system
from judging.models import JudgeRun
from judging.services.judge_versions import VersionSettings, judge_version_imported
from judging.services.judgments_import import JudgmentsImportSummary, _JudgmentsImporter
from judging.services.runs import config_snapshot


def _settings(log: InspectLog) -> tuple[VersionSettings, list[str]]:
    config = log.generate_config
    warnings = []
    values = {}
    for key, name in (("temperature", "temperature"), ("seed", "seed")):
        value = config.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            values[name] = value
    if "temperature" not in values:
        warnings.append(
            "the log records no temperature (the provider's default applied); the judge "
            "version shows 0"
        )
    tokens = config.get("max_tokens")
    if type(tokens) is int and tokens > 0:
        values["max_output_tokens"] = tokens
    if isinstance(values.get("seed"), float):
        values["seed"] = int(values["seed"])
    return VersionSettings(model=log.model, **values), warnings


def inspect_log_import(
    *,
    data: bytes,
    benchmark_slug: str,
    judge_name: str,
    scorer: str | None = None,
    system_name: str | None = None,
) -> JudgmentsImportSummary:
    """Read an Inspect log (bytes of a .json or .eval file) as one finished, imported judge
    run of the judge `judge_name`. Raises BenchmarkNotFound before reading, and
    ImportRejected, every problem named by sample ("line N") and field, writing nothing."""
    judge_name = judge_name.strip()
    if not judge_name:
        raise ImportRejected([ImportIssue(0, "the judge name must not be empty")])
    benchmark = Benchmark.objects.filter(slug=benchmark_slug).first()
    if benchmark is None:
        raise BenchmarkNotFound(f"no benchmark with slug {benchmark_slug!r}")
    log, problems = read_inspect_log(data, scorer=scorer, system=system_name)
    issues = IssueCollector()
    for issue in problems:
        issues.add(issue.line, issue.message, issue.field)
    groups = list(samples_by_system(log))
    systems = {s.name: s for s in System.objects.filter(name__in=[name for name, _ in groups])}
    for name, samples in groups:
        if name not in systems:
            issues.add(samples[0].number, f"unknown system {name!r}", "metadata.system")
    # Every sample is checked before anything is kept: the run is written, and rolled back
    # with the first problem found, so that the judgments import's checks name them all.
    settings, warnings = _settings(log)
    with transaction.atomic():
        version = judge_version_imported(name=judge_name, settings=settings)
        run = JudgeRun.objects.create(
            benchmark=benchmark,
            judge_version=version,
            settings_snapshot={
                **config_snapshot(version),
                "imported": True,
                "inspect": log.record(),
            },
            source=JudgeRun.Source.IMPORTED,
            status=JudgeRun.Status.FINISHED,
            finished=timezone.now(),
        )
        run.systems.set(systems.values())
        summary = JudgmentsImportSummary(run=run.pk, warnings=warnings)
        for name, samples in groups:
            if name not in systems:
                continue
            importer = _JudgmentsImporter(benchmark=benchmark, system=systems[name], run=run)
            importer.issues = issues  # one count and one list for the whole log
            for sample in samples:
                importer.take(sample.number, sample.row)
            importer.flush()
            summary.tasks += importer.summary.tasks
            summary.verdicts += importer.summary.verdicts
        issues.raise_if_any()
        if not summary.tasks:
            raise ImportRejected([ImportIssue(0, "the log contains no judgments")])
    return summary
