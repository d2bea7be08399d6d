"""The review loop in a real browser: Playwright driving Debian's Chromium."""

import re

import pytest
from django.contrib.auth.models import Group

from memadmin.curation.models import Cluster, Conflict
from memadmin.store.models import Memory
from tests import factories
from tests.factories import hosting_change, line, near, person, store, unit
from tests.review.browsing import DOC_SHOTS, SHOTS, log_in, make_people, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
    make_people()


def test_a_curator_edits_accepts_and_undoes_a_merge(page, data):
    cluster = Cluster.objects.get(status="open")
    log_in(page, "carla")
    page.screenshot(path=SHOTS / "dashboard.png", full_page=True)
    page.screenshot(path=DOC_SHOTS / "dashboard.png")

    page.click("nav >> text=Clusters")
    # One memory says more than the other: detection may call it proposed or possible.
    page.select_option("select[name=tier]", cluster.tier)
    page.click("text=Filter")
    # The filter redraws the queue and pushes its address; a link clicked on the old
    # queue meanwhile is cancelled by that push (seen on a loaded machine): wait first.
    page.wait_for_url(f"**tier={cluster.tier}**")
    page.wait_for_load_state("networkidle")
    page.click(f"text=#{cluster.pk}")
    page.wait_for_url(f"**/clusters/{cluster.pk}/**")
    page.screenshot(path=SHOTS / "cluster.png", full_page=True)
    page.screenshot(path=DOC_SHOTS / "cluster.png")
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
    page.screenshot(path=DOC_SHOTS / "conflict.png")
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

    page.goto(f"/clusters/?tier={cluster.tier}")
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    # The row opens its cluster with the queue's filters (?from=...).
    page.wait_for_url(re.compile(rf"/clusters/{cluster.pk}/\?from="))
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

    second.wait_for_selector("text=carla accepted this cluster at")
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
            line(f"x{n}", "Logs use structlog.", unit(seed), namespace=namespace) for n in (1, 2)
        ]
        run_command("import_memories", str(write_jsonl(lines, name=f"{namespace}.jsonl")))
        copies = [factories.memory(f"x{n}", namespace) for n in (1, 2)]
        factories.cluster(*copies, similarity=1.0, method="exact")
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
    page.wait_for_selector("text=Accept the ticked clusters")
    page.screenshot(path=SHOTS / "bulk-preview.png", full_page=True)
    page.click("text=Accept the ticked clusters")
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
    # The text written before the detour waits beside the box, never silently in it.
    assert "Miso: an orange tabby cat." in page.inner_text("[data-draft-aside]")
    page.click("text=Use my draft")
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
        ("memories", "/memories/"),
        ("conflicts", "/conflicts/"),
        ("batch", "/clusters/batch/"),
        ("history", "/history/"),
        ("dashboard", "/"),
    ):
        page.goto(url)
        page.screenshot(path=SHOTS / f"{name}-{width}.png", full_page=True)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth"
        )
        assert not overflow, f"{name} scrolls sideways at {width} px"
        # Every link of the navigation in sight, none cut at the edge.
        for link in page.locator(".topbar nav a").all():
            box = link.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (name, link)
    # What tells a row apart is on screen at any width: nothing hides to the right.
    for url, label in (
        (f"/clusters/?tier={cluster.tier}", "Weakest link"),
        (f"/clusters/?tier={cluster.tier}", "Proposal"),
        ("/memories/", "Status"),
        ("/history/", "Memory"),
    ):
        page.goto(url)
        cell = page.locator(f'td[data-label="{label}"]').first
        box = cell.bounding_box()
        assert box and box["x"] + min(box["width"], 40) <= width, (url, label)
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


def test_a_curator_opens_a_cluster_from_the_memory_browser(browser, live_server, data, javascript):
    store(
        line("tea-1", "Drinks green tea every morning.", unit(30)),
        line("tea-2", "Starts each day with a cup of green tea.", near(30, 0.5)),
    )
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto("/memories/")
    page.fill("input[name=q]", "green tea")
    page.click("button:text-is('Search')")
    if not javascript:
        page.wait_for_url("**q=green**")  # the searched page itself, not the old one going
        page.wait_for_load_state()
    page.wait_for_selector("text=Her cat Miso", state="detached")  # the results redrawn
    for box in page.query_selector_all("input[name=selected]"):
        box.check()
    page.screenshot(path=SHOTS / f"memories-selection-{'js' if javascript else 'no-js'}.png")
    page.click("text=Open a cluster from the selected memories")
    page.wait_for_selector("text=opened from 2 memories")
    page.click("text=Accept merge")
    page.wait_for_selector("text=merged into merged-")

    assert set(
        Memory.objects.filter(external_id__startswith="tea-").values_list("status", flat=True)
    ) == {"superseded"}
    assert page.errors == []
    page.context.close()


def test_the_undo_toast_takes_the_decision_back(browser, live_server, data, javascript):
    cluster = Cluster.objects.get(status="open")
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto(f"/clusters/{cluster.pk}/")
    page.click("text=Dismiss: not duplicates")
    page.wait_for_selector("#undo-toast")
    page.screenshot(path=SHOTS / f"undo-toast-{'js' if javascript else 'no-js'}.png")
    page.click("#undo-toast >> text=Undo the dismiss")
    page.wait_for_selector("text=it is open again")

    assert Cluster.objects.get(pk=cluster.pk).status == "open"
    assert page.errors == []
    page.context.close()


def test_split_leaves_two_groups_each_with_a_proposal(browser, live_server, trio, javascript):
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto(f"/clusters/{trio.pk}/")
    page.click("text=Split in two where the evidence parts it")
    parts = list(Cluster.objects.filter(status="open"))
    # On to the part the split made, the message saying where each member went.
    page.wait_for_selector(
        f"text=Cluster #{trio.pk} split: #{parts[0].pk} holds \u201cHer cat Miso is a tabby.\u201d"
    )
    assert page.url.split("?")[0].endswith(f"/clusters/{parts[0].pk}/")
    page.screenshot(path=SHOTS / f"split-{'js' if javascript else 'no-js'}.png")

    assert [part.memberships.count() for part in parts] == [2]
    assert parts[0].proposals.filter(status="pending").exists()
    assert Cluster.objects.get(pk=trio.pk).status == "split"
    page.goto(f"/clusters/{trio.pk}/")  # the split cluster links its part, names the rest
    assert page.inner_text(".split-into") == f"Split into #{parts[0].pk} (b, c); on its own: a."
    assert page.errors == []
    page.context.close()


def test_keep_one_undone_brings_the_same_cluster_back(browser, live_server, trio, javascript):
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto(f"/clusters/{trio.pk}/")
    page.click("article:has(dd:text-is('a')) >> text=Keep this one")
    page.wait_for_selector(f"text=Kept a; the others of cluster #{trio.pk} fold into it.")
    page.goto(f"/clusters/{trio.pk}/")
    page.wait_for_selector("text=Accepted by carla")  # the decided page, no stale buttons
    assert page.query_selector("text=Keep this one") is None
    page.screenshot(path=SHOTS / f"decided-{'js' if javascript else 'no-js'}.png", full_page=True)
    page.click("text=Undo this merge")
    page.wait_for_selector("text=its memories are back")
    page.goto("/clusters/")

    page.wait_for_selector(f"#queue >> text=#{trio.pk}")
    assert Cluster.objects.get(pk=trio.pk).status == "open"
    assert page.errors == []
    page.context.close()


def test_an_empty_conflict_rewrite_is_refused_visibly(browser, live_server, data, javascript):
    conflict = Conflict.objects.get()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "ada")
    page.goto(f"/conflicts/{conflict.pk}/")

    page.check("input[value=rewritten]")
    page.fill("textarea[name=text]", "  ")
    page.click("text=Settle conflict")

    page.wait_for_selector("[role=alert] >> text=a rewrite needs the new text")
    assert Conflict.objects.get(pk=conflict.pk).status == "open"
    assert page.errors == []
    page.context.close()


def test_a_queue_being_filtered_takes_no_click_until_the_new_one_comes(page, data):
    # A row clicked on the old queue would be cancelled when the filtered queue's address
    # is pushed (a loaded machine showed it): the old rows are dimmed and still meanwhile.
    log_in(page, "carla")
    page.goto("/clusters/")
    held = []
    page.route(re.compile(r"/clusters/\?"), lambda route: held.append(route))
    page.select_option("select[name=tier]", "possible")
    page.wait_for_selector("#queue.htmx-request")

    assert page.eval_on_selector("#queue", "queue => getComputedStyle(queue).pointerEvents") == (
        "none"
    )
    held[0].continue_()
    page.wait_for_selector("#queue:not(.htmx-request)")
    assert page.eval_on_selector("#queue", "queue => getComputedStyle(queue).pointerEvents") == (
        "auto"
    )
    page.wait_for_url("**tier=possible**")
