"""find_duplicates end to end on synthetic memories with precomputed 384-d vectors.

    .venv/bin/python bench/find_duplicates.py [--scenario a|b|both] [--size 100000]

(a) one namespace of 100,000 memories; (b) 1,000 namespaces of 1,000 memories. Prints
the end-to-end time of `find_duplicates --full` (load, detection, writing clusters),
the time of its vector layer in both parallel modes, and, in the same run, a plain numpy
brute force over the same vectors and the ratio. Uses its own embedded server folder
(var/bench) unless DATABASE_URL is set; loads with COPY and without the HNSW index
(find_duplicates does not read it; building it for 1M vectors would dominate the setup).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("MEMADMIN_DATA_DIR", str(ROOT / "var" / "bench"))


def synthetic_namespace(size: int, seed: int):
    """Texts and unit vectors: random facts, with 2% exact re-extractions (same text
    and vector), 3% near copies (cosine about 0.97) and 2% paraphrases (about 0.8)."""
    import numpy as np
    from synthetic import sentences

    rng = np.random.default_rng(seed)
    # Templates repeat by chance at this size: a serial number keeps each fact distinct.
    texts = [
        f"{text[:-1]} (item {index})." for index, text in enumerate(sentences(size, seed=seed))
    ]
    vectors = rng.normal(size=(size, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    variants = ((0.02, 1.0, ""), (0.03, 0.97, " again"), (0.02, 0.8, " as noted before"))
    for share, cosine, suffix in variants:
        copies = rng.choice(size, int(size * share), replace=False)
        sources = rng.choice(size, len(copies))
        for copy, source in zip(copies, sources, strict=True):
            if copy == source:
                continue
            noise = rng.normal(size=384).astype(np.float32)
            noise -= (noise @ vectors[source]) * vectors[source]
            noise /= np.linalg.norm(noise)
            vectors[copy] = cosine * vectors[source] + np.sqrt(max(0.0, 1 - cosine**2)) * noise
            texts[copy] = texts[source] + suffix
    return texts, vectors


def load(namespaces: dict[str, tuple[list[str], object]]) -> None:
    """Binary COPY straight into store_memory (setup, not measured)."""
    from django.db import connection, transaction
    from django.utils import timezone
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    from memadmin.store import embeddings
    from memadmin.store.models import Namespace
    from memadmin.store.text import content_hash

    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS memory_embedding_hnsw")
    connection.ensure_connection()
    register_vector(connection.connection)
    created = timezone.now()
    with transaction.atomic():
        for name, (texts, vectors) in namespaces.items():
            namespace = Namespace.objects.create(name=name)
            with (
                connection.connection.cursor() as cursor,
                cursor.copy(
                    "COPY store_memory (namespace_id, external_id, content, content_hash, "
                    "embedding, embedding_model, category, tags, source_ref, session_id, "
                    "importance, confidence, access_count, created_at, updated_at, "
                    "provenance, metadata, pinned, status) "
                    "FROM STDIN WITH (FORMAT BINARY)"
                ) as copy,
            ):
                copy.set_types(
                    [
                        "int8",
                        "varchar",
                        "text",
                        "varchar",
                        "vector",
                        "varchar",
                        "varchar",
                        "varchar[]",
                        "varchar",
                        "varchar",
                        "float8",
                        "float8",
                        "int4",
                        "timestamptz",
                        "timestamptz",
                        "jsonb",
                        "jsonb",
                        "bool",
                        "varchar",
                    ]
                )
                for index, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
                    copy.write_row(
                        [
                            namespace.pk,
                            f"m{index}",
                            text,
                            content_hash(text),
                            vector,
                            embeddings.MODEL_ID,
                            "fact",
                            ["bench"],
                            "",
                            "",
                            0.5,
                            0.5,
                            0,
                            created,
                            created,
                            Jsonb([]),
                            Jsonb({}),
                            False,
                            "active",
                        ]
                    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE store_memory")


def reset() -> None:
    from django.core.management import call_command

    call_command("flush", "--no-input", verbosity=0)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM store_namespace")


def brute_force(vectors, floor: float) -> tuple[float, int]:
    """The plain way: the full product, block by block, counting pairs over the floor."""
    import numpy as np

    started = time.perf_counter()
    count = 0
    for start in range(0, len(vectors), 1024):
        scores = vectors[start : start + 1024] @ vectors.T
        count += int(np.count_nonzero(scores >= floor))
    return time.perf_counter() - started, (count - len(vectors)) // 2


def vector_layer(vectors, floor: float, workers: int) -> tuple[float, int]:
    import numpy as np

    from memadmin.curation.detect import vector_pairs_exact

    started = time.perf_counter()
    pairs = vector_pairs_exact(vectors, np.arange(len(vectors)), floor=floor, workers=workers)
    return time.perf_counter() - started, len(pairs)


def run_find_duplicates() -> tuple[float, str]:
    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    call_command("find_duplicates", "--full", stdout=out, stderr=err)
    return time.perf_counter() - started, out.getvalue().strip().splitlines()[-1]


def scenario_a(size: int, repeat: int) -> None:
    import numpy as np
    from django.conf import settings

    texts, vectors = synthetic_namespace(size, seed=1)
    floor = settings.DEDUP_CANDIDATE_THRESHOLD
    print(f"(a) one namespace of {size:,} memories")
    timings = {
        "numpy brute force": [],
        "vector layer, 1 process": [],
        "vector layer, 2 workers": [],
    }
    for _ in range(repeat):
        seconds, brute_pairs = brute_force(vectors, floor)
        timings["numpy brute force"].append(seconds)
        seconds, pairs_1 = vector_layer(vectors, floor, workers=1)
        timings["vector layer, 1 process"].append(seconds)
        seconds, pairs_2 = vector_layer(vectors, floor, workers=2)
        timings["vector layer, 2 workers"].append(seconds)
    assert brute_pairs == pairs_1 == pairs_2, (brute_pairs, pairs_1, pairs_2)
    for name, values in timings.items():
        print(f"  {name}: median {statistics.median(values):.1f} s over {repeat} runs")
    end_to_end = []
    for _ in range(repeat):
        reset()
        load({"bench-a": (texts, vectors)})
        seconds, summary = run_find_duplicates()
        end_to_end.append(seconds)
        print(f"  find_duplicates --full: {seconds:.1f} s ({summary})")
    median = statistics.median(end_to_end)
    brute = statistics.median(timings["numpy brute force"])
    print(
        f"  => end to end median {median:.1f} s (target <= 60 s); brute force "
        f"{brute:.1f} s; ratio find_duplicates / brute force = {median / brute:.2f}; "
        f"pairs over {floor}: {brute_pairs:,}"
    )
    del np


def scenario_b(namespaces: int, size: int) -> None:
    import numpy as np
    from django.conf import settings

    print(f"(b) {namespaces:,} namespaces of {size:,} memories")
    data = {f"bench-b-{i:04d}": synthetic_namespace(size, seed=100 + i) for i in range(namespaces)}
    floor = settings.DEDUP_CANDIDATE_THRESHOLD
    started = time.perf_counter()
    for _, vectors in data.values():
        scores = vectors @ vectors.T
        np.count_nonzero(scores >= floor)
    brute = time.perf_counter() - started
    reset()
    load(data)
    seconds, summary = run_find_duplicates()
    print(f"  find_duplicates --full: {seconds:.1f} s ({summary})")
    print(
        f"  => end to end {seconds:.1f} s (target <= 600 s); numpy brute force {brute:.1f} s; "
        f"ratio {seconds / brute:.1f} (the rest is per-namespace database work)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenario", choices=["a", "b", "both"], default="both")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--namespaces", type=int, default=1000)
    parser.add_argument("--namespace-size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if args.scenario in ("a", "both"):
        scenario_a(args.size, args.repeat)
    if args.scenario in ("b", "both"):
        scenario_b(args.namespaces, args.namespace_size)
    reset()


if __name__ == "__main__":
    main()
