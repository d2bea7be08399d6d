"""Other processes against the test database: a command as cron runs it, a server as
`make serve` starts it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import psycopg
from django.conf import settings
from django.db import connection


def database_url() -> str:
    """The test database as a URL another process can use."""
    found = connection.settings_dict
    user, password, name, host = found["USER"], found["PASSWORD"], found["NAME"], found["HOST"]
    if host.startswith("/"):  # the embedded server: a Unix socket folder
        return f"postgresql://{user}:{password}@/{name}?host={host}"
    return f"postgresql://{user}:{password}@{host}:{found['PORT'] or 5432}/{name}"


def environment(**overrides: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url(), **overrides}


def manage(*args: str, database: str | None = None, timeout: float = 120):
    """Run a management command in its own process (against `database`, a URL, or the
    test database)."""
    env = environment(**({"DATABASE_URL": database} if database else {}))
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start(*args: str) -> subprocess.Popen:
    """Start a management command in its own process, its output discarded."""
    return start_with({}, *args)


def start_with(overrides: dict[str, str], *args: str) -> subprocess.Popen:
    """start, with these environment variables set for the process."""
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=environment(**overrides),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 60) -> None:
    """Until a server process listens on `port` (it must not exit meanwhile)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.1)


@contextmanager
def another_session_holding(lock_key: int):
    """A second database session (as another cron run would be) holding an advisory lock
    until the block ends."""
    found = connection.settings_dict
    other = psycopg.connect(
        dbname=found["NAME"],
        user=found["USER"],
        host=found["HOST"],
        port=found["PORT"] or None,
        password=found["PASSWORD"] or None,
    )
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [lock_key])
        yield
    finally:
        other.close()


@contextmanager
def history_refused(namespace_id: int, message: str = "disk full"):
    """A fault in the database itself: every history event of one namespace is refused
    (its decisions cannot be written) until the block ends."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION refuse_event() RETURNS trigger AS $$ BEGIN "
            f"RAISE EXCEPTION '{message}'; END; $$ LANGUAGE plpgsql"
        )
        cursor.execute(
            "CREATE TRIGGER refuse_event BEFORE INSERT ON curation_historyevent FOR EACH ROW "
            f"WHEN (NEW.namespace_id = {int(namespace_id)}) EXECUTE FUNCTION refuse_event()"
        )
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER refuse_event ON curation_historyevent")
            cursor.execute("DROP FUNCTION refuse_event()")
