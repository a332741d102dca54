from django.db import migrations

from annotation.taxonomy import ABILITIES, CATEGORIES, taxonomy_ensure


def create_taxonomy(apps, schema_editor):
    taxonomy_ensure(apps)


def remove_taxonomy(apps, schema_editor):
    Ability = apps.get_model("annotation", "Ability")
    Category = apps.get_model("annotation", "Category")
    Ability.objects.filter(label__in=[a[0] for a in ABILITIES]).delete()
    Category.objects.filter(code__in=[c[0] for c in CATEGORIES]).delete()


class Migration(migrations.Migration):
    dependencies = [("annotation", "0001_initial")]

    operations = [migrations.RunPython(create_taxonomy, remove_taxonomy)]
