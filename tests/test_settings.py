import pytest
from django.core.exceptions import ImproperlyConfigured

from memadmin.settings import database_from_url, env_bool, env_float, env_int


def test_a_socket_url_puts_the_socket_folder_in_host():
    database = database_from_url("postgresql://postgres:@/postgres?host=/srv/var/pgdata")

    assert (database["NAME"], database["USER"], database["HOST"], database["PORT"]) == (
        "postgres",
        "postgres",
        "/srv/var/pgdata",
        "",
    )


def test_a_tcp_url_keeps_its_parts_and_options():
    database = database_from_url("postgres://mem:p%40ss@db.internal:6432/memadmin?sslmode=require")

    assert database["NAME"] == "memadmin"
    assert (database["USER"], database["PASSWORD"]) == ("mem", "p@ss")
    assert (database["HOST"], database["PORT"]) == ("db.internal", "6432")
    assert database["OPTIONS"] == {"sslmode": "require"}


def test_a_url_that_is_not_postgres_is_refused():
    with pytest.raises(ImproperlyConfigured, match="postgresql://"):
        database_from_url("sqlite:///db.sqlite3")


@pytest.mark.parametrize(
    ("helper", "value", "message"),
    [
        (lambda: env_bool("MEMADMIN_X", False), "maybe", "must be a boolean"),
        (lambda: env_int("MEMADMIN_X", 1, minimum=1), "0", "must be at least 1"),
        (lambda: env_int("MEMADMIN_X", 1), "ten", "must be a whole number"),
        (lambda: env_float("MEMADMIN_X", 0.5), "1.5", "must be between 0.0 and 1.0"),
    ],
)
def test_a_bad_setting_names_the_variable(monkeypatch, helper, value, message):
    monkeypatch.setenv("MEMADMIN_X", value)

    with pytest.raises(ImproperlyConfigured, match=f"MEMADMIN_X {message}"):
        helper()


def settings_in_a_process(**environment) -> dict:
    """The settings a fresh process reads from `environment` (no database is opened)."""
    import json
    import os
    import subprocess
    import sys

    names = [
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "SECURE_PROXY_SSL_HEADER",
        "SECURE_SSL_REDIRECT",
        "AXES_FAILURE_LIMIT",
        "CONN_MAX_AGE",
    ]
    script = (
        "import json, memadmin.settings as s; "
        f"print(json.dumps({{n: getattr(s, n, None) for n in {names!r}}} | "
        "{'CONN_MAX_AGE': s.DATABASES['default']['CONN_MAX_AGE']}))"
    )
    env = {**os.environ, "DATABASE_URL": "postgresql://x:y@localhost/none", **environment}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_https_deployments_get_secure_cookies_hsts_and_the_proxy_header():
    read = settings_in_a_process(
        MEMADMIN_SECURE_COOKIES="1",
        MEMADMIN_HSTS_SECONDS="31536000",
        MEMADMIN_BEHIND_HTTPS_PROXY="1",
        MEMADMIN_SSL_REDIRECT="1",
        MEMADMIN_LOGIN_FAILURE_LIMIT="8",
    )

    assert read == {
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "SECURE_SSL_REDIRECT": True,
        "AXES_FAILURE_LIMIT": 8,
        "CONN_MAX_AGE": 0,
    }


def test_by_default_nothing_assumes_https():
    read = settings_in_a_process()

    assert (read["SESSION_COOKIE_SECURE"], read["SECURE_HSTS_SECONDS"]) == (False, 0)
    assert read["SECURE_PROXY_SSL_HEADER"] is None
