"""Detection quality on the labelled dev set, computed from what find_duplicates stored
(no LLM) and scored by evaluate_detection's own query. The engine knows nothing of the
labels: they are only read here."""

import json

import pytest

from memadmin.curation.learning import evaluation
from memadmin.curation.reads.exports import detection_output
from memadmin.store.models import Namespace
from memadmin.store.multilingual import short

pytestmark = pytest.mark.django_db


@pytest.fixture
def detected(run_command, dev_memories_path):
    assert run_command("import_memories", str(dev_memories_path)).error is None
    assert run_command("find_duplicates").error is None


@pytest.fixture
def dev_score(detected, dev_labels) -> evaluation.Score:
    outputs = [detection_output(namespace) for namespace in Namespace.objects.all()]
    return evaluation.score_output(dev_labels, outputs)


def test_no_automatic_merge_touches_a_protected_guarded_negative_or_conflict_pair(dev_score):
    assert dev_score.unsafe_auto_merges == []


def test_duplicate_pairs_reach_the_target_with_no_llm(dev_score):
    # The proposed tier's precision target (issue 39: 0.93 held out; here the model has
    # seen the set); the recall is today's floor, the rest waits in the possible tier.
    assert dev_score.precision >= 0.93
    assert dev_score.recall >= 0.45


def test_conflicts_reach_the_target_with_no_llm(dev_score):
    assert dev_score.conflict_precision >= 0.85
    assert dev_score.conflict_recall >= 0.55


def test_the_figures_hold_with_the_tags_emptied(
    dev_score, run_command, dev_memories_path, dev_labels, tmp_path
):
    # Stores written by Mem0, ChromaDB or Qdrant carry no tags: the same memories with
    # none (in namespaces of their own), from the database, score within 0.02.
    lines = [json.loads(line) for line in dev_memories_path.read_text().splitlines() if line]
    untagged = tmp_path / "untagged.jsonl"
    untagged.write_text(
        "\n".join(
            json.dumps({**line, "tags": [], "namespace": f"untagged-{line['namespace']}"})
            for line in lines
        )
    )
    assert run_command("import_memories", str(untagged)).error is None
    assert run_command("find_duplicates").error is None

    outputs = [
        detection_output(namespace)
        for namespace in Namespace.objects.filter(name__startswith="untagged-")
    ]
    untagged_score = evaluation.score_output(dev_labels, outputs)

    assert untagged_score.unsafe_auto_merges == []
    for figure in ("precision", "recall", "conflict_precision", "conflict_recall"):
        assert abs(getattr(untagged_score, figure) - getattr(dev_score, figure)) <= 0.02


def test_the_cross_language_namespaces_got_the_multilingual_vector(detected):
    multilingual = {ns.name for ns in Namespace.objects.filter(multilingual=True)}
    # alice (French, German) and lin (Chinese) hold more than one language; homelab is
    # English only: only its short memories pay for the second model.
    assert {"alice", "lin"} <= multilingual
    assert "homelab" not in multilingual
    homelab = Namespace.objects.get(name="homelab")
    given = {m.content for m in homelab.memories.filter(embedding_multi__isnull=False)}
    assert given == {m.content for m in homelab.memories.all() if short(m.content)}
    lin = Namespace.objects.get(name="lin")
    assert not lin.memories.filter(embedding_multi__isnull=True, status="active").exists()


def test_evaluate_detection_prints_the_figures_per_namespace_and_the_pairs(
    detected, run_command, dev_labels_path, dev_score
):
    result = run_command("evaluate_detection", str(dev_labels_path))

    assert result.error is None
    lines = result.stdout.splitlines()
    assert any(line.startswith("homelab: duplicate pairs: precision") for line in lines)
    overall = next(line for line in lines if line.startswith("overall:"))
    assert overall == f"overall: {dev_score.summary()}"
    missed = [line for line in lines if line.startswith("missed duplicate:")]
    assert len(missed) == dev_score.true_pairs - dev_score.correct_pairs


def test_evaluate_detection_scores_one_namespace_against_its_own_labels(
    detected, run_command, dev_labels_path
):
    result = run_command("evaluate_detection", str(dev_labels_path), "--namespace", "homelab")

    assert result.error is None
    assert [line.split(":")[0] for line in result.stdout.splitlines()][:2] == [
        "homelab",
        "overall",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ("[]", "expected a JSON object"),
        ('{"conflicts": []}', "'duplicate_groups' (a list) is missing"),
        ('{"duplicate_groups": [["a", 2]], "conflicts": []}', "duplicate_groups[0] must be"),
        ('{"duplicate_groups": [], "conflicts": [{"a": "x"}]}', "conflicts[0] a and b"),
        (
            '{"duplicate_groups": [], "conflicts": [], "hard_negatives": [["a"]]}',
            "hard_negatives[0] must hold 2 ids",
        ),
    ],
)
def test_a_bad_labels_file_is_refused_with_what_is_wrong(run_command, tmp_path, content, message):
    path = tmp_path / "labels.json"
    path.write_text(content)

    result = run_command("evaluate_detection", str(path))

    assert message in str(result.error)


def test_a_missing_labels_file_is_refused(run_command, tmp_path):
    result = run_command("evaluate_detection", str(tmp_path / "nowhere.json"))

    assert "cannot read" in str(result.error)


def test_labels_restricted_to_a_namespace_keep_only_its_pairs():
    labels = {
        "duplicate_groups": [["a", "b", "x"]],
        "conflicts": [{"a": "a", "b": "x"}, {"a": "a", "b": "b"}],
        "hard_negatives": [["a", "b"], ["a", "x"]],
        "protected_ids": ["a", "x"],
    }

    kept = evaluation.restrict(labels, ["a", "b"])

    assert kept["duplicate_groups"] == [["a", "b"]]
    assert kept["conflicts"] == [{"a": "a", "b": "b"}]
    assert kept["hard_negatives"] == [["a", "b"]]
    assert kept["protected_ids"] == ["a"]
    assert json.dumps(kept)  # still a labels file
