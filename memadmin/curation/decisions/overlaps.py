"""One rule for overlapping decisions: whatever makes a memory inactive (a merge, keep
one, a settlement, forget, a pull, a run's automatic merge), the open conflicts and
clusters holding it follow, in the same transaction; whatever makes it active again (an
undo) takes them back.

- An open conflict with a side no longer active is closed as `overtaken`, saying what
  happened ("kit-001 was merged into merged-8-3 by carla at 2026-11-26 12:17"). Where a
  memory now carries that side's fact (its `superseded_by` chain ends at an active
  memory) and the pair is still in question (not the other side itself, no conflict or
  settled verdict on that pair yet), a conflict that `follows` it is opened on the
  carrier, in the same place (the older side stays `a`).
- An open cluster's member no longer active is taken out (`taken_note`); a cluster left
  with fewer than two members is `overtaken`.
- When every memory of an overtaken conflict is active again (the decision was undone),
  it is open again and a follower nobody touched is removed; a member taken out comes
  back, and its cluster opens again. Undo restores what was.

Each change writes an `overtake` event on the memory that caused it.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from memadmin.curation.decisions.history import snapshot
from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.detection.pipeline import assess_pair
from memadmin.curation.detection.reading.topics import topic_of
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import Verdict
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictStatus,
    HistoryEvent,
    PairVerdict,
)
from memadmin.store.models import Memory, MemoryStatus

_MERGING = {
    HistoryEvent.Action.MERGE,
    HistoryEvent.Action.SUPERSEDE,
    HistoryEvent.Action.COLLAPSE,
}


def follow(
    memory_ids: Iterable[int], *, actor: str, user=None, deciding: Iterable[int] = ()
) -> None:
    """Bring the open conflicts and clusters holding `memory_ids` in line with what those
    memories are now (see the module's docstring). Call it inside the decision's
    transaction, after its memory changes; `deciding`: the clusters the decision itself
    decides (their members are its to take)."""
    ids = set(memory_ids)
    if not ids or not _anything_holds(ids):
        return
    _take_back(ids, actor, user)
    _overtake_conflicts(ids, actor, user)
    _overtake_clusters(ids, actor, user, set(deciding))


def _anything_holds(ids: set[int]) -> bool:
    """Whether a conflict or cluster membership `follow` could change holds one of `ids`:
    an open or overtaken conflict, a membership of an open cluster, one taken out. One
    query with the ids as an array: a run's automatic merges supersede thousands of
    memories a batch that almost never are in either, and the five queries below, each
    with every id as a parameter of its own, cost a full pass over a thousand namespaces
    4 % of its time (bench/find_duplicates.py --scenario b --profile)."""
    ids = sorted(ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT EXISTS (
                SELECT 1 FROM {Conflict._meta.db_table}
                WHERE status = ANY(%s) AND (memory_a_id = ANY(%s) OR memory_b_id = ANY(%s))
            ) OR EXISTS (
                SELECT 1 FROM {ClusterMember._meta.db_table} member
                JOIN {Cluster._meta.db_table} cluster ON cluster.id = member.cluster_id
                WHERE member.memory_id = ANY(%s)
                  AND (member.taken_note <> '' OR NOT member.excluded)
                  AND cluster.status = ANY(%s)
            )
            """,
            [
                [
                    s.value
                    for s in (ConflictStatus.OPEN, ConflictStatus.COPY, ConflictStatus.OVERTAKEN)
                ],
                ids,
                ids,
                ids,
                [ClusterStatus.OPEN.value, ClusterStatus.OVERTAKEN.value],
            ],
        )
        return bool(cursor.fetchone()[0])


def what_happened(memory: Memory) -> str:
    """How `memory` stopped being active, as a reader reads it: from its latest event."""
    event = (
        HistoryEvent.objects.filter(memory_id=memory.pk)
        .exclude(action=HistoryEvent.Action.OVERTAKE)
        .select_related("user")
        .order_by("-id")
        .first()
    )
    name = memory.external_id
    if memory.status == MemoryStatus.ACTIVE:
        return f"{name} is active"
    carrier = _carrier(memory)
    if memory.status == MemoryStatus.SUPERSEDED and event and event.action in _MERGING:
        what = f"merged into {carrier.external_id if carrier else 'a memory no longer active'}"
    elif memory.status == MemoryStatus.SUPERSEDED:
        what = f"superseded by {carrier.external_id if carrier else 'a memory no longer active'}"
    elif event and event.action == HistoryEvent.Action.FORGET:
        what = "forgotten"
    else:
        what = "deleted"
    if event is None:
        return f"{name} was {what}"
    if event.conflict_id and event.action == HistoryEvent.Action.RESOLVE:
        what += f" when conflict {event.conflict_id} was settled"
    who = event.user.get_username() if event.user else event.actor
    when = timezone.localtime(event.created_at).strftime("%Y-%m-%d %H:%M")
    return f"{name} was {what} by {who} at {when}"


def _carrier(memory: Memory) -> Memory | None:
    """The active memory at the end of `memory`'s superseded_by chain, if any."""
    seen = {memory.pk}
    current = memory
    while current.status == MemoryStatus.SUPERSEDED and current.superseded_by_id:
        if current.superseded_by_id in seen:
            return None  # a loop: nothing carries it
        seen.add(current.superseded_by_id)
        current = Memory.objects.get(pk=current.superseded_by_id)
    return current if current.status == MemoryStatus.ACTIVE and current.pk != memory.pk else None


def _event(memory: Memory, actor, user, reason: str, **links) -> None:
    HistoryEvent.objects.create(
        namespace_id=memory.namespace_id,
        memory=memory,
        action=HistoryEvent.Action.OVERTAKE,
        actor=actor,
        user=user,
        before=snapshot(memory),
        after=snapshot(memory),
        reason=reason,
        **links,
    )


def _holding(model, ids: set[int], status):
    statuses = [status] if isinstance(status, str) else list(status)
    return (
        model.objects.select_for_update(of=("self",))
        .filter(Q(memory_a_id__in=ids) | Q(memory_b_id__in=ids), status__in=statuses)
        .select_related("memory_a", "memory_b")
        .order_by("pk")
    )


def _overtake_conflicts(ids: set[int], actor, user) -> None:
    for conflict in _holding(Conflict, ids, [ConflictStatus.OPEN, ConflictStatus.COPY]):
        sides = (conflict.memory_a, conflict.memory_b)
        gone = [m for m in sides if m.status != MemoryStatus.ACTIVE]
        if not gone:
            continue
        note = "; ".join(what_happened(m) for m in gone)
        was_open = conflict.status == ConflictStatus.OPEN
        conflict.status, conflict.overtaken_note = ConflictStatus.OVERTAKEN, note
        conflict.resolved_at = timezone.now()  # closed then (the dashboard's open counts)
        conflict.save(update_fields=["status", "overtaken_note", "resolved_at"])
        if was_open:
            _promote_a_copy(conflict)
        follower = _follow_on(conflict)
        said = f"conflict {conflict.pk} overtaken: {note}"
        if follower:
            said += f"; carried on as conflict {follower.pk}"
        for memory in gone:
            _event(memory, actor, user, said, conflict=conflict)


def _open_or_copy(conflict: Conflict) -> tuple[str, Conflict | None]:
    """How a conflict that stands again stands: open, or a copy of the open conflict of
    the same two texts."""
    lead = (
        Conflict.objects.filter(
            namespace_id=conflict.namespace_id,
            texts_key=conflict.texts_key,
            status=ConflictStatus.OPEN,
        )
        .exclude(pk=conflict.pk)
        .order_by("pk")
        .first()
    )
    return (ConflictStatus.COPY, lead) if lead else (ConflictStatus.OPEN, None)


def _promote_a_copy(lead: Conflict) -> None:
    """An open conflict overtaken while a copy of its two texts still stands: the oldest
    such copy is the open one now, and the others its copies."""
    copies = [
        c
        for c in lead.copies.select_for_update()
        .select_related("memory_a", "memory_b")
        .filter(status=ConflictStatus.COPY)
        .order_by("pk")
        if c.memory_a.status == c.memory_b.status == MemoryStatus.ACTIVE
    ]
    if not copies:
        return
    first, rest = copies[0], copies[1:]
    first.status, first.copy_of = ConflictStatus.OPEN, None
    first.save(update_fields=["status", "copy_of"])
    Conflict.objects.filter(pk__in=[c.pk for c in rest]).update(copy_of=first)


def _follow_on(conflict: Conflict) -> Conflict | None:
    """The conflict carrying `conflict` on, where a memory carries each side's fact, the
    pair is still in question, and judged again as the pair it now holds it is still a
    conflict (its reason, kind, tier and confidence that judgement's: two copies of one
    text, or a pair the evidence now reads as one fact or two, carry nothing on); None
    otherwise."""
    a = conflict.memory_a if conflict.memory_a.status == MemoryStatus.ACTIVE else None
    b = conflict.memory_b if conflict.memory_b.status == MemoryStatus.ACTIVE else None
    a = a or _carrier(conflict.memory_a)
    b = b or _carrier(conflict.memory_b)
    if a is None or b is None or a.pk == b.pk or a.content_hash == b.content_hash:
        return None
    if Conflict.objects.filter(Q(memory_a=a, memory_b=b) | Q(memory_a=b, memory_b=a)).exists():
        return None
    low, high = sorted((a.content_hash, b.content_hash))
    judged = PairVerdict.objects.filter(
        namespace_id=conflict.namespace_id, hash_low=low, hash_high=high
    ).exclude(verdict=PairVerdict.Verdict.CONFLICT)
    if judged.exists():
        return None  # someone (a person, the LLM) already said these two do not conflict
    older, newer = sorted((a, b), key=lambda m: (m.created_at, m.pk))
    judgement = judge_again(older, newer)
    if judgement.verdict != Verdict.CONFLICT:
        return None
    key = Conflict.key_of(a, b)
    lead = (
        Conflict.objects.filter(
            namespace_id=conflict.namespace_id, texts_key=key, status=ConflictStatus.OPEN
        )
        .order_by("pk")
        .first()
    )
    return Conflict.objects.create(
        namespace_id=conflict.namespace_id,
        memory_a=a,  # in the place of the side it carries on
        memory_b=b,
        topic=topic_of(a.content, b.content),
        follows=conflict,
        texts_key=key,
        status=ConflictStatus.COPY if lead else ConflictStatus.OPEN,
        copy_of=lead,
        **judgement.conflict_fields(),
    )


def judge_again(older: Memory, newer: Memory):
    """What detection makes of two memories now, alone (their stored vectors, the words
    of the two as the namespace): the judgement a follow-up conflict stands on."""
    counts = Counts.of([older.content, newer.content])
    return assess_pair(
        older,
        newer,
        cosine=_cosine(older.embedding, newer.embedding),
        tfidf=counts.tfidf(),
        thresholds=Thresholds.from_settings(),
        multi=_cosine(older.embedding_multi, newer.embedding_multi, missing=None),
        user_names=counts.user_names(),
    )


def _cosine(a, b, *, missing=0.0):
    if a is None or b is None:
        return missing
    return float(np.dot(np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)))


def _overtake_clusters(ids: set[int], actor, user, deciding: set[int]) -> None:
    taken = (
        ClusterMember.objects.select_for_update(of=("self",))
        .filter(memory_id__in=ids, excluded=False, cluster__status=ClusterStatus.OPEN)
        .exclude(memory__status=MemoryStatus.ACTIVE)
        .exclude(cluster_id__in=deciding)
        .select_related("memory", "cluster")
        .order_by("pk")
    )
    touched: dict[int, Cluster] = {}
    for membership in taken:
        note = what_happened(membership.memory)
        membership.excluded, membership.taken_note = True, note
        membership.save(update_fields=["excluded", "taken_note"])
        touched[membership.cluster_id] = membership.cluster
        _event(
            membership.memory,
            actor,
            user,
            f"taken out of cluster {membership.cluster_id}: {note}",
            cluster=membership.cluster,
        )
    for cluster in touched.values():
        if cluster.memberships.filter(excluded=False).count() < 2:
            cluster.status = ClusterStatus.OVERTAKEN
            cluster.save(update_fields=["status", "updated_at"])


def _take_back(ids: set[int], actor, user) -> None:
    """Undo what `follow` did where the memories it followed are active again: a conflict
    whose sides are both active is open unless the conflict it carries on is open again
    (then it is retired, overtaken, and comes back if that conflict is overtaken again)."""
    found = {
        c.pk: c
        for c in _holding(Conflict, ids, ConflictStatus.OVERTAKEN)
        if {c.memory_a.status, c.memory_b.status} == {MemoryStatus.ACTIVE}
    }
    followers = Conflict.objects.select_for_update(of=("self",)).filter(
        follows_id__in=list(found), status__in=[ConflictStatus.OPEN, ConflictStatus.COPY]
    )
    found.update({c.pk: c for c in followers.select_related("memory_a", "memory_b")})
    outside = dict(
        Conflict.objects.filter(
            pk__in={c.follows_id for c in found.values()} - set(found)
        ).values_list("pk", "status")
    )
    final: dict[int, str] = {}

    def settled(conflict: Conflict) -> str:
        if conflict.pk not in final:
            carried = conflict.follows_id
            carried_open = (
                settled(found[carried]) if carried in found else outside.get(carried)
            ) in (ConflictStatus.OPEN, ConflictStatus.COPY)
            final[conflict.pk] = ConflictStatus.OVERTAKEN if carried_open else ConflictStatus.OPEN
        return final[conflict.pk]

    # Those retired first: a conflict open again may be a copy only of one that stays.
    by_pk = sorted(found.values(), key=lambda c: c.pk)
    for conflict in sorted(by_pk, key=lambda c: settled(c) == ConflictStatus.OPEN):
        status = settled(conflict)
        if status == ConflictStatus.OPEN:
            # Open again: a copy where another conflict of its two texts stands open.
            status, conflict.copy_of = _open_or_copy(conflict)
        if status == conflict.status:
            continue
        if status in (ConflictStatus.OPEN, ConflictStatus.COPY):
            note, said = "", f"conflict {conflict.pk} open again"
        elif not HistoryEvent.objects.filter(conflict=conflict).exists():
            conflict.delete()  # a follower nobody touched goes as it came
            continue
        else:
            note = (
                f"conflict {conflict.follows_id} is open again: the decision this one "
                "followed was undone"
            )
            said = f"conflict {conflict.pk} retired: {note}"
        conflict.status, conflict.overtaken_note = status, note
        standing = status in (ConflictStatus.OPEN, ConflictStatus.COPY)
        conflict.resolved_at = None if standing else timezone.now()
        conflict.save(update_fields=["status", "overtaken_note", "resolved_at", "copy_of"])
        for memory in (conflict.memory_a, conflict.memory_b):
            if memory.pk in ids:
                _event(memory, actor, user, said, conflict=conflict)
    back = (
        ClusterMember.objects.select_for_update(of=("self",))
        .filter(memory_id__in=ids, memory__status=MemoryStatus.ACTIVE)
        .exclude(taken_note="")
        .filter(cluster__status__in=[ClusterStatus.OPEN, ClusterStatus.OVERTAKEN])
        .select_related("memory", "cluster")
        .order_by("pk")
    )
    for membership in back:
        membership.excluded, membership.taken_note = False, ""
        membership.save(update_fields=["excluded", "taken_note"])
        cluster = membership.cluster
        if (
            cluster.status == ClusterStatus.OVERTAKEN
            and cluster.memberships.filter(excluded=False).count() >= 2
        ):
            cluster.status = ClusterStatus.OPEN
            cluster.save(update_fields=["status", "updated_at"])
        _event(
            membership.memory,
            actor,
            user,
            f"back in cluster {cluster.pk}",
            cluster=cluster,
        )
