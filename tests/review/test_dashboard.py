"""Logging in, and the dashboard."""

import pytest

from tests.factories import namespace, person

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer():
    return person("vera", "viewer", password="a-long-password")


def test_the_login_page_shows_a_form(client):
    response = client.get("/accounts/login/")

    assert response.status_code == 200
    assert b'name="username"' in response.content and b'name="password"' in response.content


def test_the_home_page_sends_anonymous_visitors_to_log_in(client):
    response = client.get("/")

    assert (response.status_code, response["Location"]) == (302, "/accounts/login/?next=/")


def test_the_home_page_lists_namespaces_with_their_counts(client, viewer):
    namespace("homelab")
    client.force_login(viewer)

    response = client.get("/")

    assert response.status_code == 200
    assert b"<td>homelab</td>" in response.content


def test_a_user_logs_in_with_a_password(client, viewer):
    response = client.post("/accounts/login/", {"username": "vera", "password": "a-long-password"})

    assert (response.status_code, response["Location"]) == (302, "/")


def test_the_dashboard_shows_counts_runs_and_charts(client, viewer, run_command, write_jsonl):
    from tests.factories import line, unit

    run_command(
        "import_memories",
        str(write_jsonl([line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1))])),
    )
    run_command("find_duplicates")
    client.force_login(viewer)

    content = client.get("/").content.decode()

    assert "<td>alice</td>" in content
    assert content.count("<svg") == 3 and "Open clusters by weakest link" in content
    assert "50 %" in content  # the run's removal rate
