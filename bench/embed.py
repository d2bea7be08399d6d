"""Embedding throughput of both models, and the cost of telling a text's language.

    .venv/bin/python bench/embed.py [--count 5000] [--multi-count 1000] [--repeat 3]

MiniLM (store.embeddings) embeds every memory; the multilingual model (store.multilingual)
only memories of namespaces that hold more than one language, which store.lexicon's
language_of tells. Prints each run and the median (this machine is noisy: read the
median), all measured in this one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")


def rate(name: str, encode, texts: list[str], repeat: int) -> float:
    encode(texts[:32])  # load the model outside the timing
    rates = []
    for run in range(1, repeat + 1):
        started = time.perf_counter()
        encode(texts)
        elapsed = time.perf_counter() - started
        rates.append(len(texts) / elapsed)
        print(f"  {name} run {run}: {len(texts)} sentences in {elapsed:.1f} s = {rates[-1]:.0f}/s")
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--multi-count", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import django

    django.setup()
    from synthetic import mixed_sentences, sentences

    from memadmin.store import embeddings, multilingual
    from memadmin.store.lexicon import language_of

    texts = sentences(args.count)
    mixed = mixed_sentences(args.multi_count)
    print(f"{os.cpu_count()} cores, mean {sum(map(len, texts)) / len(texts):.0f} chars")
    mini = rate(embeddings.MODEL_ID, embeddings.encode, texts, args.repeat)
    multi = rate(multilingual.MODEL_ID, multilingual.encode, mixed, args.repeat)
    single, pair = [], []
    for text in mixed[:200]:
        started = time.perf_counter()
        multilingual.encode([text])
        single.append((time.perf_counter() - started) * 1000)
    for text in mixed[200:400]:  # what an API write in a multilingual namespace does
        started = time.perf_counter()
        embeddings.encode([text])
        multilingual.encode([text])
        pair.append((time.perf_counter() - started) * 1000)
    detect = []
    for run in range(args.repeat):
        unique = [f"{text} ({run}-{i})" for i, text in enumerate(mixed)]  # no cache hits
        started = time.perf_counter()
        for text in unique:
            language_of(text)
        detect.append((time.perf_counter() - started) / len(unique) * 1e6)
    print(f"{embeddings.MODEL_ID}: median {mini:.0f} sentences/s (target >= 250)")
    print(
        f"{multilingual.MODEL_ID}: median {multi:.0f} sentences/s, one text "
        f"{statistics.median(single):.1f} ms median ({mini / multi:.1f}x slower than MiniLM)"
    )
    print(f"one text with both models (an API write): median {statistics.median(pair):.1f} ms")
    print(f"language_of: median {statistics.median(detect):.1f} µs a text")


if __name__ == "__main__":
    main()
