"""Memory.superseded_by is indexed only where set (active memories, most of a store, have
none): every memory stored or folded wrote an entry of NULL. Only the index changes
(Django's AlterField would drop and add the foreign key again, checking every row of a
large table under a lock)."""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "store_memory_superseded_by_id_4861d13a"


class Migration(migrations.Migration):
    dependencies = [
        ("store", "0004_fk_indexes_covered_by_composites"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="memory",
                    name="superseded_by",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="supersedes",
                        to="store.memory",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{INDEX}"',
                    f'CREATE INDEX IF NOT EXISTS "{INDEX}" ON "store_memory" ("superseded_by_id")',
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("superseded_by__isnull", False)),
                fields=["superseded_by"],
                name="memory_superseded_by_set",
            ),
        ),
    ]
