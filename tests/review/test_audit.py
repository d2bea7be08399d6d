"""The audit queue: a pair drawn at random from every band of what detection said, each
answered one fact / conflict / two facts / unsure, never offered again; the answers feed
the measured error rate."""

import random

import pytest

from memadmin.curation.models import PairLabel
from memadmin.curation.reads.audit import next_pair
from memadmin.curation.reads.measured import measured
from tests.factories import cluster, line, near, person, store, unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def pairs():
    """One proposed cluster and two near memories nothing holds together."""
    memories = store(
        line("a1", "Prefers tea in the morning.", unit(1)),
        line("a2", "Likes tea in the mornings.", near(1, 0.9)),
        line("n1", "Lives in Lyon.", unit(5)),
        line("n2", "Works in Lyon.", near(5, 0.8)),
    )
    cluster(memories[0], memories[1])
    return {m.external_id: m for m in memories}


def test_every_band_is_drawn_and_a_labelled_pair_is_never_offered_again(pairs):
    seen = set()
    for seed in range(30):
        found = next_pair(random.Random(seed))
        seen.add((found.band, frozenset((found.a.external_id, found.b.external_id))))
    assert ("proposed as one fact", frozenset({"a1", "a2"})) in seen
    assert ("near each other, nothing proposed", frozenset({"n1", "n2"})) in seen

    carla = person("carla", "curator")
    from memadmin.curation import decisions

    decisions.label_pair(memory_ids=(pairs["a1"].pk, pairs["a2"].pk), label="one_fact", user=carla)
    offered = {
        frozenset((f.a.external_id, f.b.external_id))
        for f in (next_pair(random.Random(seed)) for seed in range(30))
        if f is not None
    }
    assert frozenset({"a1", "a2"}) not in offered


def test_an_answer_is_recorded_and_the_next_pair_follows(client, pairs):
    client.force_login(person("carla", "curator"))
    page = client.get("/audit/").content.decode()
    assert 'data-audit-key="1"' in page and "What are these two?" in page

    answered = client.post(
        "/audit/answer",
        {"memory_a": pairs["a2"].pk, "memory_b": pairs["a1"].pk, "label": "one_fact"},
        follow=True,
    )

    assert "Recorded: one fact. The next pair:" in answered.content.decode()
    label = PairLabel.objects.get()
    assert (label.label, label.source, label.actor) == ("one_fact", "audit", "user:carla")
    assert measured()["clusters"]["proposed"]["recall_pairs"] == 1


def test_unsure_is_recorded_but_counts_in_no_figure(client, pairs):
    client.force_login(person("carla", "curator"))
    client.post(
        "/audit/answer", {"memory_a": pairs["a1"].pk, "memory_b": pairs["a2"].pk, "label": "unsure"}
    )
    assert PairLabel.objects.get().label == "unsure"
    assert measured()["clusters"]["proposed"]["pairs"] == 0


@pytest.mark.parametrize(
    "sent, said",
    [
        ({"memory_a": "1", "memory_b": "1", "label": "one_fact"}, "not a pair of this store"),
        ({"memory_a": "x", "memory_b": "2", "label": "one_fact"}, "Enter a whole number"),
        ({"memory_a": "1", "memory_b": "2", "label": "maybe"}, "Select a valid choice"),
        ({"memory_a": str(2**70), "memory_b": "2", "label": "one_fact"}, "less than or equal"),
    ],
)
def test_a_bad_answer_records_nothing_and_says_why(client, pairs, sent, said):
    client.force_login(person("carla", "curator"))
    answered = client.post("/audit/answer", sent, follow=True)
    assert answered.status_code == 200
    assert "Nothing recorded:" in answered.content.decode()
    assert said in answered.content.decode()
    assert not PairLabel.objects.exists()


def test_a_viewer_cannot_audit(client, pairs):
    client.force_login(person("vera", "viewer"))
    assert client.get("/audit/").status_code == 403
    assert client.post("/audit/answer", {}).status_code == 403


def test_an_empty_store_says_there_is_nothing_to_audit(client):
    client.force_login(person("carla", "curator"))
    assert "Nothing left to audit" in client.get("/audit/").content.decode()


def test_the_audit_queue_answers_an_htmx_request_as_a_plain_one(client, pairs):
    """The page has no htmx of its own; a request that says it is one still works."""
    client.force_login(person("carla", "curator"))
    assert client.get("/audit/", HTTP_HX_REQUEST="true").status_code == 200
    answered = client.post(
        "/audit/answer",
        {"memory_a": pairs["a1"].pk, "memory_b": pairs["a2"].pk, "label": "two_facts"},
        HTTP_HX_REQUEST="true",
    )
    assert (answered.status_code, answered["Location"]) == (302, "/audit/")
    assert PairLabel.objects.get().label == "two_facts"
