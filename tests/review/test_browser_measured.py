"""The dashboard's measured error rate in Chromium, with JavaScript on and off: the
figures with their intervals and the reliability chart, drawn on the server."""

import json

import pytest

from memadmin.curation import decisions
from memadmin.curation.models import Cluster
from tests.factories import cluster, line, store, unit
from tests.review.browsing import SHOTS, log_in, make_people, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_dashboard_shows_what_the_labels_measured(
    browser, live_server, run_command, tmp_path, javascript
):
    memories = store(*[line(f"m{i}", f"Fact number {i}.", unit(i)) for i in range(8)])
    for first in range(0, 8, 2):
        cluster(memories[first], memories[first + 1])
    Cluster.objects.update(confidence=0.85)  # one bin of the chart
    labels = tmp_path / "labels.json"
    labels.write_text(
        json.dumps(
            {
                "duplicate_groups": [["m0", "m1"], ["m2", "m3"], ["m4", "m5"]],
                "conflicts": [],
                "hard_negatives": [["m6", "m7"]],
            }
        )
    )
    assert run_command("import_labels", str(labels)).error is None
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    section = page.locator("section.measured")
    section.scroll_into_view_if_needed()
    page.screenshot(path=SHOTS / f"measured-{'js' if javascript else 'no-js'}.png", full_page=True)

    text = section.inner_text()
    assert "0.75 (" in text  # three of four proposed pairs right, with the interval
    assert section.locator("svg circle").count() == 1  # every cluster said 0.85
    assert section.locator("svg").first.is_visible()
    assert not page.errors
    page.context.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_dashboard_shows_what_the_judge_s_audit_measured(browser, live_server, javascript):
    memories = store(*[line(f"m{i}", f"Fact number {i}.", unit(i)) for i in range(4)])
    a, b = memories[0].pk, memories[1].pk
    decisions.record_audit(
        namespace_id=memories[0].namespace_id,
        strata=[
            {
                "kind": "clusters",
                "tier": "proposed",
                "size": 40,
                "exact": 0,
                "said": {"one_fact": 36, "two_facts": 4},
                "read": 20,
            },
            {
                "kind": "apart",
                "tier": "",
                "size": 400,
                "exact": 0,
                "said": {"two_facts": 40},
                "read": 20,
            },
        ],
        readings=40,
        disagreed=3,
        pairs=[[a, b, "clusters", "proposed", ["one_fact", "one_fact"], 0.93]] * 20,
    )
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    section = page.locator("section.measured")
    section.scroll_into_view_if_needed()
    shot = f"measured-by-judge-{'js' if javascript else 'no-js'}.png"
    page.screenshot(path=SHOTS / shot, full_page=True)

    row = section.locator("tbody tr").first
    assert "LLM judge's audit" in row.inner_text()
    assert "20" in row.inner_text()  # pairs audited
    judge = section.locator("p.judge-error")
    assert judge.is_visible() and "40 pairs it read twice" in judge.inner_text()
    assert section.locator("svg circle").count() == 1  # the judge's pairs, said 0.93
    assert not page.errors
    page.context.close()
