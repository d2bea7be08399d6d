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
