"""Foreign keys most rows leave empty (who decided, resolved or reviewed; an event's user,
conflict and undone event) are indexed only where set: a batch run writes events and
clusters by the thousand with none of them, and each wrote an entry of NULL in every one
of these indexes. Only the indexes change (Django's AlterField would drop and add each
foreign key again, checking every row of a large table under a lock)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# (model, field, the model's table, column, index dropped, index added)
WHERE_SET = [
    ("cluster", "decided_by", "curation_cluster", "decided_by_id", "bf0a6524", "cluster"),
    ("conflict", "resolver", "curation_conflict", "resolver_id", "608b6627", "conflict"),
    ("historyevent", "conflict", "curation_historyevent", "conflict_id", "fd901b39", "history"),
    ("historyevent", "undoes", "curation_historyevent", "undoes_id", "0cfb238d", "history"),
    ("historyevent", "user", "curation_historyevent", "user_id", "720d2466", "history"),
    ("mergeproposal", "reviewer", "curation_mergeproposal", "reviewer_id", "2af09c16", "proposal"),
    ("pairverdict", "user", "curation_pairverdict", "user_id", "238c4914", "pair_verdict"),
]

USER = settings.AUTH_USER_MODEL
SET_NULL, PROTECT = django.db.models.deletion.SET_NULL, django.db.models.deletion.PROTECT
FIELDS = {
    ("cluster", "decided_by"): models.ForeignKey(
        blank=True, db_index=False, null=True, on_delete=SET_NULL, to=USER
    ),
    ("conflict", "resolver"): models.ForeignKey(
        blank=True, db_index=False, null=True, on_delete=SET_NULL, to=USER
    ),
    ("historyevent", "conflict"): models.ForeignKey(
        blank=True, db_index=False, null=True, on_delete=PROTECT, to="curation.conflict"
    ),
    ("historyevent", "undoes"): models.ForeignKey(
        blank=True,
        db_index=False,
        null=True,
        on_delete=PROTECT,
        related_name="undone_by",
        to="curation.historyevent",
    ),
    ("historyevent", "user"): models.ForeignKey(
        blank=True, db_index=False, null=True, on_delete=SET_NULL, to=USER
    ),
    ("mergeproposal", "reviewer"): models.ForeignKey(
        blank=True, db_index=False, null=True, on_delete=SET_NULL, to=USER
    ),
    ("pairverdict", "user"): models.ForeignKey(
        blank=True, db_index=False, null=True, on_delete=SET_NULL, to=USER
    ),
}


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0010_fk_indexes_covered_by_composites"),
        ("store", "0005_indexes_where_set"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name=model, name=name, field=FIELDS[model, name])
                for model, name, *_ in WHERE_SET
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{table}_{column}_{suffix}"',
                    f'CREATE INDEX IF NOT EXISTS "{table}_{column}_{suffix}" '
                    f'ON "{table}" ("{column}")',
                )
                for _, _, table, column, suffix, _ in WHERE_SET
            ],
        ),
        *(
            migrations.AddIndex(
                model_name=model,
                index=models.Index(
                    condition=models.Q((f"{name}__isnull", False)),
                    fields=[name],
                    name=f"{prefix}_{name}_set",
                ),
            )
            for model, name, _, _, _, prefix in WHERE_SET
        ),
    ]
