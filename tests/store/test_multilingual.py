"""The second, multilingual model: offline, pinned, and reading across languages."""

import numpy as np
import pytest

from memadmin.store import embeddings, multilingual
from memadmin.store.text import SHORT_WORDS


def test_one_fact_in_three_languages_is_closer_than_another_fact():
    ana_en, ana_de, ana_zh, other = multilingual.encode(
        [
            "Ana works remotely from Lisbon.",
            "Ana arbeitet remote aus Lissabon.",
            "安娜在里斯本远程工作。",
            "The backup job runs every night at 3 am.",
        ]
    )
    assert ana_en @ ana_de > ana_en @ other + 0.05
    assert ana_en @ ana_zh > ana_en @ other + 0.03
    # MiniLM cannot read the Chinese one: this is what the second model is for.
    mini_en, mini_zh = embeddings.encode(
        ["Ana works remotely from Lisbon.", "安娜在里斯本远程工作。"]
    )
    assert mini_en @ mini_zh < ana_en @ ana_zh


def test_vectors_are_unit_length_and_in_order():
    vectors = multilingual.encode(["a", "bb", "Ana arbeitet remote aus Lissabon."])
    assert vectors.shape == (3, multilingual.DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vectors[2], multilingual.encode(["Ana arbeitet remote aus Lissabon."])[0])


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path, monkeypatch):
    model, engine = multilingual._package_files()
    changed = tmp_path / "e5-small-q4.bin"
    changed.write_bytes(model.read_bytes()[:1000])
    monkeypatch.setattr(multilingual, "_package_files", lambda: (changed, engine))

    with pytest.raises(embeddings.ModelFileError, match="expected the pinned"):
        multilingual.Encoder().encode(["anything"])


def test_short_memories_want_the_vector_in_any_namespace_long_ones_in_a_multilingual_one():
    short, long = (
        "Eats a plant-based diet.",
        "Deploys of the billing service run on Tuesdays after standup.",
    )
    assert len(long.split()) > SHORT_WORDS >= len(short.split())

    assert multilingual.wanted(short, False) and multilingual.wanted(short, True)
    assert not multilingual.wanted(long, False) and multilingual.wanted(long, True)


def test_a_language_no_reader_reads_makes_a_store_multilingual():
    # Dutch beside English: the multilingual model compares them, not MiniLM alone.
    assert multilingual.needs_multilingual(["Lives in Utrecht.", "Ik woon in Utrecht."])
    assert not multilingual.needs_multilingual(["Lives in Utrecht.", "Jan de Vries is a pilot."])
