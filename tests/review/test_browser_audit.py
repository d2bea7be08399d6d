"""The audit queue in Chromium: with JavaScript, keys 1-4 answer the pair; without it,
the buttons do; either way the answer is recorded and the next pair follows."""

import pytest

from memadmin.curation.models import PairLabel
from tests.factories import cluster, line, near, store, unit
from tests.review.browsing import SHOTS, log_in, make_people, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_curator_answers_pairs_on_the_audit_queue(browser, live_server, javascript):
    memories = store(
        *[line(f"t{i}", f"Team {i} meets on Monday.", unit(i)) for i in range(4)],
        *[line(f"u{i}", f"Team {i} meets on Mondays.", near(i, 0.9)) for i in range(4)],
    )
    for i in range(4):
        cluster(memories[i], memories[4 + i])
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.click("nav >> text=Audit")
    page.wait_for_selector("text=What are these two?")
    page.screenshot(path=SHOTS / f"audit-{'js' if javascript else 'no-js'}.png", full_page=True)
    for answer, label in (("1", "one fact"), ("3", "two facts"), ("4", "unsure")):
        if javascript:
            page.keyboard.press(answer)
        else:
            page.click(f"[data-audit-key='{answer}']")
        page.wait_for_selector(f"text=Recorded: {label}")
    page.screenshot(path=SHOTS / f"audit-answered-{'js' if javascript else 'no-js'}.png")

    assert sorted(PairLabel.objects.values_list("label", flat=True)) == [
        "one_fact",
        "two_facts",
        "unsure",
    ]
    assert PairLabel.objects.values("memory_a", "memory_b").distinct().count() == 3
    assert not page.errors
    page.context.close()
