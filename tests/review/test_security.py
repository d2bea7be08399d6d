"""Access and abuse: an account without a role sees nothing, `next` stays on this site,
logins are throttled, errors are logged and answered with pages that have navigation."""

import logging

import pytest
from django.test import override_settings
from django.urls import path

from memadmin.curation.models import Cluster, ClusterStatus
from memadmin.urls import urlpatterns as site_urls
from tests.factories import line, person, status, unit

pytestmark = pytest.mark.django_db

READ_PAGES = ["/", "/clusters/", "/conflicts/", "/memories/", "/history/", "/tokens/"]


@pytest.mark.parametrize("page", READ_PAGES)
def test_a_logged_in_user_without_a_role_sees_only_no_access(client, page):
    client.force_login(person("nobody", None))

    response = client.get(page)

    assert response.status_code == 403
    assert b"Your account has no role yet" in response.content
    assert b'class="topbar"' in response.content  # the page has the site's navigation


@pytest.fixture
def merged(load, run_command):
    load(line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1), importance=0.9))
    run_command("find_duplicates")
    return Cluster.objects.get(status=ClusterStatus.AUTO_MERGED)


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "http:evil"]
)
def test_next_leaving_the_site_is_refused_before_anything_is_written(client, merged, target):
    client.force_login(person("carla", "curator"))

    response = client.post(f"/history/unmerge/{merged.pk}", {"next": target})

    assert response.status_code == 400
    assert b"next must be a page of this site" in response.content
    assert status("a") == "superseded"  # the merge was not undone


def test_next_within_the_site_is_followed(client, merged):
    client.force_login(person("carla", "curator"))

    response = client.post(f"/history/unmerge/{merged.pk}", {"next": "/memories/"})

    assert (response.status_code, response["Location"]) == (302, "/memories/")
    assert status("a") == "active"


def test_a_pin_with_a_foreign_next_changes_nothing(client, merged):
    client.force_login(person("ada", "admin"))
    survivor = merged.members.get(status="active")

    response = client.post(f"/memories/{survivor.pk}/pin", {"next": "https://evil.example/"})

    assert response.status_code == 400
    survivor.refresh_from_db()
    assert survivor.pinned is False


def test_logins_are_throttled_per_user_name_and_address(client, settings):
    person("vera", "viewer", password="the-right-password")
    answers = [
        client.post("/accounts/login/", {"username": "vera", "password": "wrong"}).status_code
        for _ in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert answers == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]

    locked = client.post("/accounts/login/", {"username": "vera", "password": "the-right-password"})

    assert locked.status_code == 429
    assert b"Too many failed logins" in locked.content
    other = client.post("/accounts/login/", {"username": "someone", "password": "x"})
    assert other.status_code == 200  # another user name at the same address is not locked


def raises(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [*site_urls, path("boom/", raises)]


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_a_server_error_is_logged_with_its_traceback_and_answered_with_a_page(client, caplog):
    client.raise_request_exception = False
    client.force_login(person("vera", "viewer"))

    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.get("/boom/")

    assert response.status_code == 500
    assert b"Something went wrong on our side" in response.content
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.exc_info and "a bug in a view" in str(record.exc_info[1])


def test_django_logs_server_errors_to_stderr_whatever_debug_says(settings):
    assert settings.LOGGING["loggers"]["django.request"] == {
        "handlers": ["stderr"],
        "level": "ERROR",
        "propagate": False,
    }


@pytest.mark.parametrize(
    ("url", "code", "text"),
    [
        ("/clusters/999999/", 404, b"There is nothing at this address"),
        ("/clusters/99999999999999999999999/", 404, b"There is nothing at this address"),
        ("/no/such/page/", 404, b"There is nothing at this address"),
    ],
)
def test_error_pages_keep_the_navigation(client, url, code, text):
    client.force_login(person("vera", "viewer"))

    response = client.get(url)

    assert response.status_code == code
    assert text in response.content and b'class="topbar"' in response.content
