"""Deciding in a real browser when the page is stale, in flight, expired or gone back to:
Chromium with JavaScript on and off, two reviewers in two contexts where one decides
while the other looks."""

import re

import pytest

from memadmin.curation.models import Cluster, Conflict, HistoryEvent
from memadmin.store.models import Memory
from tests import factories
from tests.factories import hosting_change, line, memory, unit
from tests.review.browsing import SHOTS, log_in, make_people, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def mode(javascript: bool) -> str:
    return "js" if javascript else "no-js"


def write_while_another_excludes(ada, carla, trio, text: str) -> None:
    """ada writes a merged text on her page while carla takes member c out."""
    ada.goto(f"/clusters/{trio.pk}/")
    ada.fill("textarea[name=text]", text)
    carla.goto(f"/clusters/{trio.pk}/")
    carla.click("article[data-member=c] >> text=Exclude")
    carla.wait_for_selector("text=Member c taken out of cluster")


def test_a_stale_refusal_redraws_the_whole_cluster_and_sets_the_draft_aside(
    two_reviewers, trio, javascript
):
    carla, ada = two_reviewers
    write_while_another_excludes(ada, carla, trio, "Ada's merged text, written on the old page.")

    ada.click("text=Accept merge")

    ada.wait_for_selector("text=changed since your page showed it")
    ada.screenshot(path=SHOTS / f"stale-refusal-{mode(javascript)}.png", full_page=True)
    assert re.search(r"carla excluded c at \d\d:\d\d", ada.inner_text("main"))
    assert ada.locator("article[data-member=c]").count() == 0  # the excluded card is gone
    assert ada.locator("article[data-member=b]").count() == 1
    assert "Ada's merged text" in ada.inner_text("[data-draft-aside]")
    assert "Ada's merged text" not in ada.input_value("textarea[name=text]")
    assert Cluster.objects.get(pk=trio.pk).status == "open"

    # The second click decides on what the page shows now: the current proposal.
    ada.click("text=Accept merge")
    ada.wait_for_selector(f"text=Cluster #{trio.pk} merged into")
    merged = Memory.objects.get(status="active", external_id__startswith="merged-")
    assert "Ada's" not in merged.content
    merged_members = Memory.objects.filter(external_id__in=["a", "b"])
    assert set(merged_members.values_list("status", flat=True)) == {"superseded"}
    assert memory("c").status == "active"


def test_the_draft_set_aside_is_used_or_discarded(two_reviewers, trio, javascript):
    if not javascript:
        pytest.skip("the draft's buttons need JavaScript; without it the draft is shown once")
    carla, ada = two_reviewers
    write_while_another_excludes(ada, carla, trio, "Ada's draft.")
    ada.click("text=Accept merge")
    ada.wait_for_selector("[data-draft-aside]")
    assert ada.evaluate("document.activeElement.classList.contains('refusal')")

    ada.click("text=Use my draft")
    assert ada.input_value("textarea[name=text]") == "Ada's draft."
    # Written again: the stored draft is shown aside, with a way to drop it.
    ada.click("text=Write the proposal again from the current members")
    ada.wait_for_selector("text=The proposal was written again")
    assert "Ada's draft." in ada.inner_text("[data-draft-aside]")
    assert ada.input_value("textarea[name=text]") != "Ada's draft."
    ada.click("text=Discard my draft")
    assert ada.locator("[data-draft-aside]").count() == 0
    ada.reload()
    assert ada.locator("[data-draft-aside]").count() == 0


def test_a_decision_already_taken_is_named_with_its_link(two_reviewers, trio, javascript):
    carla, ada = two_reviewers
    ada.goto(f"/clusters/{trio.pk}/")
    carla.goto(f"/clusters/{trio.pk}/")
    carla.click("text=Dismiss: not duplicates")
    carla.wait_for_selector("text=Dismissed:")

    ada.click("text=Accept merge")

    ada.wait_for_selector("text=carla dismissed this cluster at")
    assert ada.locator("text=Accept merge").count() == 0
    if javascript:
        ada.click("text=See the decision")
    ada.wait_for_selector("text=Dismissed by carla")
    assert Cluster.objects.get(pk=trio.pk).status == "dismissed"


def test_a_stale_conflict_page_is_redrawn_as_settled(
    browser, live_server, run_command, write_jsonl, javascript
):
    assert run_command("import_memories", str(write_jsonl(hosting_change()))).error is None
    assert run_command("find_duplicates").error is None
    conflict = Conflict.objects.get()
    make_people()
    factories.person("bea", None, password="bea-password-1").groups.add(
        *factories.person("tmp", "admin").groups.all()
    )
    ada, bea = new_page(browser, live_server), new_page(browser, live_server, javascript=javascript)
    log_in(ada, "ada")
    log_in(bea, "bea")
    bea.goto(f"/conflicts/{conflict.pk}/")
    ada.goto(f"/conflicts/{conflict.pk}/")
    ada.check("input[value=keep_b]")
    ada.click("text=Settle conflict")
    ada.wait_for_selector(f"text=Conflict {conflict.pk} settled as keep B")

    bea.check("input[value=keep_a]")
    bea.click("text=Settle conflict")

    bea.wait_for_selector("text=changed since your page showed it")
    assert re.search(r"ada settled the conflict on old at \d\d:\d\d", bea.inner_text("main"))
    assert bea.locator("text=Resolved (Keep B) by ada").count() == 1
    assert Conflict.objects.get().resolution == "keep_b"
    for one in (ada, bea):
        assert one.errors == []
        one.context.close()


def test_a_settlement_and_its_undo_are_in_the_history(
    browser, live_server, run_command, write_jsonl
):
    assert run_command("import_memories", str(write_jsonl(hosting_change()))).error is None
    assert run_command("find_duplicates").error is None
    conflict = Conflict.objects.get()
    make_people()
    page = new_page(browser, live_server)
    log_in(page, "ada")
    page.goto(f"/conflicts/{conflict.pk}/")
    page.check("input[value=dismiss]")
    page.click("text=Settle conflict")
    page.wait_for_selector(f"text=Conflict {conflict.pk} settled as not a conflict")

    page.click("nav >> text=History")
    assert page.locator("tbody tr:has-text('resolve')").count() == 2
    page.click(f"text=Undo the settlement of conflict #{conflict.pk}")
    page.wait_for_selector(f"text=Conflict {conflict.pk} is open again")
    page.screenshot(path=SHOTS / "settlement-history.png", full_page=True)

    assert page.locator("text=undone by user:ada at").count() == 2
    assert list(
        HistoryEvent.objects.filter(conflict=conflict)
        .order_by("id")
        .values_list("action", flat=True)
    ) == ["resolve", "resolve", "undo", "undo"]
    assert page.errors == []
    page.context.close()


@pytest.fixture
def exact_clusters(run_command, write_jsonl):
    """Three open clusters of exact copies: plain (alice), a pinned member (bob), two
    sources (carol, left open by a real run's guard for a curator to decide)."""
    for namespace, seed, sources in (
        ("alice", 3, ("ingest", "ingest")),
        ("bob", 4, ("ingest", "ingest")),
        ("carol", 5, ("ingest", "reports")),
    ):
        lines = [
            line(
                f"{namespace}-{n}",
                "Logs use structlog.",
                unit(seed),
                source_ref=source,
                namespace=namespace,
            )
            for n, source in enumerate(sources)
        ]
        run_command("import_memories", str(write_jsonl(lines, name=f"{namespace}.jsonl")))
        if sources[0] != sources[1]:
            run_command("find_duplicates", "--namespace", namespace)
        else:
            members = [memory(f"{namespace}-{n}", namespace) for n in range(2)]
            factories.cluster(*members, similarity=1.0, method="exact")
    Memory.objects.filter(external_id="bob-0").update(pinned=True)
    return {c.namespace.name: c for c in Cluster.objects.select_related("namespace")}


def test_a_bulk_accept_never_merges_a_flagged_cluster(
    browser, live_server, exact_clusters, javascript
):
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")
    page.goto("/clusters/")
    page.click("#bulk-exact")

    flagged = page.inner_text("#flagged")
    page.screenshot(path=SHOTS / f"bulk-flagged-{mode(javascript)}.png", full_page=True)
    assert f"Review #{exact_clusters['bob'].pk}" in flagged and "protected" in flagged
    assert f"#{exact_clusters['carol'].pk}" not in flagged  # copies from two sources
    assert "written from ingest and from reports" in page.inner_text("main")
    assert page.locator("input[name=selected]").count() == 2  # alice and carol, never bob
    page.click("text=Accept the ticked clusters")
    page.wait_for_selector("text=Accepted 2 exact-duplicate cluster(s) in every namespace.")

    statuses = dict(Cluster.objects.values_list("namespace__name", "status"))
    assert statuses == {"alice": "accepted", "bob": "open", "carol": "accepted"}
    page.click("text=Undo these 2 merges")
    page.wait_for_selector("text=undone: as they were before")
    assert set(Cluster.objects.values_list("status", flat=True)) == {"open"}
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize(
    "button", ["Exclude", "Keep this one", "Split in two where the evidence parts it", "Pin"]
)
def test_a_plain_form_survives_an_expired_session(browser, live_server, trio, javascript, button):
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "ada")
    page.goto(f"/clusters/{trio.pk}/")
    page.context.clear_cookies(name="sessionid")

    page.locator(f"article[data-member=c] >> text={button}").or_(
        page.locator(f"button:text-is('{button}')")
    ).first.click()
    page.wait_for_url(re.compile(r"/accounts/login/\?next="))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", "ada-password-1")
    page.click("button[type=submit]")

    page.wait_for_url(f"**/clusters/{trio.pk}/")  # back to the page, not a 405
    assert Cluster.objects.get(pk=trio.pk).status == "open"
    assert Cluster.objects.get(pk=trio.pk).memberships.filter(excluded=True).count() == 0
    assert not Memory.objects.filter(pinned=True).exists()
    assert page.errors == []
    page.context.close()


def test_back_after_a_decision_shows_the_decided_page(browser, live_server, trio, javascript):
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")
    page.goto("/clusters/")
    page.goto(f"/clusters/{trio.pk}/")
    page.click("text=Dismiss: not duplicates")
    page.wait_for_selector("text=Dismissed:")

    page.go_back()

    page.wait_for_selector("text=Dismissed by carla")
    assert page.locator("text=Accept merge").count() == 0
    assert page.errors == []
    page.context.close()


def test_a_decision_on_its_way_disables_the_buttons_and_drops_a_second_one(
    browser, live_server, trio
):
    make_people()
    page = new_page(browser, live_server)
    log_in(page, "carla")
    page.goto(f"/clusters/{trio.pk}/")
    held, dismissals = [], []
    page.route(re.compile(r".*/accept$"), lambda route: held.append(route))
    page.on("request", lambda r: r.url.endswith("/dismiss") and dismissals.append(r))

    page.click("text=Accept merge")
    page.wait_for_function("document.querySelector('#cluster button[disabled]') !== null")
    assert page.is_visible("#working")
    assert page.locator("text=Dismiss: not duplicates").is_disabled()
    page.keyboard.press("d")  # the shortcut while the accept is on its way
    page.locator("form[data-key=dismiss]").evaluate("form => form.requestSubmit()")
    held[0].continue_()
    page.wait_for_selector(f"text=Cluster #{trio.pk} merged into")

    assert dismissals == []
    assert Cluster.objects.get(pk=trio.pk).status == "accepted"
    assert page.errors == []
    page.context.close()


def test_enter_on_a_control_is_the_controls_and_j_starts_at_the_top(
    browser, live_server, run_command, write_jsonl
):
    lines = []
    for n in range(3):
        lines += [
            line(f"a{n}", f"Project {n} deploys on Fridays.", unit(10 + n)),
            line(f"b{n}", f"Project {n} deploys every Friday.", factories.near(10 + n, 0.9)),
        ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    make_people()
    page = new_page(browser, live_server)
    log_in(page, "carla")
    page.goto("/clusters/")
    page.keyboard.press("j")
    page.keyboard.press("j")

    page.focus("button:text('Filter')")
    page.keyboard.press("Enter")
    page.wait_for_load_state("networkidle")
    assert page.url.endswith("/clusters/") or "clusters/?" in page.url  # still the queue
    page.keyboard.press("Escape")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("j")

    first = page.locator("#queue tbody tr[data-href]").first
    assert "selected" in first.get_attribute("class")
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("width", [1280, 400])
def test_the_decision_is_on_the_first_screen(browser, live_server, trio, width):
    make_people()
    page = new_page(browser, live_server, width=width)
    log_in(page, "carla")
    page.goto(f"/clusters/{trio.pk}/")

    page.screenshot(path=SHOTS / f"cluster-first-screen-{width}.png")
    accept = page.locator("text=Accept merge").bounding_box()
    assert accept["y"] + accept["height"] <= 900  # seen without scrolling
    assert page.errors == []
    page.context.close()


def test_the_review_goes_on_within_the_filtered_queue(
    browser, live_server, run_command, write_jsonl, javascript
):
    lines = []
    for n, namespace in enumerate(["alice", "alice", "alice", "bob"]):
        lines += [
            line(f"a{n}", f"Project {n} deploys on Fridays.", unit(10 + n), namespace=namespace),
            line(
                f"b{n}",
                f"Project {n} deploys every Friday.",
                factories.near(10 + n, 0.9),
                namespace=namespace,
            ),
        ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")
    page.goto("/clusters/?namespace=alice")

    if javascript:
        page.locator("#queue tbody tr[data-href] td:nth-child(4)").first.click()  # the row
    else:
        page.locator("#queue tbody tr a").first.click()
    page.wait_for_selector("text=1 of 3")
    if javascript:
        page.keyboard.press("n")
    else:
        page.click("text=skip to next →")
    page.wait_for_selector("text=2 of 3")
    page.click("text=Dismiss: not duplicates")
    page.wait_for_selector("text=Dismissed:")
    # On to the next of alice's clusters: two are left, this is the second of them.
    page.wait_for_selector("text=2 of 2")
    page.click("text=← queue")
    page.wait_for_url("**/clusters/?namespace=alice")

    assert page.locator("#queue tbody tr[data-href]").count() == 2
    assert Cluster.objects.filter(namespace__name="bob", status="open").count() == 1
    assert page.errors == []
    page.context.close()
