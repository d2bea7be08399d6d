"""Memory.namespace loses its own index: memory_unique_external_id (namespace_id,
external_id) and the other namespace indexes start with it, and every memory stored or
changed wrote it too. Only the index is dropped (Django's AlterField would drop and add
the foreign key again, checking every row of a large table under a lock)."""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "store_memory_namespace_id_1391af74"


class Migration(migrations.Migration):
    dependencies = [
        ("store", "0003_multilingual_short"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="memory",
                    name="namespace",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="memories",
                        to="store.namespace",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{INDEX}"',
                    f'CREATE INDEX IF NOT EXISTS "{INDEX}" ON "store_memory" ("namespace_id")',
                ),
            ],
        ),
    ]
