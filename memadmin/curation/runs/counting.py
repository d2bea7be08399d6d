"""Each namespace's counts (detection.counts) for a batch: the ones the last run kept,
brought up to date with the memories that came, went or changed since, else counted
from every memory. Counting 1,000 memories took 6.7 ms, bringing a kept count up to date
with ten new ones about 1 ms (bench/find_duplicates.py, scenario d)."""

from __future__ import annotations

import json
import zlib
from collections import Counter
from dataclasses import dataclass

import numpy as np

from memadmin.curation.detection import counts
from memadmin.curation.detection.counts import Counts
from memadmin.curation.models import KeptCounts
from memadmin.store.models import Memory


def memory_keys(memories: list[Memory]) -> np.ndarray:
    """One int64 per memory for what a count depends on: its id and its text's CRC-32."""
    ids = np.fromiter((memory.pk for memory in memories), dtype=np.int64, count=len(memories))
    texts = (zlib.crc32(memory.content.encode()) for memory in memories)
    return (ids << 32) | np.fromiter(texts, dtype=np.int64, count=len(memories))


@dataclass
class Counted:
    """A namespace's counts and the memories they count (memory_keys, sorted); `dirty`
    when they differ from the kept ones."""

    counts: Counts
    keys: np.ndarray
    dirty: bool = True


def counts_for(memories: dict[int, list[Memory]]) -> dict[int, Counted]:
    """The counts of each namespace's `memories` (its active ones, as read for the run).
    Two queries for the batch: the kept counts, and the texts of the memories they
    counted that are gone from the active ones or changed."""
    kept: dict[int, tuple[Counts, np.ndarray]] = {}
    for row in KeptCounts.objects.filter(namespace_id__in=list(memories), version=counts.version()):
        if (readable := _readable(row)) is not None:
            kept[row.namespace_id] = readable
    in_order = {pk: memory_keys(found) for pk, found in memories.items()}
    keys = {pk: np.sort(found) for pk, found in in_order.items()}
    kept_keys = {pk: found for pk, (_, found) in kept.items()}
    gone = {
        pk: np.setdiff1d(found, keys[pk], assume_unique=True) for pk, found in kept_keys.items()
    }
    gone_ids = [int(key >> 32) for found in gone.values() for key in found]
    gone_texts = dict(
        Memory.objects.filter(pk__in=gone_ids).values_list("pk", "content") if gone_ids else []
    )
    found: dict[int, Counted] = {}
    for pk, namespace_memories in memories.items():
        if pk not in kept:
            found[pk] = Counted(Counts.of(m.content for m in namespace_memories), keys[pk])
            continue
        came = np.flatnonzero(~np.isin(in_order[pk], kept_keys[pk]))
        went = _texts_counted(gone[pk], gone_texts)
        if went is None or (len(came) + len(went)) * 2 > len(namespace_memories):
            found[pk] = Counted(Counts.of(m.content for m in namespace_memories), keys[pk])
            continue
        counted = kept[pk][0]
        counted.remove(went)
        counted.add(namespace_memories[i].content for i in came)
        found[pk] = Counted(counted, keys[pk], dirty=bool(len(came) or len(went)))
    return found


def keep(counted: dict[int, Counted]) -> None:
    """Keep the counts that changed for the next run (one statement)."""
    version = counts.version()
    rows = [
        KeptCounts(
            namespace_id=namespace_id,
            version=version,
            memories=entry.keys.tobytes(),
            documents=entry.counts.documents,
            counted=json.dumps([entry.counts.terms, entry.counts.openings, entry.counts.told]),
        )
        for namespace_id, entry in counted.items()
        if entry.dirty
    ]
    if rows:
        KeptCounts.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["namespace"],
            update_fields=["version", "memories", "documents", "counted"],
        )


def _texts_counted(gone: np.ndarray, texts: dict[int, str]) -> list[str] | None:
    """The texts of the memories counted before that are gone, as they were counted; None
    when one of them has changed since (its old text is not kept: count everything)."""
    found = []
    for key in gone.tolist():
        text = texts.get(key >> 32)
        if text is None or zlib.crc32(text.encode()) != key & 0xFFFFFFFF:
            return None
        found.append(text)
    return found


def _readable(row: KeptCounts) -> tuple[Counts, np.ndarray] | None:
    """A kept row as counts and the keys of what they count; None when it cannot be read
    (a cache: the namespace is counted again)."""
    try:
        terms, openings, told = json.loads(row.counted)
        found = Counts(row.documents, Counter(terms), Counter(openings), Counter(told))
        return found, np.frombuffer(bytes(row.memories), dtype=np.int64)
    except (ValueError, TypeError):
        return None
