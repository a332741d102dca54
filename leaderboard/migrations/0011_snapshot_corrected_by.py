import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0020_audit_event_moves_to_core"),
        ("leaderboard", "0010_anchor_sets"),
    ]

    operations = [
        migrations.AddField(
            model_name="leaderboardsnapshot",
            name="corrected_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="annotation.reviewround",
            ),
        ),
    ]
