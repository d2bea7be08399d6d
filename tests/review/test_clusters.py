import pytest

from memadmin.curation.models import Cluster, MergeProposal, PairVerdict
from memadmin.store.models import Memory
from tests.conftest import person
from tests.curation.test_find_duplicates import line, near, unit

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
