"""The lexical signal: TF-IDF cosine over word stems, with IDF taken within a namespace.

Within one agent's store the subject ("Alice", "Lin", "the robot") appears in many
memories and so weighs little, while the words that carry a fact ("vegetarian",
"Tailscale", "penicillin") are rare there and weigh a lot. Two memories that share only
their subject score low; a paraphrase that keeps the fact's rare words scores high,
even when the embedding model hesitates. Chinese and Japanese text, which has no spaces
(and which the English embedding model cannot read), is compared by character bigrams.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from itertools import chain

from memadmin.curation.detection.reading.tokens import ASCII_TERM, STEM_LENGTH, TERM
from memadmin.store.lexicon import CJK
from memadmin.store.text import text_cache

# Words that carry no fact, in the languages agents' memories come in, plus the words
# categories and agents use for everything ("user", "prefers").
STOP_WORDS = frozenset(
    """
    a an the and or but if of to in on at by for with from as into onto about over under
    is are was were be been being am do does did has have had having will would shall
    should can could may might must it its this that these those there here then than
    so such very too also just only all any some each every both either neither not no
    nor i me my we our you your he him his she her they them their who whom whose which
    what when where why how up down out off again further once more most other own same
    per via using use uses used user user's users' s t
    le la les un une des du de et ou à au aux en dans sur pour par avec sans est sont
    être a ont il elle ils elles on ce cette ces son sa ses leur leurs qui que
    der die das den dem des ein eine einen einem einer und oder im in am an auf für mit
    von zu ist sind war hat haben wird er sie es wir ihr nicht kein keine
    的 了 是 在 和 与 及 也 都 就 把 被 给 对 从 向 这 那 个 我 你 他 她 它 们
    """.split()
)


def is_cjk(char: str) -> bool:
    return CJK.match(char) is not None


_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


def cjk_share(text: str) -> float:
    """Share of letters that are Chinese, Japanese or Korean (the same ranges as is_cjk;
    regular expressions, because a Python loop over characters cost a second per 100,000
    memories)."""
    # Most texts are ASCII: answered before the cache, which would only fill with them.
    return 0.0 if text.isascii() else _cjk_share(text)


@text_cache
def _cjk_share(text: str) -> float:
    letters = len(_LETTER_OR_DIGIT.findall(text))
    return len(CJK.findall(text)) / letters if letters else 0.0


@text_cache
def terms(text: str) -> tuple[str, ...]:
    """The terms of `text` for the lexical signal: stems of content words, numbers, and
    character bigrams of CJK runs."""
    return tuple(_terms(text))


def _terms(text: str) -> Iterator[str]:
    # A namespace's words repeat from memory to memory: each word's terms are worked out
    # once (_word_terms). NFKC leaves ASCII as it is, and casefold() is lower() there.
    if text.isascii():
        return chain.from_iterable(map(_word_terms, ASCII_TERM.findall(text.lower())))
    text = unicodedata.normalize("NFKC", text).casefold()
    return chain.from_iterable(map(_word_terms, TERM.findall(text)))


@lru_cache(maxsize=262144)
def _word_terms(token: str) -> tuple[str, ...]:
    """The terms of one token of a folded text."""
    if CJK.search(token):
        return tuple(_cjk_bigrams(token))
    found = []
    # "port-forwarded" and "ports are forwarded" should meet: split compounds.
    for word in token.split("-") if token[0].isalpha() else (token,):
        word = word.strip("'")
        if word.endswith("'s"):
            word = word[:-2]
        if not word or word in STOP_WORDS or (len(word) == 1 and not word.isdigit()):
            continue
        found.append(word[:STEM_LENGTH] if word.isalpha() else word)
    return tuple(found)


def _cjk_bigrams(run: str) -> list[str]:
    chars = [char for char in run if is_cjk(char) and char not in STOP_WORDS]
    if len(chars) == 1:
        return chars
    return [chars[i] + chars[i + 1] for i in range(len(chars) - 1)]


def document_terms(text: str) -> Iterator[str]:
    """The terms of `text`, not kept (terms() keeps them: for texts a pair compares)."""
    return _terms(text)


class TfIdf:
    """Document frequencies of one namespace (counted by
    curation.detection.candidates.counts); `similarity` is the TF-IDF cosine."""

    def __init__(self, document_count: int, frequency: Counter[str]):
        self.document_count, self.frequency = document_count, frequency

    def weight(self, term: str) -> float:
        # Smoothed IDF: a term seen nowhere else weighs most; one in every memory, least.
        return math.log((1 + self.document_count) / (1 + self.frequency[term])) + 1.0

    def vector(self, text: str) -> dict[str, float]:
        counts = Counter(terms(text))
        return {term: count * self.weight(term) for term, count in counts.items()}

    def containment(
        self, text_a: str, text_b: str, *, ignore: frozenset[str] = frozenset()
    ) -> float:
        """How much of the lighter text's weight the other text shares: 1.0 when one
        text's every term (by IDF weight) is in the other. A paraphrase that adds detail
        still contains the shorter one; two facts about one subject share only it."""
        a, b = set(terms(text_a)) - ignore, set(terms(text_b)) - ignore
        # fsum: a set's order follows Python's string hashes, and a plain sum's rounding
        # its order, so a text wholly inside the other came out 1.0 under some hash
        # seeds and 0.9999999999999999 under others (a frame read identical or not).
        weight_a = math.fsum(map(self.weight, a))
        weight_b = math.fsum(map(self.weight, b))
        lighter = min(weight_a, weight_b)
        return math.fsum(map(self.weight, a & b)) / lighter if lighter else 0.0

    def similarity(self, text_a: str, text_b: str) -> float:
        a, b = self.vector(text_a), self.vector(text_b)
        dot = sum(weight * b[term] for term, weight in a.items() if term in b)
        norm = math.sqrt(sum(w * w for w in a.values())) * math.sqrt(sum(w * w for w in b.values()))
        return dot / norm if norm else 0.0
