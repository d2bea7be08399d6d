"""Write-time dedup through the agent API, with 100,000 memories in the namespace.

    .venv/bin/python bench/api_write.py [--size 100000] [--posts 1000] [--reuse]
    .venv/bin/python bench/api_write.py --multilingual --size 5000 --posts 500
    .venv/bin/python bench/api_write.py --short --reuse

--multilingual: a namespace of mixed-language memories (30 % German, French, Chinese)
with both models' vectors, so every POST embeds with both and searches both indexes
(the multilingual vectors are computed once and cached, about 2 minutes for 5,000).

Prints p50/p99 of the dedup check alone (the server's own `Server-Timing: check`) and of
the whole request including the embedding (measured by the client, in-process), then
the throughput of 4 concurrent clients against a real HTTP server on 127.0.0.1
(`manage.py runserver --noreload`, threaded). Uses var/bench unless DATABASE_URL is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("MEMADMIN_DATA_DIR", str(ROOT / "var" / "bench"))
os.environ.setdefault("MEMADMIN_LOG_LEVEL", "WARNING")
NAMESPACE = "bench-api"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def setup(size: int, *, random_vectors: bool, multi: bool = False) -> None:
    """`size` synthetic memories. By default their vectors are the model's own (computed
    once, cached under var/bench): real embeddings cluster by topic, as an agent's memory
    does, which is what an HNSW search meets in use. --random-vectors stores random unit
    vectors instead, the worst case for HNSW (no neighbourhood structure)."""
    import numpy as np
    from django.conf import settings
    from django.db import connection
    from find_duplicates import load, reset, synthetic_namespace

    texts, vectors = synthetic_namespace(size, seed=21)
    if multi:
        from synthetic import mixed_sentences

        texts = [f"{text} #{i}" for i, text in enumerate(mixed_sentences(size, seed=21))]
    if not random_vectors:
        cache = Path(settings.DATA_DIR) / f"api_bench_vectors_{size}{'_mixed' if multi else ''}.npy"
        if cache.exists():
            vectors = np.load(cache)
        else:
            from memadmin.store import embeddings

            print(f"embedding {size:,} texts once (cached in {cache.name})...", flush=True)
            vectors = embeddings.encode(texts)
            np.save(cache, vectors)
    reset()
    load({NAMESPACE: (texts, vectors)})
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute(
            "CREATE INDEX memory_embedding_hnsw ON store_memory "
            "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
        if multi:
            add_multilingual(texts, cursor)
        else:  # as the migrations leave it: short memories have the multilingual vector
            cursor.execute(
                "CREATE INDEX memory_embedding_multi_hnsw ON store_memory "
                "USING hnsw (embedding_multi vector_cosine_ops) "
                "WITH (m = 16, ef_construction = 64)"
            )
        cursor.execute("ANALYZE store_memory")
    kind = "random" if random_vectors else "model"
    print(
        f"setup: {size:,} memories ({kind} vectors), HNSW index built in "
        f"{time.perf_counter() - started:.0f} s"
    )


def prepared_namespace(size: int, *, reuse: bool, random_vectors: bool = False, multi=False):
    """The bench namespace of `size` memories: the one already loaded with `reuse` (when
    it is big enough), else loaded now (setup)."""
    from memadmin.store.models import Memory, Namespace

    namespace = Namespace.objects.filter(name=NAMESPACE).first()
    if not reuse or namespace is None or Memory.objects.filter(namespace=namespace).count() < size:
        setup(size, random_vectors=random_vectors, multi=multi)
        namespace = Namespace.objects.get(name=NAMESPACE)
    return namespace


def add_multilingual(texts: list[str], cursor) -> None:
    """The multilingual vectors (cached), their index, and the namespace's flag."""
    import numpy as np
    from django.conf import settings

    from memadmin.store import multilingual

    cache = Path(settings.DATA_DIR) / f"api_bench_multi_{len(texts)}.npy"
    if cache.exists():
        vectors = np.load(cache)
    else:
        print(f"embedding {len(texts):,} texts with the multilingual model once...", flush=True)
        vectors = multilingual.encode(texts)
        np.save(cache, vectors)
    cursor.execute(
        "SELECT id FROM store_memory WHERE namespace_id = "
        "(SELECT id FROM store_namespace WHERE name = %s) ORDER BY id",
        [NAMESPACE],
    )
    ids = [row[0] for row in cursor.fetchall()]
    cursor.executemany(
        "UPDATE store_memory SET embedding_multi = %s::real[]::vector, "
        "embedding_multi_model = %s WHERE id = %s",
        [
            ([float(x) for x in v], multilingual.MODEL_ID, i)
            for i, v in zip(ids, vectors, strict=True)
        ],
    )
    cursor.execute(
        "CREATE INDEX memory_embedding_multi_hnsw ON store_memory "
        "USING hnsw (embedding_multi vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
    )
    cursor.execute(
        "UPDATE store_namespace SET multilingual = true, language = 'en' WHERE name = %s",
        [NAMESPACE],
    )


MULTI = False  # set by --multilingual: new posts are mixed-language too
SHORT = False  # set by --short: new posts are short everyday memories (both models)


def new_texts(count: int, seed: int) -> list[str]:
    from synthetic import mixed_sentences, sentences

    if SHORT:
        from memadmin.store.lexicon import language_of

        # The everyday sets' memories of at most seven words, numbered: at most eight
        # words, so each gets the multilingual vector too (store.text.SHORT_WORDS).
        texts = [
            json.loads(line)["content"].rstrip(".")
            for path in sorted((ROOT / "tests" / "data").glob("everyday*/memories.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        # English ones: another language would make the namespace multilingual.
        texts = [t for t in texts if len(t.split()) <= 7 and language_of(t) == "en"]
        return [f"{texts[i % len(texts)]} #{seed}-{i}." for i in range(count)]
    made = mixed_sentences(count, seed=seed) if MULTI else sentences(count, seed=seed)
    return [f"{text[:-1]}, noted in call {seed}-{i}." for i, text in enumerate(made)]


def sequential(token: str, posts: int) -> None:
    from django.test import Client

    client = Client(HTTP_HOST="localhost", headers={"Authorization": f"Bearer {token}"})
    url = f"/api/v1/namespaces/{NAMESPACE}/memories"
    checks, totals, actions = [], [], {}
    texts = new_texts(posts + 20, seed=int(time.time()))
    for text in texts[:20]:  # warm up: model load, connections
        client.post(url, data=json.dumps({"content": text}), content_type="application/json")
    for text in texts[20:]:
        started = time.perf_counter()
        response = client.post(
            url, data=json.dumps({"content": text}), content_type="application/json"
        )
        totals.append((time.perf_counter() - started) * 1000)
        assert response.status_code in (200, 201), response.content
        timing = dict(part.strip().split(";dur=") for part in response["Server-Timing"].split(","))
        checks.append(float(timing["check"]))
        action = response.json()["action"]
        actions[action] = actions.get(action, 0) + 1
    print(f"{posts} POSTs of new memories, one client, in-process ({actions}):")
    print(
        f"  dedup check alone: p50 {statistics.median(checks):.1f} ms, "
        f"p99 {percentile(checks, 0.99):.1f} ms (targets 5 / 15 ms)"
    )
    print(
        f"  whole request incl. embedding: p50 {statistics.median(totals):.1f} ms, "
        f"p99 {percentile(totals, 0.99):.1f} ms (targets 30 / 80 ms)"
    )


def concurrent(token: str, clients: int, per_client: int) -> None:
    port = 8765
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api/v1/namespaces/{NAMESPACE}/memories"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/openapi.json", timeout=1)
                break
            except OSError:
                time.sleep(0.5)

        def post(text: str) -> None:
            request = urllib.request.Request(
                url,
                data=json.dumps({"content": text}).encode(),
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                assert response.status in (200, 201)

        post("warm-up memory for the server process.")
        texts = new_texts(clients * per_client, seed=int(time.time()) + 1)
        latencies: list[float] = []

        def client(batch: list[str]) -> None:
            for text in batch:
                started = time.perf_counter()
                post(text)
                latencies.append((time.perf_counter() - started) * 1000)

        threads = [
            threading.Thread(target=client, args=(texts[i * per_client : (i + 1) * per_client],))
            for i in range(clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        print(
            f"{clients} concurrent clients over HTTP, {len(texts)} POSTs: "
            f"{len(texts) / elapsed:.1f} requests/s; latency p50 "
            f"{statistics.median(latencies):.0f} ms, p99 {percentile(latencies, 0.99):.0f} ms"
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--per-client", type=int, default=100)
    parser.add_argument("--reuse", action="store_true", help="keep the loaded namespace")
    parser.add_argument("--random-vectors", action="store_true", help="HNSW's worst case")
    parser.add_argument("--multilingual", action="store_true", help="both models")
    parser.add_argument("--short", action="store_true", help="short posts: both models")
    args = parser.parse_args()
    global MULTI, SHORT
    MULTI, SHORT = args.multilingual, args.short

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from memadmin.api.models import ApiToken
    from memadmin.store.models import Memory

    namespace = prepared_namespace(
        args.size, reuse=args.reuse, random_vectors=args.random_vectors, multi=args.multilingual
    )
    print(
        f"namespace {NAMESPACE}: {Memory.objects.filter(namespace=namespace).count():,} "
        f"memories, multilingual={namespace.multilingual}"
    )
    token = ApiToken.issue(namespace=namespace, name="bench")[1]
    sequential(token, args.posts)
    concurrent(token, args.clients, args.per_client)


if __name__ == "__main__":
    main()
