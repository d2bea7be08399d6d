"""Making people: the set_role command, the admin role in Django's admin, the 405 page."""

import pytest
from django.contrib.auth.models import User

from tests.factories import person

pytestmark = pytest.mark.django_db


def test_set_role_creates_an_account_with_one_role(run_command, monkeypatch):
    monkeypatch.setenv("NEW_PASSWORD", "a-long-password-1")

    result = run_command(
        "set_role", "nina", "curator", "--create", "--password-env", "NEW_PASSWORD"
    )
    again = run_command("set_role", "nina", "admin")

    nina = User.objects.get(username="nina")
    assert result.error is None and again.error is None
    assert nina.check_password("a-long-password-1")
    assert list(nina.groups.values_list("name", flat=True)) == ["admin"]
    assert nina.is_staff


def test_set_role_refuses_an_unknown_user_without_create(run_command):
    result = run_command("set_role", "ghost", "viewer")

    assert "no user 'ghost'" in str(result.error)


def test_an_admin_sees_the_data_in_django_admin_and_changes_nothing(client, run_command):
    run_command("set_role", "ada", "admin", "--create")
    client.force_login(User.objects.get(username="ada"))

    index = client.get("/admin/")
    memories = client.get("/admin/store/memory/")

    assert index.status_code == 200 and b"/admin/store/memory/" in index.content
    assert memories.status_code == 200
    assert client.get("/admin/store/memory/add/").status_code == 403


def test_a_decision_address_opened_as_a_link_gets_the_405_page(client):
    client.force_login(person("carla", "curator"))

    response = client.get("/clusters/1/accept")

    assert response.status_code == 405
    assert b"takes a form, not a visit" in response.content and b"Dashboard" in response.content
