"""The People page (admins): invite with a one-time link, set a role, deactivate; and the
no-access page naming the admins."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.factories import person

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(client):
    admin = person("ada", "admin")
    client.force_login(admin)
    return admin


def test_an_admin_invites_someone_who_sets_a_password_once(client, ada):
    answer = client.post("/people/", {"username": "nina", "role": "curator"})
    link = re.search(r"http://testserver(/accounts/set-password/[^<\s]+)", answer.content.decode())

    newcomer = Client()
    form = newcomer.get(link.group(1), follow=True)
    done = newcomer.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-long-pass-phrase-9", "new_password2": "a-long-pass-phrase-9"},
    )
    again = Client().get(link.group(1), follow=True)

    nina = User.objects.get(username="nina")
    assert list(nina.groups.values_list("name", flat=True)) == ["curator"]
    assert done.url == "/accounts/login/"
    assert nina.check_password("a-long-pass-phrase-9")
    assert b"used already or has expired" in again.content


def test_an_invite_with_a_bad_name_or_a_taken_one_is_refused(client, ada):
    bad = client.post("/people/", {"username": "no spaces", "role": "viewer"}, follow=True)
    taken = client.post("/people/", {"username": "ada", "role": "viewer"}, follow=True)

    assert b"Nobody invited: a user name is letters" in bad.content
    assert b"Nobody invited: &#x27;ada&#x27; has an account already" in taken.content
    assert User.objects.count() == 1


def test_an_admin_sets_a_role_and_deactivates_but_never_their_own_account(client, ada):
    carla = person("carla", "viewer")
    page = client.get("/people/").content.decode()
    # The action menu starts at "choose…", never at the role the person has.
    menu = page[page.index('<select name="action">') :]
    menu = menu[: menu.index("</select>")]
    assert '<option value="" selected>choose…</option>' in menu and "make viewer" not in menu
    nothing = client.post(f"/people/{carla.pk}/change", {"action": ""}, follow=True)
    assert b"Nothing changed: choose a role" in nothing.content

    client.post(f"/people/{carla.pk}/change", {"action": "curator"})
    client.post(f"/people/{carla.pk}/change", {"action": "deactivate"})
    own = client.post(f"/people/{ada.pk}/change", {"action": "viewer"}, follow=True)

    carla.refresh_from_db()
    assert list(carla.groups.values_list("name", flat=True)) == ["curator"]
    assert carla.is_active is False
    assert b"You cannot change your own account here" in own.content
    assert list(ada.groups.values_list("name", flat=True)) == ["admin"]


def test_only_admins_see_people(client):
    client.force_login(person("carla", "curator"))

    assert client.get("/people/").status_code == 403


def test_the_no_access_page_names_the_admins(client):
    person("ada", "admin")
    person("zoe", "admin")
    client.force_login(person("newbie", None))

    page = client.get("/clusters/")

    assert page.status_code == 403
    assert b"Admins, who can give you a role: ada, zoe." in page.content
    assert b"Your account has no role yet" in page.content
