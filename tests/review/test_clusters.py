"""The cluster queue and a cluster's page, with and without HTMX, and every decision on it."""

import pytest

from memadmin.curation.models import Cluster, HistoryEvent, MergeProposal, PairVerdict
from memadmin.store.models import Memory
from tests.factories import line, memory, near, person, unit

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def open_clusters(run_command, write_jsonl, count=1, start=0):
    lines = []
    for number in range(start, start + count):
        lines += [
            line(
                f"a{number}",
                f"Her cat Miso number {number} is an orange tabby.",
                unit(number),
                tags=["pets"],
                created_at="2026-01-01T00:00:00Z",
            ),
            line(
                f"b{number}",
                f"Has a cat called Miso number {number}.",
                near(number, 0.8),
                tags=["pets"],
                created_at="2026-02-01T00:00:00Z",
            ),
        ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None
    assert Cluster.objects.filter(status="open").count() == start + count
    return Cluster.objects.order_by("id").first()


@pytest.fixture
def cluster(run_command, write_jsonl):
    return open_clusters(run_command, write_jsonl)


@pytest.mark.parametrize(
    ("role", "read", "decide"),
    [(None, 302, 302), ("viewer", 200, 403), ("curator", 200, 302), ("admin", 200, 302)],
)
def test_who_may_read_and_decide(client, cluster, role, read, decide):
    if role:
        client.force_login(person("p", role))

    assert client.get("/clusters/").status_code == read
    assert client.get(f"/clusters/{cluster.pk}/").status_code == read
    assert client.post(f"/clusters/{cluster.pk}/dismiss").status_code == decide


def test_the_queue_is_a_whole_page_and_its_section_for_htmx(client, cluster):
    client.force_login(person("v", "viewer"))

    page = client.get("/clusters/")
    section = client.get("/clusters/", **HX)

    assert b"<html" in page.content and b'id="queue"' in page.content
    assert b"<html" not in section.content and section.content.lstrip().startswith(
        b'<section id="queue"'
    )
    assert b"Has a cat called Miso number 0." in section.content


def test_the_queue_filters_by_namespace(client, cluster):
    client.force_login(person("v", "viewer"))

    assert b"1 cluster" in client.get("/clusters/", {"namespace": "alice"}, **HX).content
    assert b"0 clusters" in client.get("/clusters/", {"namespace": "nobody"}, **HX).content


def test_the_queue_runs_the_same_queries_for_1_and_20_clusters(client, run_command, write_jsonl):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(person("v", "viewer"))
    open_clusters(run_command, write_jsonl, count=1)
    with CaptureQueriesContext(connection) as one:
        client.get("/clusters/", **HX)

    open_clusters(run_command, write_jsonl, count=19, start=1)
    with CaptureQueriesContext(connection) as twenty:
        response = client.get("/clusters/", **HX)

    assert b"20 clusters" in response.content
    assert len(twenty.captured_queries) == len(one.captured_queries)


def test_the_cluster_page_shows_members_oldest_first_with_the_weakest_link(client, cluster):
    client.force_login(person("v", "viewer"))

    content = client.get(f"/clusters/{cluster.pk}/").content.decode()

    assert content.index("a0</dd>") < content.index("b0</dd>")
    assert "weakest link" in content
    assert '<span class="removed">' in content  # words of a member the proposal drops


def test_a_curator_accepts_without_javascript(client, cluster):
    client.force_login(person("carla", "curator"))

    response = client.post(
        f"/clusters/{cluster.pk}/accept", {"text": "Her cat Miso is an orange tabby."}
    )

    assert (response.status_code, response["Location"]) == (302, "/clusters/")
    merged = Memory.objects.get(status="active", content="Her cat Miso is an orange tabby.")
    assert merged.external_id.startswith("merged-")
    assert MergeProposal.objects.get().status == "edited"


def test_a_curator_accepts_with_htmx_and_counters_hear_of_it(client, cluster):
    client.force_login(person("carla", "curator"))

    response = client.post(f"/clusters/{cluster.pk}/accept", **HX)

    assert response.status_code == 200
    assert response.content.lstrip().startswith(b'<section id="decision">')
    assert b"Accepted by carla" in response.content
    assert response["HX-Trigger"] == f'{{"clusterDecided": {{"id": {cluster.pk}}}}}'


def test_a_second_decision_is_refused_saying_who_decided(client, cluster):
    client.force_login(person("carla", "curator"))
    client.post(f"/clusters/{cluster.pk}/accept")
    client.force_login(person("olga", "curator"))

    htmx = client.post(f"/clusters/{cluster.pk}/dismiss", **HX)
    plain = client.post(f"/clusters/{cluster.pk}/dismiss", follow=True)

    assert htmx.status_code == 409
    assert b"already accepted by carla at" in htmx.content
    assert b"already accepted by carla at" in plain.content
    assert Cluster.objects.get().status == "accepted"


def test_dismissing_remembers_the_pair_and_it_is_never_proposed_again(client, cluster, run_command):
    client.force_login(person("carla", "curator"))

    client.post(f"/clusters/{cluster.pk}/dismiss")
    run_command("find_duplicates", "--full")

    assert PairVerdict.objects.get().verdict == "not_duplicate"
    assert list(Cluster.objects.values_list("status", flat=True)) == ["dismissed"]


def test_every_page_carries_a_strict_content_security_policy(client):
    policy = client.get("/accounts/login/")["Content-Security-Policy"]

    assert "script-src 'self'" in policy and "unsafe-inline" not in policy


def ids(cluster):
    return sorted(
        cluster.memberships.filter(excluded=False).values_list("memory__external_id", flat=True)
    )


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


def test_cluster_decisions_that_change_no_memory_are_logged_too(client, trio):
    client.force_login(person("carla", "curator"))

    client.post(f"/clusters/{trio.pk}/exclude/{memory('c').pk}")
    client.post(f"/clusters/{trio.pk}/dismiss")

    logged = list(
        HistoryEvent.objects.filter(cluster=trio).order_by("id").values_list("action", "actor")
    )
    assert logged == [("exclude", "user:carla"), ("dismiss", "user:carla")]
