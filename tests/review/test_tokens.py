"""The API tokens page (admins)."""

import pytest

from memadmin.api.models import ApiToken, hash_token
from memadmin.store.models import Namespace
from tests.factories import namespace, person

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("role", "status"), [("viewer", 403), ("curator", 403), ("admin", 200)])
def test_only_admins_see_the_tokens_page(client, role, status):
    client.force_login(person("p", role))

    assert client.get("/tokens/").status_code == status
    assert client.post("/tokens/", {"namespace": "alice"}).status_code == status


def test_anonymous_visitors_are_sent_to_log_in(client):
    response = client.get("/tokens/")

    assert (response.status_code, response["Location"]) == (302, "/accounts/login/?next=/tokens/")


def test_an_admin_creates_a_token_shown_once_and_stored_hashed(client):
    client.force_login(person("ada", "admin"))

    response = client.post(
        "/tokens/", {"namespace": "alice", "name": "laptop", "create_namespace": "1"}
    )

    token = ApiToken.objects.get()
    plain = response.context["created"]
    assert token.token_hash == hash_token(plain)
    assert plain.encode() in response.content
    assert (token.namespace.name, token.name, token.created_by.username) == (
        "alice",
        "laptop",
        "ada",
    )
    assert plain.encode() not in client.get("/tokens/").content  # never shown again


def test_an_admin_revokes_a_token(client):
    client.force_login(person("ada", "admin"))
    token, _ = ApiToken.issue(namespace=namespace("alice"), name="x")

    response = client.post(f"/tokens/{token.pk}/revoke")

    assert (response.status_code, response["Location"]) == (302, "/tokens/")
    token.refresh_from_db()
    assert token.revoked_at is not None


@pytest.mark.parametrize(
    ("form", "reason"),
    [
        ({"namespace": "a b"}, b"namespace must be letters, digits"),
        ({"namespace": "alice", "name": "n" * 101}, b"name must be at most 100 characters"),
    ],
)
def test_a_bad_namespace_or_name_is_refused_never_cut(client, form, reason):
    client.force_login(person("ada", "admin"))

    response = client.post("/tokens/", form, follow=True)

    assert reason in response.content
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(("role", "shown"), [("curator", False), ("admin", True)])
def test_the_tokens_link_is_offered_to_admins_only(client, role, shown):
    client.force_login(person("p", role))

    assert (b'href="/tokens/"' in client.get("/").content) is shown


def test_a_token_for_a_mistyped_namespace_is_refused_not_a_new_namespace(client):
    namespace("alice")
    client.force_login(person("ada", "admin"))

    response = client.post("/tokens/", {"namespace": "alcie", "name": "laptop"}, follow=True)

    assert b"there is no namespace &#x27;alcie&#x27;" in response.content
    assert not ApiToken.objects.exists()
    assert list(Namespace.objects.values_list("name", flat=True)) == ["alice"]
