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
