"""Word vectors: encoded ahead for a namespace's pairs, the same as encoded one pair at a
time (what a run reads must not depend on how its words were batched); and which two words
are one thing."""

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


# Words MiniLM alone reads as one thing (its cosine 0.83 or more), written for the bar:
# synonyms, and opposites or pairs of one kind.
SYNONYMS = [
    ("kids", "children"),
    ("mom", "mother"),
    ("dad", "father"),
    ("movie", "film"),
    ("couch", "sofa"),
    ("bike", "bicycle"),
    ("car", "automobile"),
    ("doctor", "physician"),
    ("lawyer", "attorney"),
    ("photo", "picture"),
    ("start", "begin"),
    ("buy", "purchase"),
    ("fridge", "refrigerator"),
    ("rich", "wealthy"),
]
OPPOSITES = [("older", "younger"), ("husband", "wife"), ("upstairs", "downstairs")]


def test_synonyms_need_both_models_where_minilm_alone_reads_opposites_as_one():
    assert [pair for pair in SYNONYMS if not alignment.synonyms(*pair)] == []
    assert [pair for pair in OPPOSITES if alignment.synonyms(*pair)] == []
    assert not alignment.synonyms("tennis", "chess")
