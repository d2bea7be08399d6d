"""Many clusters at once: the batch screen, its preview, its decisions and its one undo."""

import re

import pytest

from memadmin.curation.models import Cluster
from memadmin.store.models import Memory
from tests.factories import person
from tests.review.test_clusters import open_clusters

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(run_command, write_jsonl):
    open_clusters(run_command, write_jsonl, count=3)
    return list(Cluster.objects.order_by("id"))


def screen(client, **query) -> tuple[str, dict]:
    """The screen's page, and its form's fields as a browser would send them."""
    page = client.get("/clusters/batch/", query).content.decode()
    fields = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page):
        fields[name] = value
    for name, text in re.findall(r'<textarea name="(text-\d+)"[^>]*>([^<]*)</textarea>', page):
        fields[name] = text
    return page, fields


def test_the_screen_shows_each_cluster_with_its_members_text_and_tick(client, three):
    client.force_login(person("carla", "curator"))

    page, fields = screen(client)

    for cluster in three:
        assert f'name="ticked" value="{cluster.pk}"' in page
        assert f"text-{cluster.pk}" in fields and f"version-{cluster.pk}" in fields
    assert "Her cat Miso number 1 is an orange tabby." in page
    # The slider: clusters under the confidence asked for are not drawn.
    Cluster.objects.filter(pk=three[0].pk).update(confidence=0.3)
    shown, _ = screen(client, min_confidence="0.5")
    ticked = 'name="ticked" value="{}"'.format
    assert ticked(three[0].pk) not in shown and ticked(three[1].pk) in shown
    assert 'value="0.5"' in shown
    assert "Confidence from" in screen(client, min_confidence="abc")[0]  # no filter, no error
    assert client.get("/clusters/batch/", {"min_confidence": "0.5"}, HTTP_HX_REQUEST="true")
    viewer = person("vera", "viewer")
    client.force_login(viewer)
    assert client.get("/clusters/batch/").status_code == 403


def test_ticked_clusters_merge_with_their_edited_texts_after_one_preview_and_one_undo(
    client, three
):
    client.force_login(person("carla", "curator"))
    _, fields = screen(client)
    first, second, third = three
    fields[f"text-{first.pk}"] = "Miso (cat number 0) is an orange tabby."
    ticked = {**fields, "ticked": [first.pk, second.pk], "action": "accept"}

    preview = client.post("/clusters/batch/decide", ticked).content.decode()

    assert "Merge 2 ticked clusters" in preview
    assert "Miso (cat number 0) is an orange tabby." in preview
    assert set(Cluster.objects.values_list("status", flat=True)) == {"open"}  # a preview
    confirm = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', preview))
    confirm["ticked"] = re.findall(r'name="ticked" value="(\d+)"', preview)
    done = client.post("/clusters/batch/decide", confirm, follow=True).content.decode()

    assert "2 of 2 ticked cluster(s) merged." in done
    assert Memory.objects.filter(
        status="active", content="Miso (cat number 0) is an orange tabby."
    ).exists()
    statuses = dict(Cluster.objects.values_list("pk", "status"))
    assert statuses == {first.pk: "accepted", second.pk: "accepted", third.pk: "open"}
    undo = re.search(r'<div class="toast".*?action="([^"]+)"', done, re.S).group(1)
    assert "Undo these 2" in done
    client.post(undo.replace("&amp;", "&"), {"next": "/clusters/batch/"})
    assert set(Cluster.objects.values_list("status", flat=True)) == {"open"}


def test_ticked_clusters_are_dismissed_and_a_changed_or_flagged_one_is_refused(client, three):
    client.force_login(person("carla", "curator"))
    _, fields = screen(client)
    first, second, third = three
    # Pinned since the screen was drawn: flagged, and its version changed too.
    Memory.objects.filter(pk=third.memberships.first().memory_id).update(pinned=True)
    merge = {**fields, "ticked": [third.pk], "action": "accept"}
    preview = client.post("/clusters/batch/decide", merge).content.decode()
    assert "Flagged: decide each on its own page" in preview and "protected" in preview
    stale = {**fields, "ticked": [first.pk, third.pk], "action": "accept", "confirm": "1"}
    answer = client.post("/clusters/batch/decide", stale, follow=True).content.decode()
    assert "1 of 2 ticked cluster(s) merged." in answer
    assert f"#{third.pk} was left alone" in answer

    dismiss = {**fields, "ticked": [second.pk], "action": "dismiss", "confirm": "1"}
    answer = client.post("/clusters/batch/decide", dismiss, follow=True).content.decode()

    assert "1 of 1 ticked cluster(s) dismissed." in answer
    assert Cluster.objects.get(pk=second.pk).status == "dismissed"
    assert Cluster.objects.get(pk=third.pk).status == "open"
    nothing = client.post("/clusters/batch/decide", {"action": "accept"}, follow=True)
    assert b"Nothing is ticked" in nothing.content
