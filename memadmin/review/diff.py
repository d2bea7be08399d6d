"""Word-level differences of a member against the proposed text, for the cluster page."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_WORDS = re.compile(r"\S+|\s+")


@dataclass(frozen=True)
class Span:
    text: str
    kind: str  # same | removed (in the member, not in the proposal) | added


def word_diff(member: str, proposal: str) -> list[Span]:
    """The member's text as spans: words the proposal keeps, drops or adds."""
    old, new = _WORDS.findall(member), _WORDS.findall(proposal)
    spans = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for operation, a1, a2, b1, b2 in matcher.get_opcodes():
        if operation == "equal":
            spans.append(Span("".join(old[a1:a2]), "same"))
            continue
        if a2 > a1:
            spans.append(Span("".join(old[a1:a2]), "removed"))
        if b2 > b1:
            spans.append(Span("".join(new[b1:b2]), "added"))
    return spans
