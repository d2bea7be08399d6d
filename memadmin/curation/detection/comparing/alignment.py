"""Do the words two texts do not share mean the same? A paraphrase says the same fact in
other words: its unshared words pair up as near-synonyms ("blunt and short" / "direct,
concise"; "studies" / "is learning"). Two facts about one subject share the subject and
differ in what is said of it: their unshared words are different attributes ("4 TB quota"
/ "lz4 compression"; "backend developer" / "on-call lead").

The score is the mean best cosine of each unshared word to the other side's unshared
words, both ways, with MiniLM's vector of each word alone. It is only asked about pairs
that share little (a similarity near the review threshold): there "added detail" is rare,
and the score tells a reworded fact from another fact (calibrated in bench/calibrate.py).
"""

from __future__ import annotations

import difflib
import threading
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

from memadmin.curation.detection.reading import tokens
from memadmin.curation.detection.reading.tokens import STEM_LENGTH, content_words
from memadmin.store import embeddings, multilingual
from memadmin.store.lexicon import fold
from memadmin.store.text import text_cache

_CACHE_SIZE = 50_000


class _WordVectors:
    """A model's vectors of single words, kept (LRU) across pairs and passes."""

    def __init__(self, encode) -> None:
        self._encode = encode
        self._lock = threading.Lock()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def of(self, words: list[str]) -> np.ndarray:
        self.encode_missing(words)
        with self._lock:
            known = self._vectors
            for word in words:
                known.move_to_end(word)
            # np.array of a list of rows: np.stack's checks cost more than the copy here
            # (two short lists of words a pair, tens of thousands of pairs a run).
            return np.array([known[word] for word in words])

    def encode_missing(self, words: Iterable[str]) -> None:
        """Encode the words not kept yet, in one call of the model (its batches of 64): a
        word's vector is the same whatever it is batched with."""
        with self._lock:
            known = self._vectors
            missing = sorted({w for w in words if w not in known})
        if missing:
            encoded = self._encode(missing)
            with self._lock:
                for word, vector in zip(missing, encoded, strict=True):
                    known[word] = vector
                while len(known) > _CACHE_SIZE:
                    known.popitem(last=False)


_vectors = _WordVectors(embeddings.encode)
# The multilingual model's, for words of two languages and to confirm synonyms.
_multilingual_vectors = _WordVectors(multilingual.encode)


def prefetch(pairs: Iterable[tuple[str, str]]) -> None:
    """Encode at once the words that the pairs of texts about to be read do not share
    (what word_alignment compares): the pairs then find them kept, where each pair that
    met a new word made a call of its own (about 500 calls of a few words in a store of
    5,000 memories)."""
    _vectors.encode_missing({word for a, b in pairs for side in unshared(a, b) for word in side})


@text_cache
def unshared(text_a: str, text_b: str) -> tuple[list[str], list[str]]:
    """The content words of each text that the other lacks (compared by stem)."""
    words_a, words_b = content_words(text_a), content_words(text_b)
    stems_a = {word[:STEM_LENGTH] for word in words_a}
    stems_b = {word[:STEM_LENGTH] for word in words_b}
    return (
        [w for w in words_a if w[:STEM_LENGTH] not in stems_b],
        [w for w in words_b if w[:STEM_LENGTH] not in stems_a],
    )


@text_cache
def word_alignment(text_a: str, text_b: str) -> float | None:
    """How well the unshared words of the two texts pair up in meaning (0-1); None when
    one side adds nothing (it only adds detail, or the texts say the same words)."""
    only_a, only_b = unshared(text_a, text_b)
    if not only_a or not only_b:
        return None
    return _mean_best(_vectors.of(only_a), _vectors.of(only_b))


def _mean_best(vectors_a: np.ndarray, vectors_b: np.ndarray) -> float:
    """The mean best cosine of each row to the other side's rows, both ways (sums over
    counts: ndarray.mean's Python wrapper cost more than the arithmetic on a few words)."""
    similarity = vectors_a @ vectors_b.T
    rows, columns = similarity.shape
    return (
        float(similarity.max(axis=1).sum()) / rows + float(similarity.max(axis=0).sum()) / columns
    ) / 2


def kinship(words_a: list[str], words_b: list[str]) -> float:
    """How alike two short lists of words are in kind (0-1): the mean best cosine of each
    word's MiniLM vector to the other list's, both ways. Two cities, two job titles or
    two nationalities score high; "vegetarian" and "single" (two attributes) low."""
    return _mean_best(_vectors.of(words_a), _vectors.of(words_b))


# MiniLM's cosine of two single words from which they name one thing: synonyms score
# 0.84-0.90 ("movie" / "film" 0.84, "couch" / "sofa" 0.86, "kids" / "children" 0.89,
# "mother" / "mom" 0.90), two things of one kind lower ("backend" / "frontend" 0.81,
# "cat" / "dog" 0.66, "sister" / "brother" 0.65).
SYNONYM = 0.83


# The multilingual model's cosine of two words of one language from which they name one
# thing. MiniLM alone puts some opposites and pairs among synonyms ("older" / "younger"
# 0.87, "husband" / "wife" 0.87, "upstairs" / "downstairs" 0.86); the multilingual model
# sets them lower (0.92, 0.92, 0.93) than every synonym MiniLM passes (0.936-0.982, "rich" /
# "wealthy" the lowest; tests/curation/detection/test_alignment.py holds both lists).
SYNONYM_MULTILINGUAL = 0.93


def synonyms(word_a: str, word_b: str) -> bool:
    """Whether two words of one language name one thing ("movie" / "film"): both models
    say so."""
    folded = [fold(word_a), fold(word_b)]
    vectors = _vectors.of(folded)
    if float(vectors[0] @ vectors[1]) < SYNONYM:
        return False
    vectors = _multilingual_vectors.of(folded)
    return float(vectors[0] @ vectors[1]) >= SYNONYM_MULTILINGUAL


def across_languages(word_a: str, word_b: str) -> float:
    """The multilingual model's cosine of two words of two languages: a word and its
    translation score 0.86-0.97 ("coffee" / "Kaffee" 0.94), two words of one kind
    0.80-0.90 (its scale is compressed: judge with care)."""
    vectors = _multilingual_vectors.of([word_a, word_b])
    return float(vectors[0] @ vectors[1])


def differing_spans(text_a: str, text_b: str) -> list[tuple[str, int, int, int]]:
    """Where two texts' words differ, as the spans of the older's words a diff replaces,
    inserts or deletes: (operation, start, end, number of the older's words) each."""
    tokens_a, tokens_b = tokens.sentence_tokens(text_a), tokens.sentence_tokens(text_b)
    matcher = difflib.SequenceMatcher(None, tokens_a, tokens_b, autojunk=False)
    return [
        (operation, start, end, len(tokens_a))
        for operation, start, end, _, _ in matcher.get_opcodes()
        if operation != "equal"
    ]
