import pytest

from memadmin.curation.detection import guards
from tests.factories import unsaved


@pytest.mark.parametrize(
    ("other", "reason"),
    [
        ({"category": "config"}, "different category"),
        ({"source_ref": "other-repo"}, "different source_ref"),
        ({"tags": ["session:s-2"]}, "different session tags"),
    ],
)
def test_metadata_guards_name_the_difference(other, reason):
    assert guards.metadata_guard(unsaved(), unsaved(**other)).startswith(reason)


def test_same_metadata_passes_the_guards():
    assert guards.metadata_guard(unsaved(tags=["a"]), unsaved(tags=["b"])) is None


@pytest.mark.parametrize(
    "fields",
    [
        {"category": "constraint"},
        {"category": "postmortem"},
        {"category": "gotcha"},
        {"importance": 0.95},
        {"confidence": 0.99},
        {"pinned": True},
    ],
)
def test_protected_memories(fields):
    assert guards.is_protected(unsaved(**fields))


def test_an_ordinary_memory_is_not_protected():
    assert not guards.is_protected(unsaved(importance=0.94, confidence=0.94))
