# The audit log moves to core (core/migrations/0001_audit_event): annotation forgets the model,
# the table and its rows stay where they are.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0019_sampling_weights"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
