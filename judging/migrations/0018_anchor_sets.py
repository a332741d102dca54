# The drift anchors, moved here from the leaderboard (leaderboard/migrations/0012): the
# models take over the existing tables, so nothing is created or copied. Each anchor then
# records the rubric version its round froze (its criterion's, for the anchors made
# before), and runs mix the anchors among their own tasks.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def rubric_versions_recorded(apps, schema_editor):
    AnchorUnit = apps.get_model("judging", "AnchorUnit")
    Criterion = apps.get_model("annotation", "Criterion")
    AnchorUnit.objects.update(
        rubric_version_id=Subquery(
            Criterion.objects.filter(pk=OuterRef("criterion_id")).values("rubric_version_id")[:1]
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0021_uncertainty_sampling"),
        ("judging", "0017_ensemble_judges"),
        ("leaderboard", "0012_anchor_sets_move_to_judging"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AnchorSet",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("seed", models.BigIntegerField(verbose_name="seed")),
                        ("created", models.DateTimeField(auto_now_add=True)),
                        (
                            "benchmark",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="anchor_sets",
                                to="annotation.benchmark",
                            ),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "round",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="annotation.reviewround",
                                verbose_name="round",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "leaderboard_anchorset",
                        "ordering": ["-created", "-pk"],
                    },
                ),
                migrations.CreateModel(
                    name="AnchorUnit",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("gold", models.BooleanField()),
                        ("position", models.PositiveIntegerField()),
                        (
                            "anchor_set",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="units",
                                to="judging.anchorset",
                            ),
                        ),
                        (
                            "criterion",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="annotation.criterion",
                            ),
                        ),
                        (
                            "response",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="annotation.response",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "leaderboard_anchorunit",
                        "ordering": ["position", "criterion_id"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("anchor_set", "response", "criterion"),
                                name="anchor_unit_once",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.AddField(
            model_name="anchorunit",
            name="rubric_version",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="annotation.rubricversion",
            ),
        ),
        migrations.RunPython(rubric_versions_recorded, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="anchorunit",
            name="rubric_version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="annotation.rubricversion",
            ),
        ),
        migrations.AddField(
            model_name="judgerun",
            name="anchor_set",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="runs",
                to="judging.anchorset",
            ),
        ),
        migrations.AddField(
            model_name="judgerun",
            name="anchor_seed",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="judgetask",
            name="anchor",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="judgetask",
            name="requested",
            field=models.BooleanField(default=True),
        ),
    ]
