"""The conflict queue and page, and settling a conflict."""

import re

import pytest

from memadmin.curation.models import Conflict, HistoryEvent, PairVerdict
from memadmin.store.models import Memory
from tests.factories import hosting_change, person, status

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def conflict(run_command, write_jsonl):
    lines = [
        *hosting_change(),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    return Conflict.objects.get()


@pytest.mark.parametrize(("role", "code"), [("viewer", 403), ("curator", 403), ("admin", 302)])
def test_only_admins_settle_conflicts(client, conflict, role, code):
    client.force_login(person("p", role))

    assert client.get(f"/conflicts/{conflict.pk}/").status_code == 200
    assert (
        client.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "keep_a"}).status_code
        == code
    )


def test_the_conflict_page_highlights_the_differing_words(client, conflict):
    client.force_login(person("v", "viewer"))

    content = client.get(f"/conflicts/{conflict.pk}/").content.decode()

    assert '<span class="differs">Hetzner.</span>' in content
    assert '<span class="differs">Railway.</span>' in content
    assert "one slot, two values: Hetzner / Railway" in content
    # The reason once (the waterfall's bars say the rest), in plain words.
    assert content.count("one slot, two values: Hetzner / Railway") == 1
    assert "weighed most" not in content and "cosine" not in re.sub(r"<[^>]+>", "", content)
    assert '<section class="waterfall"' in content and "They disagree: <strong>" in content


def test_both_valid_keeps_both_with_a_scope_note_and_remembers_the_pair(
    client, conflict, run_command
):
    client.force_login(person("ada", "admin"))

    response = client.post(
        f"/conflicts/{conflict.pk}/resolve",
        {"resolution": "both_valid", "scope_note": "Hetzner for staging, Railway for production"},
        **HX,
    )

    # Settled: the whole page goes on (HX-Redirect), with what happened as its message.
    assert (response.status_code, response["HX-Redirect"]) == (200, "/conflicts/")
    assert f"Conflict {conflict.pk} settled".encode() in client.get("/conflicts/").content
    assert (status("old"), status("new")) == ("active", "active")
    assert PairVerdict.objects.get().verdict == "both_valid"
    run_command("find_duplicates", "--full")
    assert Conflict.objects.count() == 1  # not raised again


@pytest.mark.parametrize(
    ("resolution", "old", "new"),
    [
        ("keep_a", "active", "deleted"),
        ("keep_b", "deleted", "active"),
        ("b_supersedes_a", "superseded", "active"),
    ],
)
def test_resolutions_change_the_memories_with_history(client, conflict, resolution, old, new):
    client.force_login(person("ada", "admin"))

    response = client.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": resolution})

    assert (response.status_code, response["Location"]) == (302, "/conflicts/")
    assert (status("old"), status("new")) == (old, new)
    assert HistoryEvent.objects.filter(action="resolve", conflict=conflict).count() == 1


def test_a_rewrite_replaces_both_with_one_new_memory(client, conflict):
    client.force_login(person("ada", "admin"))

    client.post(
        f"/conflicts/{conflict.pk}/resolve",
        {"resolution": "rewritten", "text": "The billing API moved from Hetzner to Railway."},
    )

    rewritten = Memory.objects.get(status="active")
    assert rewritten.content == "The billing API moved from Hetzner to Railway."
    assert (status("old"), status("new")) == ("superseded", "superseded")


def test_a_second_resolution_is_refused_saying_who(client, conflict):
    client.force_login(person("ada", "admin"))
    client.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "keep_b"})
    client.force_login(person("bob", "admin"))

    response = client.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "keep_a"}, **HX)

    assert response.status_code == 409 and b"ada settled this conflict" in response.content
    assert (status("old"), status("new")) == ("deleted", "active")


def test_the_conflict_queue_is_a_page_and_a_section(client, conflict):
    client.force_login(person("v", "viewer"))

    assert b"<html" in client.get("/conflicts/").content
    section = client.get("/conflicts/", **HX).content
    assert (
        section.lstrip().startswith(b'<section id="queue"') and b"1 proposed conflict;" in section
    )


def test_both_valid_without_a_scope_note_is_refused(client, conflict):
    client.force_login(person("ada", "admin"))

    refused = client.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "both_valid"}, **HX)

    assert refused.status_code == 409 and b"needs a scope note" in refused.content
    assert Conflict.objects.get().status == "open"


def test_the_conflict_page_preselects_nothing_and_explains_each_resolution(client, conflict):
    client.force_login(person("ada", "admin"))

    page = client.get(f"/conflicts/{conflict.pk}/").content.decode()

    assert " checked" not in page
    assert "valid until B was written" in page and "one new memory with your text" in page
    # The rewrite box starts as the newer text; both sides show their metadata.
    assert "The billing API is deployed on Railway.</textarea>" in page
    assert page.count("importance / confidence") == 2


def test_settled_conflicts_list_their_resolution_and_who(client, conflict):
    client.force_login(person("ada", "admin"))
    client.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "b_supersedes_a"})

    page = client.get("/conflicts/", {"status": "resolved"}).content.decode()

    assert "B Supersedes A by ada" in page


def test_selected_conflicts_are_marked_not_a_conflict_after_a_preview(client, conflict):
    client.force_login(person("ada", "admin"))
    queue = client.get("/conflicts/").content.decode()
    assert f'name="selected" value="{conflict.pk}" form="selection"' in queue

    preview = client.get("/conflicts/selected", {"selected": [conflict.pk]})
    assert b"1 selected conflict" in preview.content and Conflict.objects.get().status == "open"
    done = client.post("/conflicts/selected", {"selected": [conflict.pk]}, follow=True)

    assert b"1 of 1 selected conflict(s) marked not a conflict" in done.content
    assert Conflict.objects.get().status == "dismissed"


def test_all_conflicts_matching_the_filter_settle_as_newer_supersedes_after_a_preview(client):
    """ "All N matching this filter": the whole filtered queue, not the page's ticks; the
    preview lists each, and each is settled as its own decision."""
    from tests.curation.decisions.test_overlaps import conflict, kit

    one, two, three, four = kit()
    first, second, other = conflict(one, three), conflict(two, four), conflict(one, two)
    Conflict.objects.filter(pk__in=[first.pk, second.pk]).update(kind="update")
    client.force_login(person("ada", "admin"))
    queue = client.get("/conflicts/", {"kind": "update"}).content.decode()
    assert "all 2 matching this filter" in queue and "Newer supersedes older (selected)" in queue

    chosen = {"all": "1", "from": "kind=update&status=open", "action": "b_supersedes_a"}
    preview = client.get("/conflicts/selected", chosen).content.decode()
    assert "Newer supersedes older: 2 selected conflicts" in preview
    assert f'value="{other.pk}"' not in preview  # not an update: not in the filter
    assert Conflict.objects.filter(status="open").count() == 3
    ids = re.findall(r'name="selected" value="(\d+)"', preview)
    done = client.post(
        "/conflicts/selected",
        {"selected": ids, "action": "b_supersedes_a", "from": chosen["from"]},
        follow=True,
    )

    assert b"2 of 2 selected conflict(s) settled: newer supersedes older" in done.content
    assert status("kit-001") == "superseded" and status("kit-002") == "superseded"
    assert Conflict.objects.get(pk=first.pk).resolution == "b_supersedes_a"


def test_a_settlement_offers_its_undo_in_a_toast(client, conflict):
    client.force_login(person("ada", "admin"))

    page = client.post(
        f"/conflicts/{conflict.pk}/resolve", {"resolution": "b_supersedes_a"}, follow=True
    ).content.decode()
    client.post(f"/conflicts/{conflict.pk}/undo")

    assert f'action="/conflicts/{conflict.pk}/undo"' in page and "Undo: conflict" in page
    conflict.refresh_from_db()
    assert conflict.status == "open"


def test_a_conflict_opened_from_the_queue_knows_its_place_and_settling_goes_on_in_it(client):
    """n of N, previous / next within the queue as filtered; a settlement goes on to the
    next open conflict of that queue, never to one the filter left out."""
    from urllib.parse import quote

    from tests.curation.decisions.test_overlaps import conflict, kit

    one, two, three, four = kit()
    first, second, third = conflict(one, three), conflict(two, three), conflict(four, three)
    Conflict.objects.filter(pk=third.pk).update(kind="update")  # filtered out below
    client.force_login(person("ada", "admin"))
    query = "kind=contradiction&status=open&tier=proposed"

    queue = client.get(f"/conflicts/?{query}").content.decode()
    shown = [int(pk) for pk in re.findall(r'href="/conflicts/(\d+)/\?from=', queue)]
    assert sorted(shown) == sorted([first.pk, second.pk])
    page = client.get(f"/conflicts/{shown[0]}/?from={quote(query)}").content.decode()
    assert "1 of 2" in page and "skip to next" in page and "data-key-next" in page

    settled = client.post(
        f"/conflicts/{shown[0]}/resolve",
        {"resolution": "dismiss", "from": query},
    )
    assert settled.status_code == 302
    assert settled["Location"].startswith(f"/conflicts/{shown[1]}/?from=")


@pytest.mark.parametrize(
    "hostile",
    [
        "kind%3D%2500",
        "namespace%3D%2500",
        "status%3Dx%26tier%3D%2500",
        "page%3D99999999999999999999",
    ],
)
def test_a_queue_page_takes_any_from_and_never_fails(client, hostile):
    """`from` carries the queue's filters inside one value: a NUL or a nonsense filter
    there is no filter, never a 500."""
    from tests.curation.decisions.test_overlaps import conflict, kit
    from tests.factories import cluster

    one, _, three, _ = kit()
    opened = conflict(one, three)
    client.force_login(person("ada", "admin"))

    assert client.get(f"/conflicts/{opened.pk}/?from={hostile}").status_code == 200
    opened_cluster = cluster(one, three)
    assert client.get(f"/clusters/{opened_cluster.pk}/?from={hostile}").status_code == 200


def test_the_conflict_queue_finds_words_sorts_and_groups_by_what_they_disagree_about(client):
    """Words in either memory; sorted oldest first on request; grouped, each group's
    header saying what the two disagree about and how many conflicts share it."""
    from tests.curation.decisions.test_overlaps import conflict, kit
    from tests.factories import line, store, unit

    one, two, three, _ = kit()
    gripper_a, gripper_b = conflict(one, three), conflict(two, three)
    city_a, city_b = store(
        line("city-1", "Ana was born in Lyon.", unit(5), created_at="2026-01-05T00:00:00Z"),
        line("city-2", "Ana was born in Lille.", unit(6), created_at="2026-01-06T00:00:00Z"),
    )
    born = conflict(city_a, city_b, reason="Lyon / Lille")
    assert born.topic == "ana born" and gripper_a.topic == "gripper force"
    client.force_login(person("ada", "admin"))

    def shown(**query) -> list[int]:
        page = client.get("/conflicts/", query).content.decode()
        return [int(pk) for pk in re.findall(r'href="/conflicts/(\d+)/\?from=', page)]

    assert shown(q="Lille") == [born.pk]
    assert shown(q="gripper") == sorted(shown(q="gripper"), key=[gripper_b.pk, gripper_a.pk].index)
    assert set(shown(q="gripper")) == {gripper_a.pk, gripper_b.pk}
    assert shown(sort="oldest") == [gripper_a.pk, gripper_b.pk, born.pk]
    grouped = client.get("/conflicts/", {"group": "topic"}).content.decode()
    assert grouped.index("“ana born”") < grouped.index(f"/conflicts/{born.pk}/")
    assert grouped.index("“gripper force”") < grouped.index(f"/conflicts/{gripper_a.pk}/")
    assert "(2 conflicts)" in grouped and "(1 conflict)" in grouped
    # Next and previous keep to the searched queue.
    page = client.get(f"/conflicts/{born.pk}/", {"from": "q=Lille"}).content.decode()
    assert "1 of 1" in page


def test_a_bulk_settlement_says_what_stays_what_an_earlier_one_took_and_undoes_in_one(client):
    """Newer supersedes older on conflicts that share a memory: the preview says which is
    newer and what stays; one the settlement above took is said as information, not an
    error; one undo takes the whole action back."""
    from tests.curation.decisions.test_overlaps import conflict, kit

    one, _, three, four = kit()
    first, second = conflict(one, three), conflict(one, four)
    client.force_login(person("ada", "admin"))
    chosen = {"selected": [first.pk, second.pk], "action": "b_supersedes_a"}

    preview = client.get("/conflicts/selected", chosen).content.decode()
    assert "A, older (kit-001, 2026-01-01)" in preview
    assert "B, newer (kit-003, 2026-01-03)" in preview
    assert "kit-003 stays active; kit-001 becomes history" in preview
    done = client.post("/conflicts/selected", chosen, follow=True).content.decode()

    assert "1 of 2 selected conflict(s) settled: newer supersedes older, 1 with them." in done
    assert f'<li class="info">#{second.pk}: already settled by the decision above' in done
    assert '<li class="error">' not in done  # an expected outcome is no refusal
    assert f"/conflicts/undo-many?conflicts={first.pk}" in done  # one undo for the action
    client.post(f"/conflicts/undo-many?conflicts={first.pk}")
    assert status("kit-001") == "active"
    assert set(Conflict.objects.values_list("status", flat=True)) == {"open"}


def test_a_proposed_conflict_under_its_bar_says_an_llm_put_it_there(client, conflict):
    Conflict.objects.filter(pk=conflict.pk).update(confidence=0.41, detected_by="llm")
    client.force_login(person("v", "viewer"))

    content = client.get(f"/conflicts/{conflict.pk}/").content.decode()

    assert re.search(r'tier-note">Proposed under the bar of 0\.\d\d: an LLM read the two', content)


def test_a_conflict_overtaken_by_a_copy_settled_in_the_same_action_is_said_as_expected(client):
    """A settlement settles its copies (the same two texts) with it; a conflict one of
    those copies overtook is the action's own outcome, information and not a refusal."""
    from tests.curation.decisions.test_overlaps import conflict
    from tests.factories import line, store, unit

    older, copy_older, newer, copy_newer, other = store(
        line("g-1", "The gripper force is 12 N.", unit(1), created_at="2026-01-01T00:00:00Z"),
        line(
            "g-2",
            "The gripper force is 12 N.",
            unit(1),
            created_at="2026-01-02T00:00:00Z",
            source_ref="chat",
        ),
        line("g-3", "The gripper force is 8 N.", unit(2), created_at="2026-01-03T00:00:00Z"),
        line(
            "g-4",
            "The gripper force is 8 N.",
            unit(2),
            created_at="2026-01-04T00:00:00Z",
            source_ref="chat",
        ),
        line("g-5", "The gripper force is 10 N.", unit(3), created_at="2026-01-05T00:00:00Z"),
    )
    first = conflict(older, newer)
    copy = conflict(copy_older, copy_newer)
    assert copy.copy_of_id == first.pk
    third = conflict(copy_older, other)
    client.force_login(person("ada", "admin"))
    chosen = {"selected": [first.pk, third.pk], "action": "b_supersedes_a"}

    done = client.post("/conflicts/selected", chosen, follow=True).content.decode()

    assert f'<li class="info">#{third.pk}: already settled by the decision above' in done
    assert '<li class="error">' not in done
