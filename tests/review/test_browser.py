"""The review loop in a real browser: Playwright driving Debian's Chromium."""

import os
import re
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


def new_page(browser, live_server, *, javascript=True, width=1280):
    """A page in a fresh browser context (its own cookies: another person's browser),
    recording console errors."""
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": width, "height": 900},
        java_script_enabled=javascript,
    )
    page = context.new_page()
    page.errors = []
    # A refused request (409) is logged by Chromium as a failed resource: that is the
    # refusal under test, not a script error.
    page.on(
        "console",
        lambda m: (
            m.type == "error" and "status of 409" not in m.text and page.errors.append(m.text)
        ),
    )
    return page


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def javascript(request):
    return request.param


@pytest.fixture
def page(browser, live_server):
    page = new_page(browser, live_server)
    yield page
    page.context.close()
    assert page.errors == []  # no CSP violation, no script error


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
    # On to the next cluster (none left: the queue), saying what happened.
    page.wait_for_selector(f"text=Cluster #{cluster.pk} merged into merged-")

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
    page.wait_for_selector(f"text=Conflict {conflict.pk} settled")

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
    page.wait_for_selector(f"text=Cluster #{cluster.pk} merged into")

    assert Cluster.objects.get(pk=cluster.pk).status == "accepted"


def test_a_second_reviewer_sees_who_decided_first(browser, live_server, data, javascript):
    cluster = Cluster.objects.get(status="open")
    first = new_page(browser, live_server)
    second = new_page(browser, live_server, javascript=javascript)
    log_in(first, "carla")
    log_in(second, "ada")
    second.goto(f"/clusters/{cluster.pk}/")  # ada reads it while carla decides

    first.goto(f"/clusters/{cluster.pk}/")
    first.click("text=Accept merge")
    first.wait_for_selector("text=merged into")
    second.click("text=Dismiss: not duplicates")

    second.wait_for_selector("text=already accepted by carla at")
    second.screenshot(path=SHOTS / f"refused-{'js' if javascript else 'no-js'}.png", full_page=True)
    assert Cluster.objects.get(pk=cluster.pk).status == "accepted"
    for one in (first, second):
        assert one.errors == []
        one.context.close()


def test_an_empty_merged_text_is_refused_visibly(browser, live_server, data, javascript):
    cluster = Cluster.objects.get(status="open")
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")
    page.goto(f"/clusters/{cluster.pk}/")

    page.fill("textarea[name=text]", "   ")
    page.click("text=Accept merge")

    page.wait_for_selector("[role=alert] >> text=empty")
    assert Cluster.objects.get(pk=cluster.pk).status == "open"
    assert page.errors == []
    page.context.close()


def test_a_bulk_accept_acts_on_the_namespace_picked_in_the_filter(
    browser, live_server, run_command, write_jsonl, javascript
):
    for namespace, seed in (("alice", 3), ("bob", 4)):
        lines = [
            line("x1", "Logs use structlog.", unit(seed), source_ref="ingest", namespace=namespace),
            line(
                "x2", "Logs use structlog.", unit(seed), source_ref="reports", namespace=namespace
            ),
        ]
        run_command("import_memories", str(write_jsonl(lines, name=f"{namespace}.jsonl")))
    run_command("find_duplicates")
    user = person("carla", None, password="carla-password-1")
    user.groups.add(Group.objects.get_or_create(name="curator")[0])
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto("/clusters/")
    page.select_option("select[name=namespace]", "bob")
    if not javascript:
        page.click("button:text('Filter')")
    # With JavaScript the filter redraws the queue, link included: wait for the new one.
    page.wait_for_selector("#bulk-exact[href*='namespace=bob']")
    page.click("#bulk-exact")
    page.wait_for_selector("text=This merges 1 cluster")
    page.screenshot(path=SHOTS / "bulk-preview.png", full_page=True)
    page.click("text=Accept these 1 cluster")
    page.wait_for_selector("text=Accepted 1 exact-duplicate cluster(s) in bob")

    statuses = dict(Cluster.objects.values_list("namespace__name", "status"))
    assert statuses == {"alice": "open", "bob": "accepted"}
    assert page.errors == []
    page.context.close()


def test_an_expired_session_goes_to_the_login_and_back_keeping_the_text(browser, live_server, data):
    cluster = Cluster.objects.get(status="open")
    page = new_page(browser, live_server)
    log_in(page, "carla")
    page.goto(f"/clusters/{cluster.pk}/")
    page.fill("textarea[name=text]", "Miso: an orange tabby cat.")
    page.context.clear_cookies(name="sessionid")  # the session expires while writing

    page.click("text=Accept merge")
    page.wait_for_url(re.compile(r"/accounts/login/\?next="))
    assert page.locator("#decision").count() == 0  # the login page, not inside the cluster
    page.fill("input[name=username]", "carla")
    page.fill("input[name=password]", "carla-password-1")
    page.click("button[type=submit]")

    page.wait_for_url(f"**/clusters/{cluster.pk}/")
    assert page.input_value("textarea[name=text]") == "Miso: an orange tabby cat."
    assert Cluster.objects.get(pk=cluster.pk).status == "open"
    page.context.close()


@pytest.mark.parametrize("width", [1280, 400])
def test_screenshots_of_the_review_pages(browser, live_server, data, width):
    cluster = Cluster.objects.get(status="open")
    conflict = Conflict.objects.get()
    page = new_page(browser, live_server, width=width)
    log_in(page, "ada")
    for name, url in (
        ("queue", "/clusters/"),
        ("cluster", f"/clusters/{cluster.pk}/"),
        ("conflict", f"/conflicts/{conflict.pk}/"),
        ("memory", f"/memories/{Memory.objects.first().pk}/"),
    ):
        page.goto(url)
        page.screenshot(path=SHOTS / f"{name}-{width}.png", full_page=True)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth"
        )
        assert not overflow, f"{name} scrolls sideways at {width} px"
    assert page.errors == []
    page.context.close()


def test_a_curator_dismisses_the_selected_clusters(
    browser, live_server, run_command, write_jsonl, javascript
):
    lines = []
    for n in range(3):
        lines += [
            line(f"a{n}", f"Project {n} deploys on Fridays.", unit(10 + n)),
            line(f"b{n}", f"Project {n} is deployed every Friday.", near(10 + n, 0.9)),
        ]
    run_command("import_memories", str(write_jsonl(lines)))
    run_command("find_duplicates")
    user = person("carla", None, password="carla-password-1")
    user.groups.add(Group.objects.get_or_create(name="curator")[0])
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto("/clusters/")
    if javascript:
        page.check("input[data-select-all]")  # every cluster on the page
    else:
        for box in page.query_selector_all("input[name=selected]"):
            box.check()
    page.screenshot(path=SHOTS / f"queue-selection-{'js' if javascript else 'no-js'}.png")
    page.click("text=Dismiss selected…")
    page.wait_for_selector("text=Dismiss 3 selected clusters")
    page.click("text=Dismiss these 3")
    page.wait_for_selector("text=Dismissed 3 of 3 selected cluster(s)")

    assert set(Cluster.objects.values_list("status", flat=True)) == {"dismissed"}
    assert page.errors == []
    page.context.close()
