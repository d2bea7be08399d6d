"""The one rule that chooses the memory representing a group of duplicates: the survivor
of an exact collapse or an automatic merge, the text of a rule proposal, and the memory
an agent's profile lists for a cluster awaiting review (DESIGN.md: "one rule, used by
every path").

Highest importance first (an agent said it matters most: ADR-004), then confidence, then
access count (the one actually used), then the well-formed text (a capital first, a full
stop last: of "maya prefers python" and "Maya prefers Python.", the one a reader would
write), then the newest (robotmem). Ties beyond that go to the first given; every
caller passes its memories oldest first, so the result does not depend on the query that
loaded them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

Item = TypeVar("Item")


def rank(memory) -> tuple:
    """What the representative maximises (anything shaped like a Memory)."""
    return (
        memory.importance,
        memory.confidence,
        memory.access_count,
        well_formed(memory.content),
        memory.created_at,
    )


def well_formed(text: str) -> int:
    """0-2: whether a text starts as a sentence does (no lower-case first letter) and ends
    with a sentence's mark."""
    text = text.strip()
    if not text:
        return 0
    starts = not text[0].islower()
    ends = text[-1] in ".!?。！？…)\"'"
    return starts + ends


def representative(
    items: Iterable[Item], *, memory_of: Callable[[Item], Any] | None = None
) -> Item:
    """The representative of `items` (memories, or positions with `memory_of` giving the
    memory at each)."""
    if memory_of is None:
        return max(items, key=rank)
    return max(items, key=lambda item: rank(memory_of(item)))
