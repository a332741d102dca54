import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0004_judge_versions")]

    operations = [
        migrations.AlterField(
            model_name="gateevaluation",
            name="judge_version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="gate_evaluations",
                to="judging.judgeversion",
            ),
        ),
        migrations.AlterField(
            model_name="leaderboardsnapshot",
            name="judge_version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="judging.judgeversion",
            ),
        ),
        migrations.RemoveField(model_name="gateevaluation", name="config"),
        migrations.RemoveField(model_name="leaderboardsnapshot", name="run"),
    ]
