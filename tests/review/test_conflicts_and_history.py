import pytest

from memadmin.curation.models import Cluster, Conflict, HistoryEvent, PairVerdict
from memadmin.store.models import Memory
from tests.conftest import person
from tests.curation.test_find_duplicates import line, near, unit

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def conflict(run_command, write_jsonl):
    lines = [
        line("old", "The billing API is deployed on Hetzner.", unit(1)),
        line(
            "new",
            "The billing API is deployed on Railway.",
            near(1, 0.97),
            created_at="2026-05-01T00:00:00Z",
        ),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    return Conflict.objects.get()


def status(external_id):
    return Memory.objects.get(external_id=external_id).status


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
    assert "name: hetzner vs railway" in content


def test_both_valid_keeps_both_with_a_scope_note_and_remembers_the_pair(
    client, conflict, run_command
):
    client.force_login(person("ada", "admin"))

    response = client.post(
        f"/conflicts/{conflict.pk}/resolve",
        {"resolution": "both_valid", "scope_note": "Hetzner for staging, Railway for production"},
        **HX,
    )

    assert response.status_code == 200 and b"Resolved (Both Valid) by ada" in response.content
    assert response["HX-Trigger"] == f'{{"conflictResolved": {{"id": {conflict.pk}}}}}'
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

    assert response.status_code == 409 and b"already resolved by ada" in response.content
    assert (status("old"), status("new")) == ("deleted", "active")


def test_the_conflict_queue_is_a_page_and_a_section(client, conflict):
    client.force_login(person("v", "viewer"))

    assert b"<html" in client.get("/conflicts/").content
    section = client.get("/conflicts/", **HX).content
    assert section.lstrip().startswith(b'<section id="queue"') and b"1 conflict" in section


@pytest.fixture
def merged(run_command, write_jsonl):
    lines = [line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1), importance=0.9)]
    run_command("import_memories", str(write_jsonl(lines)))
    run_command("find_duplicates")
    return Cluster.objects.get(status="auto_merged")


def test_history_lists_every_change_and_filters_by_action(client, merged):
    client.force_login(person("v", "viewer"))

    page = client.get("/history/", {"action": "supersede"}, **HX).content.decode()

    assert page.lstrip().startswith('<section id="events">')
    assert page.count('<span class="tag">supersede</span>') == 1
    assert "collapse" not in page


def test_a_curator_undoes_a_merge_from_the_history_page(client, merged):
    client.force_login(person("carla", "curator"))
    assert b"Undo merge #" in client.get("/history/").content

    response = client.post(f"/history/unmerge/{merged.pk}", follow=True)

    assert b"undone: its memories are back" in response.content
    assert (status("a"), status("b")) == ("active", "active")


def test_undoing_is_refused_with_the_reason_when_merged_again(
    client, merged, run_command, write_jsonl
):
    run_command(
        "import_memories",
        str(write_jsonl([line("c", "Prefers tea!", unit(1), importance=0.93)], name="c.jsonl")),
    )
    run_command("find_duplicates")
    client.force_login(person("carla", "curator"))

    response = client.post(f"/history/unmerge/{merged.pk}", follow=True)

    assert b"was merged again later" in response.content
    assert status("a") == "superseded"


def test_viewers_cannot_undo(client, merged):
    client.force_login(person("v", "viewer"))

    assert client.post(f"/history/unmerge/{merged.pk}").status_code == 403
