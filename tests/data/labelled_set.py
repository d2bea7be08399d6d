"""Writes a labelled set (memories.jsonl and labels.json, the dev set's format) from lists
of memories and labels by key: what each set's build.py calls once."""

import json
from datetime import datetime, timedelta
from pathlib import Path


def write_set(folder: Path, prefix: str, sets: dict, notes: str) -> None:
    """`sets` holds STORES ({namespace: [(key, text)]} in the order they were stored),
    DUPLICATES ({namespace: [[key, ...]]}), CONFLICTS ({namespace: [[older, newer, kind]]})
    and DISTINCT ({namespace: [[key, key]]}); namespaces are written "<prefix>-<name>"."""
    start = datetime(2026, 1, 5, 9, 0)
    lines, ids = [], {}
    for namespace, memories in sets["STORES"].items():
        for index, (key, text) in enumerate(memories):
            external_id = f"{namespace}-{index + 1:02d}"
            ids[namespace, key] = external_id
            created = start + timedelta(days=3 * index, hours=index % 5)
            lines.append(
                {
                    "id": external_id,
                    "namespace": f"{prefix}-{namespace}",
                    "content": text,
                    "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            )
    labels = {
        "duplicate_groups": [
            [ids[ns, k] for k in group]
            for ns, groups in sets["DUPLICATES"].items()
            for group in groups
        ],
        "conflicts": [
            {"a": ids[ns, a], "b": ids[ns, b], "kind": kind, "newer": ids[ns, b]}
            for ns, found in sets["CONFLICTS"].items()
            for a, b, kind in found
        ],
        "hard_negatives": [
            [ids[ns, a], ids[ns, b]] for ns, pairs in sets["DISTINCT"].items() for a, b in pairs
        ],
        "protected_ids": [],
        "guarded_pairs": [],
        "notes": notes,
    }
    with open(folder / "memories.jsonl", "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    with open(folder / "labels.json", "w", encoding="utf-8") as handle:
        json.dump(labels, handle, ensure_ascii=False, indent=1)


def load_set(name: str) -> tuple[list[dict], dict]:
    """A labelled set of tests/data by its folder's name: (import lines, labels)."""
    folder = Path(__file__).parent / name
    rows = [
        json.loads(line)
        for line in (folder / "memories.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return rows, json.loads((folder / "labels.json").read_text(encoding="utf-8"))
