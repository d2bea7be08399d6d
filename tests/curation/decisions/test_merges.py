"""Accepting a proposal, and undoing merges."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.curation import decisions, reviews
from memadmin.curation.models import Cluster, HistoryEvent, MergeProposal
from memadmin.store.models import Memory, MemoryStatus
from tests.factories import line, memory, near, person, status, unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator():
    return person("carla", None)


@pytest.fixture
def proposed(run_command, write_jsonl):
    """An open cluster of two memories with a rule proposal."""
    lines = [
        line(
            "old",
            "Her cat Miso is 4 years old, an orange tabby.",
            unit(1),
            importance=0.9,
            tags=["pets"],
            session_id="s1",
            created_at="2026-01-01T00:00:00Z",
        ),
        line(
            "new",
            "Has a cat called Miso.",
            near(1, 0.8),
            importance=0.4,
            tags=["pets", "cat"],
            session_id="s2",
            category="fact",
            metadata={"k": "v"},
            created_at="2026-02-01T00:00:00Z",
        ),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None
    return MergeProposal.objects.get()


def test_accepting_makes_one_memory_with_the_newest_metadata(proposed, curator):
    merged = decisions.accept_proposal(proposal=proposed, user=curator)

    # The rule proposal is the representative's text: "old" has the higher importance.
    assert merged.content == "Her cat Miso is 4 years old, an orange tabby."
    assert (merged.session_id, merged.metadata, merged.importance) == ("s2", {"k": "v"}, 0.9)
    assert merged.tags == ["pets", "cat"]
    assert len(merged.embedding) == 384
    assert {memory("old").status, memory("new").status} == {"superseded"}
    assert memory("old").superseded_by == merged
    cluster = Cluster.objects.get()
    assert (cluster.status, cluster.decided_by) == ("accepted", curator)
    assert MergeProposal.objects.get().status == "accepted"
    actions = sorted(HistoryEvent.objects.filter(cluster=cluster).values_list("action", flat=True))
    assert actions == ["merge", "supersede", "supersede"]


def test_a_curators_text_is_an_edited_acceptance(proposed, curator):
    merged = decisions.accept_proposal(
        proposal=proposed, user=curator, text="Her cat Miso is a 4-year-old orange tabby."
    )

    assert merged.content == "Her cat Miso is a 4-year-old orange tabby."
    assert MergeProposal.objects.get().status == "edited"


def test_a_second_decision_is_refused_naming_who_decided(proposed, curator):
    decisions.accept_proposal(proposal=proposed, user=curator)
    other = person("olga", None)

    with pytest.raises(decisions.StaleDecision, match="carla accepted this cluster at"):
        decisions.accept_proposal(proposal=proposed, user=other)
    assert Memory.objects.count() == 3  # two originals and one merged, not two merged


def test_a_proposal_whose_members_changed_is_refused(proposed, curator, run_command, write_jsonl):
    changed = [
        line(
            "new",
            "Has a cat called Miso, a tabby.",
            near(1, 0.8),
            created_at="2026-02-01T00:00:00Z",
        )
    ]
    run_command("import_memories", str(write_jsonl(changed, name="changed.jsonl")))

    with pytest.raises(decisions.StaleDecision, match="refresh"):
        decisions.accept_proposal(proposal=proposed, user=curator)
    assert Cluster.objects.get().status == "open"


def test_unmerge_restores_the_originals_exactly_after_later_merges(
    proposed, curator, run_command, write_jsonl
):
    originals = {
        m.external_id: (m.content, m.tags, m.importance, m.metadata, np.array(m.embedding))
        for m in Memory.objects.all()
    }
    merged = decisions.accept_proposal(proposal=proposed, user=curator)
    # A later, unrelated merge in the same namespace.
    more = [line("t1", "Prefers tea.", unit(7)), line("t2", "prefers tea", unit(7))]
    run_command("import_memories", str(write_jsonl(more, name="more.jsonl")))
    run_command("find_duplicates")
    assert Cluster.objects.filter(status="auto_merged").count() == 1

    decisions.unmerge(cluster=Cluster.objects.get(status="accepted"), actor="user:carla")

    for external_id, (content, tags, importance, metadata, vector) in originals.items():
        restored = memory(external_id)
        assert (restored.status, restored.superseded_by) == ("active", None)
        assert (restored.content, restored.tags, restored.importance, restored.metadata) == (
            content,
            tags,
            importance,
            metadata,
        )
        assert np.allclose(np.array(restored.embedding), vector)
    assert Memory.objects.get(pk=merged.pk).status == "deleted"
    assert HistoryEvent.objects.filter(action="unmerge").count() == 3
    assert Cluster.objects.filter(status="auto_merged").count() == 1  # the later merge stays


def test_unmerge_explains_a_later_merge_must_be_undone_first(run_command, load):
    load(line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1), importance=0.9))
    run_command("find_duplicates")
    first = Cluster.objects.get()
    load(line("c", "Prefers tea!", unit(1), importance=0.93), name="c.jsonl")
    # The survivor b is folded into c by a later run (c is more important).
    run_command("find_duplicates")
    assert status("b") == MemoryStatus.SUPERSEDED

    with pytest.raises(decisions.DecisionError, match="b was merged again later"):
        decisions.unmerge(cluster=first, actor="test")
    assert status("a") == MemoryStatus.SUPERSEDED


def test_a_merged_text_that_cannot_be_stored_is_refused_and_changes_nothing(proposed, curator):
    for text, reason in (("x" * 8193, "longer than 8192 bytes"), ("a\x00b", "NUL"), (" ", "empty")):
        with pytest.raises(decisions.DecisionError, match=reason.replace("empty", "non-empty")):
            decisions.accept_proposal(proposal=proposed, user=curator, text=text)

    assert Cluster.objects.get().status == "open"
    assert {memory("old").status, memory("new").status} == {"active"}


def test_a_made_id_never_meets_an_imported_one(proposed, curator, load):
    taken = f"merged-{proposed.cluster_id}-{proposed.pk}"
    load(line(taken, "Imported from another store.", unit(7)), name="taken.jsonl")

    merged = decisions.accept_proposal(proposal=proposed, user=curator)

    assert merged.external_id == f"{taken}-2"


def _accepted_by_hand(pairs, curator) -> list[Cluster]:
    """One accepted merge per pair of external ids, each cluster opened by hand."""
    clusters = []
    for ids in pairs:
        found = reviews.open_cluster_by_hand(
            memory_ids=[memory(external_id).pk for external_id in ids], user=curator
        )
        decisions.accept_proposal(proposal=reviews.proposal_to_decide(found), user=curator)
        clusters.append(found)
    return clusters


def test_many_merges_undone_together_take_as_many_statements_as_two(load, curator):
    load(*[line(f"{s}{i}", f"Fact {i} about {s} tea.", unit(i)) for i in range(12) for s in "ab"])
    clusters = _accepted_by_hand([(f"a{i}", f"b{i}") for i in range(12)], curator)
    merged = list(Memory.objects.filter(status="active").values_list("pk", flat=True))

    with CaptureQueriesContext(connection) as two:
        refused = decisions.unmerge_many([c.pk for c in clusters[:2]], actor="u", user=curator)
    assert refused == {}
    with CaptureQueriesContext(connection) as ten:
        refused = decisions.unmerge_many([c.pk for c in clusters[2:]], actor="u", user=curator)
    assert refused == {}

    assert len(ten) == len(two)
    assert not Memory.objects.filter(pk__in=merged).exclude(status="deleted").exists()
    assert Memory.objects.filter(status="active").count() == 24
    assert set(Cluster.objects.values_list("status", flat=True)) == {"open"}
    assert set(MergeProposal.objects.values_list("status", flat=True)) == {"pending"}
    assert HistoryEvent.objects.filter(action="unmerge").count() == 36


def test_a_merge_merged_again_later_is_refused_by_name_and_the_others_undone(load, curator):
    load(*[line(f"{s}{i}", f"Fact {i} about {s} tea.", unit(i)) for i in range(2) for s in "ab"])
    first, second = _accepted_by_hand([("a0", "b0"), ("a1", "b1")], curator)
    merged = {
        c.pk: Memory.objects.get(history__cluster=c, history__action="merge")
        for c in (first, second)
    }
    (later,) = _accepted_by_hand(
        [(merged[first.pk].external_id, merged[second.pk].external_id)], curator
    )

    refused = decisions.unmerge_many([first.pk, second.pk, later.pk], actor="u", user=curator)

    assert set(refused) == {first.pk, second.pk}
    assert (
        f"{merged[first.pk].external_id} was merged again later (into merged-" in refused[first.pk]
    )
    assert Cluster.objects.get(pk=later.pk).status == "open"
    assert {c.status for c in Cluster.objects.filter(pk__in=[first.pk, second.pk])} == {"accepted"}
    assert {status("a0"), status("b0")} == {MemoryStatus.SUPERSEDED}
    assert Memory.objects.get(pk=merged[first.pk].pk).status == "active"

    # Now nothing holds them: the two first merges undo.
    assert decisions.unmerge_many([first.pk, second.pk], actor="u", user=curator) == {}
    assert {status(f"{s}{i}") for s in "ab" for i in range(2)} == {MemoryStatus.ACTIVE}


def test_many_proposals_accepted_together_take_as_many_statements_as_two(load, curator):
    load(*[line(f"{s}{i}", f"Fact {i} about {s} tea.", unit(i)) for i in range(12) for s in "ab"])
    opened = [
        reviews.open_cluster_by_hand(
            memory_ids=[memory(f"a{i}").pk, memory(f"b{i}").pk], user=curator
        )
        for i in range(12)
    ]
    chosen = [(reviews.proposal_to_decide(c), None) for c in opened]

    with CaptureQueriesContext(connection) as two:
        merged, refused = decisions.accept_many(chosen[:2], user=curator)
    assert (len(merged), refused) == (2, {})
    with CaptureQueriesContext(connection) as ten:
        merged, refused = decisions.accept_many(chosen[2:], user=curator)
    assert (len(merged), refused) == (10, {})

    assert len(ten) == len(two)
    assert set(Cluster.objects.values_list("status", flat=True)) == {"accepted"}
    assert Memory.objects.filter(status="superseded").count() == 24
    assert HistoryEvent.objects.filter(action="merge").count() == 12
    assert memory("a7").superseded_by == merged[opened[7].pk]


def test_a_merge_that_cannot_be_made_is_refused_alone_and_changes_nothing(load, curator):
    load(*[line(f"{s}{i}", f"Fact {i} about {s} tea.", unit(i)) for i in range(3) for s in "ab"])
    opened = [
        reviews.open_cluster_by_hand(
            memory_ids=[memory(f"a{i}").pk, memory(f"b{i}").pk], user=curator
        )
        for i in range(3)
    ]
    first, second, third = [reviews.proposal_to_decide(c) for c in opened]
    decisions.accept_proposal(proposal=third, user=curator)

    merged, refused = decisions.accept_many(
        [(first, "a\x00b"), (second, "Tea facts 1."), (third, None)], user=curator
    )

    assert set(merged) == {second.cluster_id}
    assert merged[second.cluster_id].content == "Tea facts 1."
    assert isinstance(refused[first.cluster_id], decisions.InvalidText)
    assert "carla accepted this cluster" in str(refused[third.cluster_id])
    assert {status("a0"), status("b0")} == {MemoryStatus.ACTIVE}
    assert Cluster.objects.get(pk=first.cluster_id).status == "open"
    assert MergeProposal.objects.get(pk=second.pk).status == "edited"
