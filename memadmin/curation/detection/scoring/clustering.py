"""Clusters from pair edges: union-find, then the all-pairs condition.

Plain union-find chains unrelated memories (A~B and B~C put A and C together even when
A and C share nothing). So every component is checked pair by pair: when two members
fall below the cluster floor (or are a conflict pair), the component is split at the
accepted edge that stands between the most such pairs (the weakest of those), and the
check runs again on the parts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np


class UnionFind:
    """Array-backed union-find with path halving and union by size."""

    def __init__(self, size: int):
        self.parent = np.arange(size, dtype=np.int64)
        self.size = np.ones(size, dtype=np.int64)

    def find(self, item: int) -> int:
        parent = self.parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return int(item)

    def union(self, a: int, b: int) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a == root_b:
            return
        if self.size[root_a] < self.size[root_b]:
            root_a, root_b = root_b, root_a
        self.parent[root_b] = root_a
        self.size[root_a] += self.size[root_b]


@dataclass(frozen=True)
class Edge:
    a: int
    b: int
    similarity: float
    method: str
    # A judge (the LLM, a person) said these two are one fact: the pair holds whatever
    # its similarity.
    confirmed: bool = False
    # P(one fact) of the calibrated model (curation.detection.scoring); where set, it
    # is what the all-pairs condition and the weakest link go by.
    confidence: float | None = None

    @property
    def strength(self) -> float:
        return self.similarity if self.confidence is None else self.confidence

    def holds(self, floor: float) -> bool:
        return self.confirmed or self.strength >= floor


@dataclass
class Component:
    members: list[int]
    edges: list[Edge]  # every pair of members, with its similarity and method
    weakest: Edge | None


def components(nodes: Iterable[int], edges: Iterable[Edge]) -> list[tuple[list[int], list[Edge]]]:
    """Connected components (of two or more nodes) with their edges."""
    nodes = sorted(set(nodes))
    index = {node: position for position, node in enumerate(nodes)}
    edges = list(edges)
    union_find = UnionFind(len(nodes))
    for edge in edges:
        union_find.union(index[edge.a], index[edge.b])
    groups: dict[int, list[int]] = {}
    for node in nodes:
        groups.setdefault(union_find.find(index[node]), []).append(node)
    edges_of: dict[int, list[Edge]] = {}
    for edge in edges:
        edges_of.setdefault(union_find.find(index[edge.a]), []).append(edge)
    return [
        (members, edges_of.get(root, [])) for root, members in groups.items() if len(members) > 1
    ]


def clusters(
    edges: Iterable[Edge],
    *,
    pair_score: Callable[[int, int], tuple | None],
    floor: float,
) -> list[Component]:
    """Clusters in which every pair of members reaches `floor`.

    `pair_score(a, b)` gives the (similarity, method[, confirmed[, confidence]]) of any
    two nodes (the floor applies to the confidence where given), or
    None when the pair must never share a cluster (a conflict, a guard); a confirmed edge
    always holds. Accepted edges are what union-find joins; a component that breaks the
    all-pairs condition loses its weakest edge and is checked again, until every part
    holds.
    """
    edges = list(edges)
    work = components({node for edge in edges for node in (edge.a, edge.b)}, edges)
    done: list[Component] = []
    while work:
        members, component_edges = work.pop()
        pairs = _all_pairs(members, component_edges, pair_score)
        if all(edge is not None and edge.holds(floor) for edge in pairs.values()):
            present = [edge for edge in pairs.values() if edge is not None]
            weakest = min(present, key=lambda edge: edge.strength) if present else None
            done.append(Component(sorted(members), present, weakest))
            continue
        cut = _splitting_edge(component_edges, pairs, floor)
        remaining = [edge for edge in component_edges if edge is not cut]
        work.extend(components(members, remaining))
    return done


# The most (pairs apart x accepted edges) a split is counted for: each split costs that many
# steps, and a component splits up to once an edge. Past it (hundreds of members, none
# in the stores measured: the largest of 5,000 short memories had 19 members, 18 edges
# and 137 pairs apart) the weakest edge goes.
SPLIT_COUNTING_LIMIT = 50_000


def _splitting_edge(
    edges: list[Edge], pairs: dict[tuple[int, int], Edge | None], floor: float
) -> Edge:
    """The accepted edge to cut: the one on the shortest paths of the most pairs that
    must not share a cluster, the weakest of those. Cutting the weakest edge alone tore
    true pairs off a bridge between two groups: "Ana es profesora ..." / "Ana tiene
    alergia ..." (two facts, 0.365 one fact) joined two translations (0.353 each, all
    three doubted to an even chance), the translations were cut and the false pair kept."""
    apart = [pair for pair, edge in pairs.items() if edge is None or not edge.holds(floor)]
    if len(apart) * len(edges) > SPLIT_COUNTING_LIMIT:
        return min(edges, key=lambda edge: (edge.strength, edge.a, edge.b))
    neighbours: dict[int, list[int]] = {}
    for edge in edges:
        neighbours.setdefault(edge.a, []).append(edge.b)
        neighbours.setdefault(edge.b, []).append(edge.a)
    distances: dict[int, dict[int, int]] = {}

    def distance_from(node: int) -> dict[int, int]:
        if node not in distances:
            found, frontier = {node: 0}, [node]
            while frontier:
                following = []
                for at in frontier:
                    for other in neighbours.get(at, ()):
                        if other not in found:
                            found[other] = found[at] + 1
                            following.append(other)
                frontier = following
            distances[node] = found
        return distances[node]

    def separates(edge: Edge) -> int:
        # Every member is reached (a component is connected): an edge is on a shortest
        # path between a and b when going through it is as short as the path.
        count = 0
        for a, b in apart:
            from_a, from_b = distance_from(a), distance_from(b)
            count += any(
                from_a[u] + 1 + from_b[v] == from_a[b]
                for u, v in ((edge.a, edge.b), (edge.b, edge.a))
            )
        return count

    return min(edges, key=lambda edge: (-separates(edge), edge.strength, edge.a, edge.b))


def _all_pairs(
    members: list[int],
    accepted: list[Edge],
    pair_score: Callable[[int, int], tuple[float, str] | None],
) -> dict[tuple[int, int], Edge | None]:
    known = {(min(e.a, e.b), max(e.a, e.b)): e for e in accepted}
    pairs: dict[tuple[int, int], Edge | None] = {}
    ordered = sorted(members)
    for position, a in enumerate(ordered):
        for b in ordered[position + 1 :]:
            if (a, b) in known:
                pairs[(a, b)] = known[(a, b)]
                continue
            score = pair_score(a, b)
            pairs[(a, b)] = Edge(a, b, *score) if score else None
    return pairs
