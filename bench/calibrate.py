"""Calibration of the detection thresholds on a labelled set, in memory (no database):
runs the same planning code as find_duplicates and prints precision/recall.

    .venv/bin/python bench/calibrate.py [--data ../shared/data/dev] [--set review=0.55 ...]
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


def evaluate(rows, labels, thresholds, vectors_by_id):
    import numpy as np

    from memadmin.curation import evaluation, planning

    clusters, automatic, conflicts = [], [], []
    for namespace in sorted({row["namespace"] for row in rows}):
        memories = [as_memory(row) for row in rows if row["namespace"] == namespace]
        vectors = np.stack([vectors_by_id[m.external_id] for m in memories])
        plan = planning.plan_namespace(memories, vectors, thresholds=thresholds)
        add_plan(plan, memories, clusters, automatic, conflicts)
    return evaluation.score(
        labels=labels, clusters=clusters, automatic_clusters=automatic, conflicts=conflicts
    )


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
    args = parser.parse_args()

    import django

    django.setup()
    from memadmin.curation.detect import Thresholds
    from memadmin.store import embeddings

    rows, labels = load(args.data)
    vectors = embeddings.encode([row["content"] for row in rows])
    vectors_by_id = {row["id"]: vector for row, vector in zip(rows, vectors, strict=True)}
    thresholds = Thresholds.from_settings()
    for assignment in args.set:
        name, value = assignment.split("=")
        thresholds = dataclasses.replace(
            thresholds, **{name: type(getattr(thresholds, name))(value)}
        )
    result = evaluate(rows, labels, thresholds, vectors_by_id)
    print(thresholds)
    print(result.summary())
    if args.details:
        by_id = {row["id"]: row["content"] for row in rows}
        for title, pairs in (("false", result.false_pairs), ("missed", result.missed_pairs)):
            for a, b in pairs:
                print(f"{title}: {a} {by_id[a][:50]!r} | {b} {by_id[b][:50]!r}")
        for item in result.unsafe_auto_merges:
            print("UNSAFE", item)


if __name__ == "__main__":
    main()
