"""A curator's day in Chromium, JavaScript on and off: copies of one text from two
sources merged in bulk and taken back with one undo, a bulk settlement previewed as a
person checks it and undone at once, the evidence drawn as a waterfall."""

import pytest

from memadmin.curation.models import Cluster, Conflict
from tests.factories import hosting_change
from tests.review.browsing import SHOTS, log_in, make_people, new_page
from tests.review.test_curators_day import day_lines

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def day(run_command, write_jsonl):
    lines = day_lines(facts=30, copies=24)
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None
    make_people()


def shot(page, name: str, javascript: bool) -> None:
    page.screenshot(path=SHOTS / f"{name}-{'js' if javascript else 'no-js'}.png", full_page=True)


def test_copies_from_two_sources_merge_in_bulk_and_one_undo_takes_them_back(
    browser, live_server, day, javascript
):
    copies = {
        c.pk
        for c in Cluster.objects.filter(status="open")
        if "different source_ref" in " ".join(c.flags)
    }
    assert copies
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto("/clusters/")
    page.click("text=Accept the exact-duplicate clusters of every namespace…")
    page.wait_for_selector("h2:text-matches('Copies of one text written from agent and from chat')")
    shot(page, "day-copies-preview", javascript)
    page.click("text=Accept the ticked clusters")
    page.wait_for_selector("text=exact-duplicate cluster(s) in every namespace")
    assert not Cluster.objects.filter(pk__in=copies, status="open").exists()
    shot(page, "day-copies-accepted", javascript)

    page.click("#undo-toast >> text=Undo these")
    page.wait_for_selector("text=undone: as they were before")
    assert Cluster.objects.filter(pk__in=copies, status="open").count() == len(copies)
    assert page.errors == []
    page.context.close()


def test_a_bulk_settlement_says_what_stays_and_one_undo_takes_it_back(
    browser, live_server, day, javascript
):
    before = dict(Conflict.objects.values_list("pk", "status"))
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "ada")

    page.goto("/conflicts/")
    page.check("#selection input[name=all]")
    page.click("text=Newer supersedes older (selected)…")
    page.wait_for_selector("h1:text-matches('Newer supersedes older')")
    preview = page.inner_text("main")
    assert "stays active" in preview and "becomes history" in preview
    shot(page, "day-settle-preview", javascript)
    page.click("button.primary")
    page.wait_for_selector("text=settled: newer supersedes older")
    settled = Conflict.objects.filter(status="resolved").count()
    assert settled >= 1
    # An expected outcome ("settled by the decision above") is information, never red.
    assert page.locator(".messages .error").count() == 0
    shot(page, "day-settle-done", javascript)

    page.click("#undo-toast >> text=Undo these")
    page.wait_for_selector("text=open again")
    assert dict(Conflict.objects.values_list("pk", "status")) == before
    assert page.errors == []
    page.context.close()


def test_the_evidence_is_a_waterfall_with_its_figures_beside_it(
    browser, live_server, run_command, write_jsonl, javascript
):
    assert run_command("import_memories", str(write_jsonl(hosting_change()))).error is None
    assert run_command("find_duplicates").error is None
    make_people()
    conflict = Conflict.objects.get()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "ada")

    page.goto(f"/conflicts/{conflict.pk}/")

    waterfall = page.locator("section.waterfall")
    assert waterfall.locator("svg").count() == 2
    assert waterfall.locator("table").first.is_visible()
    assert "where it starts" in waterfall.inner_text() and "in all" in waterfall.inner_text()
    # Each bar is as wide as its share: a longer bar moved it further.
    widths = [float(w) for w in waterfall.locator("svg").first.locator("rect").evaluate_all(
        "bars => bars.map(bar => bar.getAttribute('width'))")]  # fmt: skip
    assert len(widths) >= 3 and max(widths) > 0
    waterfall.scroll_into_view_if_needed()
    shot(page, "day-waterfall", javascript)
    assert page.errors == []
    page.context.close()
