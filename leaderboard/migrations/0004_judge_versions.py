"""Gate evaluations and published leaderboards name the judge version they rest on (read
from their runs); a published board may span several runs of that version; boards of runs
are stored under the runs' ids; a benchmark may allow boards on changed rubrics."""

import django.db.models.deletion
from django.db import migrations, models


def versions_from_runs(apps, schema_editor):
    GateEvaluation = apps.get_model("leaderboard", "GateEvaluation")
    LeaderboardSnapshot = apps.get_model("leaderboard", "LeaderboardSnapshot")
    for evaluation in GateEvaluation.objects.select_related("run"):
        evaluation.judge_version_id = evaluation.run.judge_version_id
        evaluation.save(update_fields=["judge_version"])
        evaluation.runs.add(evaluation.run_id)
    for snapshot in LeaderboardSnapshot.objects.select_related("run"):
        snapshot.judge_version_id = snapshot.run.judge_version_id
        snapshot.save(update_fields=["judge_version"])
        snapshot.runs.add(snapshot.run_id)


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0007_delete_storedleaderboard"),
        ("leaderboard", "0003_export_job_expired"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="gateevaluation",
            options={
                "ordering": ["-created", "-pk"],
                "permissions": [("record_gate", "Can record gate evaluations")],
            },
        ),
        migrations.AddField(
            model_name="gateevaluation",
            name="judge_version",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="gate_evaluations",
                to="judging.judgeversion",
            ),
        ),
        migrations.AddField(
            model_name="gateevaluation",
            name="runs",
            field=models.ManyToManyField(related_name="+", to="judging.judgerun"),
        ),
        migrations.AddField(
            model_name="gatepolicy",
            name="allow_rubric_changes",
            field=models.BooleanField(
                default=False,
                help_text="Off: such a board is refused. On: it is published with a visible notice of how many cases changed.",
                verbose_name="publish boards whose rubrics changed since the evaluated round",
            ),
        ),
        migrations.AddField(
            model_name="leaderboardsnapshot",
            name="judge_version",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="judging.judgeversion",
            ),
        ),
        migrations.AddField(
            model_name="leaderboardsnapshot",
            name="rubric_changes",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="leaderboardsnapshot",
            name="runs",
            field=models.ManyToManyField(related_name="+", to="judging.judgerun"),
        ),
        migrations.CreateModel(
            name="StoredBoard",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("runs", models.CharField(max_length=500, verbose_name="runs")),
                ("profile", models.CharField(max_length=40, verbose_name="scoring profile")),
                ("scoring", models.PositiveIntegerField(verbose_name="scorer version")),
                (
                    "fingerprint",
                    models.CharField(max_length=64, verbose_name="fingerprint of the runs' tasks"),
                ),
                ("rows", models.JSONField(default=list)),
                ("computed", models.DateTimeField(auto_now=True)),
            ],
            options={
                "verbose_name": "stored leaderboard",
                "verbose_name_plural": "stored leaderboards",
                "constraints": [
                    models.UniqueConstraint(fields=("runs", "profile"), name="stored_board_unique")
                ],
            },
        ),
        migrations.RunPython(versions_from_runs, migrations.RunPython.noop),
    ]
