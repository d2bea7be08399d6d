"""Many clusters at once, in a real browser (JavaScript on and off): tick, edit a text,
merge the ticked ones after one preview, and take them all back with one undo; with
JavaScript, the keys and the confidence slider."""

import pytest

from memadmin.curation.models import Cluster
from memadmin.store.models import Memory
from tests.review.browsing import SHOTS, log_in, make_people, new_page
from tests.review.test_clusters import open_clusters

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_ticked_clusters_merge_with_an_edited_text_and_one_undo_takes_them_back(
    browser, live_server, run_command, write_jsonl, javascript
):
    open_clusters(run_command, write_jsonl, count=3)
    first, second, third = Cluster.objects.order_by("-confidence", "-min_similarity", "id")
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "carla")

    page.goto("/clusters/")
    page.click("text=Many at once, texts editable…")
    page.wait_for_selector("h1:text('Many clusters at once')")
    page.check(f"input[name=ticked][value='{first.pk}']")
    page.check(f"input[name=ticked][value='{second.pk}']")
    page.fill(f"textarea[name=text-{first.pk}]", "Miso is an orange tabby (edited here).")
    page.screenshot(path=SHOTS / f"batch-{'js' if javascript else 'no-js'}.png", full_page=True)
    page.click("text=Merge ticked…")
    page.wait_for_selector("text=Merge 2 ticked clusters")
    assert page.locator("text=Miso is an orange tabby (edited here).").count() >= 1
    page.click("text=Merge these 2")
    page.wait_for_selector("text=2 of 2 ticked cluster(s) merged.")

    statuses = dict(Cluster.objects.values_list("pk", "status"))
    assert statuses == {first.pk: "accepted", second.pk: "accepted", third.pk: "open"}
    assert Memory.objects.filter(content="Miso is an orange tabby (edited here).").exists()
    page.click("#undo-toast >> text=Undo these 2")
    page.wait_for_selector("text=undone: as they were before")
    assert set(Cluster.objects.values_list("status", flat=True)) == {"open"}
    assert page.errors == []
    page.context.close()


def test_keys_tick_and_dismiss_and_the_slider_draws_the_list_again(
    browser, live_server, run_command, write_jsonl
):
    open_clusters(run_command, write_jsonl, count=2)
    low, high = Cluster.objects.order_by("id")
    Cluster.objects.filter(pk=low.pk).update(confidence=0.2)
    Cluster.objects.filter(pk=high.pk).update(confidence=0.9)
    make_people()
    page = new_page(browser, live_server)
    log_in(page, "carla")
    page.goto("/clusters/batch/")
    page.wait_for_selector(f"input[name=ticked][value='{low.pk}']")

    # The slider, let go at 0.5: the list is drawn again without the doubtful cluster.
    page.eval_on_selector(
        "input[name=min_confidence]",
        "el => { el.value = '0.5'; el.dispatchEvent(new Event('input', {bubbles: true}));"
        " el.dispatchEvent(new Event('change', {bubbles: true})); }",
    )
    page.locator(f"input[name=ticked][value='{low.pk}']").wait_for(state="detached")
    assert page.inner_text("output") == "0.50"
    page.click("h1")  # the keys are the page's, not a field's
    page.keyboard.press("j")
    page.keyboard.press("x")
    assert page.is_checked(f"input[name=ticked][value='{high.pk}']")
    page.keyboard.press("d")
    page.wait_for_selector("text=Dismiss 1 ticked cluster")
    page.click("text=Dismiss these 1")
    page.wait_for_selector("text=1 of 1 ticked cluster(s) dismissed.")

    assert Cluster.objects.get(pk=high.pk).status == "dismissed"
    assert Cluster.objects.get(pk=low.pk).status == "open"
    assert page.errors == []
    page.context.close()


def test_the_queues_find_words_and_group_conflicts(browser, live_server, javascript):
    """Search and grouping the way people use them: type words, press Enter (the queue
    is redrawn with HTMX, or the form is sent without JavaScript)."""
    from tests.curation.decisions.test_overlaps import conflict, kit
    from tests.factories import line, store, unit

    one, _, three, _ = kit()
    gripper = conflict(one, three)
    city_a, city_b = store(
        line("city-1", "Ana was born in Lyon.", unit(5), created_at="2026-01-05T00:00:00Z"),
        line("city-2", "Ana was born in Lille.", unit(6), created_at="2026-01-06T00:00:00Z"),
    )
    born = conflict(city_a, city_b, reason="Lyon / Lille")
    make_people()
    page = new_page(browser, live_server, javascript=javascript)
    log_in(page, "ada")

    page.goto("/conflicts/")
    page.fill("input[name=q]", "Lille")
    page.press("input[name=q]", "Enter")
    if not javascript:
        # The searched page itself: the old page's link goes the moment the form is
        # sent, before the new page has come (on a loaded machine, long before).
        page.wait_for_url("**q=Lille**")
        page.wait_for_load_state()
    page.locator(f"a[href^='/conflicts/{gripper.pk}/']").wait_for(state="detached")
    assert page.locator(f"a[href^='/conflicts/{born.pk}/']").count() == 1
    page.fill("input[name=q]", "")
    page.select_option("select[name=group]", "topic")
    if not javascript:
        page.click("text=Filter")
    page.wait_for_selector("text=“ana born”")
    page.screenshot(path=SHOTS / f"conflicts-grouped-{'js' if javascript else 'no-js'}.png")
    assert page.locator("text=“gripper force”").count() == 1
    assert page.errors == []
    page.context.close()
