"""Every run names its judge version; the settings it holds leave the configuration and the
run (their own migration: PostgreSQL alters no table with the data step's checks pending)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("judging", "0005_judge_versions")]

    operations = [
        migrations.AlterField(
            model_name="judgerun",
            name="judge_version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="runs",
                to="judging.judgeversion",
            ),
        ),
        migrations.RemoveField(model_name="judgerun", name="config"),
        migrations.RemoveField(model_name="judgerun", name="prompt"),
        migrations.RemoveField(model_name="judgeconfig", name="base_url"),
        migrations.RemoveField(model_name="judgeconfig", name="max_output_tokens"),
        migrations.RemoveField(model_name="judgeconfig", name="model"),
        migrations.RemoveField(model_name="judgeconfig", name="prompt"),
        migrations.RemoveField(model_name="judgeconfig", name="seed"),
        migrations.RemoveField(model_name="judgeconfig", name="structured_output"),
        migrations.RemoveField(model_name="judgeconfig", name="temperature"),
    ]
