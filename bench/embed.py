"""Embedding throughput: sentences per second for 5,000 memory-length sentences.

    .venv/bin/python bench/embed.py [--count 5000] [--repeat 3]

Prints each run and the median (this machine is noisy: read the median).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import django

    django.setup()
    from synthetic import sentences

    from memadmin.store import embeddings

    texts = sentences(args.count)
    mean_chars = sum(map(len, texts)) / len(texts)
    embeddings.encode(texts[:64])  # load the model outside the timing
    rates = []
    for run in range(1, args.repeat + 1):
        started = time.perf_counter()
        vectors = embeddings.encode(texts)
        elapsed = time.perf_counter() - started
        rates.append(len(texts) / elapsed)
        print(f"run {run}: {len(texts)} sentences in {elapsed:.1f} s = {rates[-1]:.0f}/s")
    assert vectors.shape == (len(texts), embeddings.DIMENSIONS)
    print(
        f"model {embeddings.MODEL_ID}, {os.cpu_count()} cores, mean {mean_chars:.0f} chars: "
        f"median {statistics.median(rates):.0f} sentences/s (target >= 250)"
    )


if __name__ == "__main__":
    main()
