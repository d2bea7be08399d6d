"""A merge overtakes conflicts on its members, in a real browser (JavaScript on and off):
the admin's stale page is refused saying what happened, the conflict page says where its
fact went, and the conflict that carries it on is settled as chosen."""

import re

import pytest

from memadmin.curation.models import Conflict
from memadmin.store.models import Memory
from tests.curation.decisions.test_overlaps import conflict, kit
from tests.factories import cluster, memory
from tests.review.browsing import SHOTS, log_in, make_people, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_conflict_overtaken_by_a_merge_is_refused_then_carried_on(
    browser, live_server, javascript
):
    one, two, three, _ = kit()
    first = conflict(one, three)
    conflict(two, three)
    opened = cluster(one, two)
    make_people()
    carla, ada = (
        new_page(browser, live_server),
        new_page(browser, live_server, javascript=javascript),
    )
    log_in(carla, "carla")
    log_in(ada, "ada")
    mode = "js" if javascript else "no-js"

    ada.goto(f"/conflicts/{first.pk}/")  # ada reads it while carla merges kit-001
    ada.check("input[value=keep_a]")
    carla.goto(f"/clusters/{opened.pk}/?tier={opened.tier}")
    carla.click("text=Accept merge")
    carla.wait_for_selector("text=merged into")

    ada.click("text=Settle conflict")
    ada.wait_for_selector("text=nothing was settled")
    ada.screenshot(path=SHOTS / f"overtaken-refusal-{mode}.png", full_page=True)
    assert re.search(r"kit-001 was merged into merged-\S+ by carla at", ada.inner_text("main"))
    assert memory("kit-003").status == "active"  # Keep A did nothing to kit-003

    ada.goto(f"/conflicts/{first.pk}/")
    assert "Overtaken by another decision" in ada.inner_text("main")
    assert ada.locator("input[name=resolution]").count() == 0  # nothing offered to settle
    follower = Conflict.objects.get(status="open")
    ada.click(f"text=conflict #{follower.pk}")
    ada.wait_for_selector(f"text=Carries on conflict #{first.pk}")
    ada.screenshot(path=SHOTS / f"overtaken-follower-{mode}.png", full_page=True)
    ada.check("input[value=keep_b]")
    ada.click("text=Settle conflict")
    ada.wait_for_selector(f"text=Conflict {follower.pk} settled")

    merged = Memory.objects.get(external_id__startswith="merged-")
    assert (merged.status, memory("kit-003").status) == ("deleted", "active")
    assert {memory("kit-001").status, memory("kit-002").status} == {"superseded"}
    assert carla.errors == [] and ada.errors == []


def test_conflicts_are_worked_through_in_order_with_keys_or_links(browser, live_server, javascript):
    """From the queue: "1 of 2", a resolution chosen with its number key (or a click),
    settled, and on to the next open conflict of the same queue."""
    one, two, three, _ = kit()
    conflict(one, three)
    conflict(two, three)
    make_people()
    ada = new_page(browser, live_server, javascript=javascript)
    log_in(ada, "ada")
    ada.goto("/conflicts/")
    ada.click("tbody a >> nth=0")
    ada.wait_for_selector("text=1 of 2")
    if javascript:
        ada.keyboard.press("6")  # "Not a conflict"
        assert ada.is_checked("input[value=dismiss]")
    else:
        ada.check("input[value=dismiss]")
    ada.screenshot(path=SHOTS / f"conflict-in-queue-{'js' if javascript else 'no-js'}.png")
    ada.click("text=Settle conflict")
    ada.wait_for_selector("text=settled as")
    assert "1 of 1" in ada.inner_text("main")  # the other one, still in the same queue
    assert Conflict.objects.filter(status="open").count() == 1
    assert ada.errors == []
