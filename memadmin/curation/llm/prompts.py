"""Every prompt memadmin sends to an LLM, versioned. A change of wording is a new version:
verdicts are cached per prompt version and proposals record the version they came from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

MERGE_VERSION = "merge-v1"
VERDICT_VERSION = "verdict-v1"

MERGE_SYSTEM = """You merge duplicate memories of an AI agent into one memory.
Rules:
- Combine all distinct information from every memory; lose no fact, number, name or date.
- Where they conflict, prefer the newer memory (they are listed oldest to newest).
- Stay concise: one or two sentences, in the language of the newest memory.
- Keep the attribution to the user as written (for example "Alice", "the user", "she").
- Return only the merged memory text, with no preamble, quotes or explanation."""

VERDICT_SYSTEM = """You compare two memories an AI agent stored about the same user or work.
Decide what they are to each other:
- duplicate: they state the same fact (a paraphrase, a translation, or one adds detail).
- conflict: same subject and slot, but they disagree; kind "update" when the newer one
  replaces the older (a change over time), "contradiction" when both cannot be true.
- related_distinct: same subject, but different facts (different slots).
- unrelated: different subjects.
Think first in the reasoning field, then give the label. Answer with the tool only."""

VERDICT_TOOL = {
    "name": "record_verdict",
    "description": "Record how the two memories relate.",
    "input_schema": {
        "type": "object",
        "properties": {
            # Reasoning comes first: small models judge better when they reason before
            # they commit to a label.
            "reasoning": {"type": "string", "description": "Short step-by-step comparison."},
            "label": {
                "type": "string",
                "enum": ["duplicate", "conflict", "related_distinct", "unrelated"],
            },
            "conflict_kind": {
                "type": "string",
                "enum": ["update", "contradiction", "none"],
                "description": "For a conflict: update or contradiction; otherwise none.",
            },
        },
        "required": ["reasoning", "label", "conflict_kind"],
    },
}
VERDICT_LABELS = ("duplicate", "conflict", "related_distinct", "unrelated")


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str
    version: str


def _describe(memory) -> str:
    when = memory.created_at.strftime("%Y-%m-%d %H:%M")
    category = f" [{memory.category}]" if memory.category else ""
    return f"({when}{category}) {memory.content}"


def merge_prompt(members: Sequence) -> Prompt:
    """The merge prompt for a cluster's members, listed oldest to newest."""
    ordered = sorted(members, key=lambda m: (m.created_at, m.pk or 0))
    lines = [f"{index}. {_describe(m)}" for index, m in enumerate(ordered, start=1)]
    user = "Memories, oldest to newest:\n" + "\n".join(lines) + "\n\nMerged memory:"
    return Prompt(MERGE_SYSTEM, user, MERGE_VERSION)


# A second reading of a pair shows the newer memory first (curation/llm/band.py:
# an answer that overturns the model decides only if both readings agree); its verdict is
# kept under this version.
SECOND_READING_VERSION = f"{VERDICT_VERSION}/newer-first"


def verdict_prompt(older, newer, *, second_reading: bool = False) -> Prompt:
    """The verdict prompt for a pair, the older first (the newer first for a second
    reading)."""
    lines = [f"Older memory: {_describe(older)}", f"Newer memory: {_describe(newer)}"]
    if second_reading:
        return Prompt(VERDICT_SYSTEM, "\n".join(reversed(lines)), SECOND_READING_VERSION)
    return Prompt(VERDICT_SYSTEM, "\n".join(lines), VERDICT_VERSION)


# The labels' definitions the calls of several pairs share (a change of wording is a new
# version of each prompt that holds it).
_ONE_FACT = (
    """- duplicate: the same fact (a paraphrase, a translation, other units, or one adds detail)."""
)
_CONFLICT_KINDS = (
    '- conflict: same subject and slot, but they disagree; kind "update" when the newer one\n'
    '  replaces the older (a change over time), "contradiction" when both cannot be true.'
)
_TWO_FACTS = """- related_distinct: same subject, but different facts (different slots), or another
  subject told apart by a name, an initial or a modifier (the welder from Lima is not the
  welder from Oslo).
- unrelated: different subjects."""
_EACH_PAIR_ALONE = (
    "Judge each pair alone, not against the other pairs. Think first in each reasoning field,\n"
    "then give the label. Answer with the tool only, once for every numbered pair."
)

# A memory and its nearest candidates in one call, each pair answered (as Mem0's add reads a
# new memory against the memories it retrieved): every near candidate is read by the LLM
# within one call a memory. Each pair's answer is cached under this version.
GROUP_VERSION = "group-v1"

GROUP_SYSTEM = f"""You compare one memory an AI agent stored (the anchor) with other
memories of the same store, one at a time. For each numbered memory decide what it is to
the anchor:
{_ONE_FACT}
{_CONFLICT_KINDS}
{_TWO_FACTS}
Judge each numbered memory against the anchor alone, not against each other. Think first
in each reasoning field, then give the label. Answer with the tool only, once for every
numbered memory."""


def _verdicts_tool(name: str, description: str, key: str, what: str) -> dict:
    """A tool that records several verdicts (VERDICT_TOOL's each), each naming under `key`
    the numbered item (`what`) it is of."""
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {
                "verdicts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            key: {"type": "integer", "description": f"The {what}'s number."},
                            **VERDICT_TOOL["input_schema"]["properties"],
                        },
                        "required": [key, "reasoning", "label", "conflict_kind"],
                    },
                }
            },
            "required": ["verdicts"],
        },
    }


GROUP_TOOL = _verdicts_tool(
    "record_verdicts", "Record how each numbered memory relates to the anchor.", "memory", "memory"
)


def group_prompt(anchor, candidates: Sequence) -> Prompt:
    """The prompt of a memory (the anchor) and its candidates, numbered from 1 in the
    order given, each with its date (which of two is newer is read from them)."""
    lines = [f"Anchor: {_describe(anchor)}", "", "Memories to compare with the anchor:"]
    lines += [f"{number}. {_describe(m)}" for number, m in enumerate(candidates, start=1)]
    return Prompt(GROUP_SYSTEM, "\n".join(lines), GROUP_VERSION)


# First readings of pairs from several small groups in one call (curation/llm/groups.py:
# a memory with one or two candidates left would take a call of its own): each pair on its
# own, the older memory first with its date, as a pair alone is shown. Its answers are
# cached as first readings under this version; third readings go several a call in it too
# where no earlier reading of theirs did (asking.packs).
PAIRS_VERSION = "pairs-v1"

PAIRS_SYSTEM = f"""You compare pairs of memories an AI agent stored, each pair on its own.
Each pair shows the older memory first, then the newer, each with its date. For each
numbered pair decide what its two memories are to each other:
{_ONE_FACT}
{_CONFLICT_KINDS}
{_TWO_FACTS}
{_EACH_PAIR_ALONE}"""


def pairs_prompt(pairs: Sequence[tuple]) -> Prompt:
    """The prompt of several (older, newer) pairs, numbered from 1 in the order given,
    each the older memory first."""
    lines = ["Pairs to compare:"]
    for number, (older, newer) in enumerate(pairs, start=1):
        lines += [f"{number}. Older: {_describe(older)}", f"   Newer: {_describe(newer)}"]
    return Prompt(PAIRS_SYSTEM, "\n".join(lines), PAIRS_VERSION)


# The audit of a detection pass (curation/llm/audit.py): pairs drawn at random, several a
# call, each pair on its own and shown in no order and with no date, unlike the band's
# prompts (a reading in another presentation errs on its own, and its answers measure the
# pass rather than repeat it). Its answers are not cached as verdicts.
AUDIT_VERSION = "audit-v1"

AUDIT_SYSTEM = f"""You check pairs of memories an AI agent stored, each pair on its own.
For each numbered pair decide what its two memories (A and B) are to each other:
{_ONE_FACT}
- conflict: same subject and slot, but they disagree (one replaces the other, or both
  cannot be true).
{_TWO_FACTS}
{_EACH_PAIR_ALONE}"""

# An audit's and a second readings' call (each numbered pair answered).
PAIRS_TOOL = _verdicts_tool(
    "record_pair_verdicts",
    "Record how the two memories of each numbered pair relate.",
    "pair",
    "pair",
)


def audit_prompt(pairs: Sequence[tuple]) -> Prompt:
    """The prompt of several (A, B) pairs, numbered from 1 in the order given, each text
    as a JSON string (one line whatever it holds)."""
    lines = ["Pairs to judge:"]
    for number, (a, b) in enumerate(pairs, start=1):
        lines += [f"{number}. A: {json.dumps(a.content, ensure_ascii=False)}"]
        lines += [f"   B: {json.dumps(b.content, ensure_ascii=False)}"]
    return Prompt(AUDIT_SYSTEM, "\n".join(lines), AUDIT_VERSION)


# Second readings of several pairs in one call (curation/llm/band.py): each pair shown the
# newer memory first with its date, as a second reading alone is, so a confirmation costs
# a share of a call and is affordable where first readings spend the budget. Its answers
# are cached as second readings under this version.
RECHECK_VERSION = "recheck-v1"

RECHECK_SYSTEM = f"""You read again pairs of memories an AI agent stored, each pair on its
own. Each pair shows the newer memory first, then the older, each with its date. For each
numbered pair decide what its two memories are to each other:
{_ONE_FACT}
{_CONFLICT_KINDS}
{_TWO_FACTS}
{_EACH_PAIR_ALONE}"""


def recheck_prompt(pairs: Sequence[tuple]) -> Prompt:
    """The prompt of several (older, newer) pairs, numbered from 1 in the order given,
    each the newer memory first."""
    lines = ["Pairs to read again:"]
    for number, (older, newer) in enumerate(pairs, start=1):
        lines += [f"{number}. Newer: {_describe(newer)}", f"   Older: {_describe(older)}"]
    return Prompt(RECHECK_SYSTEM, "\n".join(lines), RECHECK_VERSION)


# Every version a reading of a pair is recorded under (an audit's answers are kept apart):
# a later pass reads each back as the reading it was, and asks it again in none of them.
READING_VERSIONS = (
    VERDICT_VERSION,
    SECOND_READING_VERSION,
    GROUP_VERSION,
    PAIRS_VERSION,
    RECHECK_VERSION,
)
