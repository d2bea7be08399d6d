"""Word vectors: encoded ahead for a namespace's pairs, the same as encoded one pair at a
time (what a run reads must not depend on how its words were batched)."""

import numpy as np

from memadmin.curation.detection.comparing import alignment
from memadmin.store import embeddings


def test_a_word_has_one_vector_whatever_it_is_batched_with():
    alone = embeddings.encode(["cat"])
    batched = embeddings.encode(["electroencephalography", "cat", "Europe/Paris", "vegan"])

    assert np.array_equal(alone[0], batched[1])


def test_words_encoded_ahead_are_not_encoded_again():
    calls = []

    def encode(words):
        calls.append(list(words))
        return embeddings.encode(words)

    vectors = alignment._WordVectors(encode)
    vectors.encode_missing(["tea", "coffee", "tea"])
    found = vectors.of(["coffee", "tea"])
    vectors.of(["tea", "juice"])

    assert calls == [["coffee", "tea"], ["juice"]]
    assert np.array_equal(found, embeddings.encode(["coffee", "tea"]))


def test_prefetch_keeps_the_words_a_pair_does_not_share():
    alignment.prefetch([("Prefers oolong over sencha.", "Prefers oolong over genmaicha.")])

    kept = alignment._vectors._vectors
    assert {"sencha", "genmaicha"} <= set(kept)
