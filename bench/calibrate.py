"""Calibration of the detection thresholds on a labelled set, in memory (no database):
runs the same planning code as find_duplicates and prints precision/recall.

    .venv/bin/python bench/calibrate.py [--data ../shared/data/dev] [--set review=0.55 ...]
    .venv/bin/python bench/calibrate.py --lono

--lono: leave one namespace out. For each namespace, the thresholds of GRID are chosen
on the other namespaces (the best duplicate F1 + conflict F1 with no unsafe automatic
merge) and scored on the one left out; the held-out results, pooled, are the figure a
user should expect on memories the thresholds never saw.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("DATABASE_URL", "postgresql://unused@/unused")  # no database needed


def load(data: Path):
    rows = [json.loads(line) for line in (data / "memories.jsonl").read_text().splitlines()]
    labels = json.loads((data / "labels.json").read_text())
    return rows, labels


def as_memory(row: dict):
    from memadmin.store.text import content_hash

    return SimpleNamespace(
        external_id=row["id"],
        content=row["content"],
        content_hash=content_hash(row["content"]),
        category=row.get("category", ""),
        source_ref=row.get("source_ref", ""),
        tags=row.get("tags", []),
        importance=row.get("importance", 0.5),
        confidence=row.get("confidence", 0.5),
        access_count=0,
        pinned=False,
        created_at=datetime.fromisoformat(row["created_at"].replace("Z", "+00:00")),
    )


# The thresholds leave-one-namespace-out chooses among (the rest stay as set).
GRID = {
    "review": (0.40, 0.45, 0.50),
    "multi_review": (0.85, 0.87, 0.89),
    "conflict": (0.38, 0.42, 0.46),
    "conflict_slot": (0.35, 0.40, 0.45),
}


def plan_outputs(rows, namespace, thresholds, vectors_by_id, multi_by_id):
    """One namespace's (clusters, automatic clusters, conflicts) in external ids."""
    import numpy as np

    from memadmin.curation import planning
    from memadmin.store import multilingual

    memories = [as_memory(row) for row in rows if row["namespace"] == namespace]
    vectors = np.stack([vectors_by_id[m.external_id] for m in memories])
    multi = None
    if multi_by_id and multilingual.needs_multilingual(m.content for m in memories):
        multi = np.stack([multi_by_id[m.external_id] for m in memories])
    plan = planning.plan_namespace(memories, vectors, thresholds=thresholds, multi_vectors=multi)
    clusters, automatic, conflicts = [], [], []
    add_plan(plan, memories, clusters, automatic, conflicts)
    return clusters, automatic, conflicts


def score_outputs(labels, outputs, ids):
    from memadmin.curation.detection import evaluation

    clusters, automatic, conflicts = [], [], []
    for found_clusters, found_automatic, found_conflicts in outputs:
        clusters += found_clusters
        automatic += found_automatic
        conflicts += found_conflicts
    return evaluation.score(
        labels=evaluation.restrict(labels, ids),
        clusters=clusters,
        automatic_clusters=automatic,
        conflicts=conflicts,
    )


def evaluate(rows, labels, thresholds, vectors_by_id, multi_by_id=None):
    namespaces = sorted({row["namespace"] for row in rows})
    outputs = [
        plan_outputs(rows, namespace, thresholds, vectors_by_id, multi_by_id)
        for namespace in namespaces
    ]
    return score_outputs(labels, outputs, [row["id"] for row in rows])


def objective(result) -> float:
    if result.unsafe_auto_merges:
        return -1.0

    def f1(precision, recall):
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    return f1(result.precision, result.recall) + f1(
        result.conflict_precision, result.conflict_recall
    )


def leave_one_namespace_out(rows, labels, base, vectors_by_id, multi_by_id):
    import itertools

    namespaces = sorted({row["namespace"] for row in rows})
    ids = {ns: [row["id"] for row in rows if row["namespace"] == ns] for ns in namespaces}
    combos = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    outputs = {}  # (combo index, namespace) -> plan outputs
    for index, combo in enumerate(combos):
        print(f"  grid {index + 1}/{len(combos)}: {combo}", file=sys.stderr, flush=True)
        thresholds = dataclasses.replace(base, **combo)
        for namespace in namespaces:
            outputs[index, namespace] = plan_outputs(
                rows, namespace, thresholds, vectors_by_id, multi_by_id
            )
    held_out = []
    for namespace in namespaces:
        training = [ns for ns in namespaces if ns != namespace]
        training_ids = [i for ns in training for i in ids[ns]]

        def trained(index, training=training, training_ids=training_ids):
            return objective(
                score_outputs(labels, [outputs[index, ns] for ns in training], training_ids)
            )

        best = max(range(len(combos)), key=trained)
        result = score_outputs(labels, [outputs[best, namespace]], ids[namespace])
        print(f"{namespace}: chosen on the other four {combos[best]}")
        print(f"  held out: {result.summary()}")
        held_out.append(outputs[best, namespace])
    pooled = score_outputs(labels, held_out, [row["id"] for row in rows])
    print(f"leave-one-namespace-out, pooled: {pooled.summary()}")


def add_plan(plan, memories, clusters: list, automatic: list, conflicts: list) -> None:
    """Add one namespace's plan, in external ids, to what the scoring reads: every cluster
    (automatic folds and review clusters), the automatic ones, and the conflict pairs."""
    ids = [m.external_id for m in memories]
    for group in plan.collapses + plan.auto_merges:
        members = [ids[group.representative]] + [ids[p] for p in group.others]
        clusters.append(members)
        automatic.append(members)
    clusters.extend([ids[p] for p in cluster.members] for cluster in plan.clusters)
    conflicts.extend((ids[c.older], ids[c.newer]) for c in plan.conflicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "dev")
    parser.add_argument("--set", action="append", default=[], help="threshold=value")
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--lono", action="store_true", help="leave one namespace out")
    args = parser.parse_args()

    import django

    django.setup()
    from memadmin.curation.detection.judgement import Thresholds
    from memadmin.store import embeddings, multilingual

    rows, labels = load(args.data)
    texts = [row["content"] for row in rows]
    vectors_by_id = dict(zip((row["id"] for row in rows), embeddings.encode(texts), strict=True))
    multi_by_id = dict(zip((row["id"] for row in rows), multilingual.encode(texts), strict=True))
    thresholds = Thresholds.from_settings()
    for assignment in args.set:
        name, value = assignment.split("=")
        thresholds = dataclasses.replace(
            thresholds, **{name: type(getattr(thresholds, name))(value)}
        )
    if args.lono:
        leave_one_namespace_out(rows, labels, thresholds, vectors_by_id, multi_by_id)
        return
    result = evaluate(rows, labels, thresholds, vectors_by_id, multi_by_id)
    print(thresholds)
    print(result.summary())
    if args.details:
        by_id = {row["id"]: row["content"] for row in rows}
        for title, pairs in (("false", result.false_pairs), ("missed", result.missed_pairs)):
            for a, b in pairs:
                print(f"{title}: {a} {by_id[a][:50]!r} | {b} {by_id[b][:50]!r}")
        for title, pairs in (
            ("false conflict", result.false_conflicts),
            ("missed conflict", result.missed_conflicts),
        ):
            for a, b in pairs:
                print(f"{title}: {a} {by_id[a][:50]!r} | {b} {by_id[b][:50]!r}")
        for item in result.unsafe_auto_merges:
            print("UNSAFE", item)


if __name__ == "__main__":
    main()
