"""Where a point's fact lives now: each memory's `superseded_by` chain followed to its
end. A push writes the end's text to one point of the chain (its carrier); a pull that
finds that point gone retires the end too (the agent deleted the fact it held)."""

from __future__ import annotations

from memadmin.curation import decisions
from memadmin.store.models import Memory, MemoryStatus


def chain_ends(memory_ids: set[int]) -> dict[int, Memory | None]:
    """Each memory's end of its `superseded_by` chain, when that end is active."""
    rows: dict[int, Memory] = {}
    todo = set(memory_ids)
    while todo:
        found = Memory.objects.filter(pk__in=todo).only(
            "pk", "status", "superseded_by_id", "content", "created_at", "external_id", "pinned"
        )
        rows.update({m.pk: m for m in found})
        todo = {m.superseded_by_id for m in found if m.superseded_by_id} - set(rows)
    ends = {}
    for start in memory_ids:
        memory, hops = rows[start], 0
        while memory.superseded_by_id and hops < 100:
            memory, hops = rows[memory.superseded_by_id], hops + 1
        ends[start] = memory if memory.status == MemoryStatus.ACTIVE else None
    return ends


def members_of(end_ids: set[int]) -> set[int]:
    """Every memory whose chain ends at one of these (the ends included)."""
    found, todo = set(end_ids), set(end_ids)
    while todo:
        todo = set(Memory.objects.filter(superseded_by_id__in=todo).values_list("pk", flat=True))
        todo -= found
        found |= todo
    return found


def retire_uncarried(source, memory_ids: set[int], *, reason: str, actor: str) -> int:
    """Retire the active ends of these memories' chains that no present point of the
    source carries any more (the agent deleted every point that held the fact), so no
    active memory of a source is left with nothing behind it in the store. Returns how
    many were retired."""
    ends = {end.pk: end for end in chain_ends(memory_ids).values() if end is not None}
    ends = {pk: end for pk, end in ends.items() if not end.pinned}
    if not ends:
        return 0
    carrying = source.points.filter(present=True, memory_id__in=members_of(set(ends)))
    carried = chain_ends(set(carrying.values_list("memory_id", flat=True)))
    still = {end.pk for end in carried.values() if end is not None}
    retired = 0
    for end_id, end in ends.items():
        if end_id not in still:
            decisions.forget_memory(memory=end, reason=reason, actor=actor)
            retired += 1
    return retired
