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

Each change writes an `overtake` event on the memory that caused it. A bulk action
follows once for all its decisions (`once`): what its decisions overtook is followed
after the last, in the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from memadmin.curation.decisions.history import insert_rows, snapshot, update_rows
from memadmin.curation.decisions.rejudging import judged_again, judged_as_before, with_vectors
from memadmin.curation.detection.reading.topics import topic_of
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


# The memories a bulk action's decisions touched so far, while it follows `once`.
_waiting: ContextVar[set[int] | None] = ContextVar("waiting", default=None)


@contextmanager
def once(*, actor: str, user=None) -> Iterator[None]:
    """Follow once, on leaving, for every decision made inside (a bulk action of many
    merges: each would otherwise overtake, carry on and judge again the conflicts of
    memories the next merges take too). Call it inside the action's transaction: the
    decisions and what follows them are one change."""
    token = _waiting.set(set())
    try:
        yield
        ids = _waiting.get()
    finally:
        _waiting.reset(token)
    follow(ids, actor=actor, user=user)


def follow(
    memory_ids: Iterable[int], *, actor: str, user=None, deciding: Iterable[int] = ()
) -> None:
    """Bring the open conflicts and clusters holding `memory_ids` in line with what those
    memories are now (see the module's docstring). Call it inside the decision's
    transaction, after its memory changes; `deciding`: the clusters the decision itself
    decides (their members are its to take). Inside `once`, it waits for the end."""
    waiting = _waiting.get()
    if waiting is not None:
        waiting.update(memory_ids)
        return
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


_UNREAD = object()


def what_happened(memory: Memory, carrier=_UNREAD, event=_UNREAD) -> str:
    """How `memory` stopped being active, as a reader reads it: from its latest event
    (its `carrier` and that `event` where they were read already: _latest_events)."""
    if event is _UNREAD:
        event = _latest_events([memory.pk]).get(memory.pk)
    name = memory.external_id
    if memory.status == MemoryStatus.ACTIVE:
        return f"{name} is active"
    if carrier is _UNREAD:
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


def _latest_events(ids: Iterable[int]) -> dict[int, HistoryEvent]:
    """Each memory's latest event that is not an overtake, in one query."""
    return {
        event.memory_id: event
        for event in HistoryEvent.objects.filter(memory_id__in=list(ids))
        .exclude(action=HistoryEvent.Action.OVERTAKE)
        .select_related("user")
        .order_by("memory_id", "-id")
        .distinct("memory_id")
    }


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


def _carriers(memories: Iterable[Memory]) -> dict[int, Memory | None]:
    """_carrier of each of `memories`, reading each step of every chain in one query."""
    at = {m.pk: m for m in memories}  # where each chain is now
    seen = {pk: {pk} for pk in at}
    found: dict[int, Memory | None] = {}
    while at:
        moving = {
            pk: m
            for pk, m in at.items()
            if m.status == MemoryStatus.SUPERSEDED and m.superseded_by_id
        }
        for pk, m in at.items():
            if pk not in moving:
                active = m.status == MemoryStatus.ACTIVE and m.pk != pk
                found[pk] = m if active else None
        read = Memory.objects.in_bulk({m.superseded_by_id for m in moving.values()})
        at = {}
        for pk, m in moving.items():
            if m.superseded_by_id in seen[pk] or m.superseded_by_id not in read:
                found[pk] = None  # a loop, or nothing: nothing carries it
            else:
                seen[pk].add(m.superseded_by_id)
                at[pk] = read[m.superseded_by_id]
    return found


def _event(memory: Memory, actor, user, reason: str, **links) -> HistoryEvent:
    """An overtake's event, unsaved (written with the others in one query)."""
    return HistoryEvent(
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
        # The vectors only a pair judged again needs (rejudging.with_vectors): parsing them all
        # cost an undo of 50 merges a tenth of its time.
        .defer(*(f"memory_{side}__{v}" for side in "ab" for v in ("embedding", "embedding_multi")))
        .order_by("pk")
    )


def _overtake_conflicts(ids: set[int], actor, user) -> None:
    # In phases, each a query or a few for all the conflicts (a bulk merge overtakes
    # hundreds): each memory's carrier and what happened to it read once, every conflict
    # closed, the copies of the open ones promoted, what carries each on, the events.
    overtaken = []
    for conflict in _holding(Conflict, ids, [ConflictStatus.OPEN, ConflictStatus.COPY]):
        gone = [
            m for m in (conflict.memory_a, conflict.memory_b) if m.status != MemoryStatus.ACTIVE
        ]
        if gone:
            overtaken.append((conflict, gone, conflict.status == ConflictStatus.OPEN))
    if not overtaken:
        return
    every_gone = {m.pk: m for _, gone, _ in overtaken for m in gone}
    carriers = _carriers(every_gone.values())
    events = _latest_events(every_gone)
    happened = {pk: what_happened(m, carriers[pk], events.get(pk)) for pk, m in every_gone.items()}
    now = timezone.now()  # closed then (the dashboard's open counts)
    for conflict, gone, _ in overtaken:
        conflict.status = ConflictStatus.OVERTAKEN
        conflict.overtaken_note = "; ".join(happened[m.pk] for m in gone)
        conflict.resolved_at = now
    # One statement (a bulk_update's CASE over hundreds of rows cost most of a bulk merge).
    update_rows([c for c, *_ in overtaken], ["status", "overtaken_note", "resolved_at"])
    _promote_copies([c for c, _, was_open in overtaken if was_open])
    followers = _carry_on([c for c, *_ in overtaken], carriers)
    events = []
    for conflict, gone, _ in overtaken:
        said = f"conflict {conflict.pk} overtaken: {conflict.overtaken_note}"
        if conflict.pk in followers:
            said += f"; carried on as conflict {followers[conflict.pk].pk}"
        events += [_event(memory, actor, user, said, conflict=conflict) for memory in gone]
    insert_rows(events)


def _promote_copies(leads: list[Conflict]) -> None:
    """Open conflicts overtaken while a copy of their two texts still stands: the oldest
    such copy of each is the open one now, and the others its copies."""
    if not leads:
        return
    copies: dict[int, list[Conflict]] = {}
    for copy in (
        Conflict.objects.select_for_update(of=("self",))
        .select_related("memory_a", "memory_b")
        .filter(copy_of__in=leads, status=ConflictStatus.COPY)
        .order_by("pk")
    ):
        if copy.memory_a.status == copy.memory_b.status == MemoryStatus.ACTIVE:
            copies.setdefault(copy.copy_of_id, []).append(copy)
    for first, *rest in copies.values():
        first.status, first.copy_of = ConflictStatus.OPEN, None
        first.save(update_fields=["status", "copy_of"])
        Conflict.objects.filter(pk__in=[c.pk for c in rest]).update(copy_of=first)


def _carry_on(conflicts: list[Conflict], carriers: dict[int, Memory | None]) -> dict:
    """{overtaken conflict's pk: the conflict carrying it on}, where a memory carries each
    side's fact, the pair is still in question (no conflict on it yet, no verdict that it
    is none), and judged again as the pair it now holds it is still a conflict (its
    reason, kind, tier and confidence that judgement's: two copies of one text, or a
    pair the evidence now reads as one fact or two, carry nothing on). A few queries for
    all of them; the first of two texts is open, the others its copies."""

    def carried(memory: Memory) -> Memory | None:
        return memory if memory.status == MemoryStatus.ACTIVE else carriers.get(memory.pk)

    wanted = []
    for conflict in conflicts:
        a, b = carried(conflict.memory_a), carried(conflict.memory_b)
        if a is not None and b is not None and a.content_hash != b.content_hash:
            wanted.append((conflict, a, b))
    if not wanted:
        return {}
    with_vectors(m for _, a, b in wanted for m in (a, b))
    known = _known_pairs(wanted)
    made, firsts, rests = {}, {}, []
    for conflict, a, b in wanted:
        key = Conflict.key_of(a, b)
        low, high = sorted((a.content_hash, b.content_hash))
        if (
            frozenset((a.pk, b.pk)) in known["conflicts"]
            or (conflict.namespace_id, low, high) in known["verdicts"]
        ):
            continue  # a conflict on it already, or someone said these two do not conflict
        fields = judged_as_before(conflict, a, b) or judged_again(a, b)
        if fields is None:
            continue
        known["conflicts"].add(frozenset((a.pk, b.pk)))
        follower = Conflict(
            namespace_id=conflict.namespace_id,
            memory_a=a,  # in the place of the side it carries on
            memory_b=b,
            topic=topic_of(a.content, b.content),
            follows=conflict,
            texts_key=key,
            **fields,
        )
        lead = known["leads"].get((conflict.namespace_id, key)) or firsts.get(
            (conflict.namespace_id, key)
        )
        if lead is None:
            firsts[(conflict.namespace_id, key)] = follower
        else:
            follower.status, follower.copy_of = ConflictStatus.COPY, lead
            rests.append(follower)
        made[conflict.pk] = follower
    insert_rows(list(firsts.values()))  # COPY: Django's bulk insert quotes every JSON value
    for follower in rests:
        follower.copy_of_id = follower.copy_of.pk  # the lead has its pk now
    insert_rows(rests)
    return made


def _known_pairs(wanted: list[tuple[Conflict, Memory, Memory]]) -> dict:
    """What stands on the pairs `wanted` would carry on, in three queries: the pairs
    with a conflict already, the (namespace, hash, hash) pairs with a verdict that they
    do not conflict, and the open conflict of each (namespace, texts)."""
    ids = {m.pk for _, a, b in wanted for m in (a, b)}
    hashes = {m.content_hash for _, a, b in wanted for m in (a, b)}
    namespaces = {c.namespace_id for c, *_ in wanted}
    keys = {Conflict.key_of(a, b) for _, a, b in wanted}
    leads: dict = {}
    for lead in Conflict.objects.filter(
        namespace_id__in=namespaces, texts_key__in=keys, status=ConflictStatus.OPEN
    ).order_by("-pk"):
        leads[(lead.namespace_id, lead.texts_key)] = lead  # the oldest last: it stands
    return {
        "conflicts": {
            frozenset(pair)
            for pair in Conflict.objects.filter(
                memory_a_id__in=ids, memory_b_id__in=ids
            ).values_list("memory_a_id", "memory_b_id")
        },
        "verdicts": set(
            PairVerdict.objects.filter(
                namespace_id__in=namespaces, hash_low__in=hashes, hash_high__in=hashes
            )
            .exclude(verdict=PairVerdict.Verdict.CONFLICT)
            .values_list("namespace_id", "hash_low", "hash_high")
        ),
        "leads": leads,
    }


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
    events, happened = [], {}
    for membership in taken:
        if membership.memory_id not in happened:
            happened[membership.memory_id] = what_happened(membership.memory)
        note = happened[membership.memory_id]
        membership.excluded, membership.taken_note = True, note
        membership.save(update_fields=["excluded", "taken_note"])
        touched[membership.cluster_id] = membership.cluster
        events.append(_event(
            membership.memory,
            actor,
            user,
            f"taken out of cluster {membership.cluster_id}: {note}",
            cluster=membership.cluster,
        ))  # fmt: skip
    insert_rows(events)
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
    if not found:  # nothing of these memories came back (a merge, a settlement)
        _members_back(ids, actor, user)
        return
    followers = Conflict.objects.select_for_update(of=("self",)).filter(
        follows_id__in=list(found), status__in=[ConflictStatus.OPEN, ConflictStatus.COPY]
    )
    found.update({c.pk: c for c in followers.select_related("memory_a", "memory_b")})
    settled = _settled_after_undo(found)
    leads = _oldest_leads(found, settled)
    changed, gone, events = [], [], []
    now = timezone.now()
    touched_before = set(
        HistoryEvent.objects.filter(conflict_id__in=list(found)).values_list(
            "conflict_id", flat=True
        )
    )
    for conflict in sorted(found.values(), key=lambda c: c.pk):
        status, conflict.copy_of = settled[conflict.pk], None
        if status == ConflictStatus.OPEN:
            # Open again: a copy where an older conflict of its two texts stands open.
            lead = leads[(conflict.namespace_id, conflict.texts_key)]
            if lead is not conflict:
                status, conflict.copy_of = ConflictStatus.COPY, lead
        if status == conflict.status:
            continue
        if status in (ConflictStatus.OPEN, ConflictStatus.COPY):
            note, said = "", f"conflict {conflict.pk} open again"
        elif conflict.pk not in touched_before:
            gone.append(conflict.pk)  # a follower nobody touched goes as it came
            continue
        else:
            note = (
                f"conflict {conflict.follows_id} is open again: the decision this one "
                "followed was undone"
            )
            said = f"conflict {conflict.pk} retired: {note}"
        conflict.status, conflict.overtaken_note = status, note
        standing = status in (ConflictStatus.OPEN, ConflictStatus.COPY)
        conflict.resolved_at = None if standing else now
        changed.append(conflict)
        events += [
            _event(memory, actor, user, said, conflict=conflict)
            for memory in (conflict.memory_a, conflict.memory_b)
            if memory.pk in ids
        ]
    Conflict.objects.filter(pk__in=gone).delete()
    update_rows(changed, ["status", "overtaken_note", "resolved_at", "copy_of"])
    insert_rows(events)
    _members_back(ids, actor, user)


def _settled_after_undo(found: dict[int, Conflict]) -> dict[int, str]:
    """What each conflict of an undo becomes: open, unless the conflict it carries on is
    open (again) itself, then overtaken; a chain is followed to its start."""
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

    return {pk: settled(conflict) for pk, conflict in found.items()}


def _oldest_leads(found: dict[int, Conflict], settled: dict[int, str]) -> dict:
    """The lead of each (namespace, texts) once `found` is back: the oldest open conflict
    of the two texts, as detection made it, whichever order the undos came in. A lead
    standing open that is younger than one coming back becomes its copy, with its
    copies."""
    back = [c for c in found.values() if settled[c.pk] == ConflictStatus.OPEN]
    leads = _standing_leads(found.values())  # none of `found`: each changes now
    demoted: dict[int, Conflict] = {}  # a standing lead's pk: the older one it now copies
    for conflict in sorted(back, key=lambda c: c.pk):
        key = (conflict.namespace_id, conflict.texts_key)
        standing = leads.get(key)
        if standing is None or standing.pk > conflict.pk:
            if standing is not None:
                demoted[standing.pk] = conflict
            leads[key] = conflict
    if demoted:  # the younger leads and their copies, in one read and one write
        rows = []
        for pk, copy_of in Conflict.objects.filter(
            Q(pk__in=list(demoted)) | Q(copy_of__in=list(demoted), status=ConflictStatus.COPY)
        ).values_list("pk", "copy_of"):
            row = Conflict(pk=pk, status=ConflictStatus.COPY)
            row.copy_of = demoted[pk] if pk in demoted else demoted[copy_of]
            rows.append(row)
        update_rows(rows, ["status", "copy_of"])
    return leads


def _standing_leads(changing) -> dict[tuple[int, str], Conflict]:
    """The open conflict of each (namespace, texts) of `changing` that this change
    leaves alone, the oldest of each: one query."""
    changing = list(changing)
    leads: dict[tuple[int, str], Conflict] = {}
    for lead in (
        Conflict.objects.filter(
            namespace_id__in={c.namespace_id for c in changing},
            texts_key__in={c.texts_key for c in changing},
            status=ConflictStatus.OPEN,
        )
        .exclude(pk__in=[c.pk for c in changing])
        .order_by("-pk")
    ):
        leads[(lead.namespace_id, lead.texts_key)] = lead
    return leads


def _members_back(ids: set[int], actor, user) -> None:
    """Members taken out of a cluster whose memory is active again come back; a cluster
    overtaken opens again once two are back."""
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
            membership.memory, actor, user, f"back in cluster {cluster.pk}", cluster=cluster
        ).save()
