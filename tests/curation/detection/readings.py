"""What the reading tests ask of a text or a pair: its values as read, and the relation
of two memories as find_duplicates reads them (role first where both name a holder)."""

from memadmin.curation.detection.comparing import frames
from memadmin.curation.detection.reading import quantities, roles


def values(text: str) -> list[tuple[str, str]]:
    return [(value.measure, value.value) for value in quantities.read(text)]


def relation(older: str, newer: str) -> str:
    return frames.compare(*roles.read_both(older, newer)).kind
