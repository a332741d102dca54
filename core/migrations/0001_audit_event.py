# The audit log, moved here from annotation (annotation/migrations/0020): the model takes over
# the existing table, so nothing is created or copied. The action column keeps no choices;
# apps register their actions (core.audit.register) without migrating.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("annotation", "0020_audit_event_moves_to_core"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
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
                        ("action", models.CharField(max_length=40, verbose_name="action")),
                        ("details", models.JSONField(blank=True, default=dict)),
                        ("created", models.DateTimeField(auto_now_add=True, db_index=True)),
                        (
                            "actor",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "benchmark",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                to="annotation.benchmark",
                            ),
                        ),
                        (
                            "case",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                to="annotation.case",
                            ),
                        ),
                        (
                            "version",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="annotation.rubricversion",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "audit event",
                        "verbose_name_plural": "audit events",
                        "db_table": "annotation_auditevent",
                        "ordering": ["-created", "-pk"],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
