"""What the reading tests ask of a text or a pair: its values as read, the relation of two
memories as find_duplicates reads them (role first where both name a holder), and the
judgement of a pair alone in its namespace."""

from memadmin.curation.detection.comparing import frames
from memadmin.curation.detection.reading import quantities, roles
from memadmin.curation.detection.scoring.judgement import Judgement
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.learning import calibration


def values(text: str) -> list[tuple[str, str]]:
    return [(value.measure, value.value) for value in quantities.read(text)]


def relation(older: str, newer: str) -> str:
    return frames.compare(*roles.read_both(older, newer)).kind


def judged(older: str, newer: str, vectors: calibration.Vectors) -> Judgement:
    """The judgement of two memories, the older first, alone in a namespace."""
    rows = [
        {"id": "a", "content": older, "created_at": "2026-01-01T00:00:00+00:00"},
        {"id": "b", "content": newer, "created_at": "2026-02-01T00:00:00+00:00"},
    ]
    memories = [calibration.as_memory(row) for row in rows]
    found = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
    ((_, judgement),) = found.judgements.items()
    return judgement
