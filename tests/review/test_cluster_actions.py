import pytest

from memadmin.curation.models import Cluster, HistoryEvent, PairVerdict
from memadmin.store.models import Memory
from tests.conftest import person
from tests.curation.test_find_duplicates import line, near, unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio(run_command, write_jsonl):
    """An open cluster of three: a and b close, c close to b but weaker to a."""
    lines = [
        line(
            "a",
            "Her cat Miso is an orange tabby.",
            unit(1),
            tags=["pets"],
            created_at="2026-01-01T00:00:00Z",
        ),
        line(
            "b",
            "Her cat Miso is a tabby.",
            near(1, 0.9),
            tags=["pets"],
            created_at="2026-02-01T00:00:00Z",
        ),
        line(
            "c",
            "Has a cat called Miso, a tabby.",
            near(1, 0.8, other_seed=7),
            tags=["pets"],
            created_at="2026-03-01T00:00:00Z",
        ),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    cluster = Cluster.objects.get(status="open")
    assert cluster.memberships.count() == 3
    return cluster


def ids(cluster):
    return sorted(
        cluster.memberships.filter(excluded=False).values_list("memory__external_id", flat=True)
    )


def memory(external_id):
    return Memory.objects.get(external_id=external_id)


def test_keeping_one_member_folds_the_others_into_it(client, trio):
    client.force_login(person("carla", "curator"))

    response = client.post(f"/clusters/{trio.pk}/keep/{memory('b').pk}")

    assert (response.status_code, response["Location"]) == (302, "/clusters/")
    assert [memory(x).status for x in "abc"] == ["superseded", "active", "superseded"]
    assert memory("b").content == "Her cat Miso is a tabby."  # kept as it was
    assert Cluster.objects.get(pk=trio.pk).status == "accepted"


def test_excluding_a_member_keeps_the_rest_and_remembers_it_apart(client, trio):
    client.force_login(person("carla", "curator"))

    client.post(f"/clusters/{trio.pk}/exclude/{memory('c').pk}")

    trio.refresh_from_db()
    assert (trio.status, ids(trio)) == ("open", ["a", "b"])
    assert PairVerdict.objects.count() == 2  # c / a and c / b


def test_splitting_cuts_the_weakest_link(client, trio):
    client.force_login(person("carla", "curator"))
    weakest = sorted(Memory.objects.get(pk=pk).external_id for pk in trio.weakest_link)

    client.post(f"/clusters/{trio.pk}/split")

    assert Cluster.objects.get(pk=trio.pk).status == "split"
    parts = [ids(c) for c in Cluster.objects.filter(status="open")]
    assert all(weakest != part for part in parts)
    assert PairVerdict.objects.count() == 1


def test_an_admin_pins_a_member(client, trio):
    client.force_login(person("ada", "admin"))

    client.post(f"/memories/{memory('a').pk}/pin", {"next": f"/clusters/{trio.pk}/"})

    assert memory("a").pinned
    assert HistoryEvent.objects.filter(action="pin").count() == 1


@pytest.mark.parametrize(("role", "code"), [("viewer", 403), ("curator", 403)])
def test_only_admins_pin(client, trio, role, code):
    client.force_login(person("p", role))

    assert client.post(f"/memories/{memory('a').pk}/pin").status_code == code


def test_a_viewer_cannot_split_keep_or_exclude(client, trio):
    client.force_login(person("v", "viewer"))

    for url in (
        f"/clusters/{trio.pk}/split",
        f"/clusters/{trio.pk}/keep/{memory('a').pk}",
        f"/clusters/{trio.pk}/exclude/{memory('a').pk}",
    ):
        assert client.post(url).status_code == 403


def test_the_queue_filters_by_size_category_protection_and_method(client, trio):
    client.force_login(person("v", "viewer"))

    def count(**query):
        content = client.get("/clusters/", query, HTTP_HX_REQUEST="true").content
        return int(content.split(b'<p class="muted">')[1].split(b" ")[0])

    assert count(size="3") == 1 and count(size="2") == 0
    assert count(category="fact") == 1 and count(category="gotcha") == 0
    assert count(protected="no") == 1 and count(protected="yes") == 0
    assert count(method="vector") == 1 and count(method="exact") == 0
    assert count(sort="largest") == count(sort="newest") == 1


def test_exact_duplicate_clusters_are_accepted_in_bulk(client, run_command, write_jsonl):
    lines = [
        line("x1", "Logs use structlog.", unit(3), source_ref="ingest"),
        line("x2", "Logs use structlog.", unit(3), source_ref="reports"),
    ]
    run_command("import_memories", str(write_jsonl(lines)))
    run_command("find_duplicates")
    client.force_login(person("carla", "curator"))

    response = client.post("/clusters/accept-exact", follow=True)

    assert b"Accepted 1 exact-duplicate cluster(s)." in response.content
    assert Cluster.objects.get().status == "accepted"


def test_a_stale_proposal_can_be_written_again(client, trio, run_command, write_jsonl):
    run_command("propose_merges")
    run_command(
        "import_memories",
        str(
            write_jsonl(
                [
                    line(
                        "b",
                        "Her cat Miso is a grey tabby.",
                        near(1, 0.9),
                        tags=["pets"],
                        created_at="2026-02-01T00:00:00Z",
                    )
                ],
                name="changed.jsonl",
            )
        ),
    )
    client.force_login(person("carla", "curator"))
    refused = client.post(f"/clusters/{trio.pk}/accept", follow=True)
    assert b"refresh it" in refused.content and b"Write the proposal again" in refused.content

    client.post(f"/clusters/{trio.pk}/refresh")
    accepted = client.post(f"/clusters/{trio.pk}/accept", follow=True)

    assert b"Merged into merged-" in accepted.content


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


def test_cluster_decisions_that_change_no_memory_are_logged_too(client, trio):
    client.force_login(person("carla", "curator"))

    client.post(f"/clusters/{trio.pk}/exclude/{memory('c').pk}")
    client.post(f"/clusters/{trio.pk}/dismiss")

    logged = list(
        HistoryEvent.objects.filter(cluster=trio).order_by("id").values_list("action", "actor")
    )
    assert logged == [("exclude", "user:carla"), ("dismiss", "user:carla")]
