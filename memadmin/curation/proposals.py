"""Merge proposals: the rule's text (the representative member's), and the lost-fact
check every proposal gets, whoever wrote it (an LLM's merge is curation.llm.merges')."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memadmin.curation.detection.comparing import contrast
from memadmin.curation.detection.reading import keytokens, tokens
from memadmin.curation.detection.scoring.representative import representative


@dataclass
class Draft:
    """A proposal before it is stored."""

    text: str
    author: str  # llm | rule
    model: str = ""
    prompt_version: str = ""
    rationale: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_ms: int | None = None
    dropped_facts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    discarded: bool = False


def dropped_facts(members: Sequence, merged_text: str) -> list[str]:
    """Key tokens (numbers, quantities, names, dates, hosts, versions...) present in a
    member and missing from the merged text, as "kind: value" (a quantity as written:
    "duration: 30 days"). Values compare in canonical form: a merge that writes "2 am"
    for a member's "02:00" drops nothing."""
    kept = {(t.kind, t.value) for t in keytokens.key_tokens(merged_text)}
    kept_words = tokens.text_words(merged_text)
    kept_dates = {value for kind, value in kept if kind == "date"}
    missing = set()
    for member in members:
        for token in keytokens.key_tokens(member.content):
            if (token.kind, token.value) in kept:
                continue
            if token.kind == "name" and token.value in kept_words:
                continue
            if token.kind == "date" and contrast.same_date(token.value, kept_dates):
                continue  # "3 April" is kept by "2026-04-03"
            if token.kind == "quantity":
                measure, _, amount = token.value.partition("=")
                if measure == "count" and amount == "1":
                    continue  # "a", "一个", "ein": an article, read as a count of one
                # Months and years are kept apart from fixed spans inside; to a reader
                # both are a duration ("duration: 4 years").
                measure = "duration" if measure == "calendar" else measure
                missing.add(f"{measure}: {token.written or token.value}")
            else:
                missing.add(f"{token.kind}: {_as_written(member.content, token)}")
    return sorted(missing)


def _as_written(text: str, token: keytokens.KeyToken) -> str:
    """A key token as the member wrote it ("env: local", "number: zero"), never only its
    canonical value ("development", "0"), which the reviewer cannot find in any text."""
    words = keytokens.words_of(text)
    if 0 <= token.position < len(words):
        return words[token.position].raw
    return token.written or token.value


def check(draft: Draft, members: Sequence) -> Draft:
    """The lost-fact check: dropped key tokens as warnings, an empty merge discarded, a
    merge longer than all members together flagged."""
    if not draft.text.strip():
        draft.discarded = True
        draft.warnings.append("empty merge discarded")
        return draft
    draft.dropped_facts = dropped_facts(members, draft.text)
    if draft.dropped_facts:
        draft.warnings.append(f"may drop: {', '.join(draft.dropped_facts)}")
    if len(draft.text) > sum(len(m.content) for m in members):
        draft.warnings.append("longer than all members together")
    return draft


def offered_warnings(members: Sequence, proposal) -> list[str]:
    """The lost-fact check of what a page offers for an open cluster: its saved
    proposal's warnings, else the rule's text (what the box holds) checked now."""
    if proposal is not None:
        return list(proposal.warnings)
    if len(members) < 2:
        return []
    return check(rule_draft(members, "not saved"), members).warnings


def rule_draft(members: Sequence, reason: str) -> Draft:
    keep = representative(members)
    return Draft(
        text=keep.content,
        author="rule",
        rationale=f"rule: kept the representative member ({keep.external_id}); {reason}",
    )
