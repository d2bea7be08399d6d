import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection


@pytest.mark.django_db
def test_tests_run_on_real_postgres_with_pgvector():
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        (version,) = cursor.fetchone()
    assert connection.vendor == "postgresql"
    assert tuple(int(part) for part in version.split(".")[:2]) >= (0, 8)


def test_a_second_process_joins_the_same_embedded_server():
    if os.environ.get("DATABASE_URL"):
        return  # an external server is in use; there is no embedded one to share
    completed = subprocess.run(
        [sys.executable, "-m", "memadmin.embedded_db", "url"],
        env={**os.environ, "MEMADMIN_DATA_DIR": str(settings.DATA_DIR)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert completed.stdout.strip() == settings.DATABASE_URL


@pytest.mark.django_db(transaction=True)
def test_a_command_on_a_database_nobody_migrated_says_migrate_first():
    from tests.processes import database_url, manage

    with connection.cursor() as cursor:
        cursor.execute("DROP DATABASE IF EXISTS never_migrated")
        cursor.execute("CREATE DATABASE never_migrated")
    try:
        empty = database_url().replace(f"/{connection.settings_dict['NAME']}", "/never_migrated")
        for command in (["mcp_server", "--namespace", "alice"], ["find_duplicates"]):
            done = manage(*command, database=empty)
            assert done.returncode == 1
            assert done.stderr.strip().splitlines()[-1] == (
                "CommandError: this database has no memadmin tables yet: "
                "run `python manage.py migrate` first"
            )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP DATABASE IF EXISTS never_migrated")
