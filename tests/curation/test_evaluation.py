"""Detection quality on the labelled dev set, computed from what find_duplicates stored
(no LLM). The engine knows nothing of the labels: they are only read here."""

import pytest

from memadmin.curation import evaluation
from memadmin.curation.models import Cluster, ClusterStatus, Conflict

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev_score(run_command, dev_memories_path, dev_labels) -> evaluation.Score:
    assert run_command("import_memories", str(dev_memories_path)).error is None
    assert run_command("find_duplicates").error is None
    clusters, automatic = [], []
    for cluster in Cluster.objects.prefetch_related("memberships__memory"):
        members = [m.memory.external_id for m in cluster.memberships.all()]
        clusters.append(members)
        if cluster.status == ClusterStatus.AUTO_MERGED:
            automatic.append(members)
    conflicts = Conflict.objects.values_list("memory_a__external_id", "memory_b__external_id")
    return evaluation.score(
        labels=dev_labels, clusters=clusters, automatic_clusters=automatic, conflicts=conflicts
    )


def test_no_automatic_merge_touches_a_protected_guarded_negative_or_conflict_pair(dev_score):
    assert dev_score.unsafe_auto_merges == []


def test_conflict_recall_reaches_seventy_percent(dev_score):
    assert dev_score.conflict_recall >= 0.70


def test_duplicate_pairs_keep_the_calibrated_precision_and_recall(dev_score):
    # What the rules reach without an LLM (README: Calibration); a change that lowers
    # either figure is a regression.
    assert dev_score.precision >= 0.93
    assert dev_score.recall >= 0.73


@pytest.mark.xfail(
    strict=True,
    reason="issue 3 asks P >= 0.95 and R >= 0.85 with no LLM; general rules reach "
    "P 0.94 / R 0.74 here (cross-language paraphrases and same-subject facts need the "
    "LLM band of issue 4; a multilingual second model does not close the gap either: "
    "README, bench/second_model.py)",
)
def test_duplicate_pairs_reach_the_issue_target(dev_score):
    assert dev_score.precision >= 0.95 and dev_score.recall >= 0.85
