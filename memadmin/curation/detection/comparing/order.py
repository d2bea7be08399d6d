"""Which word of two memories stands in which role: every word in the same order (what
an automatic merge asks), the words they share standing in the same order (roles kept:
"Nina is our champion at Hugo Ltd." / "Hugo is our champion at Nina Ltd." share every
word, two facts), a passive with its agent first ("The office is run by Sven" / "Sven
runs the office"), and a list of two things either way round ("Has two cats and a dog" /
"Has a dog and two cats"). Words are one word as comparing.matching says."""

from __future__ import annotations

from itertools import pairwise

from memadmin.curation.detection.comparing.matching import same_word, same_word_class
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.words import Token, is_copula


def words_in_order(older: Reading, newer: Reading) -> bool:
    """Whether every content word of each text has its counterpart in the other, in the
    same order (a word of the same class of predicate counts: "loves" / "enjoys")."""
    words_a, words_b = older.content, newer.content
    if len(words_a) != len(words_b) or not words_a:
        return False
    if bool(agent_first(older)) != bool(agent_first(newer)):
        return False  # "Nina is managed by Tom" / "Nina manages Tom": the roles swapped
    return all(
        same_word(a, b) or same_word_class(a, b) for a, b in zip(words_a, words_b, strict=True)
    )


def roles_kept(older: Reading, newer: Reading) -> bool:
    """Whether the words the two texts share stand in the same order: "Nina is our
    champion at Hugo Ltd." / "Hugo is our champion at Nina Ltd." and "The red cable goes
    to port A and the blue one to port B" / "The blue cable ... the red one ..." share
    every word, but two of them swapped roles (two facts). Each word of the older text
    that has exactly one counterpart in the newer is looked up there; those places must
    rise. The predicate holds no role ("Sofiane leads the ledger team" / "The ledger team
    lead is Sofiane"), and what a copula joins may stand either way round ("The lead is
    Sofiane" / "Sofiane is the lead"). (A paraphrase may reorder its words too: this is
    evidence, and a veto only on an automatic merge, where nothing may differ.)"""
    return any(
        _rising(words_a, words_b) for words_a in _orders(older) for words_b in _orders(newer)
    )


def _orders(reading: Reading) -> list[tuple[Token, ...]]:
    """A reading's content words in the orders that keep its roles: as written, less its
    predicate; a copula's clause also with what follows the copula first."""
    at = reading.predicate_at
    predicate = reading.tokens[at] if at >= 0 else None
    passive = agent_first(reading)
    if passive:
        return [passive]
    written = tuple(t for t in reading.content if t is not predicate and not _when(t))
    if predicate is None or reading.predicate is None or reading.predicate.name != "be":
        return [written, *_listed_the_other_way(reading, written)]
    main = reading.tokens[: reading.clause_end]
    before = tuple(t for t in main[:at] if t.content and not _when(t))
    after = tuple(t for t in main[at + 1 :] if t.content and not _when(t))
    rest = tuple(t for t in reading.tokens[reading.clause_end :] if t.content and not _when(t))
    return [written, after + before + rest]


def _listed_the_other_way(reading: Reading, written: tuple[Token, ...]) -> list[tuple]:
    """Two things a verb takes, joined by "and", the other way round ("Has two cats and a
    dog" / "Has a dog and two cats"): a list has no order. Not parts that hold more than
    a thing each ("the red cable to port A and the blue one to port B": roles)."""
    main = reading.tokens[reading.predicate_at + 1 : reading.clause_end]
    joins = [i for i, t in enumerate(main) if t.text in _AND]
    if len(joins) != 1 or not 0 < joins[0] < len(main) - 1:
        return []
    first, second = main[: joins[0]], main[joins[0] + 1 :]
    if not all(t.content or t.text in _ARTICLES for t in (*first, *second)):
        return []
    listed = {t for t in first + second if t.content}
    before = tuple(t for t in written if t not in listed)
    return [before + tuple(t for t in second + first if t.content and t in written)]


_AND = frozenset({"and", "und", "et", "y", "&"})
_ARTICLES = frozenset({"a", "an", "the", "ein", "eine", "einen", "un", "une", "des"})


def agent_first(reading: Reading) -> tuple[Token, ...]:
    """A passive with its agent ("The Berlin office is run by Sven", "Le bureau est
    dirigé par Sven") in the order of its active ("Sven runs the Berlin office"): the
    agent, then the subject; () for any other clause."""
    at, main = reading.predicate_at, reading.tokens[: reading.clause_end]
    if at < 1 or at + 1 >= len(main) or main[at + 1].text not in _AGENT_MARKERS:
        return ()
    copula = next((i for i in (at - 1, at - 2) if i >= 0 and is_copula(main[i])), None)
    if copula is None or (copula > 0 and main[copula - 1].text == "to"):
        return ()  # no passive, or one after another verb ("likes to be reached by SMS")
    agent = tuple(t for t in main[at + 2 :] if t.content and not _when(t))
    if not agent:
        return ()  # "is due by Friday": a time
    subject = tuple(t for t in main[:at] if t.content and not _when(t))
    rest = tuple(t for t in reading.tokens[reading.clause_end :] if t.content and not _when(t))
    return agent + subject + rest


_AGENT_MARKERS = frozenset({"by", "par"})


def _when(token: Token) -> bool:
    """A time ("every Sunday", "at 10:00", "in May"): it holds no role, and stands where a
    language puts it ("Spielt jeden Sonntag Tennis." / "Plays tennis every Sunday.")."""
    return token.kind == "value" and token.value.split(":")[0] in _TIMES


_TIMES = frozenset({"rate", "time", "date", "weekday", "month"})


def _rising(words_a: tuple[Token, ...], words_b: tuple[Token, ...]) -> bool:
    places = [found[0] for found in _places(words_a, words_b) if len(found) == 1]
    return all(a <= b for a, b in pairwise(places))


def counterparts(older: Reading, newer: Reading) -> list[list[int]]:
    """For each content word of the older reading, the places of the newer's words that
    are the same word (matching.same_word)."""
    return _places(older.content, newer.content)


def _places(words_a: tuple[Token, ...], words_b: tuple[Token, ...]) -> list[list[int]]:
    """For each of `words_a`, the places in `words_b` of the same word: those of the same
    key are found at once, the others compared one by one."""
    places: dict[str, list[int]] = {}
    for index, other in enumerate(words_b):
        places.setdefault(other.key, []).append(index)
    found = []
    for token in words_a:
        same_key = places.get(token.key)
        found.append(
            same_key
            if same_key
            else [index for index, other in enumerate(words_b) if same_word(token, other)]
        )
    return found


def same_words(older, newer) -> bool:
    """Every content word of each side has a counterpart on the other, in any order."""
    words_a, words_b = older.content, newer.content
    if not words_a or not words_b:
        return False
    return all(counterparts(older, newer)) and all(counterparts(newer, older))
