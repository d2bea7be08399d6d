"""A push: what people and runs decided here since the last push, applied to the source.

Each point stands for the memory it was pulled as. Where that memory went is followed
through `superseded_by` to the active memory that holds its fact now; of the points that
end at one memory, one carries it (the memory's own point, else the newest member's) and
gets its text, and the others are deleted (or, in mark mode, marked). A point whose
memory is active again after an undo gets back what it held (the journal keeps it).

Safety: an operation is planned only where memadmin's decision differs from what the
source holds as memadmin last saw it, and is sent only when the source still holds that
(an agent's newer write wins: the operation is skipped and reported). Every operation is
journalled (PushOperation) before it is sent, with the point as it was; a push killed
halfway resumes its pending operations first and finds those already applied, so nothing
is done twice."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from memadmin.curation.decisions import update_rows
from memadmin.curation.models import HistoryEvent
from memadmin.sources import mem0
from memadmin.sources.chains import chain_ends, retire_uncarried
from memadmin.sources.journal import packed, point_before, unpacked
from memadmin.sources.models import PushOperation, Source, SourcePoint, point_hash
from memadmin.sources.stores import (
    EMBEDDER_MEMADMIN,
    MARK_KEYS,
    STATUS_KEY,
    SUPERSEDED_BY_KEY,
    Point,
    SourceError,
    fields_of,
    open_store,
    speaking_for,
    with_new_text,
)
from memadmin.store.models import Memory, MemoryStatus

Action = PushOperation.Action


@dataclass
class PushReport:
    operations: list[PushOperation] = field(default_factory=list)  # sent, or listed (dry run)
    skipped: list[PushOperation] = field(default_factory=list)
    resumed: int = 0  # pending from a push that stopped halfway
    # Left alone for a change in the source a push reported already (said once per change,
    # and journalled once: the next pull brings the change in for review).
    reported_before: int = 0
    retired: int = 0  # active again here (an undo), their points deleted by the agent

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for operation in self.operations:
            counts[operation.action] = counts.get(operation.action, 0) + 1
        done = ", ".join(f"{n} {action}" for action, n in sorted(counts.items())) or "nothing"
        resumed = f" ({self.resumed} resumed)" if self.resumed else ""
        again = (
            f", {self.reported_before} still left alone as reported before"
            if self.reported_before
            else ""
        )
        retired = (
            f"; {self.retired} retired here (the agent deleted their points)"
            if self.retired
            else ""
        )
        return (
            f"{done}{resumed}; {len(self.skipped)} left alone (changed in the source)"
            f"{again}{retired}"
        )


def describe(operation: PushOperation) -> str:
    """One line for a person: what it does to which point, and why."""
    text = (
        f": {operation.text[:80]!r}" if operation.action in (Action.UPDATE, Action.RESTORE) else ""
    )
    dropped = f"; {operation.note}" if operation.note else ""
    return f"{operation.action} {operation.point.point_id}{text} ({operation.why}{dropped})"


# --- Planning -------------------------------------------------------------------------------


@dataclass
class _Wanted:
    present: bool
    text: str = ""
    status: str = ""  # for a mark: why the point is out
    superseded_by: str = ""  # the point (or memory) that carries its fact now
    group: str = ""  # the decision it is part of: the memory its group ends at


def plan(source: Source, *, mode: str | None = None) -> list[PushOperation]:
    """The operations (unsaved) that make the source say what memadmin decided, for points
    with no operation pending."""
    pending = source.operations.filter(status=PushOperation.Status.PENDING)
    points = _points(source).exclude(pk__in=pending.values("point_id"))
    # Only points where memadmin and the source may disagree are looked at (a store of a
    # million points with a few hundred decisions reads a few hundred), and beside them
    # the points of the memories their chains end at (each may carry its group).
    unsettled = list(points.filter(_UNSETTLED))
    final = chain_ends({p.memory_id for p in unsettled})
    ends = {memory.pk for memory in final.values() if memory is not None}
    seen = {p.pk for p in unsettled}
    unsettled += [p for p in points.filter(memory_id__in=ends) if p.pk not in seen]
    final.update(chain_ends({p.memory_id for p in unsettled} - set(final)))
    wanted = _wanted(unsettled, final)
    planned = []
    for point in unsettled:
        operation = _operation(source, point, wanted[point.pk], mode or source.mode)
        if operation is not None:
            operation.group = wanted[point.pk].group
            planned.append(operation)
    why = _reasons([op.point.memory_id for op in planned])
    for operation in planned:
        operation.why = why.get(operation.point.memory_id, "decided here")[:300]
    return planned


# A point whose memory left (or came back), that is marked, or whose text memadmin changed.
_UNSETTLED = (
    (Q(present=True) & ~Q(memory__status=MemoryStatus.ACTIVE))
    | Q(present=False, memory__status=MemoryStatus.ACTIVE)
    | Q(marked=True)
    | ~Q(text=F("memory__content"))
)


def _points(source: Source):
    return (
        source.points.order_by("pk")
        .select_related("memory")
        .defer("memory__embedding", "memory__embedding_multi")
    )


def _wanted(points: list[SourcePoint], final: dict[int, Memory | None]) -> dict[int, _Wanted]:
    by_end: dict[int, list[SourcePoint]] = {}
    wanted = {}
    for point in points:
        end = final[point.memory_id]
        if end is None:
            wanted[point.pk] = _Wanted(False, status=point.memory.status)
        else:
            by_end.setdefault(end.pk, []).append(point)
    for end_id, group in by_end.items():
        end = final[group[0].memory_id]
        # The memory's own point; else the one that carries it already (a later push
        # must not move the text to a point merged in since); else the newest member's.
        own = [p for p in group if p.memory_id == end_id and p.present]
        carrying = [p for p in group if p.present and p.text == end.content]
        alive = [p for p in group if p.present] or group
        newest = max(alive, key=lambda p: (p.memory.created_at, p.memory_id))
        carrier = (own or carrying or [newest])[0]
        for point in group:
            if point is carrier:
                wanted[point.pk] = _Wanted(True, end.content, group=f"m{end_id}")
            else:
                wanted[point.pk] = _Wanted(
                    False,
                    status=MemoryStatus.SUPERSEDED,
                    superseded_by=carrier.point_id,
                    group=f"m{end_id}",
                )
    return wanted


def _operation(source, point: SourcePoint, wanted: _Wanted, mode: str) -> PushOperation | None:
    def op(action, text="", restores=None) -> PushOperation:
        return PushOperation(
            source=source, point=point, action=action, text=text, restores=restores
        )

    if not wanted.present:
        if not point.present:
            return None
        if mode == Source.Mode.MARK:
            if point.marked:
                return None
            marking = op(Action.MARK)
            marking.status_marked, marking.superseded_by = wanted.status, wanted.superseded_by
            return marking
        return op(Action.DELETE)
    if not point.present:
        # Deleted by a push and wanted back (an undo): restore what the delete removed.
        # A point an agent deleted is gone for good (its write wins).
        deleted = _last_done(point, Action.DELETE)
        return op(Action.RESTORE, wanted.text, deleted) if deleted else None
    if point.marked:
        return op(Action.UNMARK, wanted.text)
    if point.text != wanted.text:
        # Back to a text it held before an update (an undo): that point, vector and all.
        earlier = _last_done(point, Action.UPDATE, before_text=wanted.text)
        if earlier is not None:
            return op(Action.RESTORE, wanted.text, earlier)
        return op(Action.UPDATE, wanted.text)
    return None


def _last_done(point: SourcePoint, action: str, *, before_text: str | None = None):
    done = point.operations.filter(status=PushOperation.Status.DONE, action=action)
    if before_text is not None:
        done = done.filter(before__text=before_text)
    return done.order_by("-pk").first()


def _reasons(memory_ids: list[int]) -> dict[int, str]:
    """The decision that made each memory what it is now, in words ("supersede by
    user:ada: merge accepted"): its newest event that changed it (a settlement that
    changed nothing, as "not a conflict", never explains a delete)."""
    newest = (
        HistoryEvent.objects.filter(memory_id__in=memory_ids)
        .exclude(Q(before__isnull=False) & Q(before=F("after")))
        .order_by("memory_id", "-pk")
        .distinct("memory_id")
        .values_list("memory_id", "action", "actor", "reason")
    )
    return {m: f"{action} by {actor}: {reason}" for m, action, actor, reason in newest}


# --- Sending --------------------------------------------------------------------------------


def push(
    source: Source,
    *,
    dry_run: bool = False,
    mode: str | None = None,
    on_total: Callable[[int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> PushReport:
    """Resume what a stopped push left pending, then plan, journal and send the rest, in
    batches. `dry_run` lists the operations and sends none (nothing is written); `mode`
    (delete or mark) overrides the source's for this push."""
    report = PushReport()
    if dry_run:
        _preview(source, pending_operations(source) + plan(source, mode=mode), report)
        return report
    with source_lock(source):  # planned under the lock: a push waiting plans after
        report.retired = _retire_deleted_by_the_agent(source)
        pending = pending_operations(source)
        planned = plan(source, mode=mode)
        number = (source.operations.aggregate(Max("push"))["push__max"] or 0) + 1
        for operation in planned:
            operation.push = number
        with transaction.atomic():
            PushOperation.objects.bulk_create(planned)
        report.resumed = len(pending)
        store = open_store(source)
        try:
            work = pending + planned
            if on_total:
                on_total(len(work))
            for batch in _batches(work, settings.SOURCE_PUSH_BATCH):
                _send(source, store, batch, report)
                if on_progress:
                    on_progress(len(batch))
        finally:
            store.close()
        source.last_push_at = timezone.now()
        source.save(update_fields=["last_push_at"])
    return report


def _retire_deleted_by_the_agent(source: Source) -> int:
    """Memories active here whose points the agent deleted (not a push: that one is
    restored) and that no other point carries: an undo brought them back, but the
    agent's delete wins, as on a pull."""
    orphans = (
        source.points.filter(present=False, memory__status=MemoryStatus.ACTIVE)
        .exclude(
            pk__in=PushOperation.objects.filter(
                source=source, action=Action.DELETE, status=PushOperation.Status.DONE
            ).values("point_id")
        )
        .values_list("memory_id", flat=True)
    )
    return retire_uncarried(
        source,
        set(orphans),
        reason=f"its point was deleted in source {source.name}",
        actor=f"source:{source.name}",
    )


def _preview(source: Source, work: list[PushOperation], report: PushReport) -> None:
    """A dry run: the store read as a push reads it, each operation listed as it would be
    sent or left alone (and why), nothing written anywhere."""
    store = open_store(source)
    try:
        for batch in _batches(work, settings.SOURCE_PUSH_BATCH):
            with speaking_for(source):
                current = store.fetch([op.point.point_id for op in batch])
            left = [op for op in batch if not _applied(op, current.get(op.point.point_id))]
            refusals = _whole_decisions(left, current)
            for op in batch:
                refusal = refusals.get(id(op), "")
                if refusal and _reported_before(op, current.get(op.point.point_id), refusal):
                    report.reported_before += 1
                elif refusal:
                    op.note = refusal[:300]
                    report.skipped.append(op)
                else:
                    result = _result(source, op, current.get(op.point.point_id))
                    if result is not None and result.dropped:
                        op.note = ("dropped: " + ", ".join(result.dropped))[:300]
                    report.operations.append(op)
    finally:
        store.close()


def _batches(work: list[PushOperation], size: int) -> list[list[PushOperation]]:
    """About `size` operations a batch, a decision's operations never split across two
    (a merge is sent whole or not at all)."""
    groups: dict[str, list[PushOperation]] = {}
    for number, operation in enumerate(work):
        groups.setdefault(operation.group or f"alone-{number}", []).append(operation)
    batches: list[list[PushOperation]] = [[]]
    for group in groups.values():
        if batches[-1] and len(batches[-1]) + len(group) > size:
            batches.append([])
        batches[-1].extend(group)
    return [batch for batch in batches if batch]


def pending_operations(source: Source) -> list[PushOperation]:
    """What a push that stopped halfway journalled and did not finish."""
    return list(
        source.operations.filter(status=PushOperation.Status.PENDING).select_related(
            "point", "restores"
        )
    )


# A push killed a moment ago may hold the lock until its server process notices.
LOCK_WAIT_SECONDS = 10


@contextmanager
def source_lock(source: Source):
    """One push per source at a time (a session advisory lock), awaited a few seconds."""
    key = 0x5EED_0000 + source.pk
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        while not cursor.fetchone()[0]:
            if time.monotonic() > deadline:
                raise SourceError("another push of this source is running")
            time.sleep(0.2)
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


def _send(source: Source, store, batch: list[PushOperation], report: PushReport) -> None:
    with speaking_for(source):
        current = store.fetch([op.point.point_id for op in batch])
    to_send: list[tuple[PushOperation, Point | None]] = []
    skipped: list[PushOperation] = []
    # Applied by a push that stopped between sending and noting: done already.
    done = [(op, current.get(op.point.point_id)) for op in batch]
    done = [(op, now) for op, now in done if _applied(op, now)]
    left = [op for op in batch if all(op is not d for d, _ in done)]
    refusals = _whole_decisions(left, current)
    repeated: list[PushOperation] = []
    for op in left:
        now = current.get(op.point.point_id)
        refusal = refusals.get(id(op), "")
        if refusal and _reported_before(op, now, refusal):
            repeated.append(op)
            continue
        if op.before is None and now is not None:  # journalled as found (a skip too)
            op.before = {
                "id": now.id,
                "text": now.text,
                "metadata": now.metadata,
                "vector": packed(now.vector),
            }
        if refusal:
            op.status, op.note = PushOperation.Status.SKIPPED, refusal[:300]
            skipped.append(op)
            continue
        result = _result(source, op, now)
        if result is not None and result.dropped:
            op.note = ("dropped: " + ", ".join(result.dropped))[:300]
        to_send.append((op, result))
    if repeated:
        PushOperation.objects.filter(pk__in=[op.pk for op in repeated]).delete()
        report.reported_before += len(repeated)
    # The journal first: what is about to be sent, and each point as it was.
    with transaction.atomic():
        update_rows([op for op, _ in to_send], ["before", "action", "text", "note"])
    deletes = [op.point.point_id for op, result in to_send if result is None]
    writes = [result for _, result in to_send if result is not None]
    with speaking_for(source):
        if deletes:
            store.delete(deletes)
        if writes:
            store.write(writes)
        if source.layout == "mem0":
            mem0.keep_records(source, store, [*done, *to_send])
    finished = timezone.now()
    with transaction.atomic():
        points = []
        for op, result in [*done, *to_send]:
            op.status, op.done_at = PushOperation.Status.DONE, finished
            point = op.point
            point.present = result is not None
            if result is not None:
                point.text, point.said = result.text, point_hash(result.text, result.metadata)
                point.marked = STATUS_KEY in result.metadata
                point.vector_stale = _vector_stale(source, op, point)
            points.append(point)
            report.operations.append(op)
        update_rows([op for op, _ in [*done, *to_send]], ["status", "done_at", "note"])
        # A skip journals the point as the push found it (a repeat is then told apart).
        update_rows(skipped, ["status", "done_at", "note", "before"])
        update_rows(points, ["present", "text", "said", "marked", "vector_stale"])
    report.skipped.extend(skipped)


def _reported_before(op: PushOperation, now: Point | None, refusal: str) -> bool:
    """Whether a push already left this point alone for the same reason with the source
    holding what it holds now (a repeat is neither said nor journalled again)."""
    previous = (
        op.point.operations.filter(status=PushOperation.Status.SKIPPED)
        .exclude(pk=op.pk)
        .order_by("-pk")
        .first()
    )
    if previous is None or previous.note != refusal[:300]:
        return False
    if now is None or previous.before is None:
        return now is None and previous.before is None
    seen = previous.before
    return point_hash(seen["text"], seen["metadata"]) == point_hash(now.text, now.metadata)


def _vector_stale(source: Source, op: PushOperation, point: SourcePoint) -> bool:
    """Whether the point's vector is now of another text than its own: a new text written
    beside the store's vector (memadmin's own model re-embeds it); a restore gives back
    the point's own vector."""
    if fields_of(source).get("embedder") == EMBEDDER_MEMADMIN:
        return False
    if op.action == Action.RESTORE and op.restores and op.restores.before["text"] == op.text:
        return False
    if op.action in (Action.UPDATE, Action.RESTORE, Action.UNMARK):
        return op.before is None or op.before.get("text") != op.text or point.vector_stale
    return point.vector_stale


def _result(source: Source, op: PushOperation, now: Point | None) -> Point | None:
    """The point as the operation leaves it (None: deleted)."""
    if op.action == Action.DELETE:
        return None
    if op.action == Action.RESTORE:
        kept = op.restores.before
        restored = Point(kept["id"], kept["text"], kept["metadata"], unpacked(kept["vector"]))
        return restored if restored.text == op.text else with_new_text(source, restored, op.text)
    base = now if now is not None else point_before(op)
    if op.action == Action.MARK:
        metadata = {**base.metadata, STATUS_KEY: op.status_marked}
        metadata[SUPERSEDED_BY_KEY] = op.superseded_by
        return Point(base.id, base.text, metadata, base.vector)
    if op.action == Action.UNMARK:
        metadata = {k: v for k, v in base.metadata.items() if k not in MARK_KEYS}
        unmarked = Point(base.id, base.text, metadata, base.vector)
        return unmarked if base.text == op.text else with_new_text(source, unmarked, op.text)
    return with_new_text(source, base, op.text)  # UPDATE


def _applied(op: PushOperation, now: Point | None) -> bool:
    """Whether a journalled operation already took effect (a push that stopped between
    sending it and noting it). Only an operation whose point was journalled (`before`)
    can have been sent, but a restore of a deleted point, which has none."""
    if op.action == Action.RESTORE and not op.point.present:
        return now is not None and now.text == op.text
    if op.before is None:
        return False
    if op.action == Action.DELETE:
        return now is None
    if now is None:
        return False
    if op.action == Action.MARK:
        return now.metadata.get(STATUS_KEY) == op.status_marked
    if op.action == Action.UNMARK:
        return STATUS_KEY not in now.metadata and now.text == op.text
    return now.text == op.text  # an update, or a restore of an earlier text


def _whole_decisions(ops: list[PushOperation], current: dict) -> dict[int, str]:
    """Why each operation must not be sent, by id(op), a decision taken as a whole: when
    one of its points changed in the source since memadmin read it, all of the decision
    is left alone (its members are never deleted while the merged text is not written),
    and the agent's change comes in with the next pull. A carrier gone from the source
    hands the merged text to a member's point that is still as memadmin read it."""
    refusals = {id(op): _refusal(op, current.get(op.point.point_id)) for op in ops}
    groups: dict[str, list[PushOperation]] = {}
    for op in ops:
        if op.group:
            groups.setdefault(op.group, []).append(op)
    for group in groups.values():
        refused = [op for op in group if refusals[id(op)]]
        if not refused:
            continue
        writing = [op for op in group if op.action in _WRITING]
        # The carrier: the point the merged text was for (one gone from the source first,
        # where a stopped push already handed its text to an heir).
        carrier = next(
            (op for op in writing if current.get(op.point.point_id) is None),
            writing[0] if writing else None,
        )
        # A member's point still as memadmin read it (or one already made the heir by a
        # push that stopped halfway) takes the merged text.
        heirs = [
            op
            for op in group
            if op is not carrier
            and not refusals[id(op)]
            and (
                op.action == Action.DELETE
                or (carrier is not None and op.action == Action.UPDATE and op.text == carrier.text)
            )
        ]
        gone = carrier is not None and current.get(carrier.point.point_id) is None
        if carrier is not None and refused == [carrier] and gone and heirs:
            heir = next((op for op in heirs if op.action == Action.UPDATE), heirs[0])
            heir.action, heir.text = Action.UPDATE, carrier.text
            refusals[id(carrier)] = (
                f"gone from the source since the pull: {heir.point.point_id} carries the "
                "merged text instead"
            )
            continue
        why = "; ".join(f"{op.point.point_id} {refusals[id(op)]}" for op in refused)
        for op in group:
            refusals[id(op)] = refusals[id(op)] or f"left alone with its decision: {why}"
    return refusals


# The operations that write a decision's text to its carrier.
_WRITING = (Action.UPDATE, Action.RESTORE, Action.UNMARK)


def _refusal(op: PushOperation, now: Point | None) -> str:
    """Why the operation must not be sent (the source is not as memadmin left it)."""
    if op.action == Action.RESTORE and not op.point.present:
        return "" if now is None else "a point with this id was written in the source since"
    if now is None:
        return "gone from the source since the pull"
    if point_hash(now.text, now.metadata) != op.point.said:
        return "changed in the source since memadmin read it"
    return ""
