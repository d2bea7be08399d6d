"""Sources: a pull of 100,000 points from a local Qdrant collection and from ChromaDB,
beside `import_memories` of the same texts, and a push of 10,000 operations.

    .venv/bin/python bench/sources.py [--points 100000] [--operations 10000]

The pull re-embeds every text with memadmin's model (the store's own vectors are of
another model), so it is bound by the embedding: the target is no more than 1.2x the time
of `import_memories` of the same texts. The push: `--operations` memories pulled from
Qdrant are retired here, and `push_source` deletes their points (target <= 30 s). Uses its
own embedded server folder (var/bench) and a temporary folder for the stores; all figures
from this one run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("MEMADMIN_DATA_DIR", str(ROOT / "var" / "bench"))
os.environ.setdefault("MEMADMIN_LOG_LEVEL", "WARNING")


def points(count: int, repeats: int):
    """(ids, texts, vectors): memory-length sentences, the first `repeats` of them
    word-for-word copies of later ones; the store's own vectors (random, 384-d)."""
    import uuid

    import numpy as np
    from synthetic import sentences

    texts = [f"{text[:-1]} (item {i})." for i, text in enumerate(sentences(count, seed=11))]
    for i in range(repeats):
        texts[i] = texts[count - 1 - i]
    vectors = np.random.default_rng(5).normal(size=(count, 384)).astype(np.float32)
    ids = [str(uuid.UUID(int=i + 1)) for i in range(count)]
    return ids, texts, vectors


def command(*arguments: str) -> tuple[float, str]:
    from django.core.management import call_command

    out = io.StringIO()
    started = time.perf_counter()
    call_command(*arguments, stdout=out, stderr=io.StringIO())
    return time.perf_counter() - started, out.getvalue().strip().splitlines()[-1]


def build_qdrant(folder: str, ids, texts, vectors) -> None:
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=folder)
    client.create_collection(
        "mem0", vectors_config=models.VectorParams(size=384, distance=models.Distance.COSINE)
    )
    for start in range(0, len(ids), 1000):
        client.upsert(
            "mem0",
            points=[
                models.PointStruct(
                    id=ids[i],
                    vector=vectors[i].tolist(),
                    payload={"data": texts[i], "user_id": "bench", "created_at": "2026-01-01"},
                )
                for i in range(start, min(start + 1000, len(ids)))
            ],
        )
    client.close()


def build_chroma(folder: str, ids, texts, vectors) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=folder, settings=Settings(anonymized_telemetry=False))
    collection = client.create_collection("memories", embedding_function=None)
    for start in range(0, len(ids), 5000):
        end = min(start + 5000, len(ids))
        collection.add(
            ids=ids[start:end],
            documents=texts[start:end],
            metadatas=[{"created_at": "2026-01-01"}] * (end - start),
            embeddings=vectors[start:end],
        )


def retire(point_ids: list[str]) -> None:
    """Decisions to push: memories retired here (as an agent's forget would)."""
    from memadmin.curation import decisions
    from memadmin.sources.models import SourcePoint

    for point in SourcePoint.objects.filter(source__name="qd", point_id__in=point_ids):
        decisions.forget_memory(memory=point.memory, reason="bench", actor="bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--operations", type=int, default=10_000)
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command
    from find_duplicates import reset

    call_command("migrate", verbosity=0)
    reset()
    ids, texts, vectors = points(args.points, args.operations)
    print(f"{args.points:,} points, {args.operations:,} of them exact repeats")
    with tempfile.TemporaryDirectory() as folder:
        records = Path(folder) / "memories.jsonl"
        records.write_text(
            "".join(
                json.dumps({"id": i, "content": t, "namespace": "imported"}) + "\n"
                for i, t in zip(ids, texts, strict=True)
            )
        )
        imported, said = command("import_memories", str(records))
        print(
            f"  import_memories: {imported:.1f} s, {args.points / imported:.0f} points/s ({said})"
        )

        build_qdrant(f"{folder}/qdrant", ids, texts, vectors)
        build_chroma(f"{folder}/chroma", ids, texts, vectors)
        command(
            "add_source", "qd", "--kind", "qdrant", "--location", f"{folder}/qdrant",
            "--collection", "mem0", "--layout", "mem0",
        )  # fmt: skip
        command(
            "add_source", "ch", "--kind", "chroma", "--location", f"{folder}/chroma",
            "--collection", "memories",
        )  # fmt: skip
        for name, kind in (("qd", "Qdrant (local mode)"), ("ch", "ChromaDB")):
            seconds, said = command("pull_source", name)
            print(
                f"  pull from {kind}: {seconds:.1f} s, {args.points / seconds:.0f} points/s, "
                f"{seconds / imported:.2f}x import_memories (target <= 1.2x) ({said})"
            )
        again, said = command("pull_source", "qd")
        print(f"  a second pull from Qdrant, nothing changed: {again:.1f} s ({said})")

        retire(ids[: args.operations])
        seconds, said = command("push_source", "qd")
        print(
            f"  push to Qdrant: {seconds:.1f} s (target <= 30 s), "
            f"{args.operations / seconds:.0f} operations/s ({said})"
        )
    reset()


if __name__ == "__main__":
    main()
