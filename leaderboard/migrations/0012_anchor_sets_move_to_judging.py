# The drift anchors move to judging (judging/migrations/0018_anchor_sets), where starting a
# run reads them: the leaderboard forgets the models, the tables and their rows stay.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0011_snapshot_corrected_by"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="AnchorUnit"),
                migrations.DeleteModel(name="AnchorSet"),
            ],
            database_operations=[],
        ),
    ]
