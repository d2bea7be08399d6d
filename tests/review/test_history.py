"""The history page and undoing a merge from it."""

import pytest

from memadmin.curation.models import Cluster, Conflict, HistoryEvent, PairVerdict
from memadmin.curation.reads.clusters import cluster_members
from tests.factories import hosting_change, line, memory, person, status, unit

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


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


def test_history_filters_by_day(client, trio):
    client.force_login(person("v", "viewer"))

    assert (
        b"import"
        in client.get("/history/", {"since": "2000-01-01"}, HTTP_HX_REQUEST="true").content
    )
    assert (
        b"Nothing recorded"
        in client.get("/history/", {"until": "2000-01-01"}, HTTP_HX_REQUEST="true").content
    )


@pytest.mark.parametrize("action", ["dismiss", "split", "exclude"])
def test_a_dismissal_split_or_exclusion_is_undone_from_history(client, trio, action):
    client.force_login(person("carla", "curator"))
    if action == "exclude":
        client.post(f"/clusters/{trio.pk}/exclude/{memory('c').pk}")
    else:
        client.post(f"/clusters/{trio.pk}/{action}")
    decision = HistoryEvent.objects.get(action=action)
    page = client.get("/history/").content.decode()
    assert f"Undo {action} #{trio.pk}" in page

    client.post(f"/history/undo/{decision.pk}")

    trio.refresh_from_db()
    assert trio.status == "open"
    assert trio.memberships.filter(excluded=False).count() == 3
    assert not PairVerdict.objects.exists()  # the pairs may be proposed again
    assert not Cluster.objects.filter(status="open").exclude(pk=trio.pk).exists()
    assert HistoryEvent.objects.get(action="undo").undoes == decision
    again = client.post(f"/history/undo/{decision.pk}", follow=True)
    assert b"undone already" in again.content


def test_a_split_is_not_undone_when_a_part_was_decided_since(client, trio):
    client.force_login(person("carla", "curator"))
    client.post(f"/clusters/{trio.pk}/split")
    part = Cluster.objects.get(status="open")
    client.post(f"/clusters/{part.pk}/dismiss")

    refused = client.post(
        f"/history/undo/{HistoryEvent.objects.get(action='split').pk}", follow=True
    )

    assert f"undo #{part.pk} (dismissed) first".encode() in refused.content
    assert Cluster.objects.get(pk=trio.pk).status == "split"


def test_the_dismissed_page_offers_its_undo(client, trio):
    client.force_login(person("carla", "curator"))
    client.post(f"/clusters/{trio.pk}/dismiss")

    page = client.get(f"/clusters/{trio.pk}/").content.decode()

    assert "Undo this dismiss" in page


def test_a_conflict_settlement_is_undone_from_history_with_one_button(
    client, run_command, write_jsonl
):
    assert run_command("import_memories", str(write_jsonl(hosting_change()))).error is None
    assert run_command("find_duplicates").error is None
    conflict = Conflict.objects.get()
    client.force_login(person("ada", "admin"))
    client.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "b_supersedes_a"})

    page = client.get("/history/").content.decode()
    answer = client.post(f"/conflicts/{conflict.pk}/undo", {"next": "/history/"})
    after = client.get("/history/").content.decode()

    assert page.count(f"Undo the settlement of conflict #{conflict.pk}") == 1
    assert f'href="/conflicts/{conflict.pk}/"' in page
    assert answer["Location"] == "/history/"
    conflict.refresh_from_db()
    assert conflict.status == "open"
    assert "Undo the settlement" not in after


def test_decisions_only_folds_a_merge_into_one_row_and_leaves_imports_out(client, trio):
    carla = person("carla", "curator")
    from memadmin.curation import decisions, proposals

    members = cluster_members(trio)
    proposal = decisions.record_proposal(
        cluster=trio, members=members, draft=proposals.rule_draft(members, "test")
    )
    decisions.accept_proposal(proposal=proposal, user=carla)
    client.force_login(carla)

    everything = client.get("/history/").context["rows"]
    decided = client.get("/history/", {"decisions": "yes"})
    rows = decided.context["rows"]

    assert any(event.action == "import" for event, _ in everything)
    assert [(event.action, len(folded)) for event, folded in rows] == [("merge", 3)]
    html = decided.content.decode()
    assert f"Undo merge #{trio.pk}" in html
    assert "and 3 more memories" in html
    # The filter's HTMX answer is the section alone, folded the same way.
    section = client.get("/history/", {"decisions": "yes"}, HTTP_HX_REQUEST="true")
    assert section.content.decode().strip().startswith('<section id="events">')
    assert "and 3 more memories" in section.content.decode()


def test_decisions_only_shows_peoples_decisions_with_what_each_overtook_folded_under_it(client):
    """A merge that overtakes a conflict is one row, its overtake folded under it; a run's
    own events are no person's decision."""
    from tests.curation.decisions.test_overlaps import accept, conflict, kit
    from tests.factories import cluster

    carla = person("carla", "curator")
    one, two, three, _ = kit()
    conflict(one, three)
    accept(cluster(one, two), carla)
    client.force_login(carla)

    rows = client.get("/history/", {"decisions": "yes"}).context["rows"]

    heads = [(event.action, event.user.get_username()) for event, _ in rows]
    assert heads == [("merge", "carla")]
    folded = [event.action for event in rows[0][1]]
    assert "overtake" in folded and folded.count("supersede") == 2
