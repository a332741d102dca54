import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0003_attempt_worker"),
    ]

    operations = [
        migrations.CreateModel(
            name="StoredLeaderboard",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("profile", models.CharField(max_length=40, verbose_name="scoring profile")),
                ("scoring", models.PositiveIntegerField(verbose_name="scorer version")),
                (
                    "fingerprint",
                    models.CharField(max_length=64, verbose_name="fingerprint of the run's tasks"),
                ),
                ("rows", models.JSONField(default=list)),
                ("computed", models.DateTimeField(auto_now=True)),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="stored_leaderboards",
                        to="judging.judgerun",
                    ),
                ),
            ],
            options={
                "verbose_name": "stored leaderboard",
                "verbose_name_plural": "stored leaderboards",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("run", "profile"), name="stored_leaderboard_unique"
                    )
                ],
            },
        ),
    ]
