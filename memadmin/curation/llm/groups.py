"""How the LLM band carries its questions: a pair to ask with the readings it has had,
and the calls that ask a memory and several of its candidates at once (curation.llm.band
decides what to ask and what the answers do)."""

from __future__ import annotations

import heapq
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


def in_groups(new: list[Asked], size: int) -> list[list[Asked]]:
    """`new` (the most doubtful first) as calls of one memory and up to `size` of its
    candidates, each pair in one call, in few calls: the memory with the most pairs left
    anchors the next call (a greedy cover; of two, the one with the more doubtful pair),
    with its pairs left, most doubtful first. The calls go most doubtful first."""
    of_memory: dict[int, list[int]] = {}
    for rank, asked in enumerate(new):
        of_memory.setdefault(asked.older, []).append(rank)
        of_memory.setdefault(asked.newer, []).append(rank)
    taken: set[int] = set()
    left = {memory: len(ranks) for memory, ranks in of_memory.items()}
    heap = [(-count, of_memory[memory][0], memory) for memory, count in left.items()]
    heapq.heapify(heap)
    groups = []
    while heap:
        count, _, anchor = heapq.heappop(heap)
        if -count != left[anchor]:  # pairs were taken since: back with what is left
            if left[anchor]:
                first = next(r for r in of_memory[anchor] if r not in taken)
                heapq.heappush(heap, (-left[anchor], first, anchor))
            continue
        ranks = [r for r in of_memory[anchor] if r not in taken][:size]
        taken.update(ranks)
        for rank in ranks:
            left[new[rank].older] -= 1
            left[new[rank].newer] -= 1
        groups.append([new[r] for r in ranks])
        if left[anchor]:
            first = next(r for r in of_memory[anchor] if r not in taken)
            heapq.heappush(heap, (-left[anchor], first, anchor))
    rank_of = {id(asked): rank for rank, asked in enumerate(new)}
    return sorted(groups, key=lambda group: rank_of[id(group[0])])


def packed(groups: list[list[Asked]], size: int) -> list[list[Asked]]:
    """`groups` (in_groups') with the small ones packed: the pairs of groups under half of
    `size`, in order, fill calls of up to `size` pairs, each call where its first pair's
    group was. The greedy cover ends in groups of a few pairs (a namespace of 18 memories:
    8 of its 13 calls held 30 of its 81 pairs), each a whole call; the calls saved go to
    the further readings answers owe. A call whose pairs share no memory is asked as
    pairs, each on its own (asking.ask_groups)."""
    calls: list[list[Asked]] = []
    filling: list[Asked] | None = None
    for group in groups:
        if len(group) * 2 >= size:
            calls.append(group)
            continue
        for asked in group:
            if filling is None or len(filling) >= size:
                filling = []
                calls.append(filling)
            filling.append(asked)
    return calls


def shared_memory(call: list[Asked]) -> int | None:
    """The memory every pair of a call holds (None where there is none)."""
    shared = set.intersection(*({asked.older, asked.newer} for asked in call))
    return min(shared) if shared else None


def anchor(group: list[Asked]) -> int:
    """The memory every pair of a group holds (any of the two for a group of one)."""
    first = group[0]
    if len(group) == 1:
        return first.older
    second = group[1]
    return first.older if first.older in (second.older, second.newer) else first.newer
