"""Three foreign keys lose their own index, each the first column of a composite index
that serves every look-up by it (a batch run writes these tables for every fold): only
the indexes are dropped (Django's AlterField would drop and add each foreign key again,
checking every row of a large table under a lock)."""

import django.db.models.deletion
from django.db import migrations, models

# (table, column, index dropped)
INDEXES = [
    ("curation_cluster", "namespace_id", "curation_cluster_namespace_id_5decc6b5"),
    ("curation_clustermember", "cluster_id", "curation_clustermember_cluster_id_e176fa84"),
    ("curation_historyevent", "namespace_id", "curation_historyevent_namespace_id_5ea3ef98"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0009_llm_allowance"),
        ("store", "0004_fk_indexes_covered_by_composites"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="cluster",
                    name="namespace",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="clusters",
                        to="store.namespace",
                    ),
                ),
                migrations.AlterField(
                    model_name="clustermember",
                    name="cluster",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to="curation.cluster",
                    ),
                ),
                migrations.AlterField(
                    model_name="historyevent",
                    name="namespace",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="store.namespace",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{index}"',
                    f'CREATE INDEX IF NOT EXISTS "{index}" ON "{table}" ("{column}")',
                )
                for table, column, index in INDEXES
            ],
        ),
    ]
