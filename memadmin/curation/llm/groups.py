"""How the LLM band carries its questions: a pair to ask with the readings it has had,
and the calls that ask a memory and several of its candidates at once (curation.llm.band
decides what to ask and what the answers do)."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple


class Reading(NamedTuple):
    """One LLM answer on a pair, and the prompt version it answered (how it was shown)."""

    label: str
    kind: str
    reason: str
    version: str = ""


@dataclass(frozen=True)
class Asked:
    """A pair to ask, by positions and content hashes, with the readings it has had
    (`earlier`: one when this is the second, asked with the newer memory first; two when
    the third, asked in a form neither was)."""

    older: int
    newer: int
    hashes: tuple[str, str]
    earlier: tuple[Reading, ...] = ()


def in_groups(
    new: list[Asked], size: int, doubt: Mapping[tuple[int, int], float] | None = None
) -> list[list[Asked]]:
    """`new` (the most doubtful first) as calls of one memory and up to `size` of its
    candidates, each pair in one call: a greedy cover of the doubtful pairs (`doubt`, by
    positions: the chance the model is wrong of each). The next call is anchored by the
    memory whose `size` first pairs left hold the most doubt, then the most pairs (of
    two, the one with the more doubtful pair) and carries those pairs; the calls go in
    that order, so the first few a budget reaches read as much doubt as calls can
    (anchored by the memory with the most pairs, a call held one doubtful pair and
    fifteen sure ones, and the doubtful pairs of other memories waited behind it)."""
    doubt = doubt or {}
    weight = [doubt.get((a.older, a.newer), 0.0) for a in new]
    of_memory: dict[int, list[int]] = {}
    for rank, asked in enumerate(new):
        of_memory.setdefault(asked.older, []).append(rank)
        of_memory.setdefault(asked.newer, []).append(rank)
    taken: set[int] = set()

    def worth(memory: int) -> tuple[tuple[float, int, int], list[int]]:
        """(what a call anchored here now carries, as a heap orders it; its pairs)."""
        ranks = [r for r in of_memory[memory] if r not in taken][:size]
        return (-sum(weight[r] for r in ranks), -len(ranks), ranks[0] if ranks else 0), ranks

    # Lazily: a memory's worth only falls as pairs are taken (its pairs come the most
    # doubtful first), so one worked out again at its turn goes if it is still first.
    heap = [(worth(memory)[0], memory) for memory in of_memory]
    heapq.heapify(heap)
    groups = []
    while heap:
        _, memory = heapq.heappop(heap)
        value, ranks = worth(memory)
        if not ranks:
            continue
        if heap and value > heap[0][0]:
            heapq.heappush(heap, (value, memory))
            continue
        taken.update(ranks)
        groups.append([new[r] for r in ranks])
        heapq.heappush(heap, (value, memory))  # worked out again at its next turn
    return groups


def anchor(group: list[Asked]) -> int:
    """The memory every pair of a group holds (any of the two for a group of one)."""
    first = group[0]
    if len(group) == 1:
        return first.older
    second = group[1]
    return first.older if first.older in (second.older, second.newer) else first.newer
