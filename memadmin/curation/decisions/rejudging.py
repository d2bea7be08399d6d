"""A conflict carried on to the memory that now holds its side, judged again: from the
pair it holds now (reason, confidence, tier), or, where the two texts are the ones it was
judged on, with its own judgement (the same texts and vectors read the same)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.detection.pipeline import assess_pair
from memadmin.curation.detection.scoring.model import stored_model
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import Verdict
from memadmin.curation.models import Conflict
from memadmin.store.models import Memory


def with_vectors(memories: Iterable[Memory]) -> None:
    """Read the vectors of those of `memories` read without them, in one query."""
    missing: dict[int, list[Memory]] = {}  # one memory may be read by several conflicts
    for memory in memories:
        if "embedding" in memory.get_deferred_fields():
            missing.setdefault(memory.pk, []).append(memory)
    for pk, vector, multi in Memory.objects.filter(pk__in=list(missing)).values_list(
        "pk", "embedding", "embedding_multi"
    ):
        for memory in missing[pk]:
            memory.embedding, memory.embedding_multi = vector, multi


def judged_again(a: Memory, b: Memory) -> dict | None:
    """The conflict fields of the pair as detection judges it now; None where it no
    longer reads as a conflict."""
    older, newer = sorted((a, b), key=lambda m: (m.created_at, m.pk))
    judgement = judge_again(older, newer)
    if judgement.verdict != Verdict.CONFLICT:
        return None
    return judgement.conflict_fields(stored_model())


# What a conflict's judgement recorded (Judgement.conflict_fields).
_JUDGED = ("explanation", "kind", "reason", "differing_tokens", "detected_by", "tier",
           "confidence", "evidence")  # fmt: skip


def judged_as_before(conflict: Conflict, a: Memory, b: Memory) -> dict | None:
    """The conflict's own judgement for the pair that carries it on, where that pair is
    the same two texts: detection reads a pair from its texts and their vectors, and the
    follower keeps each side in its place (`a` carries `a`), so judging it again would
    read the same (a merge's new memory is newer than the side it carries, but its fact
    is as old). None where a text changed: judge it again."""
    same_texts = (a.content_hash, b.content_hash) == (
        conflict.memory_a.content_hash,
        conflict.memory_b.content_hash,
    )
    return {name: getattr(conflict, name) for name in _JUDGED} if same_texts else None


def judge_again(older: Memory, newer: Memory):
    """What detection makes of two memories now, alone (their stored vectors, the words
    of the two as the namespace): the judgement a follow-up conflict stands on."""
    counts = Counts.of([older.content, newer.content])
    return assess_pair(
        older,
        newer,
        cosine=cosine(older.embedding, newer.embedding),
        tfidf=counts.tfidf(),
        thresholds=Thresholds.from_settings(),
        multi=cosine(older.embedding_multi, newer.embedding_multi, missing=None),
        user_names=counts.user_names(),
    )


def cosine(a, b, *, missing=0.0) -> float | None:
    """The cosine of two stored (normalised) vectors; `missing` where one has none."""
    if a is None or b is None:
        return missing
    return float(np.dot(np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)))
