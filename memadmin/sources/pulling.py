"""A pull: a source's points become memories of its namespaces (created, or updated when
the source changed them), each embedded with memadmin's own models (a source's vectors
are another model's: never compared with these). A point gone from the source retires
its memory here, with a history event. Nothing else is touched: a second pull of an
unchanged source changes nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from memadmin.curation import decisions
from memadmin.curation.decisions import update_rows
from memadmin.sources.chains import retire_uncarried
from memadmin.sources.models import Source, SourcePoint, point_hash
from memadmin.sources.stores import (
    MARK_KEYS,
    TEXT_CHANGED_KEY,
    Point,
    open_store,
    speaking_for,
)
from memadmin.store import importing, validation
from memadmin.store.models import Memory, MemoryStatus


@dataclass
class PullReport:
    created: int = 0
    changed: int = 0  # changed in the source since the last pull
    unchanged: int = 0
    gone: int = 0  # no longer in the source: retired here
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (point id, why)
    namespaces: set[str] = field(default_factory=set)

    def summary(self) -> str:
        return (
            f"{self.created} created, {self.changed} changed in the source, "
            f"{self.unchanged} unchanged, {self.gone} gone from the source (retired), "
            f"{len(self.skipped)} skipped ({len(self.namespaces)} namespace(s))"
        )


def actor(source: Source) -> str:
    return f"source:{source.name}"


def namespace_for(source: Source, point: Point) -> str:
    """The point's namespace: the source's one, or "<source>-<value>" of the metadata key
    `namespace_from` (a value that is no slug gets a short hash, so two values never share
    a namespace: "a.b" and "a-b")."""
    if source.namespace:
        return source.namespace
    value = point.metadata.get(source.namespace_from)
    value = "" if value is None else str(value)
    slug = slugify(value)[:50] or "none"
    if slug != value:
        slug = f"{slug}-{hashlib.sha256(value.encode()).hexdigest()[:8]}"
    return f"{source.name}-{slug}"


def own_metadata(point: Point) -> dict:
    """The point's metadata less what a push of memadmin's wrote on it."""
    return {k: v for k, v in point.metadata.items() if k not in (*MARK_KEYS, TEXT_CHANGED_KEY)}


def pull(
    source: Source,
    *,
    on_total: Callable[[int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> PullReport:
    """Read every point of the source in batches, each batch one transaction (a pull that
    stops keeps what it did; the next one goes on where nothing changed). `on_total`
    hears how many points there are, `on_progress` how many more were read."""
    report = PullReport()
    seen: set[str] = set()
    store = open_store(source)
    try:
        with speaking_for(source):
            if on_total:
                on_total(store.count())
            batches = store.scan(settings.SOURCE_PULL_BATCH)
        for batch in _read_ahead(source, batches):
            with transaction.atomic():
                _pull_batch(source, batch, report, seen)
            if on_progress:
                on_progress(len(batch))
    finally:
        store.close()
    with transaction.atomic():
        _retire_gone(source, seen, report)
        source.last_pull_at = timezone.now()
        source.save(update_fields=["last_pull_at"])
    return report


def _read_ahead(source: Source, batches: Iterator[list[Point]]) -> Iterator[list[Point]]:
    """The store's batches, the next one read in a thread while this one is embedded and
    written (the model and the database wait outside Python's lock): a pull costs the
    embedding, not the embedding plus the reading (bench/sources.py). Only that thread
    reads the store."""

    def read() -> list[Point] | None:
        with speaking_for(source):  # the store's errors, not memadmin's own
            return next(batches, None)

    with ThreadPoolExecutor(max_workers=1) as reader:
        ahead = reader.submit(read)
        while (batch := ahead.result()) is not None:
            ahead = reader.submit(read)
            yield batch


def _record(point: Point, namespace: str) -> importing.Record:
    """The point as an import record: validated as an import line is (a text or metadata
    no reader could read back is refused by name)."""
    raw = {
        "id": point.id,
        "content": point.text,
        "namespace": namespace,
        "metadata": own_metadata(point),
    }
    if point.created:
        try:  # a created time the source gives in another form is left out, not refused
            validation.timestamp(str(point.created), "created_at")
            raw["created_at"] = str(point.created)
        except validation.Invalid:
            pass
    return importing.parse_record(raw, line=0, default_namespace=None)


def _pull_batch(source: Source, batch: list[Point], report: PullReport, seen: set[str]) -> None:
    known = {
        p.point_id: p
        for p in SourcePoint.objects.filter(
            source=source, point_id__in=[point.id for point in batch]
        )
        .select_related("memory__namespace")
        .defer("memory__embedding", "memory__embedding_multi")
    }
    records, fresh = [], []
    for point in batch:
        if point.id in seen:
            continue  # a store listing a point twice (paging while it is written)
        seen.add(point.id)
        said = point_hash(point.text, point.metadata)
        known_point = known.get(point.id)
        if known_point is not None and known_point.said == said and known_point.present:
            report.unchanged += 1
            continue
        namespace = (
            known_point.memory.namespace.name if known_point else namespace_for(source, point)
        )
        try:
            record = _record(point, namespace)
        except validation.Invalid as error:
            report.skipped.append((point.id, str(error)))
            continue
        records.append(record)
        fresh.append((point, said, known_point, record))
    if not records:
        return
    decisions.import_records(records=records, actor=actor(source))
    memories = _memories_of(records)
    created, changed = [], []
    for point, said, known_point, record in fresh:
        memory = memories[(record.namespace, record.external_id)]
        report.namespaces.add(record.namespace)
        if known_point is None:
            created.append(
                SourcePoint(
                    source=source, point_id=point.id, memory=memory, text=point.text, said=said
                )
            )
            continue
        # An agent wrote the point again: its newer write wins, even over a decision here.
        if memory.status != MemoryStatus.ACTIVE:
            decisions.return_from_source(
                memory=memory,
                actor=actor(source),
                reason=f"written again in source {source.name} after it was retired here",
            )
        known_point.text, known_point.said, known_point.present = point.text, said, True
        known_point.vector_stale = False  # the agent wrote it again: its vector is its own
        known_point.marked = any(key in point.metadata for key in MARK_KEYS)
        changed.append(known_point)
    SourcePoint.objects.bulk_create(created)
    update_rows(changed, ["text", "said", "present", "marked", "vector_stale"])
    report.created += len(created)
    report.changed += len(changed)


def _memories_of(records: list[importing.Record]) -> dict[tuple[str, str], Memory]:
    found = {}
    by_namespace: dict[str, list[str]] = {}
    for record in records:
        by_namespace.setdefault(record.namespace, []).append(record.external_id)
    for namespace, ids in by_namespace.items():
        for memory in Memory.objects.filter(namespace__name=namespace, external_id__in=ids).defer(
            "embedding", "embedding_multi"
        ):
            found[(namespace, memory.external_id)] = memory
    return found


def _retire_gone(source: Source, seen: set[str], report: PullReport) -> None:
    """Points memadmin knew that the source no longer holds: their memories are retired
    here (never the other way round)."""
    present = source.points.filter(present=True).values_list("pk", "point_id")
    gone_ids = [pk for pk, point_id in present.iterator() if point_id not in seen]
    gone = list(
        source.points.filter(pk__in=gone_ids)
        .select_related("memory")
        .defer("memory__embedding", "memory__embedding_multi")
    )
    for point in gone:
        if point.memory.status == MemoryStatus.ACTIVE and not point.memory.pinned:
            decisions.forget_memory(
                memory=point.memory,
                reason=f"gone from source {source.name}",
                actor=actor(source),
            )
        point.present = False
    update_rows(gone, ["present"])
    report.gone += len(gone)
    # A gone point may have carried a merge's text (its own memory superseded, the merged
    # one active): the agent deleted that fact too.
    retire_uncarried(
        source,
        {p.memory_id for p in gone},
        reason=f"the point that carried it is gone from source {source.name}",
        actor=actor(source),
    )
