"""The value a memory names as the one it replaced ("switched from VS Code to Neovim",
"uses pnpm now instead of npm", "the meeting was moved from Tuesday to Thursday"): the
newer's change of the older's value, and what a memory asserts (not its former value).
Read by comparing.frames."""

from __future__ import annotations

from memadmin.curation.detection.comparing.matching import (
    found_in,
    same_or_unnumbered,
    same_word,
)
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.polarity import changed_from
from memadmin.curation.detection.reading.words import Token
from memadmin.store.lexicon import words


def replaced(older: Reading, newer: Reading) -> str:
    """The older's value that the newer names as replaced ("instead of npm", "switched
    from Vim"), or "". Not one the older names as its own former value too ("moved from
    Tuesday to Thursday" / "now on Thursday instead of Tuesday": one change told twice)."""
    if not newer.change:
        return ""
    own, olders = asserted(newer), asserted(older)
    for later in named_as_replaced(newer):
        # "from pve1 to pve3": pve3 is the newer's own value, no replaced one.
        if later not in own and any(same_or_unnumbered(later, o) for o in olders):
            return later.text
    return ""


def former_said_again(older: Reading, newer: Reading) -> str:
    """The value the older names as the one its change replaced, which the newer says as
    its own, where the newer says none of the older's ("The standup moved from Tuesday to
    Thursday." / "The standup is on Tuesday."): the older's value against another, as
    "former / current", or ""."""
    former = changed_from(older)
    if not former or newer.change:
        return ""
    own, current = asserted(newer), asserted(older)
    again = [t for t in former if any(same_word(t, o) for o in own)]
    if not again or any(same_word(c, o) for c in current for o in own):
        return ""
    return f"{again[0].text} / {' '.join(t.text for t in current if t.content)}"


def asserted(reading: Reading) -> tuple[Token, ...]:
    """The objects of a reading but the former value a change names ("moved from
    Tuesday to Thursday": Thursday)."""
    former = changed_from(reading)
    return tuple(t for t in reading.objects if t not in former)


def old_value_elsewhere(older: Reading, newer: Reading) -> bool:
    """The newer names the value it replaced ("switched from VS Code to Neovim") and the
    older does not say it: the older fills another slot."""
    named = named_as_replaced(newer)
    return bool(named) and not found_in(named[0], older)


def named_as_replaced(reading: Reading) -> list[Token]:
    """The content words within three words after each word that names a replaced value
    ("instead of npm", "from VS Code"), in order."""
    markers = words("markers", "replaced")
    tokens = reading.tokens
    return [
        later
        for index, token in enumerate(tokens)
        if token.text in markers
        for later in tokens[index + 1 : index + 4]
        if later.content
    ]
