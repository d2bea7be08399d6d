"""The review loop in a real browser: Playwright driving Debian's Chromium."""

import os
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group

from memadmin.curation.models import Cluster, Conflict
from memadmin.store.models import Memory
from tests.factories import hosting_change, line, near, person, unit

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(settings.BASE_DIR) / "test-results" / "screenshots"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests
    # make between browser steps are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    yield page
    context.close()
    assert errors == []  # no CSP violation, no script error


@pytest.fixture
def data(run_command, write_jsonl):
    lines = [
        line(
            "cat-old",
            "Her cat Miso is an orange tabby.",
            unit(1),
            tags=["pets"],
            created_at="2026-01-01T00:00:00Z",
        ),
        line(
            "cat-new",
            "Has a cat called Miso.",
            near(1, 0.8),
            tags=["pets"],
            created_at="2026-02-01T00:00:00Z",
        ),
        *hosting_change("host-old", "host-new", seed=2),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None
    for name, role in (("carla", "curator"), ("ada", "admin")):
        user = person(name, None, password=f"{name}-password-1")
        user.groups.add(Group.objects.get_or_create(name=role)[0])


def log_in(page, name):
    page.goto("/accounts/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-password-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/")


def test_a_curator_edits_accepts_and_undoes_a_merge(page, data):
    cluster = Cluster.objects.get(status="open")
    log_in(page, "carla")
    page.screenshot(path=SHOTS / "dashboard.png", full_page=True)

    page.click("nav >> text=Clusters")
    page.click(f"text=#{cluster.pk}")
    page.screenshot(path=SHOTS / "cluster.png", full_page=True)
    page.fill("textarea[name=text]", "Her cat Miso is an orange tabby (called Miso).")
    page.click("text=Accept merge")
    page.wait_for_selector("text=Accepted by carla")

    merged = Memory.objects.get(status="active", content__startswith="Her cat Miso is an orange")
    assert merged.external_id.startswith("merged-")
    assert set(
        Memory.objects.filter(external_id__startswith="cat-").values_list("status", flat=True)
    ) == {"superseded"}

    page.click("nav >> text=History")
    page.click(f"text=Undo merge #{cluster.pk}")
    page.wait_for_selector("text=its memories are back")
    assert set(
        Memory.objects.filter(external_id__startswith="cat-").values_list("status", flat=True)
    ) == {"active"}
    assert Memory.objects.get(pk=merged.pk).status == "deleted"


def test_an_admin_settles_a_conflict_as_both_valid(page, data):
    conflict = Conflict.objects.get()
    log_in(page, "ada")

    page.click("nav >> text=Conflicts")
    page.click(f"text=#{conflict.pk}")
    page.screenshot(path=SHOTS / "conflict.png", full_page=True)
    page.check("input[value=both_valid]")
    page.fill("input[name=scope_note]", "Hetzner for staging, Railway for production")
    page.click("text=Settle conflict")
    page.wait_for_selector("text=Resolved (Both Valid) by ada")

    conflict.refresh_from_db()
    assert (conflict.status, conflict.resolution) == ("resolved", "both_valid")
    assert conflict.scope_note == "Hetzner for staging, Railway for production"


def test_a_curator_accepts_with_the_keyboard(page, data):
    cluster = Cluster.objects.get(status="open")
    log_in(page, "carla")

    page.goto("/clusters/")
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/clusters/{cluster.pk}/")
    page.keyboard.press("a")
    page.wait_for_selector("text=Accepted by carla")

    assert Cluster.objects.get(pk=cluster.pk).status == "accepted"
