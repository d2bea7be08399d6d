"""The review pages on a phone (400 x 800), in Chromium: every control a target of at
least 44 x 44 px (WCAG 2.5.5), and at least six clusters a screen on the queue."""

import pytest

from memadmin.curation.models import Cluster, Conflict
from tests.factories import hosting_change
from tests.review.browsing import SHOTS, log_in, make_people, new_page
from tests.review.test_clusters import open_clusters

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every control a person taps, and what its target is: a tick box or radio button
# inside a label is tapped through its label.
TARGETS = """
() => [...document.querySelectorAll(
    'main button, main select, main input:not([type=hidden]), main textarea, main summary,'
    + ' .topbar nav a, .topbar button, nav.pages a')]
  .filter(el => el.offsetParent !== null)
  .map(el => {
    const target = (el.type === 'checkbox' || el.type === 'radio') && el.closest('label')
      || el;
    const box = target.getBoundingClientRect();
    return {what: el.outerHTML.slice(0, 90), width: box.width, height: box.height};
  })
"""


@pytest.fixture
def queue(run_command, write_jsonl):
    open_clusters(run_command, write_jsonl, count=8)
    lines = hosting_change("host-old", "host-new", seed=40)
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    make_people()


def test_every_control_is_a_44_pixel_target_on_a_phone(browser, live_server, queue):
    cluster, conflict = Cluster.objects.filter(status="open").first(), Conflict.objects.first()
    page = new_page(browser, live_server, width=400)
    log_in(page, "ada")
    small = {}
    for name, url in (
        ("queue", f"/clusters/?tier={cluster.tier}"),
        ("cluster", f"/clusters/{cluster.pk}/"),
        ("batch", "/clusters/batch/"),
        ("conflicts", "/conflicts/"),
        ("conflict", f"/conflicts/{conflict.pk}/"),
        ("memories", "/memories/"),
        ("history", "/history/"),
    ):
        page.goto(url)
        page.screenshot(path=SHOTS / f"phone-{name}.png", full_page=True)
        for target in page.evaluate(TARGETS):
            if target["width"] < 44 - 0.5 or target["height"] < 44 - 0.5:
                small.setdefault(name, []).append(target)
    page.context.close()
    assert not small, "\n".join(f"{n}: {t}" for n, ts in small.items() for t in ts)


def test_six_clusters_fit_a_phone_screen(browser, live_server, queue):
    cluster = Cluster.objects.filter(status="open").first()
    page = new_page(browser, live_server, width=400)
    page.set_viewport_size({"width": 400, "height": 800})
    log_in(page, "carla")
    page.goto(f"/clusters/?tier={cluster.tier}")

    rows = page.locator("#queue tbody tr")
    assert rows.count() >= 6
    first, sixth = rows.nth(0).bounding_box(), rows.nth(5).bounding_box()
    # From the first card's top to the sixth's bottom: one screen.
    assert sixth["y"] + sixth["height"] - first["y"] <= 800, (first, sixth)
    rows.nth(0).evaluate("row => row.scrollIntoView()")
    page.screenshot(path=SHOTS / "phone-queue-screen.png")
    # Each card still names its members and proposal, and ticking one works.
    assert "Her cat Miso number" in rows.nth(0).inner_text()
    rows.nth(0).locator('input[name="selected"]').check()
    assert rows.nth(0).locator('input[name="selected"]').is_checked()
    page.context.close()
