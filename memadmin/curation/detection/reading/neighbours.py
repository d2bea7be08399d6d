"""What a word is by the words around it, once reading.words has told each word's kind
alone: a negator that bounds a quantity ("no more than 5") denies nothing; "plus" after
"ne" is "no longer"; "back" before a preposition is a return ("Back to working"); a
beginning's verb before its gerund is an auxiliary ("Started eating pork again")."""

from __future__ import annotations

import re

from memadmin.store.lexicon import words

# "no more than 5", "nicht mehr als 5", "pas plus de 5": a bound on a quantity (at most,
# at least), whose negator denies nothing. One list of words for the tokens and the text.
_BOUND_NEGATORS = ("no", "not", "nicht", "pas")
_COMPARATIVES = frozenset({"more", "less", "fewer", "mehr", "weniger", "plus", "moins"})
_THAN = frozenset({"than", "als", "que", "de"})
QUANTITY_BOUND = re.compile(
    rf"\b(?:{'|'.join(_BOUND_NEGATORS)})\s+(?:{'|'.join(sorted(_COMPARATIVES))})"
    rf"\s+(?:{'|'.join(sorted(_THAN))})\b"
)
# "Back to working five days a week", "is back in Berlin": a return, no subject "back"
# (and no "back pain"): "back" first or after its verb or person, before a preposition.
_RETURN_TO = frozenset({"to", "in", "at", "on"})


def retagged(found: list) -> tuple:
    """The tokens (reading.words.Token) with the kinds their neighbours give them."""
    return _bounds_unnegated(_aspect_verbs(_back_as_return(found)))


def ne_plus(before: list, piece: str) -> bool:
    """French "plus" after "ne", German "mehr" after "nicht" or "kein": "no longer",
    not "more"."""
    if piece == "plus":
        return any(t.text == "ne" for t in before[-3:])
    return piece == "mehr" and any(t.kind == "negator" for t in before[-4:])


def _back_as_return(found: list) -> list:
    for at, token in enumerate(found[:-1]):
        before = found[at - 1].kind if at else "verb"
        if (
            token.text == "back"
            and before in ("verb", "user", "pronoun")
            and found[at + 1].text in _RETURN_TO
        ):
            found[at] = token._replace(kind="function")
    return found


def _aspect_verbs(found: list) -> list:
    """ "Started eating pork again": the beginning's verb is an auxiliary before its
    gerund ("started a new job" keeps its verb)."""
    for at, token in enumerate(found[:-1]):
        following = found[at + 1]
        if (
            token.kind == "word"
            and token.text in words("markers", "aspect")
            and following.kind == "word"
            and following.text.endswith("ing")
        ):
            found[at] = token._replace(kind="verb")
    return found


def _bounds_unnegated(found: list) -> tuple:
    for at in range(len(found) - 2):
        if (
            found[at].kind == "negator"
            and found[at + 1].text in _COMPARATIVES
            and found[at + 2].text in _THAN
        ):
            found[at] = found[at]._replace(kind="function")
            # "ne boit pas plus de 2": the French "ne" is the bound's too.
            before = next((b for b in range(at - 1, -1, -1) if found[b].kind == "negator"), None)
            if before is not None and found[before].text in ("ne", "n"):
                found[before] = found[before]._replace(kind="function")
    return tuple(found)
