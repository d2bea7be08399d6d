"""Conflicts: opening one (detection, the API), and an admin settling it."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memadmin.curation.decisions import overlaps
from memadmin.curation.decisions.history import (
    DecisionError,
    StaleDecision,
    actor_of,
    at_time,
    change,
    lock_memory,
    log,
    merged_text,
    snapshot,
    unused_external_id,
)
from memadmin.curation.decisions.memories import embed_text
from memadmin.curation.decisions.verdicts import forget_verdict, record_verdict
from memadmin.curation.detection.reading.topics import topic_of
from memadmin.curation.models import (
    Conflict,
    ConflictResolution,
    ConflictStatus,
    HistoryEvent,
    PairVerdict,
    Tier,
    settled_in_words,
)
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.text import content_hash


def open_conflict(
    *,
    older: Memory,
    newer: Memory,
    kind: str,
    reason: str,
    differing_tokens: list[str],
    detected_by: str = "rule",
    tier: str = "proposed",
    confidence: float = 1.0,
    evidence: Sequence[str] = (),
    explanation: dict | None = None,
) -> tuple[Conflict, bool]:
    """Record that `older` and `newer` disagree (unless that pair already has a
    conflict, open or decided), in the tier detection gave it, with its confidence and
    evidence. Side effects: creates one Conflict row."""
    with transaction.atomic():
        existing = Conflict.objects.filter(
            Q(memory_a=older, memory_b=newer) | Q(memory_a=newer, memory_b=older)
        ).first()
        if existing:
            return existing, False
        key = Conflict.key_of(older, newer)
        lead = standing_for(older.namespace_id, [key]).get(key)
        conflict = Conflict.objects.create(
            namespace=older.namespace,
            memory_a=older,
            memory_b=newer,
            texts_key=key,
            status=ConflictStatus.COPY if lead else ConflictStatus.OPEN,
            copy_of_id=lead,
            kind=kind,
            reason=reason,
            detected_by=detected_by,
            differing_tokens=differing_tokens,
            topic=topic_of(older.content, newer.content),
            tier=tier,
            confidence=confidence,
            evidence=list(evidence),
            explanation=explanation or {},
        )
    return conflict, True


def open_conflicts(found: Sequence[tuple[Memory, Memory, dict]]) -> list[bool]:
    """open_conflict for a batch run's conflicts at once: (older, newer, the conflict's
    fields) each; a pair that has a conflict already (open or decided, either way round)
    is left as it is. Side effects, in one transaction: the new Conflict rows, inserted in
    bulk. Returns, per item, whether it opened a conflict."""
    with transaction.atomic():
        ids = {m.pk for older, newer, _ in found for m in (older, newer)}
        known = {
            frozenset(pair)
            for pair in Conflict.objects.filter(
                memory_a_id__in=ids, memory_b_id__in=ids
            ).values_list("memory_a_id", "memory_b_id")
        }
        new, opened = [], []
        for older, newer, fields in found:
            pair = frozenset((older.pk, newer.pk))
            opened.append(pair not in known)
            if pair in known:
                if fields.get("tier") == Tier.PROPOSED:
                    # An open possible conflict a later run proposes (an LLM's readings
                    # decided it since): the newer judgement stands in for it.
                    Conflict.objects.filter(
                        Q(memory_a_id=older.pk, memory_b_id=newer.pk)
                        | Q(memory_a_id=newer.pk, memory_b_id=older.pk),
                        status__in=[ConflictStatus.OPEN, ConflictStatus.COPY],
                        tier=Tier.POSSIBLE,
                    ).update(**fields)
                continue
            known.add(pair)
            new.append(
                Conflict(
                    namespace_id=older.namespace_id,
                    memory_a_id=older.pk,
                    memory_b_id=newer.pk,
                    topic=topic_of(older.content, newer.content),
                    texts_key=Conflict.key_of(older, newer),
                    **fields,
                )
            )
        _insert_with_copies(new)
    return opened


def standing_for(namespace_id: int, keys) -> dict[str, int]:
    """The open conflict standing for each pair of texts (by key) in a namespace."""
    found = (
        Conflict.objects.filter(
            namespace_id=namespace_id, texts_key__in=list(keys), status=ConflictStatus.OPEN
        )
        .order_by("texts_key", "pk")
        .values_list("texts_key", "pk")
    )
    standing: dict[str, int] = {}
    for key, pk in found:
        standing.setdefault(key, pk)
    return standing


def _insert_with_copies(new: list[Conflict]) -> None:
    """Insert a run's new conflicts; a conflict of the same two texts as one open (or one
    inserted before it) is a copy of that one: one conflict to people."""
    standing: dict[tuple[int, str], int] = {}
    for namespace_id in {c.namespace_id for c in new}:
        keys = [c.texts_key for c in new if c.namespace_id == namespace_id]
        standing.update(
            ((namespace_id, key), pk) for key, pk in standing_for(namespace_id, keys).items()
        )
    leads, copies, led = [], [], set()
    for conflict in new:
        place = (conflict.namespace_id, conflict.texts_key)
        if place in standing or place in led:
            copies.append(conflict)
        else:
            leads.append(conflict)
            led.add(place)
    Conflict.objects.bulk_create(leads, batch_size=1000)
    standing.update(((c.namespace_id, c.texts_key), c.pk) for c in leads)
    for copy in copies:
        copy.status, copy.copy_of_id = (
            ConflictStatus.COPY,
            standing[(copy.namespace_id, copy.texts_key)],
        )
    Conflict.objects.bulk_create(copies, batch_size=1000)


def resolve_conflict(
    *, conflict: Conflict, resolution: str, user, scope_note: str = "", text: str = ""
) -> Conflict:
    """An admin settles a conflict (a = older, b = newer):
    keep_a / keep_b: the other memory is retired (status deleted, never removed);
    both_valid: both stay, with the scope note (e.g. "staging" / "production");
    b_supersedes_a: a is superseded by b and valid until b's creation;
    rewritten: one new memory with `text` (metadata from b) supersedes both;
    dismiss: not a conflict. Every outcome but a rewrite is remembered for the pair, so
    it is not raised again. Side effects: the memory changes with their history events,
    the conflict's status. Refuses with StaleDecision when someone settled it first."""
    with transaction.atomic():
        conflict = Conflict.objects.select_for_update().get(pk=conflict.pk)
        _refuse_unless_open(conflict, resolution, scope_note)
        # A settlement acts on the two memories as they are now: never on one another
        # decision already made inactive (that would undo what it decided).
        older, newer = lock_memory(conflict.memory_a), lock_memory(conflict.memory_b)
        gone = [m for m in (older, newer) if m.status != MemoryStatus.ACTIVE]
        if gone:
            said = "; ".join(overlaps.what_happened(m) for m in gone)
            raise StaleDecision(f"{said}: this conflict can no longer be settled as asked")
        actor, now = actor_of(user), timezone.now()
        reason = f"conflict {conflict.pk} settled: {settled_in_words(resolution)}"
        merged = _settle(conflict, resolution, older, newer, actor, user, reason, scope_note, text)
        _record(conflict, resolution, older, newer, user, scope_note, reason, now)
        touched = [older.pk, newer.pk]
        for copy in conflict.copies.select_for_update().filter(status=ConflictStatus.COPY):
            # Copies of the same two texts are settled alike, in the same decision.
            sides = lock_memory(copy.memory_a), lock_memory(copy.memory_b)
            if any(side.status != MemoryStatus.ACTIVE for side in sides):
                continue  # this settlement took a side already: follow() overtakes it
            said = f"conflict {copy.pk} settled with conflict {conflict.pk}: "
            said += settled_in_words(resolution)
            _settle(copy, resolution, *sides, actor, user, said, scope_note, text, into=merged)
            _record(copy, resolution, *sides, user, scope_note, said, now)
            touched += [side.pk for side in sides]
        overlaps.follow(touched, actor=actor, user=user)
    return conflict


def _record(conflict, resolution, older, newer, user, scope_note, reason, now) -> None:
    """A settlement's verdict on the pair (not raised again; a rewrite remembers none)
    and the conflict's status."""
    if resolution != ConflictResolution.REWRITTEN:
        record_verdict(
            namespace=conflict.namespace,
            hashes=(older.content_hash, newer.content_hash),
            verdict=PairVerdict.Verdict.BOTH_VALID,
            conflict_kind="",
            reason=scope_note or reason,
            decided_by="human",
            user=user,
        )
    conflict.status = (
        ConflictStatus.DISMISSED if resolution == "dismiss" else ConflictStatus.RESOLVED
    )
    conflict.resolution = "" if resolution == "dismiss" else resolution
    conflict.scope_note, conflict.resolver, conflict.resolved_at = scope_note, user, now
    conflict.save()


def _refuse_unless_open(conflict: Conflict, resolution: str, scope_note: str) -> None:
    """Refuse a settlement of a conflict someone settled or overtook first (saying who and
    when), and one the admin did not say enough of."""
    if conflict.status == ConflictStatus.OVERTAKEN:
        raise StaleDecision(f"this conflict was overtaken: {conflict.overtaken_note}")
    if conflict.status == ConflictStatus.COPY:
        raise StaleDecision(
            f"this conflict is a copy of conflict {conflict.copy_of_id} (the same two texts): "
            "settle that one, and this one is settled with it"
        )
    if conflict.status != ConflictStatus.OPEN:
        who = conflict.resolver.get_username() if conflict.resolver else "find_duplicates"
        how = (
            f"settled this conflict ({settled_in_words(conflict.resolution)})"
            if conflict.status == ConflictStatus.RESOLVED
            else "marked this conflict not a conflict"
        )
        raise StaleDecision(f"{who} {how} {at_time(conflict.resolved_at)}")
    if not resolution:
        raise DecisionError("choose a resolution first")
    if resolution == ConflictResolution.BOTH_VALID and not scope_note.strip():
        raise DecisionError(
            'both valid needs a scope note: say where each holds (e.g. "A is staging, '
            'B production")'
        )


def _settle(conflict, resolution, older, newer, actor, user, reason, scope_note, text, into=None):
    """What a resolution does to the two (locked, active) memories, each change with its
    history event; a rewrite's new memory (`into`: the one a copy's sides fold into)."""
    if resolution in (ConflictResolution.KEEP_A, ConflictResolution.KEEP_B):
        retired = newer if resolution == ConflictResolution.KEEP_A else older
        _change(retired, actor, user, reason, conflict, status=MemoryStatus.DELETED)
    elif resolution == ConflictResolution.B_SUPERSEDES_A:
        _change(
            older,
            actor,
            user,
            reason,
            conflict,
            status=MemoryStatus.SUPERSEDED,
            superseded_by=newer,
            valid_until=newer.created_at,
        )
    elif resolution == ConflictResolution.REWRITTEN:
        if not text.strip():
            raise DecisionError("a rewrite needs the new text")
        merged = into or _rewrite(older, newer, merged_text(text), actor, user, reason, conflict)
        for memory in (older, newer):
            _change(
                memory,
                actor,
                user,
                reason,
                conflict,
                status=MemoryStatus.SUPERSEDED,
                superseded_by=merged,
            )
    elif resolution in (ConflictResolution.BOTH_VALID, "dismiss"):
        # Nothing changes on either memory, but the settlement is a decision all the
        # same: one event per memory (before = after) puts it in History, where it can
        # be undone like any other.
        said = f"{reason}: {scope_note}" if scope_note else reason
        for memory in (older, newer):
            memory = lock_memory(memory)
            log(
                memory,
                HistoryEvent.Action.RESOLVE,
                actor=actor,
                user=user,
                before=snapshot(memory),
                reason=said,
                conflict=conflict,
            )
    else:
        raise DecisionError(f"unknown resolution {resolution!r}")
    return merged if resolution == ConflictResolution.REWRITTEN else None


def _change(memory: Memory, actor, user, reason, conflict, **changes) -> None:
    change(
        memory,
        HistoryEvent.Action.RESOLVE,
        actor=actor,
        user=user,
        reason=reason,
        links={"conflict": conflict},
        **changes,
    )


def _rewrite(older, newer, text, actor, user, reason, conflict) -> Memory:
    merged = Memory(
        namespace_id=newer.namespace_id,
        external_id=unused_external_id(newer.namespace_id, f"rewritten-{conflict.pk}"),
        content=text,
        content_hash=content_hash(text),
        category=newer.category,
        tags=list(dict.fromkeys([*older.tags, *newer.tags])),
        source_ref=newer.source_ref,
        session_id=newer.session_id,
        importance=max(older.importance, newer.importance),
        confidence=max(older.confidence, newer.confidence),
        metadata=newer.metadata,
        provenance=[*older.provenance, *newer.provenance],
        created_at=timezone.now(),
    )
    embed_text(merged)
    merged.save()
    log(
        merged,
        HistoryEvent.Action.RESOLVE,
        actor=actor,
        user=user,
        reason=reason,
        related_memory_ids=[older.pk, newer.pk],
        conflict=conflict,
    )
    return merged


# What a resolution may have changed on a memory, and an undo puts back.
RESOLVED_FIELDS = ("status", "superseded_by_id", "valid_until")


def undo_resolution(*, conflict: Conflict, user) -> Conflict:
    """Take back how a conflict was settled, with the copies settled with it: each memory
    it changed returns to what it was (a rewrite's new memory is retired, never deleted),
    the pair's verdict is forgotten and the conflict is open again (its copies copies
    again). Refused, naming the memory and the later decision to undo first, when one of
    them changed since; refused for a conflict another decision overtook (undo that
    one). Side effects: the memories with an `undo` event each pointing at the event it
    undoes, the verdict, the conflicts."""
    with transaction.atomic():
        conflict = Conflict.objects.select_for_update().get(pk=conflict.pk)
        if conflict.status in (ConflictStatus.OPEN, ConflictStatus.COPY):
            raise DecisionError("this conflict is open: there is nothing to undo")
        lead = conflict.copy_of
        if (
            lead is not None
            and conflict.status != ConflictStatus.OVERTAKEN
            and (lead.status in (ConflictStatus.RESOLVED, ConflictStatus.DISMISSED))
        ):
            raise DecisionError(
                f"this conflict was settled with conflict {lead.pk} (the same two texts): "
                "undo that one, and this one is undone with it"
            )
        if conflict.status == ConflictStatus.OVERTAKEN:
            # Nobody settled it: another decision did. Undoing that decision opens it.
            raise DecisionError(
                f"this conflict was not settled but overtaken ({conflict.overtaken_note}): "
                "undo that decision first, and this conflict is open again"
            )
        copies = list(
            conflict.copies.select_for_update().filter(
                status__in=[ConflictStatus.RESOLVED, ConflictStatus.DISMISSED]
            )
        )
        touched = []
        for settled in [*copies, conflict]:
            touched += _undo_one(settled, user)
            settled.status = ConflictStatus.COPY if settled in copies else ConflictStatus.OPEN
            settled.resolution, settled.scope_note = "", ""
            settled.resolver, settled.resolved_at = None, None
            settled.save()
        overlaps.follow(touched, actor=actor_of(user), user=user)
    return conflict


def _undo_one(conflict: Conflict, user) -> list[int]:
    """Put back what one settlement changed (and forget its verdict): the memories it
    touched, by id; refused when one changed since."""
    events = list(
        HistoryEvent.objects.filter(
            conflict=conflict, action=HistoryEvent.Action.RESOLVE, undone_by__isnull=True
        ).order_by("id")
    )
    if not events:
        _log_unlogged_undo(conflict, user)
    memories = {e.memory_id: lock_memory(Memory(pk=e.memory_id)) for e in events}
    for undone in events:
        now = snapshot(memories[undone.memory_id])
        changed = (
            any(now[name] != undone.after[name] for name in RESOLVED_FIELDS)
            if undone.before is not None
            else now["status"] != MemoryStatus.ACTIVE
        )
        if changed:
            # A later decision holds the memory: say which, to undo it first.
            later = overlaps.what_happened(memories[undone.memory_id])
            raise DecisionError(
                f"{later} after this conflict was settled: undo that first, then this"
            )
    for undone in events:
        memory = memories[undone.memory_id]
        if undone.before is None:  # the rewrite's new memory
            restored = {"status": MemoryStatus.DELETED}
        else:
            restored = {
                "status": undone.before["status"],
                "superseded_by_id": undone.before["superseded_by_id"],
                "valid_until": undone.before["valid_until"],
            }
        change(
            memory,
            HistoryEvent.Action.UNDO,
            actor=actor_of(user),
            user=user,
            reason=f"settlement of conflict {conflict.pk} undone",
            links={"conflict": conflict, "undoes": undone},
            **restored,
        )
    forget_verdict(
        namespace_id=conflict.namespace_id,
        hashes=(conflict.memory_a.content_hash, conflict.memory_b.content_hash),
        verdict=PairVerdict.Verdict.BOTH_VALID,
    )
    return list(memories)


def _log_unlogged_undo(conflict: Conflict, user) -> None:
    """The undo of a settlement taken before "both valid" and "not a conflict" wrote
    events: nothing to restore, but the undo is an event of each memory all the same."""
    for pk in (conflict.memory_a_id, conflict.memory_b_id):
        memory = lock_memory(Memory(pk=pk))
        log(
            memory,
            HistoryEvent.Action.UNDO,
            actor=actor_of(user),
            user=user,
            before=snapshot(memory),
            reason=f"settlement of conflict {conflict.pk} undone",
            conflict=conflict,
        )
