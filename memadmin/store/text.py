"""Text normalisation shared by the content hash, the lexical signal and the import."""

from __future__ import annotations

import hashlib
import re
import unicodedata

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


def first_line(error: BaseException | str) -> str:
    """The first line of an error's message (database errors run to several lines)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
