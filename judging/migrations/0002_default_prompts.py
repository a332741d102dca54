from django.db import migrations

from judging.default_prompts import DEFAULTS, default_prompts_ensure


def create_prompts(apps, schema_editor):
    default_prompts_ensure(apps)


def remove_prompts(apps, schema_editor):
    PromptTemplate = apps.get_model("judging", "PromptTemplate")
    PromptTemplate.objects.filter(version=1, name__in=[d[0] for d in DEFAULTS]).delete()


class Migration(migrations.Migration):
    dependencies = [("judging", "0001_initial")]

    operations = [migrations.RunPython(create_prompts, remove_prompts)]
