"""Database connections do not pile up under `runserver` (a thread per request)."""

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from memadmin.api.models import ApiToken
from tests.factories import namespace
from tests.processes import free_port, start, wait_for_port

pytestmark = pytest.mark.django_db(transaction=True)


def connections_to_this_database() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


@pytest.fixture
def runserver():
    """`manage.py runserver` against the test database, as `make serve` starts it."""
    port = free_port()
    server = start("runserver", "--noreload", f"127.0.0.1:{port}")
    wait_for_port(port, server)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(timeout=30)


def test_fifty_concurrent_clients_leave_no_idle_connections_behind(runserver):
    token = ApiToken.issue(namespace=namespace("alice"), name="agent")[1]
    before = connections_to_this_database()

    def read_profile(_):
        request = urllib.request.Request(
            f"{runserver}/api/v1/namespaces/alice/profile",
            headers={"Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())["namespace"]

    with ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(read_profile, range(200)))

    assert set(answers) == {(200, "alice")}
    # Each request closed its connection (CONN_MAX_AGE 0): none is left idle.
    assert connections_to_this_database() <= before + 1
