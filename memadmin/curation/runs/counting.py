"""What detection reads over every memory of a namespace, kept between runs: its counts
(curation.detection.candidates.counts) and the frames of its short memories
(curation.detection.candidates.neighbours.frame_of). The
next run brings them up to date with the memories that came, went or changed since,
instead of reading every text again: counting 1,000 memories took 6.7 ms
(bench/find_duplicates.py, scenario d), reading the frames of the 218 short ones among
1,000 synthetic memories 73 ms in a process that had not read them before.

Each memory counted is known by its key (store.queries.MEMORY_KEY: its id and a hash of
its text): a key the kept ones lack came (or changed), a kept key no longer active went.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

from memadmin.curation.detection.candidates import neighbours as detect
from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.detection.candidates.neighbours import Frame
from memadmin.curation.models import KeptCounts
from memadmin.store import queries as store_queries


@dataclass
class Counted:
    """A namespace's counts, the frames of its short memories by key, and the keys of the
    memories they count (sorted); `dirty` when they differ from the kept ones."""

    counts: Counts
    frames: dict[int, Frame]
    keys: np.ndarray
    dirty: bool = True

    def frames_in_order(self, keys: np.ndarray) -> list[Frame | None]:
        """The frame of each memory of `keys` (None for a long one)."""
        return [self.frames.get(key) for key in keys.tolist()]


def rule_files() -> list[Path]:
    """The files whose code decides what is kept: every module of the detection package
    (the frames are read by its readers: curation.detection.reading), and the store's
    lexicon, its short memories and which get the multilingual vector."""
    detection = Path(detect.__file__).parent.parent
    store = Path(store_queries.__file__).parent
    rules = ["lexicon.py", "lexicon.toml", "multilingual.py", "text.py"]
    return [*sorted(detection.rglob("*.py")), *(store / name for name in rules)]


@cache
def rules_version() -> str:
    """A digest of what decides what is kept: `rule_files`, and the versions of the
    libraries it reads words with (a namespace read whole gives the multilingual vector
    to those that lack it, which a narrow read takes as given). Kept counts and frames
    made under other rules are read again whole."""
    digest = hashlib.sha256()
    for path in rule_files():
        digest.update(path.read_bytes())
    for library in ("simplemma", "jieba", "HanTa"):
        digest.update(metadata.version(library).encode())
    return digest.hexdigest()[:16]


def kept_for(namespace_ids: list[int]) -> dict[int, Counted]:
    """The kept counts and frames of these namespaces (one query); one made under other
    rules, or that cannot be read, is left out (a cache: the namespace is read whole)."""
    found = {}
    for row in KeptCounts.objects.filter(namespace_id__in=namespace_ids, version=rules_version()):
        if (readable := _readable(row)) is not None:
            found[row.namespace_id] = readable
    return found


def counted_whole(texts: list[str], keys: np.ndarray) -> Counted:
    """The counts and frames of a namespace read whole (`keys`: its memories' keys)."""
    frames = {}
    for key, text in zip(keys.tolist(), texts, strict=True):
        if (frame := detect.frame_of(text)) is not None:
            frames[key] = frame
    return Counted(Counts.of(texts), frames, np.sort(keys))


def changes(kept: Counted, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions in `keys` (a namespace's memories now) that came since `kept` (new or
    with another text), and the kept keys that went."""
    came = np.flatnonzero(~np.isin(keys, kept.keys))
    went = np.setdiff1d(kept.keys, keys, assume_unique=True)
    return came, went


def worth_keeping(came: np.ndarray, went: np.ndarray, size: int) -> bool:
    """Whether bringing what was kept up to date costs less than reading all: at most
    half of the namespace (`size` memories) came or went."""
    return (len(came) + len(went)) * 2 <= size


def texts_that_went(went: np.ndarray, now: dict[int, tuple[str, int]]) -> list[str] | None:
    """The texts of the memories that went, as they were counted (`now`:
    store.queries.texts_by_id of their ids); None when one has changed since (its old
    text is not kept)."""
    found = []
    for key in went.tolist():
        text, key_now = now.get(key >> 32, ("", None))
        if key_now != key:
            return None
        found.append(text)
    return found


def brought_up_to_date(
    kept: Counted, keys: np.ndarray, came: dict[int, str], went: np.ndarray, went_texts: list[str]
) -> Counted:
    """`kept` with the memories that came (`came`: key -> text) counted and those that went
    (their keys, their texts) uncounted: what counting the memories of `keys` gives."""
    kept.counts.remove(went_texts)
    kept.counts.add(came.values())
    frames = kept.frames
    for key in went.tolist():
        frames.pop(key, None)
    for key, text in came.items():
        if (frame := detect.frame_of(text)) is not None:
            frames[key] = frame
    return Counted(kept.counts, frames, np.sort(keys), dirty=bool(came or len(went)))


def counts_for(
    inputs: dict[int, store_queries.DetectionInput], kept: dict[int, Counted]
) -> dict[int, Counted]:
    """The counts and frames of namespaces read whole (their memories and keys in
    `inputs`): the kept ones brought up to date when few memories came or went and none
    that went changed its text, else counted from every memory. One query for the batch
    (the texts of the memories that went)."""
    moved = {}
    for pk, found in inputs.items():
        if pk in kept:
            came, went = changes(kept[pk], found.keys)
            if worth_keeping(came, went, len(found.memories)):
                moved[pk] = came, went
    now = store_queries.texts_by_id([k >> 32 for _, went in moved.values() for k in went.tolist()])
    counted = {}
    for pk, found in inputs.items():
        texts = [memory.content for memory in found.memories]
        gone = texts_that_went(moved[pk][1], now) if pk in moved else None
        if gone is None:
            counted[pk] = counted_whole(texts, found.keys)
            continue
        came = {int(found.keys[p]): texts[p] for p in moved[pk][0]}
        counted[pk] = brought_up_to_date(kept[pk], found.keys, came, moved[pk][1], gone)
    return counted


def keep(counted: dict[int, Counted]) -> None:
    """Keep what changed for the next run (one statement)."""
    rows = [
        KeptCounts(
            namespace_id=namespace_id,
            version=rules_version(),
            memories=entry.keys.tobytes(),
            documents=entry.counts.documents,
            counted=json.dumps([entry.counts.terms, entry.counts.openings, entry.counts.told]),
            frames=json.dumps([[key, *frame] for key, frame in entry.frames.items()]),
        )
        for namespace_id, entry in counted.items()
        if entry.dirty
    ]
    if rows:
        KeptCounts.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["namespace"],
            update_fields=["version", "memories", "documents", "counted", "frames"],
        )


def _readable(row: KeptCounts) -> Counted | None:
    """A kept row as Counted; None when it cannot be read."""
    try:
        terms, openings, told = json.loads(row.counted)
        counts = Counts(row.documents, Counter(terms), Counter(openings), Counter(told))
        frames = {
            int(key): Frame(tuple(slots), tuple(things), bool(ceased))
            for key, slots, things, ceased in json.loads(row.frames)
        }
        keys = np.frombuffer(bytes(row.memories), dtype=np.int64)
    except (ValueError, TypeError):
        return None
    return Counted(counts, frames, keys, dirty=False)
