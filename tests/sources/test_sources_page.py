"""The Sources page (admins): what each source is and holds, a preview of the next push,
and the push behind a confirmation, in Chromium with JavaScript on and off."""

import pytest
from django.test import Client

from memadmin.sources.models import PushOperation, Source
from tests.factories import person
from tests.review.browsing import SHOTS, log_in, make_people, new_page
from tests.sources.stores import Pgvector, Records
from tests.sources.test_sources import ID, build_points

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pulled(tmp_path, run_command):
    """A records file pulled and checked: its exact repeat is folded, one delete to push."""
    records = Records(tmp_path)
    records.build(build_points())
    assert run_command("add_source", "notes", *records.args()).error is None
    assert run_command("pull_source", "notes").error is None
    assert run_command("find_duplicates", "--no-llm").error is None
    return records


def test_admins_see_each_source_and_its_next_push(client, pulled):
    client.force_login(person("ada", "admin"))

    html = client.get("/sources/").content.decode()

    assert "notes" in html and "jsonl" in html and "delete mode" in html
    assert "9 (9 in the source)" in html and "1 operation" in html
    assert ">notes</a>" in html  # its namespace, linked to the memory browser
    assert "would" not in html and "delete " in html  # the preview lists the delete
    curator = Client()
    curator.force_login(person("carla", "curator"))
    assert curator.get("/sources/").status_code == 403
    assert curator.post(f"/sources/{Source.objects.get().pk}/push").status_code == 403
    assert not PushOperation.objects.exists()


def test_a_location_held_in_the_environment_is_never_shown(client, run_command, monkeypatch):
    from tests.processes import database_url

    monkeypatch.setenv(Pgvector.DSN_VARIABLE, database_url())
    table = Pgvector()
    table.build(build_points())
    try:
        assert run_command("add_source", "agent", *table.args()).error is None
        client.force_login(person("ada", "admin"))
        html = client.get("/sources/").content.decode()
        assert f"${Pgvector.DSN_VARIABLE}" in html
        assert database_url().split("@")[0] not in html  # user and password
    finally:
        table.drop()


def test_the_push_page_confirms_then_pushes(client, pulled):
    client.force_login(person("ada", "admin"))
    push = f"/sources/{Source.objects.get().pk}/push"
    confirm = client.get(push).content.decode()
    assert "Push 1 operation" in confirm
    assert not pulled.ops.exists()  # the confirmation sends nothing

    answer = client.post(push, follow=True)

    html = answer.content.decode()
    assert "Pushed notes: 1 delete" in html and "nothing to push" in html
    assert len(pulled.ops.read_text().splitlines()) == 1


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_an_admin_pushes_from_the_page(browser, live_server, pulled, javascript):
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    try:
        log_in(page, "ada")
        page.click("nav >> text=Sources")
        suffix = "js" if javascript else "nojs"
        page.screenshot(path=SHOTS / f"sources-{suffix}.png", full_page=True)
        page.click("text=Push…")
        page.screenshot(path=SHOTS / f"source-push-{suffix}.png", full_page=True)
        page.click("button:has-text('Push 1 operation')")
        page.wait_for_url("**/sources/")
        assert page.locator("text=Pushed notes: 1 delete").is_visible()
        assert page.locator("text=nothing to push").is_visible()
        page.screenshot(path=SHOTS / f"sources-pushed-{suffix}.png", full_page=True)
        deleted = [line for line in pulled.ops.read_text().splitlines()]
        assert len(deleted) == 1 and any(ID[n] in deleted[0] for n in "ab")
        assert page.errors == []
    finally:
        page.context.close()
