"""Other processes against the test database: a command as cron runs it, a server as
`make serve` starts it."""

from __future__ import annotations

import os
import subprocess
import sys

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
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
