"""What the conflict pages read: the queue (searched, sorted, grouped by topic), the next
open conflict an admin meets, a conflict's copies (the same two texts), two memories'
cosine."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.models import (
    Conflict,
    ConflictStatus,
    Tier,
)
from memadmin.curation.reads.filters import given, memories_with
from memadmin.store.models import Memory


def next_open_conflict(after: Conflict) -> Conflict | None:
    """The open conflict an admin meets next: the queue's order (newest first), in the
    namespace of the one just settled."""
    return (
        Conflict.objects.filter(status=ConflictStatus.OPEN, namespace_id=after.namespace_id)
        .exclude(pk=after.pk)
        .order_by("-created_at", "-id")
        .first()
    )


CONFLICT_SORTS = {
    "surest": ("-confidence", "-created_at", "-id"),
    "newest": ("-created_at", "-id"),
    "oldest": ("created_at", "id"),
}


def conflict_queue(
    *,
    status: str,
    namespace: str = "",
    kind: str = "",
    tier: str = Tier.PROPOSED,
    words: str = "",
    sort: str = "surest",
    by_topic: bool = False,
) -> QuerySet[Conflict]:
    """Conflicts of one status (and kind) and tier (proposed, or the doubtful possible
    ones apart), surest first then newest (or as `sort` says), with both sides and who
    settled them; `words` in either side; `by_topic`: what they disagree about first,
    so that one subject's conflicts come together."""
    order = CONFLICT_SORTS.get(sort, CONFLICT_SORTS["surest"])
    found = (
        Conflict.objects.filter(status=status, **given({"kind": kind, "tier": tier}))
        .select_related("namespace", "memory_a", "memory_b", "resolver")
        .defer(
            "explanation",  # a conflict's own page draws it, never a list
            "memory_a__embedding",
            "memory_b__embedding",
            "memory_a__embedding_multi",
            "memory_b__embedding_multi",
        )
        .order_by(*(("topic",) if by_topic else ()), *order)
    )
    if namespace:
        found = found.filter(namespace__name=namespace)
    if words:
        matching = memories_with(words)
        found = found.filter(Q(memory_a__in=matching) | Q(memory_b__in=matching))
    return found


def cosine_of(a: Memory, b: Memory) -> float | None:
    """Two memories' cosine (MiniLM's), when both have a vector of the model."""
    vectors = Memory.objects.filter(pk__in=[a.pk, b.pk], embedding__isnull=False).values_list(
        "embedding", flat=True
    )
    found = [list(v) for v in vectors]
    if len(found) != 2:
        return None
    return float(sum(x * y for x, y in zip(*found, strict=True)))


def copies_of(conflict: Conflict) -> list[Conflict]:
    """The conflicts of the same two texts as `conflict` that stand or were settled with
    it (its copies), with both sides."""
    return list(
        conflict.copies.exclude(status=ConflictStatus.OVERTAKEN)
        .select_related("memory_a", "memory_b")
        .defer(
            "memory_a__embedding",
            "memory_b__embedding",
            "memory_a__embedding_multi",
            "memory_b__embedding_multi",
        )
        .order_by("pk")
    )


def why_tier(conflict: Conflict) -> str:
    """Why a conflict's tier and its confidence seem to disagree, in words; "" where
    they agree (the tier follows P(conflict) against the bars, unless a judge answered)."""
    bars = Thresholds.from_settings()
    if conflict.tier == Tier.PROPOSED and conflict.confidence < bars.propose_conflict:
        by = "an LLM" if conflict.detected_by == "llm" else "a judge"
        return (
            f"Proposed under the bar of {bars.propose_conflict:.2f}: {by} read the two as "
            "disagreeing."
        )
    if conflict.tier == Tier.POSSIBLE and conflict.confidence >= bars.propose_conflict:
        return (
            f"Possible although it reads {conflict.confidence:.2f}: it was found doubtful, and "
            "a later reading is surer; it stays possible until a person decides."
        )
    return ""
