"""The relations two readings of memories can stand in (curation.detection.comparing.
frames finds them), each worded once: the rules' reasons, the evidence a curator reads
and the model's explanation all say a relation in these words.
"""

from __future__ import annotations

from dataclasses import dataclass

SAME = "same"  # every content word of each side has its counterpart
REFINES = "refines"  # one side says the other's statement with detail added
OPPOSITE = "opposite"  # one statement asserted and denied, liked and disliked
NEW_VALUE = "new_value"  # one slot that holds one value, two values: a conflict
OTHER_VALUE = "other_value"  # a slot that holds several, or another attribute: two facts
OTHER_SUBJECT = "other_subject"  # two things or people: two facts
OTHER_PREDICATE = "other_predicate"  # the same subject, something else said of it
EVENTS = "events"  # two events of one kind: two facts
UNREAD = "unread"  # nothing sure: the similarity decides

# The relations in a fixed order: the model has one feature for each.
KINDS = (SAME, REFINES, OPPOSITE, NEW_VALUE, OTHER_VALUE, OTHER_SUBJECT, OTHER_PREDICATE, EVENTS)
KINDS = (*KINDS, UNREAD)

# Relations that are two facts: never a conflict, never in one cluster.
TWO_FACTS = frozenset({OTHER_VALUE, OTHER_SUBJECT, OTHER_PREDICATE, EVENTS})

# Each relation as a curator reads it.
WORDS = {
    SAME: "the same statement",
    REFINES: "one adds detail",
    OPPOSITE: "the same statement, one side denies or reverses it",
    NEW_VALUE: "one slot, two values",
    OTHER_VALUE: "two values of a slot that holds several, or two attributes",
    OTHER_SUBJECT: "different subjects",
    OTHER_PREDICATE: "another thing said of one subject",
    EVENTS: "two events",
    UNREAD: "neither sentence could be read",
}


@dataclass(frozen=True)
class Relation:
    kind: str
    detail: str = ""
    update: bool = False  # for a conflict: the newer changes the older

    @property
    def two_facts(self) -> bool:
        return self.kind in TWO_FACTS

    def said(self) -> str:
        """The relation in words, with what it is about ("one slot, two values: Azure /
        Fly.io")."""
        words = WORDS.get(self.kind, self.kind)
        return f"{words}: {self.detail}" if self.detail else words


def said_once(lines) -> list[str]:
    """Findings without repeats: a line whose values (after its last ": ", each of its
    "; " parts) were all said already is left out. Two readers naming the same values
    ("one slot, two values: hetzner / railway", "different values: hetzner / railway"),
    and one value read two ways ("ip: 192.168.10.1 / 192.168.1.1", "version:
    192.168.10.1 / 192.168.1.1") say them once."""
    said_, kept = set(), []
    for line in lines:
        values = {part.rsplit(": ", 1)[-1].casefold() for part in line.split("; ")}
        if values <= said_:
            continue
        said_ |= values
        kept.append(line)
    return kept
