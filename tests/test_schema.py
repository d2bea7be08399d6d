"""The schema as migrations leave it: in step with the models, and every foreign key
served by an index (an index of its own, or a composite one that starts with it)."""

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
