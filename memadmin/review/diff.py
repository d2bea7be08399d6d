"""Word-level differences of a member against the proposed text, for the cluster page:
word by word, character by character in Chinese, Japanese and Korean (one changed
character must not strike out a whole sentence written without spaces), and no diff at
all across two languages (every word would differ: the page says "another language")."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from memadmin.store.lexicon import CJK_CHARACTERS, language_of

# A CJK character (the compatibility ideographs too) is a token of its own; elsewhere a
# word is what spaces delimit.
_CJK_CHARACTER = CJK_CHARACTERS + "\uf900-\ufaff"
_WORDS = re.compile(rf"[{_CJK_CHARACTER}]|[^\s{_CJK_CHARACTER}]+|\s+")
# Sentences with the space after them: the coarse tokens of a long text.
_SENTENCES = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)\s*")
# Up to this many words a side, texts are compared word by word at once; longer ones
# sentence by sentence first, and word by word only inside the sentences that differ
# (a word diff of two 5 KB texts took about 250 ms; this way a few ms).
WORD_DIFF_LIMIT = 300


@dataclass(frozen=True)
class Span:
    text: str
    kind: str  # same | removed (in the member, not in the proposal) | added | other-language


def word_diff(member: str, proposal: str) -> list[Span]:
    """The member's text as spans: words the proposal keeps, drops or adds; one span of
    kind `other-language` when the two are in different languages."""
    spans = _word_diff(member, proposal)
    kept = sum(len(span.text.strip()) for span in spans if span.kind == "same")
    # Another language only when the diff says so too (almost nothing in common): the
    # language of a three-word note is a guess, and a wrong guess must not hide a diff.
    if kept < 0.15 * len(member.strip()) and language_of(member) != language_of(proposal):
        return [Span(member, "other-language")]
    return spans


def _word_diff(member: str, proposal: str) -> list[Span]:
    old, new = _WORDS.findall(member), _WORDS.findall(proposal)
    if max(len(old), len(new)) <= WORD_DIFF_LIMIT:
        return _diff(old, new)
    old_sentences, new_sentences = _SENTENCES.findall(member), _SENTENCES.findall(proposal)
    spans = []
    matcher = difflib.SequenceMatcher(a=old_sentences, b=new_sentences, autojunk=False)
    for operation, a1, a2, b1, b2 in matcher.get_opcodes():
        old_part, new_part = "".join(old_sentences[a1:a2]), "".join(new_sentences[b1:b2])
        if operation == "equal":
            spans.append(Span(old_part, "same"))
            continue
        old_words, new_words = _WORDS.findall(old_part), _WORDS.findall(new_part)
        if max(len(old_words), len(new_words)) <= WORD_DIFF_LIMIT:
            spans.extend(_diff(old_words, new_words))
        else:  # a long stretch rewritten whole: shown as such
            spans.extend(s for s in (Span(old_part, "removed"), Span(new_part, "added")) if s.text)
    return _joined(spans)


def _diff(old: list[str], new: list[str]) -> list[Span]:
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


def _joined(spans: list[Span]) -> list[Span]:
    """Neighbouring spans of one kind as one (fewer elements to render)."""
    joined: list[Span] = []
    for span in spans:
        if joined and joined[-1].kind == span.kind:
            joined[-1] = Span(joined[-1].text + span.text, span.kind)
        else:
            joined.append(span)
    return joined
