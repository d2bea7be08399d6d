"""Detection's stages put together: what a pair is, and what every candidate pair of a
namespace is.

    candidates (neighbours by each model, exact hashes, frames, CJK terms)
      -> comparing: the rules' reading (RuleReading) and the evidence (Evidence)
      -> scoring: the pair model's probabilities, with each pair's neighbourhood,
         placed as a verdict and a tier (Judgement)

Each stage returns an immutable value that the next one reads; an LLM's answer
(curation.llm.band) makes a new Judgement of the pair, never changes the old one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from memadmin.curation.detection.candidates import neighbours
from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.detection.comparing import alignment, evidence, rules
from memadmin.curation.detection.reading import lexical, spelling, voice
from memadmin.curation.detection.scoring import judgement as scoring
from memadmin.curation.detection.scoring.clustering import Edge
from memadmin.curation.detection.scoring.judgement import Judgement
from memadmin.curation.detection.scoring.model import PairModel, stored_model
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import Verdict


def read_pair(a, b, *, cosine, tfidf, thresholds, multi=None, user_names=frozenset()):
    """(the rules' reading, the evidence) of a pair, `a` the older memory: no evidence
    for an exact copy. A word one side writes without its accents is read so on both; a
    value someone set is read as said of the thing the other memory is about."""
    text_a, text_b = spelling.one_spelling(a.content, b.content)
    respelled = text_a != a.content or text_b != b.content
    text_a, text_b = voice.thing_first(text_a, text_b)
    reworded = text_a != a.content or text_b != b.content
    if reworded:
        a, b = _Reworded(a, text_a), _Reworded(b, text_b)
    found = rules.read_pair(
        a, b, cosine=cosine, tfidf=tfidf, thresholds=thresholds, multi=multi, user_names=user_names
    )
    if reworded and found.verdict == Verdict.AUTO_MERGE:
        # An accent may be all that tells two words apart ("Bär" / "Bar"), and who set a
        # value is a word the other memory lacks ("The bank raised ..."): a person decides.
        reason = (
            "nothing differs but a word's accents" if respelled else "read as said of the thing"
        )
        found = replace(found, verdict=Verdict.REVIEW, reasons=(*found.reasons[:-1], reason))
    if found.method == "exact":
        return found, None
    return found, evidence.read_pair(a, b, found, multi=multi, tfidf=tfidf, user_names=user_names)


class _Reworded:
    """A memory read with its text reworded (spelling.one_spelling, voice.thing_first);
    every other field its own."""

    def __init__(self, memory, content: str) -> None:
        self._memory, self.content = memory, content

    def __getattr__(self, name: str):
        return getattr(self._memory, name)


def assess_pair(
    a,
    b,
    *,
    cosine: float,
    tfidf,
    thresholds: Thresholds,
    multi: float | None = None,
    user_names: frozenset[str] = frozenset(),
    model: PairModel | None = None,
) -> Judgement:
    """What a pair is (`a` the older memory), read and scored alone (no neighbourhood):
    what every detection path asks of a pair it meets outside a namespace's candidates."""
    found, read = read_pair(
        a, b, cosine=cosine, tfidf=tfidf, thresholds=thresholds, multi=multi, user_names=user_names
    )
    if read is None:
        return scoring.exact(found)
    return scoring.score(found, read, a, b, model or stored_model(), thresholds)


@dataclass
class Judged:
    """Every candidate pair of one pass, judged: what grouping (and the LLM) work from.
    Grouping asks for pairs no candidate layer produced (`judge`), and an LLM's answer
    replaces a pair's judgement with a new one (`settle`): the judgements themselves
    never change."""

    memories: Sequence
    vectors: np.ndarray | None
    thresholds: Thresholds
    tfidf: lexical.TfIdf
    judgements: dict[tuple[int, int], Judgement]
    # The multilingual model's vectors (rows of zeros where a memory has none); None in a
    # namespace of one language.
    multi_vectors: np.ndarray | None = None
    # The names the namespace's user goes by (candidates.counts.Counts.user_names).
    user_names: frozenset[str] = frozenset()
    # The calibrated pair model (None: the one shipped; the calibration passes others).
    model: PairModel | None = None

    def judge(self, i: int, j: int) -> Judgement:
        """The judgement of any pair (read and scored alone on first use)."""
        key = (min(i, j), max(i, j))
        if key not in self.judgements:
            older, newer = self.ordered(i, j)
            self.judgements[key] = assess_pair(
                self.memories[older],
                self.memories[newer],
                cosine=self.cosine(i, j),
                tfidf=self.tfidf,
                thresholds=self.thresholds,
                multi=self.multi(i, j),
                user_names=self.user_names,
                model=self.model,
            )
        return self.judgements[key]

    def settle(self, i: int, j: int, judgement: Judgement) -> None:
        """A pair's judgement replaced by a newer one (an LLM's answer)."""
        self.judgements[(min(i, j), max(i, j))] = judgement

    def rescore(self, model: PairModel, thresholds: Thresholds) -> None:
        """Every judged pair scored again under another model and thresholds, from the
        evidence it was read with (the readers are not run again): the calibration's
        held-out fits."""
        self.model, self.thresholds = model, thresholds
        for key, found in self.judgements.items():
            if found.evidence is not None:
                older, newer = (self.memories[p] for p in self.ordered(*key))
                self.judgements[key] = scoring.score(
                    found.rules, found.evidence, older, newer, model, thresholds
                )

    def cosine(self, i: int, j: int) -> float:
        """MiniLM's cosine of a pair; 0 under the vector layer's floor, where MiniLM says
        nothing (and a route that reads only the vectors of its candidates has none of
        the others)."""
        vectors = self.vectors
        cosine = float(vectors[i] @ vectors[j]) if vectors is not None else 0.0
        return cosine if cosine >= self.thresholds.candidate else 0.0

    def multi(self, i: int, j: int) -> float | None:
        """The multilingual cosine of a pair, or None when either has no such vector."""
        found = self.multi_vectors
        if found is None or not found[i].any() or not found[j].any():
            return None
        return float(found[i] @ found[j])

    def edge(self, i: int, j: int) -> Edge:
        """The pair as a cluster edge (similarity, method and P(one fact) of its
        judgement)."""
        judgement = self.judge(i, j)
        return Edge(
            min(i, j),
            max(i, j),
            judgement.similarity,
            judgement.method,
            judgement.decided_by != "rule",
            judgement.p_one,
        )

    def ordered(self, i: int, j: int) -> tuple[int, int]:
        """(older, newer) positions of a pair."""
        return tuple(sorted((i, j), key=lambda p: (self.memories[p].created_at, p)))


# Candidate pairs are read this many at a time, the words they do not share encoded first
# in one call of the model (alignment.prefetch); a bound, so that a namespace of 100,000
# does not hold all its pairs and their words at once.
PAIRS_READ_TOGETHER = 4096


def judge_namespace(
    memories: Sequence,
    vectors: np.ndarray | None,
    *,
    changed: Sequence[int] | None = None,
    thresholds: Thresholds,
    vector_pairs: Callable[[np.ndarray, np.ndarray, float], np.ndarray] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    multi_vectors: np.ndarray | None = None,
    counts: Counts | None = None,
    word_pairs: set[tuple[int, int]] | None = None,
    model: PairModel | None = None,
) -> Judged:
    """Judge every candidate pair that involves a `changed` memory (all when None)
    against the whole namespace: exact hashes, the vector layer, and the lexical layer
    for CJK text. `on_progress(done, total)` follows the exact vector layer (pairs
    compared), the long part of a large namespace; `workers` are its processes (None:
    DEDUP_WORKERS).

    `memories` are the namespace's active memories (anything with the Memory fields);
    `vectors` their unit embeddings in the same order (rows of zeros where a memory has
    none of the current model); `multi_vectors` the multilingual model's, in a namespace
    of several languages: its nearest pairs are candidates too (the union of both
    models'), so a paraphrase in another language is found. `counts`: what counting the
    memories gives (candidates.counts), when it was kept from an earlier run.
    """
    if counts is None:
        counts = Counts.of(memory.content for memory in memories)
    judged = Judged(
        memories, vectors, thresholds, counts.tfidf(), {}, multi_vectors, counts.user_names(), model
    )
    queries = (
        np.arange(len(memories)) if changed is None else np.asarray(sorted(changed), dtype=np.int64)
    )
    if not len(memories) or not len(queries):
        return judged
    candidates = neighbours.candidate_pairs(
        memories,
        vectors,
        queries,
        thresholds=thresholds,
        vector_pairs=vector_pairs,
        on_progress=on_progress,
        workers=workers,
        multi_vectors=multi_vectors,
        word_pairs=word_pairs,
    )
    read = {}
    while chunk := list(itertools.islice(candidates, PAIRS_READ_TOGETHER)):
        alignment.prefetch((memories[i].content, memories[j].content) for i, j, _ in chunk)
        for i, j, cosine in chunk:
            key = (min(i, j), max(i, j))
            if key not in read:
                older, newer = judged.ordered(i, j)
                read[key] = read_pair(
                    memories[older],
                    memories[newer],
                    cosine=judged.cosine(i, j) if cosine is None else cosine,
                    tfidf=judged.tfidf,
                    thresholds=thresholds,
                    multi=judged.multi(i, j),
                    user_names=judged.user_names,
                )
    scored = scoring.score_together(
        {
            key: (found, evidence_, *(memories[p] for p in judged.ordered(*key)))
            for key, (found, evidence_) in read.items()
            if evidence_ is not None
        },
        model or stored_model(),
        thresholds,
    )
    judged.judgements.update(
        (key, scored[key] if key in scored else scoring.exact(found))
        for key, (found, _) in read.items()
    )
    return judged
