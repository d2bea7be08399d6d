"""Scoring detection against labelled data (the format of the dev set's labels.json):
duplicate-pair precision and recall over the pairs inside clusters (automatic and open),
conflict recall by unordered pair, and the automatic merges that must never happen."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field


def _pairs(groups: Iterable[Iterable[str]]) -> set[frozenset[str]]:
    return {frozenset(pair) for group in groups for pair in itertools.combinations(group, 2)}


@dataclass
class Score:
    precision: float
    recall: float
    true_pairs: int
    found_pairs: int
    correct_pairs: int
    conflict_recall: float
    conflicts_found: int
    conflicts_labelled: int
    conflicts_proposed: int
    unsafe_auto_merges: list[str] = field(default_factory=list)
    false_pairs: list[tuple[str, str]] = field(default_factory=list)
    missed_pairs: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"duplicate pairs: precision {self.precision:.3f} recall {self.recall:.3f} "
            f"({self.correct_pairs} of {self.found_pairs} found are right, "
            f"{self.true_pairs} labelled); conflicts: recall {self.conflict_recall:.3f} "
            f"({self.conflicts_found} of {self.conflicts_labelled}, "
            f"{self.conflicts_proposed} proposed); "
            f"unsafe automatic merges: {len(self.unsafe_auto_merges)}"
        )


def score(
    *,
    labels: dict,
    clusters: Iterable[Iterable[str]],
    automatic_clusters: Iterable[Iterable[str]],
    conflicts: Iterable[tuple[str, str]],
) -> Score:
    """`clusters`: every cluster's external ids (automatic and open); `automatic_clusters`:
    those merged without a person; `conflicts`: (a, b) external ids."""
    truth = _pairs(labels["duplicate_groups"])
    found = _pairs(clusters)
    correct = truth & found
    labelled_conflicts = {frozenset((c["a"], c["b"])) for c in labels["conflicts"]}
    proposed_conflicts = {frozenset(pair) for pair in conflicts}
    found_conflicts = proposed_conflicts & labelled_conflicts
    forbidden_ids = set(labels.get("protected_ids", []))
    forbidden_pairs = (
        {frozenset(p) for p in labels.get("guarded_pairs", [])}
        | {frozenset(p) for p in labels.get("hard_negatives", [])}
        | labelled_conflicts
    )
    unsafe = []
    for members in automatic_clusters:
        members = set(members)
        if members & forbidden_ids:
            unsafe.append(f"protected: {sorted(members & forbidden_ids)}")
        for pair in _pairs([members]) & forbidden_pairs:
            unsafe.append(f"forbidden pair: {sorted(pair)}")
    return Score(
        precision=len(correct) / len(found) if found else 1.0,
        recall=len(correct) / len(truth) if truth else 1.0,
        true_pairs=len(truth),
        found_pairs=len(found),
        correct_pairs=len(correct),
        conflict_recall=len(found_conflicts) / len(labelled_conflicts)
        if labelled_conflicts
        else 1.0,
        conflicts_found=len(found_conflicts),
        conflicts_labelled=len(labelled_conflicts),
        conflicts_proposed=len(proposed_conflicts),
        unsafe_auto_merges=unsafe,
        false_pairs=sorted(tuple(sorted(p)) for p in found - truth),
        missed_pairs=sorted(tuple(sorted(p)) for p in truth - found),
    )
