"""One rule chooses the memory that represents a group (DESIGN.md): the batch plan's
survivor, the rule proposal's text and the API profile's entry are the same memory."""

import numpy as np
import pytest
from django.test import Client

from memadmin.api.models import ApiToken
from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.llm import merges
from memadmin.curation.runs import planning
from tests.factories import cluster, line, namespace, store, unit, unsaved

pytestmark = pytest.mark.django_db

# Each earlier rule picked another one: importance first picks "important", confidence
# first picks "confident", newest first picks "recent".
GROUP = [
    ("important", "Alice likes green tea.", {"importance": 0.9, "confidence": 0.5}),
    ("confident", "Alice likes green tea a lot.", {"importance": 0.5, "confidence": 0.9}),
    ("recent", "Alice really likes green tea.", {"importance": 0.5, "confidence": 0.5}),
]


def dates():
    return [f"2026-0{month}-01T00:00:00Z" for month in (1, 2, 3)]


def test_the_rule_is_importance_then_confidence_then_access_then_newest():
    older = unsaved("a", day=1, importance=0.5, confidence=0.5, access_count=3)
    newer = unsaved("b", day=2, importance=0.5, confidence=0.5, access_count=3)

    assert representative([older, newer]) is newer
    assert representative([older, unsaved("c", day=3, access_count=1)]) is older
    assert representative([newer, unsaved("d", day=1, confidence=0.6)]).content == "d"
    assert representative([newer, unsaved("e", day=1, importance=0.6)]).content == "e"
    assert representative([0, 1], memory_of=[newer, older].__getitem__) == 0


def test_the_plan_the_proposal_and_the_profile_pick_the_same_memory():
    memories = store(
        *(
            line(external_id, content, unit(1), created_at=created, **fields)
            for (external_id, content, fields), created in zip(GROUP, dates(), strict=True)
        )
    )
    vectors = np.stack([unit(1)] * 3).astype(np.float32)

    plan = planning.plan_namespace(memories, vectors, thresholds=Thresholds.from_settings())
    (fold,) = plan.auto_merges
    draft = merges.draft_for(memories, None)
    cluster(*memories)
    token = ApiToken.issue(namespace=namespace(), name="agent")[1]
    profile = Client(headers={"Authorization": f"Bearer {token}"}).get(
        "/api/v1/namespaces/alice/profile"
    )

    assert memories[fold.representative].external_id == "important"
    assert draft.text == "Alice likes green tea."
    assert [m["id"] for m in profile.json()["memories"]] == ["important"]


def test_the_well_formed_copy_represents_exact_copies_when_all_else_ties():
    """Of three exact copies, the one a reader would write ("Maya prefers Python for data
    scripts.") over a newer one in lower case with no full stop."""
    from tests.factories import unsaved

    copies = [
        unsaved("Maya prefers Python for data scripts.", day=1),
        unsaved("Maya prefers Python for data scripts", day=2),
        unsaved("maya prefers python for data scripts", day=3),
    ]
    assert representative(copies).content == "Maya prefers Python for data scripts."
