"""The schema as migrations leave it: in step with the models, and every foreign key
served by an index (an index of its own, a composite one that starts with it, or, for a
key most rows leave empty, one that holds the rows where it is set)."""

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection, models

pytestmark = pytest.mark.django_db


def test_the_migrations_make_the_schema_the_models_describe():
    # Exits with status 1 when a model differs from what the migrations build.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_every_foreign_key_column_leads_an_index():
    leading: dict[str, set[str]] = {}
    with connection.cursor() as cursor:
        for model in apps.get_models():
            if model._meta.app_label not in ("store", "curation", "sources"):
                continue
            table = model._meta.db_table
            constraints = connection.introspection.get_constraints(cursor, table)
            leading[table] = {
                found["columns"][0]
                for found in constraints.values()
                # A unique constraint is kept by an index of its own too.
                if (found["index"] or found["unique"]) and found["columns"]
            }
            for field in model._meta.concrete_fields:
                if isinstance(field, models.ForeignKey):
                    assert field.column in leading[table], f"{table}.{field.column} has no index"
    assert leading  # the models were found


def test_a_key_most_rows_leave_empty_is_indexed_only_where_set():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname IN "
            "('memory_superseded_by_set', 'history_user_set', 'history_undoes_set')"
        )
        found = sorted(row[0] for row in cursor.fetchall())
    assert found == [
        "CREATE INDEX history_undoes_set ON public.curation_historyevent USING btree "
        "(undoes_id) WHERE (undoes_id IS NOT NULL)",
        "CREATE INDEX history_user_set ON public.curation_historyevent USING btree (user_id) "
        "WHERE (user_id IS NOT NULL)",
        "CREATE INDEX memory_superseded_by_set ON public.store_memory USING btree "
        "(superseded_by_id) WHERE (superseded_by_id IS NOT NULL)",
    ]
