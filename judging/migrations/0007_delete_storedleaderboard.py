"""Stored leaderboards move to the leaderboard app (StoredBoard): they are a cache of
computed rows, so nothing is carried over; the rows are computed again when first shown."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("judging", "0006_judge_versions_required")]

    operations = [migrations.DeleteModel(name="StoredLeaderboard")]
