"""Where a memory's one clause starts and ends (curation.detection.reading.clause reads
what is inside): a reporting preamble before it ("On 3 May the user said that"), the mark
that ends it, and a negation set apart after it ("prefers tea, not coffee")."""

from __future__ import annotations

import re

from memadmin.curation.detection.reading.words import (
    Token,
    note_pattern,
    preamble_pattern,
    tokens,
)
from memadmin.store.lexicon import fold, words

_NOTE_TAIL = 120  # the most characters a note after the fact is looked for in


def strip_preamble(text: str) -> tuple[str, str]:
    """(the text without its reporting preamble, the preamble): "On 3 May the user said
    that" is two patterns, taken one after the other. A note of when it was said after
    the fact ("[mentioned on 2025/06/01]") is set aside with the preamble."""
    # A note is short and ends the text: only the end is searched (the whole of a long
    # text of spaces made the search quadratic, seconds for 20,000 of them).
    start = max(len(text) - _NOTE_TAIL, 0)
    folded = fold(text[start:])
    note = note_pattern().search(folded)
    # Folding keeps the length of everything but ß and ligatures: such a text keeps its note.
    at = start + note.start() if note is not None else 0
    if note is not None and len(folded) == len(text) - start and text[:at].strip(" .。"):
        said, note_text = strip_preamble(text[:at])
        return said, f"{note_text}{text[at:]}"
    body = text
    while True:
        folded = fold(body[:120])
        match = preamble_pattern().match(folded)
        if match is not None and match.end() >= len(folded):
            match = None
        # Folding keeps the length of everything but ß and ligatures: cut by proportion.
        cut = match.end() * len(body[:120]) // len(folded) if match else 0
        if not match or not body[cut:].strip(" .。"):
            return body, text[: len(text) - len(body)]
        body = body[cut:].lstrip(" ,:;，：")


def body_of(text: str, language: str) -> tuple[str, str]:
    """(what a memory says, its preamble): the text without its reporting preamble
    (strip_preamble), with an opening phrase set off by a comma read at the clause's end
    ("Since May, Ben manages the office." -> "Ben manages the office since May."), so
    that its subject comes first, as in most memories, and is compared like theirs. Only
    a time: a phrase that tells an event ("Since the move, ...") stays where it is."""
    body, said = strip_preamble(text)
    opening = _OPENING.match(body)
    if opening is None or fold(opening.group(1)) not in words("markers", "openings"):
        return body, said
    if not _only_a_time(opening.group(2), language):
        return body, said  # "After the table was moved, ...": an event of its own
    word = opening.group(1)
    word = word.lower() if word[1:].islower() else word  # "Since" in mid-sentence; "API"
    return f"{opening.group(3).rstrip(' .。')} {word}{opening.group(2)}.", said


def _only_a_time(phrase: str, language: str) -> bool:
    """Whether a phrase names a time and nothing else ("May", "March 2024", "2023")."""
    found = [t for t in tokens(phrase, language) if t.content]
    return bool(found) and all(
        t.value.split(":")[0] in ("date", "month", "weekday", "season")
        or (t.value.startswith("number:") and len(t.text) == 4 and t.text[:2] in ("19", "20"))
        for t in found
    )


# A word, a phrase of at most 60 characters with no comma, the comma, a clause of two
# words or more.
_OPENING = re.compile(r"^(\w+)([^,，]{1,60}),\s+(\S+\s.*\S)\s*$", re.S)


_CLAUSE_BREAK = re.compile(r"[;；!?！？，]|\.\s|。|\s—\s|\s-\s|,\s(?:but|aber|mais)\s|\(")
# A few words in brackets with the clause going on after them: an aside that tells its
# noun apart ("The left camera (serial 8123) drifts", "Dr. Okafor (dermatology) sees
# patients"), read in place. Brackets that end the text end the clause as before.
_ASIDE = re.compile(r"\([^()]{1,40}\)\s*[^\W\d_]")
# Abbreviations whose full stop ends no clause ("Dr. Patel", "St. Mary's", "e.g. MA2",
# "Northmark Inc. renews in March": a company's form is part of its name).
_ABBREVIATION = re.compile(
    r"(?:\b(?:dr|mr|mrs|ms|st|prof|jr|sr|vs|etc|ca|no|nr|bzw|z\.b|e\.g|i\.e"
    # An initial is one letter alone ("Yuki A."): the "s" of a possessive is none.
    r"|inc|ltd|co|corp|llc|plc|bros)|(?<!['’])\b\w)$",
    re.I,
)


def clause_break(text: str) -> int | None:
    """Where the first clause of a text ends (None: it is one clause)."""
    for match in _CLAUSE_BREAK.finditer(text):
        # The abbreviation ends where the stop stands: only the few characters before it
        # are searched (the whole text before each stop made long texts quadratic).
        before = max(0, match.start() - 8)
        if match.group().startswith(".") and _ABBREVIATION.search(text, before, match.start()):
            continue
        if match.group() == "(" and _ASIDE.match(text, match.start()):
            continue
        if match.start() < len(text.rstrip(" .。;")) - 1:
            return match.start()
    return None


def set_apart(main: tuple[Token, ...], clause: str, predicate_at: int) -> int | None:
    """Where a negation set apart by a comma after the predicate and something it says
    starts ("prefers tea, not coffee", "trinkt Tee, nicht Kaffee", "préfère le thé, pas
    le café"), or None."""
    if predicate_at < 0:
        return None
    for at in range(predicate_at + 2, len(main)):
        gap = clause[main[at - 1].start : main[at].start]
        if main[at].kind == "negator" and gap.rstrip().endswith(","):
            return at
    return None
