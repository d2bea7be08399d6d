"""A reviewer's text is never lost, in a real browser (JavaScript on and off): a text
refused for itself stays in its box with what is wrong beside it; a refusal because
someone else decided first keeps it as the reviewer's draft and names who decided."""

import re

import pytest

from memadmin.curation.models import Cluster
from tests.review.browsing import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def mode(javascript: bool) -> str:
    return "js" if javascript else "no-js"


def test_a_text_too_long_stays_in_its_box_with_what_is_wrong_beside_it(
    two_reviewers, trio, javascript
):
    _, ada = two_reviewers
    too_long = "Miso " + "x" * 9000  # one unbroken word, over the 8,192-byte limit
    ada.goto(f"/clusters/{trio.pk}/?tier={trio.tier}")
    ada.fill("textarea[name=text]", too_long)

    ada.click("text=Accept merge")

    ada.wait_for_selector("#text-error")
    ada.screenshot(path=SHOTS / f"text-too-long-{mode(javascript)}.png", full_page=True)
    assert "your text is kept in the box" in ada.inner_text("#text-error")
    assert ada.input_value("textarea[name=text]") == too_long
    assert "read it again" not in ada.inner_text("main")  # nobody else's doing
    # Nothing overflows the page sideways, however long the word.
    assert ada.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert Cluster.objects.get(pk=trio.pk).status == "open"


def test_a_refusal_because_another_decided_keeps_the_draft_and_names_who(
    two_reviewers, trio, javascript
):
    carla, ada = two_reviewers
    ada.goto(f"/clusters/{trio.pk}/?tier={trio.tier}")
    ada.fill("textarea[name=text]", "Ada's careful merged text about Miso.")
    carla.goto(f"/clusters/{trio.pk}/?tier={trio.tier}")
    carla.click("text=Accept merge")
    carla.wait_for_selector("text=merged into")

    ada.click("text=Accept merge")

    ada.wait_for_selector("text=carla accepted this cluster")
    ada.screenshot(path=SHOTS / f"draft-after-decided-{mode(javascript)}.png", full_page=True)
    assert re.search(r"carla accepted this cluster at \d\d:\d\d", ada.inner_text("main"))
    assert "Ada's careful merged text about Miso." in ada.inner_text("[data-draft-aside]")
