"""Text normalisation shared by the content hash, the lexical signal and the import."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

_WHITESPACE = re.compile(r"\s+")
# Sentence-final punctuation that re-extraction adds or drops, ASCII and full-width
# (NFKC already folds ！ and ？ to ASCII; 。 and … survive it).
_TRAILING_PUNCTUATION = ".!?;:,。．…、；：，"


def normalise(content: str) -> str:
    """The form two texts share when they are the same message: NFKC, case-folded,
    white space collapsed, trailing punctuation removed."""
    text = unicodedata.normalize("NFKC", content).casefold()
    text = _WHITESPACE.sub(" ", text).strip()
    return text.rstrip(_TRAILING_PUNCTUATION + " ")


def content_hash(content: str) -> str:
    """sha256 of the normalised text: equal hashes mean an exact duplicate."""
    return hashlib.sha256(normalise(content).encode("utf-8")).hexdigest()


# A memory of at most this many words is short: the everyday memories agents write
# ("Loves hiking", "I'm vegan", "Lives in Porto") say a fact in three to eight words, where
# MiniLM's cosine says little ("Lives in Porto" / "Moved to Lyon in 2024": 0.32; "I'm
# vegan" / "Eats a plant-based diet": 0.33). Detection reads a short memory for the slot it
# fills (curation.detection.candidates.neighbours.frame_of) and gives it the multilingual vector
# (store.multilingual.wanted); longer memories share enough words for MiniLM.
SHORT_WORDS = 8


def short(text: str) -> bool:
    """Whether a memory is short (at most SHORT_WORDS words). Text written without spaces
    (Chinese, Japanese) counts as one word: MiniLM reads it poorly anyway."""
    # Split no further than needed to know (it runs for every memory of a run).
    return len(text.split(None, SHORT_WORDS)) <= SHORT_WORDS


def clipped(text: str, most: int = 60) -> str:
    """A text as a reason quotes it: whole, or its first `most` characters ending in "…"."""
    return text if len(text) <= most else text[: most - 1].rstrip() + "\u2026"


def first_line(error: BaseException | str) -> str:
    """The first line of an error's message (database errors run to several lines)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


# --- What is read of one text, cached ------------------------------------------------------

# Entries each text cache holds: a detection pass reads a memory once for all the pairs it
# is in, and the API reads what is written again. Bounded for a long-lived process (an API
# server forgets nothing): 65,536 texts filled the caches with 763 MB, 16,384 take about
# 190 MB and still hold every text one batch of bench/find_duplicates.py compares,
# including the 14,000 of its namespace of 100,000 (scenario a: 18.6 s at either size).
TEXT_CACHE_SIZE = 16384
_text_caches: list = []
Reader = TypeVar("Reader", bound=Callable)


def text_cache(reader: Reader) -> Reader:
    """lru_cache for a pure function of a text (or of a pair of texts), registered so that
    forget_texts() empties it. Caches of single words are plain lru_caches: words repeat
    across namespaces, texts do not."""
    cached = lru_cache(maxsize=TEXT_CACHE_SIZE)(reader)
    _text_caches.append(cached)
    return cached


def forget_texts() -> None:
    """Empty every text cache. A batch run calls it as a batch ends: the next batch's
    namespaces share no memory with it, and the readings held made every later batch
    slower (the workers of bench/find_duplicates.py --scenario b took a tenth more CPU,
    each new object placed in a heap grown by hundreds of megabytes)."""
    for cached in _text_caches:
        cached.cache_clear()
