"""Decisions that stay true after other decisions (curation/decisions/overlaps.py): open
conflicts and clusters follow a memory another decision made inactive, settlements act
only on active memories, and undo takes it all back."""

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memadmin.curation import decisions
from memadmin.curation.models import (
    Cluster,
    ClusterStatus,
    Conflict,
    ConflictStatus,
    HistoryEvent,
)
from memadmin.curation.proposals import rule_draft
from memadmin.curation.reads.clusters import cluster_members
from memadmin.store.models import Memory, MemoryStatus
from tests.factories import cluster, line, memory, person, store, unit

pytestmark = pytest.mark.django_db


def kit() -> list[Memory]:
    """The issue's case: kit-001 and kit-002 one fact, kit-003 disagreeing with both."""
    return store(
        line("kit-001", "The gripper force is 12 N.", unit(1), created_at="2026-01-01T00:00:00Z"),
        line("kit-002", "Gripper force: 12 N.", unit(2), created_at="2026-01-02T00:00:00Z"),
        line("kit-003", "The gripper force is 8 N.", unit(3), created_at="2026-01-03T00:00:00Z"),
        line("kit-004", "The arm has six joints.", unit(4), created_at="2026-01-04T00:00:00Z"),
    )


def conflict(a: Memory, b: Memory, reason: str = "12 N / 8 N") -> Conflict:
    opened, _ = decisions.open_conflict(
        older=a, newer=b, kind="contradiction", reason=reason, differing_tokens=[]
    )
    return opened


def accept(opened: Cluster, user) -> Memory:
    members = cluster_members(opened)
    proposal = decisions.record_proposal(
        cluster=opened, members=members, draft=rule_draft(members, "test")
    )
    return decisions.accept_proposal(proposal=proposal, user=user)


def test_a_merge_carries_its_members_conflicts_and_settling_them_does_what_was_chosen():
    carla, ada = person("carla", "curator"), person("ada", "admin")
    one, two, three, _ = kit()
    first, second = conflict(one, three), conflict(two, three)

    merged = accept(cluster(one, two), carla)

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == ("overtaken", "overtaken")
    assert first.overtaken_note.startswith("kit-001 was merged into merged-")
    assert " by carla at " in first.overtaken_note
    # One conflict carries both on: the merged memory against kit-003.
    follower = Conflict.objects.get(status="open")
    assert (follower.memory_a, follower.memory_b, follower.follows) == (merged, three, first)
    assert HistoryEvent.objects.filter(action="overtake", conflict=first).count() == 1

    # Settling an overtaken conflict is refused by name, and changes nothing.
    with pytest.raises(decisions.StaleDecision, match="kit-002 was merged into merged-"):
        decisions.resolve_conflict(conflict=second, resolution="keep_b", user=ada)
    assert memory("kit-003").status == "active"

    # The follower is settled as chosen: keep B (kit-003), the merged memory retired.
    decisions.resolve_conflict(conflict=follower, resolution="keep_b", user=ada)
    assert Memory.objects.get(pk=merged.pk).status == "deleted"
    assert memory("kit-003").status == "active"
    assert {memory("kit-001").status, memory("kit-002").status} == {"superseded"}


def test_what_carries_a_conflict_on_is_judged_again_from_the_pair_it_holds():
    """A follower's reason comes from the two memories it now holds, not from the conflict
    it carries on."""
    carla = person("carla", "curator")
    one, two, three, _ = kit()
    conflict(one, three)
    opened = cluster(one, two)
    members = cluster_members(opened)
    proposal = decisions.record_proposal(
        cluster=opened, members=members, draft=rule_draft(members, "test")
    )

    merged = decisions.accept_proposal(
        proposal=proposal, user=carla, text="The gripper force is 12 N at most."
    )

    follower = Conflict.objects.get(status="open")
    assert (follower.memory_a, follower.memory_b) == (merged, three)
    assert follower.reason != "12 N / 8 N"  # the overtaken conflict's words
    assert "8 N / 12 N" in follower.reason and follower.differing_tokens
    assert follower.detected_by == "rule" and follower.tier in ("proposed", "possible")
    assert follower.explanation["stages"]  # and how the model weighed it, for its page


def test_a_pair_of_the_same_two_texts_carries_the_conflicts_own_judgement():
    """Merged as one of its own texts, a side carries its conflict on unchanged: the
    same two texts read the same (no judging again, the reason is still true)."""
    carla = person("carla", "curator")
    one, two, three, _ = kit()
    first = conflict(one, three)
    opened = cluster(one, two)
    members = cluster_members(opened)
    proposal = decisions.record_proposal(
        cluster=opened, members=members, draft=rule_draft(members, "test")
    )

    decisions.accept_proposal(proposal=proposal, user=carla, text=one.content)

    follower = Conflict.objects.get(status="open")
    assert follower.memory_a.content == one.content and follower.follows == first
    assert (follower.reason, follower.kind) == (first.reason, first.kind)


def test_a_settlement_that_leaves_two_copies_of_one_text_carries_no_conflict_on():
    """ "B supersedes A" on one conflict, where a copy of B from another source was in
    conflict with A too: A's fact is now B's, and B against its own copy is no conflict."""
    ada = person("ada", "admin")
    friday, saturday, copy = store(
        line("rel-1", "billing-api is released every Friday.", unit(1), source_ref="chat",
             created_at="2026-01-01T00:00:00Z"),
        line("rel-2", "billing-api is released every Saturday.", unit(2), source_ref="chat",
             created_at="2026-01-02T00:00:00Z"),
        line("rel-3", "billing-api is released every Saturday.", unit(2), source_ref="agent",
             created_at="2026-01-02T00:00:00Z"),
    )  # fmt: skip
    first, second = conflict(friday, saturday), conflict(friday, copy)

    decisions.resolve_conflict(conflict=first, resolution="b_supersedes_a", user=ada)

    second.refresh_from_db()
    assert second.status == "overtaken"
    assert Conflict.objects.filter(status="open").count() == 0
    check_invariants()


def test_undoing_an_overtaken_conflict_says_which_decision_to_undo_first():
    ada = person("ada", "admin")
    friday, saturday, copy = store(
        line("rel-1", "billing-api is released every Friday.", unit(1),
             created_at="2026-01-01T00:00:00Z"),
        line("rel-2", "billing-api is released every Saturday.", unit(2),
             created_at="2026-01-02T00:00:00Z"),
        line("rel-3", "billing-api is released on Sundays.", unit(3),
             created_at="2026-01-03T00:00:00Z"),
    )  # fmt: skip
    first, second = conflict(friday, saturday), conflict(friday, copy)
    decisions.resolve_conflict(conflict=first, resolution="b_supersedes_a", user=ada)
    second.refresh_from_db()

    with pytest.raises(decisions.DecisionError) as refused:
        decisions.undo_resolution(conflict=second, user=ada)

    said = str(refused.value)
    assert said.startswith("this conflict was not settled but overtaken (rel-1 was superseded")
    assert "undo that decision first" in said
    second.refresh_from_db()
    assert second.status == "overtaken"  # nothing changed


def test_a_settlement_never_touches_a_memory_another_decision_made_inactive():
    ada = person("ada", "admin")
    one, _, three, _ = kit()
    open_one = conflict(one, three)
    # Made inactive behind the decisions' back (as an old version of a pull would).
    Memory.objects.filter(pk=one.pk).update(status=MemoryStatus.DELETED)

    with pytest.raises(decisions.StaleDecision, match="kit-001 was deleted"):
        decisions.resolve_conflict(conflict=open_one, resolution="keep_a", user=ada)

    assert memory("kit-003").status == "active"
    assert Conflict.objects.get(pk=open_one.pk).status == "open"


def test_undoing_the_merge_reopens_the_conflicts_and_removes_the_follower():
    carla = person("carla", "curator")
    one, two, three, _ = kit()
    first, second = conflict(one, three), conflict(two, three)
    opened = cluster(one, two)
    accept(opened, carla)

    decisions.unmerge(cluster=opened, actor="user:carla", user=carla)

    assert set(Conflict.objects.values_list("pk", "status")) == {
        (first.pk, "open"),
        (second.pk, "open"),
    }
    assert Conflict.objects.get(pk=first.pk).overtaken_note == ""


def test_a_cluster_whose_member_was_forgotten_is_overtaken_until_the_forget_is_undone():
    carla = person("carla", "curator")
    one, two, *_ = kit()
    opened = cluster(one, two)

    decisions.forget_memory(memory=two, reason="the agent asked", actor="api:agent")

    opened.refresh_from_db()
    assert opened.status == ClusterStatus.OVERTAKEN
    taken = opened.memberships.get(memory=two)
    assert taken.excluded and taken.taken_note.startswith("kit-002 was forgotten by api:agent")

    forgotten = HistoryEvent.objects.get(action="forget")
    decisions.undo_forget(forgotten=forgotten, user=carla)

    opened.refresh_from_db()
    assert opened.status == ClusterStatus.OPEN
    assert not opened.memberships.get(memory=two).excluded


# --- Any sequence of decisions -----------------------------------------------------------

RESOLUTIONS = ["keep_a", "keep_b", "b_supersedes_a", "both_valid", "dismiss", "rewritten"]
STEP = st.tuples(
    st.sampled_from(["accept", "keep", "exclude", "split", "settle", "forget", "undo"]),
    st.integers(0, 7),
    st.integers(0, 7),
)


def state() -> dict:
    """What an undo must give back: every memory's curated fields, every conflict's and
    cluster's status and members."""
    return {
        "memories": {
            (*row[:-1], tuple(row[-1]))
            for row in Memory.objects.values_list(
                "pk", "status", "superseded_by_id", "content", "tags"
            )
        },
        "conflicts": set(Conflict.objects.values_list("pk", "status", "memory_a", "memory_b")),
        "clusters": set(Cluster.objects.values_list("pk", "status")),
        "members": set(
            Cluster.objects.values_list("pk", "memberships__memory", "memberships__excluded")
        ),
    }


def restored(before: dict) -> None:
    """The store is as `before`; what the undone decision created (a merged memory, a
    follower conflict, a split's parts) is retired or closed, never left live."""
    after = state()
    for key, rows in after.items():
        known = {row[0] for row in before[key]}
        assert {row for row in rows if row[0] in known} == before[key], key
        new = [row for row in rows if row[0] not in known]
        if key in ("memories", "conflicts", "clusters"):
            assert all(row[1] not in ("active", "open") for row in new), (key, new)


def check_invariants() -> None:
    for open_conflict in Conflict.objects.filter(status=ConflictStatus.OPEN):
        sides = (open_conflict.memory_a.status, open_conflict.memory_b.status)
        assert sides == ("active", "active"), f"open conflict {open_conflict.pk} on {sides}"
        texts = (open_conflict.memory_a.content_hash, open_conflict.memory_b.content_hash)
        assert texts[0] != texts[1], f"open conflict {open_conflict.pk} of one text twice"
    for open_cluster in Cluster.objects.filter(status=ClusterStatus.OPEN):
        members = cluster_members(open_cluster)
        assert len(members) >= 2, f"open cluster {open_cluster.pk} of {len(members)}"
        assert {m.status for m in members} == {"active"}, f"open cluster {open_cluster.pk}"


def apply(step, carla, ada, undoable: list) -> None:
    """One decision, as a page makes it; a refusal is fine (and must change nothing)."""
    action, first, second = step
    clusters = list(Cluster.objects.filter(status=ClusterStatus.OPEN).order_by("pk"))
    conflicts = list(Conflict.objects.order_by("pk"))
    memories = list(Memory.objects.order_by("pk"))
    if action in ("accept", "keep", "exclude", "split") and clusters:
        chosen = clusters[first % len(clusters)]
        members = cluster_members(chosen)
        if action == "accept":
            accept(chosen, carla)
            undoable.append(("merge", chosen))
        elif action == "keep":
            decisions.keep_survivor(
                cluster=chosen, survivor_id=members[second % len(members)].pk, user=carla
            )
            undoable.append(("merge", chosen))
        elif action == "exclude":
            leaving = members[second % len(members)]
            decisions.exclude_member(cluster=chosen, memory_id=leaving.pk, user=carla)
            undoable.append(("cluster", HistoryEvent.objects.filter(action="exclude").latest("id")))
        else:
            decisions.split_cluster(cluster=chosen, user=carla)
            undoable.append(("cluster", HistoryEvent.objects.filter(action="split").latest("id")))
    elif action == "settle" and conflicts:
        chosen = conflicts[first % len(conflicts)]
        resolution = RESOLUTIONS[second % len(RESOLUTIONS)]
        decisions.resolve_conflict(
            conflict=chosen,
            resolution=resolution,
            user=ada,
            scope_note="staging / production",
            text="The gripper force is 10 N.",
        )
        settled = Conflict.objects.get(pk=chosen.pk)
        a, b = (Memory.objects.get(pk=pk) for pk in (settled.memory_a_id, settled.memory_b_id))
        # What the page says it did is what the store shows.
        expected = {
            "keep_a": ("active", "deleted"),
            "keep_b": ("deleted", "active"),
            "b_supersedes_a": ("superseded", "active"),
            "both_valid": ("active", "active"),
            "dismiss": ("active", "active"),
            "rewritten": ("superseded", "superseded"),
        }[resolution]
        assert (a.status, b.status) == expected, (resolution, a.status, b.status)
        undoable.append(("conflict", settled))
    elif action == "forget" and memories:
        chosen = memories[first % len(memories)]
        decisions.forget_memory(memory=chosen, reason="asked", actor="api:agent")
        undoable.append(("forget", HistoryEvent.objects.filter(action="forget").latest("id")))


def undo(kind: str, what, carla) -> None:
    if kind == "merge":
        decisions.unmerge(cluster=what, actor="user:carla", user=carla)
    elif kind == "cluster":
        decisions.undo_cluster_decision(decision=what, user=carla)
    elif kind == "conflict":
        decisions.undo_resolution(conflict=what, user=carla)
    else:
        decisions.undo_forget(forgotten=what, user=carla)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(STEP, min_size=1, max_size=8))
def test_any_sequence_of_decisions_keeps_conflicts_and_clusters_true(steps):
    with transaction.atomic():
        carla, ada = person("carla", "curator"), person("ada", "admin")
        one, two, three, four = kit()
        extra = store(
            line("kit-005", "Gripper force 12 N.", unit(5), created_at="2026-01-05T00:00:00Z")
        )[0]
        cluster(one, two, extra)
        cluster(three, four)
        for a, b in ((one, three), (two, three), (extra, four), (three, four)):
            conflict(a, b)
        undoable: list = []
        before_each: list = []
        for step in steps:
            if step[0] == "undo" and undoable:
                kind, what = undoable.pop()
                expected = before_each.pop()
                try:
                    undo(kind, what, carla)
                except decisions.DecisionError:
                    # Refused (another decision holds it): what came before it cannot be
                    # undone in order either.
                    undoable.clear()
                    before_each.clear()
                else:
                    restored(expected)
                check_invariants()
                continue
            before = state()
            count = len(undoable)
            try:
                with transaction.atomic():
                    apply(step, carla, ada, undoable)
            except decisions.DecisionError:
                assert state() == before, f"a refused {step[0]} changed something"
            if len(undoable) > count:
                before_each.append(before)
            check_invariants()
        transaction.set_rollback(True)


def test_undoing_a_merge_leaves_a_member_excluded_before_it_as_it_was():
    """Found by the sequence test: unmerge took the exclusion's event for the merge's."""
    carla = person("carla", "curator")
    one, two, _, _ = kit()
    extra = store(line("kit-005", "Gripper force 12 N.", unit(5)))[0]
    opened = cluster(one, two, extra)
    decisions.exclude_member(cluster=opened, memory_id=one.pk, user=carla)
    accept(opened, carla)

    decisions.unmerge(cluster=opened, actor="user:carla", user=carla)

    assert [memory(name).status for name in ("kit-001", "kit-002", "kit-005")] == ["active"] * 3


def _state() -> tuple:
    """What a reader sees: each memory's status, and the conflicts standing, by texts."""
    memories = sorted((m.content, m.status) for m in Memory.objects.all())
    standing = sorted(
        (c.status, c.memory_a.content, c.memory_b.content, c.reason, round(c.confidence, 4))
        for c in Conflict.objects.select_related("memory_a", "memory_b").exclude(status="overtaken")
    )
    return memories, standing


def test_a_bulk_accept_follows_once_and_ends_as_accepting_one_by_one():
    """reviews.decide_many follows what its merges overtook once, after the last: the
    conflicts and memories end as deciding each on its own page would leave them."""
    from memadmin.curation import reviews
    from memadmin.curation.reads.clusters import cluster_version

    carla = person("carla", "curator")
    one, two, three, four = kit()
    five, six = store(
        line("kit-005", "The gripper force is 8 N now.", unit(5), created_at="2026-02-01T00:00Z"),
        line("kit-006", "Gripper force: 8 N.", unit(6), created_at="2026-02-02T00:00:00Z"),
    )
    for a, b in ((one, three), (two, three), (one, five), (two, six), (four, six)):
        conflict(a, b)
    first, second = cluster(one, two), cluster(three, five, six)
    for opened in (first, second):
        members = cluster_members(opened)
        decisions.record_proposal(cluster=opened, members=members, draft=rule_draft(members, "t"))

    with transaction.atomic():
        for opened in (first, second):
            reviews.decide_many([opened.pk], "accept", carla, version_of=lambda pk: cluster_version(
                Cluster.objects.get(pk=pk)))  # fmt: skip
        one_by_one = _state()
        transaction.set_rollback(True)
    versions = {c.pk: cluster_version(c) for c in (first, second)}
    outcome = reviews.decide_many([first.pk, second.pk], "accept", carla, version_of=versions.get)

    assert outcome.done == [first.pk, second.pk]
    assert any(status == "open" for status, *_ in one_by_one[1])  # something carried on
    assert _state() == one_by_one
    check_invariants()
    # One undo for both takes every follower back.
    reviews.undo_many(outcome.done, carla)
    assert {m.status for m in Memory.objects.filter(external_id__startswith="kit-")} == {"active"}
    assert Conflict.objects.filter(status="open").count() == 5
    check_invariants()


def test_undoing_a_merge_offers_its_proposal_again():
    carla = person("carla", "curator")
    one, two, *_ = kit()
    opened = cluster(one, two)

    accept(opened, carla)
    decisions.unmerge(cluster=opened, actor="carla", user=carla)

    (pending,) = opened.proposals.filter(status="pending")
    assert pending.merged_text and pending.reviewer is None
