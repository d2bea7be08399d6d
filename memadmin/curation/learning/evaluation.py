"""Scoring detection against labelled data (the format of the dev set's labels.json):
duplicate-pair precision and recall over the pairs inside clusters (automatic and open;
clusters that share a memory joined, as merging them all would leave them),
conflict recall by unordered pair, and the automatic merges that must never happen."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memadmin.curation.detection.scoring.clustering import UnionFind
from memadmin.store import validation


def _pairs(groups: Iterable[Iterable[str]]) -> set[frozenset[str]]:
    return {frozenset(pair) for group in groups for pair in itertools.combinations(group, 2)}


def accepted_together(clusters: Iterable[Iterable[str]]) -> list[list[str]]:
    """The memories that end as one once every cluster is merged: clusters sharing a
    memory joined (an exact copy or an automatic merge folds into a representative that
    a proposed cluster then holds: accepting it merges what the representative carries)."""
    clusters = [list(members) for members in clusters]
    ids = list(dict.fromkeys(i for members in clusters for i in members))
    index = {external_id: position for position, external_id in enumerate(ids)}
    joined = UnionFind(len(ids))
    for members in clusters:
        for other in members[1:]:
            joined.union(index[members[0]], index[other])
    found: dict[int, list[str]] = {}
    for external_id in ids:
        found.setdefault(joined.find(index[external_id]), []).append(external_id)
    return list(found.values())


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
    # Pairs merged with no review, and how many of them are labelled one fact.
    automatic_pairs: int = 0
    automatic_correct: int = 0
    false_pairs: list[tuple[str, str]] = field(default_factory=list)
    missed_pairs: list[tuple[str, str]] = field(default_factory=list)
    false_conflicts: list[tuple[str, str]] = field(default_factory=list)
    missed_conflicts: list[tuple[str, str]] = field(default_factory=list)

    @property
    def conflict_precision(self) -> float:
        return self.conflicts_found / self.conflicts_proposed if self.conflicts_proposed else 1.0

    def summary(self) -> str:
        return (
            f"duplicate pairs: precision {self.precision:.3f} recall {self.recall:.3f} "
            f"({self.correct_pairs} of {self.found_pairs} found are right, "
            f"{self.true_pairs} labelled); conflicts: precision {self.conflict_precision:.3f} "
            f"recall {self.conflict_recall:.3f} "
            f"({self.conflicts_found} of {self.conflicts_labelled}, "
            f"{self.conflicts_proposed} proposed); "
            f"unsafe automatic merges: {len(self.unsafe_auto_merges)}"
        )


class BadLabels(ValueError):
    """A labels file that is not in the format below."""


def read_labels(path: Path) -> dict:
    """A labels file (README: "Measuring detection"): a JSON object with
    "duplicate_groups" (lists of ids), "conflicts" ({"a", "b"} objects) and optionally
    "hard_negatives" and "guarded_pairs" (id pairs) and "protected_ids"."""
    try:
        # The store's strict reader: invalid UTF-8, NaN, huge numbers and deep nesting
        # are refused with a reason, never a traceback.
        labels = validation.decode_json(Path(path).read_bytes())
    except OSError as error:
        raise BadLabels(f"cannot read {path}: {error.strerror}") from None
    except validation.Invalid as problem:
        raise BadLabels(f"{path} is not JSON: {problem.message}") from None
    if not isinstance(labels, dict):
        raise BadLabels(f"{path}: expected a JSON object")

    def ids(value, where: str, size: int | None = None) -> None:
        if not isinstance(value, list) or not all(isinstance(i, str) for i in value):
            raise BadLabels(f"{path}: {where} must be a list of ids (strings)")
        if size is not None and len(value) != size:
            raise BadLabels(f"{path}: {where} must hold {size} ids")
        for i in value:  # an id a memory could have (no NUL, not empty, not too long)
            try:
                validation.identifier(i, where)
            except validation.Invalid as problem:
                raise BadLabels(f"{path}: {problem}") from None

    for key in ("duplicate_groups", "conflicts"):
        if not isinstance(labels.get(key), list):
            raise BadLabels(f"{path}: {key!r} (a list) is missing")
    for index, group in enumerate(labels["duplicate_groups"]):
        ids(group, f"duplicate_groups[{index}]")
    for index, conflict in enumerate(labels["conflicts"]):
        if not isinstance(conflict, dict):
            raise BadLabels(f"{path}: conflicts[{index}] must be an object with a and b")
        ids([conflict.get("a"), conflict.get("b")], f"conflicts[{index}] a and b")
    for key in ("hard_negatives", "guarded_pairs"):
        for index, pair in enumerate(labels.get(key, [])):
            ids(pair, f"{key}[{index}]", 2)
    ids(labels.get("protected_ids", []), "protected_ids")
    return labels


def restrict(labels: dict, ids: Iterable[str]) -> dict:
    """The labels about these memories only (one namespace's, say): every group cut to
    the ids, every pair and id kept only when all of it is among them."""
    keep = set(ids)
    groups = [[i for i in group if i in keep] for group in labels.get("duplicate_groups", [])]
    return {
        "duplicate_groups": [group for group in groups if len(group) > 1],
        "conflicts": [c for c in labels.get("conflicts", []) if {c["a"], c["b"]} <= keep],
        "hard_negatives": [p for p in labels.get("hard_negatives", []) if set(p) <= keep],
        "guarded_pairs": [p for p in labels.get("guarded_pairs", []) if set(p) <= keep],
        "protected_ids": [i for i in labels.get("protected_ids", []) if i in keep],
        "unscored_pairs": [p for p in labels.get("unscored_pairs", []) if set(p) <= keep],
    }


def score(
    *,
    labels: dict,
    clusters: Iterable[Iterable[str]],
    automatic_clusters: Iterable[Iterable[str]],
    conflicts: Iterable[tuple[str, str]],
) -> Score:
    """`clusters`: every cluster's external ids (automatic and open); `automatic_clusters`:
    those merged without a person; `conflicts`: (a, b) external ids."""
    automatic_clusters = [list(members) for members in automatic_clusters]
    # Pairs that count neither way (a guard the store no longer has: calibration).
    unscored = {frozenset(p) for p in labels.get("unscored_pairs", [])}
    truth = _pairs(labels["duplicate_groups"]) - unscored
    found = _pairs(accepted_together(clusters)) - unscored
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
    automatic = _pairs(automatic_clusters) - unscored
    return Score(
        automatic_pairs=len(automatic),
        automatic_correct=len(automatic & truth),
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
        false_conflicts=sorted(tuple(sorted(p)) for p in proposed_conflicts - labelled_conflicts),
        missed_conflicts=sorted(tuple(sorted(p)) for p in labelled_conflicts - proposed_conflicts),
    )


def score_output(labels: dict, outputs) -> Score:
    """Score detection's output (curation.reads.DetectionOutput, one per namespace)
    against the labels about those namespaces' memories."""
    return score(
        labels=restrict(labels, [i for output in outputs for i in output.ids]),
        clusters=[c for output in outputs for c in output.clusters],
        automatic_clusters=[c for output in outputs for c in output.automatic],
        conflicts=[c for output in outputs for c in output.conflicts],
    )


def score_possible(labels: dict, outputs) -> str:
    """What the doubtful ("possible") tier holds, as a line: how many of its pairs are
    labelled one fact or conflict (it is not proposed, so it counts in no figure above)."""
    truth = _pairs(labels["duplicate_groups"])
    conflicts = {frozenset((c["a"], c["b"])) for c in labels["conflicts"]}
    found = _pairs(c for output in outputs for c in getattr(output, "possible_clusters", []))
    possible = {
        frozenset(p) for output in outputs for p in getattr(output, "possible_conflicts", [])
    }
    return (
        f"{len(found)} duplicate pairs ({len(found & truth)} labelled one fact), "
        f"{len(possible)} conflicts ({len(possible & conflicts)} labelled conflicts)"
    )


@dataclass
class Figures:
    """Counts of one or more held-out sets, as Score gives them (fitting sums them)."""

    correct: int = 0
    found: int = 0
    labelled: int = 0
    conflicts_right: int = 0
    conflicts_proposed: int = 0
    conflicts_labelled: int = 0
    unsafe: int = 0
    automatic: int = 0  # pairs merged with no review
    automatic_right: int = 0
    # Right pairs and conflicts with the possible tier counted too (what a curator who
    # also works the possible filters reaches without an LLM).
    reached_correct: int = 0
    reached_conflicts: int = 0

    @classmethod
    def of(cls, score: Score, reached: Score | None = None) -> Figures:
        return cls(
            score.correct_pairs,
            score.found_pairs,
            score.true_pairs,
            score.conflicts_found,
            score.conflicts_proposed,
            score.conflicts_labelled,
            len(score.unsafe_auto_merges),
            score.automatic_pairs,
            score.automatic_correct,
            (reached or score).correct_pairs,
            (reached or score).conflicts_found,
        )

    def __add__(self, other: Figures) -> Figures:
        return Figures(
            *(
                a + b
                for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)
            )
        )

    @property
    def precision(self) -> float:
        return self.correct / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.labelled if self.labelled else 1.0

    @property
    def conflict_precision(self) -> float:
        return self.conflicts_right / self.conflicts_proposed if self.conflicts_proposed else 1.0

    @property
    def conflict_recall(self) -> float:
        return self.conflicts_right / self.conflicts_labelled if self.conflicts_labelled else 1.0

    @property
    def reached_recall(self) -> float:
        return self.reached_correct / self.labelled if self.labelled else 1.0

    @property
    def reached_conflict_recall(self) -> float:
        return self.reached_conflicts / self.conflicts_labelled if self.conflicts_labelled else 1.0

    @property
    def automatic_precision(self) -> float:
        return self.automatic_right / self.automatic if self.automatic else 1.0

    def line(self) -> str:
        return (
            f"duplicates P {self.precision:.3f} R {self.recall:.3f} "
            f"({self.correct} of {self.found}, {self.labelled} labelled); conflicts P "
            f"{self.conflict_precision:.3f} R {self.conflict_recall:.3f} ({self.conflicts_right}"
            f" of {self.conflicts_proposed}, {self.conflicts_labelled} labelled); with the "
            f"possible tier R {self.reached_recall:.3f} / {self.reached_conflict_recall:.3f}; "
            f"automatic merges {self.automatic_right} of {self.automatic} right, "
            f"{self.unsafe} unsafe"
        )

    def as_dict(self) -> dict:
        return {
            "duplicates": [round(self.precision, 3), round(self.recall, 3)],
            "conflicts": [round(self.conflict_precision, 3), round(self.conflict_recall, 3)],
            "with_possible_recall": [
                round(self.reached_recall, 3),
                round(self.reached_conflict_recall, 3),
            ],
            "counts": dataclasses.asdict(self),
        }
