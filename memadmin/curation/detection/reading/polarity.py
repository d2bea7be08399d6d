"""Polarity, negation and change cues of a text, as the key-token readers see them (the
similarity signals; curation.detection.reading.clause reads the same for one clause): a stance
and its opposite ("likes" / "hates", "mag" / "mag keine"), a negated name ("not on
Tuesday"), and the words that announce a change ("now", "moved to", "nicht mehr",
"désormais", "现在").
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from itertools import dropwhile, takewhile

from memadmin.curation.detection.reading.keytokens import key_tokens, words_of
from memadmin.curation.detection.reading.tokens import text_words
from memadmin.store.lexicon import HAN, fold, lexicon, stop_words, words
from memadmin.store.text import text_cache


@cache
def _polarity() -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    section = lexicon()["polarity"]
    return (
        frozenset(section["positive"]),
        frozenset(section["negative"]),
        tuple(section["negative_phrases"]),
    )


@text_cache
def stance(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The positive and negative stance words of a text (negative phrases included).
    Cached, as the other readings of one text: a memory is in several pairs."""
    folded = fold(text)
    positive, negative, phrases = _polarity()
    found = text_words(folded) | set(cjk_words(folded, positive | negative))
    pos, neg = found & positive, found & negative
    # One search tells whether any phrase is there (most texts have none); then which.
    said = (
        {phrase for phrase in phrases if phrase in folded}
        if _any_phrase().search(folded)
        else set()
    )
    if said:
        neg |= said
        # "doesn't like" holds "like": the phrase, not the word, is the stance.
        pos -= {word for phrase in said for word in phrase.split()}
    return frozenset(pos), frozenset(neg)


@cache
def _any_phrase() -> re.Pattern:
    return re.compile("|".join(map(re.escape, _polarity()[2])) or "(?!)")


def cjk_words(folded: str, vocabulary: frozenset[str]) -> list[str]:
    """Chinese entries of `vocabulary` found in the text (no spaces to split on); a longer
    entry hides the shorter one inside it (不喜欢 is no 喜欢)."""
    if folded.isascii():
        return []
    hits = [w for w in _chinese_entries(vocabulary) if w in folded]
    return [w for w in hits if not any(w != other and w in other for other in hits)]


@lru_cache(maxsize=64)
def _chinese_entries(vocabulary: frozenset[str]) -> tuple[str, ...]:
    return tuple(w for w in vocabulary if HAN.match(w))


@text_cache
def content_stems(text: str) -> frozenset[str]:
    """The stems (first five letters) of a text's words that are no stop words."""
    stop = stop_words()
    return frozenset(w[:5] for w in text_words(text) if w not in stop)


@cache
def stance_stems() -> frozenset[str]:
    """The stems of every stance word (what a stance is about is something else)."""
    positive, negative, phrases = _polarity()
    stance = positive | negative | {word for phrase in phrases for word in phrase.split()}
    return frozenset(word[:5] for word in stance)


# How many words after a negation it reaches, within its clause ("does not use X",
# "nutzt kein X", "decided against X").
NEGATION_REACH = 3

# A negation that excepts one thing says that thing, and only it: "never answers in any
# language but English", "doesn't use anything other than Linux", "ne boit que de
# l'eau" (not with "pas": "ne boit pas que de l'eau" is not water alone), "trinkt
# nichts außer Wasser", "no bebe más que agua". Read as a denial, each was a sure
# contradiction of the same fact said plainly ("Only drinks water").
_EXCEPTING = re.compile(
    r"\b(?:any|anything|anyone|anybody|anywhere|nothing|nobody|none|no one|no other)"
    r"(?:\s+[\w-]+){0,2}?\s+(?:but|except|besides|other than|apart from|aside from)\b"
    r"|\bn(?:e\s+|['’])(?:(?!\b(?:pas|point)\b)[^.;,:!?])*?\bqu(?:e\b|['’])"
    r"|\b(?:nichts|niemand|kein\w*)(?:\s+\w+){0,2}?\s+(?:ausser|als)\b"
    r"|\bno\b(?:\s+\w+){1,3}?\s+m[aá]s\s+que\b|\bnada\s+(?:m[aá]s\s+)?(?:que|excepto|salvo)\b"
)


def denies(main, folded: str) -> bool:
    """Whether a clause (its tokens, and its text folded) denies what it says: it has a
    negation, not one of a thing alone ("without sugar", "ohne Zucker", "sans sucre")
    nor one that excepts a thing (_EXCEPTING)."""
    negators = [
        t
        for t in main
        if t.kind == "negator" and not _NEARLY.search(folded, max(0, t.start - 16), t.start)
    ]
    return (
        bool(negators)
        and not all(t.text in ("without", "ohne", "sans", "无") for t in negators)
        and not excepts(folded)
    )


# "Almost never", "fast nie", "presque jamais": how often, seldom (as "rarely"), no denial.
_NEARLY = re.compile(r"\b(?:almost|nearly|practically|virtually|fast|presque|quasi|casi)\s+\Z")


def excepts(folded: str) -> bool:
    """A negation in the folded text that excepts one thing (_EXCEPTING)."""
    return _EXCEPTING.search(folded) is not None


_CLAUSE_END = (".", ",", ";", ":", "!", "?", "。", "，", "；", "！", "？")


@text_cache
def negated_names(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(names asserted, names negated): a name or identifier within NEGATION_REACH words
    after a negation, in the same clause, is negated ("does not use Jenkins", "no Kafka
    in the pipeline"). Only names: what is negated about ordinary words ("no ports are
    forwarded" / "nothing is port-forwarded") is too loose to compare."""
    negators = words("negation")
    suffixes = tuple(lexicon()["negation"]["suffixes"])
    excepting = words("negation", "excepting")
    names = {t.position: t.value for t in key_tokens(text) if t.kind == "name"}
    words_ = words_of(text)
    if not any(w.lower in negators or w.lower.endswith(suffixes) for w in words_):
        return frozenset(names.values()), frozenset()  # no negation: every name asserted
    asserted, negated = set(), set()
    reach = 0
    for index, word in enumerate(words_):
        # What ends before the word: its last mark is at or after the previous word's
        # start (a word's span holds the mark that closes it).
        gap = text[words_[index - 1].start if index else 0 : word.start].rstrip()
        if index and gap.endswith(_CLAUSE_END):
            reach = 0
        if word.lower in negators or word.lower.endswith(suffixes):
            reach = NEGATION_REACH
            continue
        if word.lower in excepting:  # "not ... but GitLab", "nichts außer Wasser"
            reach = 0
        if index in names:
            (negated if reach else asserted).add(names[index])
        reach = max(reach - 1, 0)
    return frozenset(asserted), frozenset(negated)


@cache
def _change_phrases() -> tuple[frozenset[str], re.Pattern]:
    """The change cue words, and one expression that finds any cue phrase inside a text
    (as `in` would: one search instead of one per phrase)."""
    section = lexicon()["change"]
    phrases = sorted(section["phrases"], key=len, reverse=True)
    return frozenset(section["words"]), re.compile("|".join(map(re.escape, phrases)) or "(?!)")


# "n'aime plus", "ne fume plus", "trinkt keinen Kaffee mehr": no longer.
_NO_LONGER = re.compile(r"\bn(?:e\s+|')\S+\s+plus\b|\b(?:nicht|kein\w*)\b.*\bmehr\b")


def no_longer(folded: str) -> bool:
    """A French or German "no longer" said by two words around the verb."""
    return bool(_NO_LONGER.search(folded))


@text_cache
def announces_change(text: str) -> bool:
    """Whether a text reads as a change of an earlier fact ("now", "moved to", "has been
    removed", "nicht mehr", "désormais", "现在"; not "since": a state goes on). Cached:
    the reading of each text and the evidence of each of its pairs ask it."""
    folded = fold(text)
    cue_words, phrases = _change_phrases()
    if text_words(folded) & cue_words or phrases.search(folded) or _PASSIVE_PERFECT.search(folded):
        return True
    return bool(cjk_words(folded, cue_words))


# "has been moved", "have been cancelled": something was done to it, a change; not "has
# been vegetarian" (a state that goes on: the lexicon's [change] durations).
_PASSIVE_PERFECT = re.compile(r"\b(?:has|have|had) been \w+(?:ed|en|wn)\b")


def set_against(reading, *, replaced_only: bool = False) -> tuple:
    """What a choice (a reading.clause.Reading) is set against: the first content word
    after "over", "than", "instead of" ("Prefers TypeScript over JavaScript": JavaScript),
    which it does not assert. Only where the clause likes or prefers, or replaces:
    "Connects over SSH" sets nothing against SSH. `replaced_only`: what it replaces alone
    ("pnpm instead of npm" denies npm; "tea over coffee" is no dislike of coffee)."""
    markers = words("markers", "contrast")
    replaced = words("markers", "replaced")
    choice = not replaced_only and reading.predicate is not None and reading.predicate.stance > 0
    main = reading.tokens[: reading.clause_end]
    found = []
    for at, token in enumerate(main):
        if token.kind == "marker" and token.text in markers and (choice or token.text in replaced):
            after = next((t for t in main[at + 1 :] if t.content and t.kind != "marker"), None)
            if after is not None:
                found.append(after)
    return tuple(found)


def changed_from(reading) -> list:
    """The words of the value a change (a reading.clause.Reading) names as the one it
    replaced: after the first marker of one, a run of content words ("switched from VS
    Code to Neovim": VS Code; "now on Thursday instead of Tuesday": Tuesday)."""
    markers, tokens = words("markers", "replaced"), reading.tokens
    start = next((i + 1 for i, token in enumerate(tokens) if token.text in markers), None)
    if start is None or not reading.change:
        return []
    after = list(dropwhile(lambda token: not token.content, tokens[start : start + 4]))
    return list(takewhile(lambda token: token.content, after))
