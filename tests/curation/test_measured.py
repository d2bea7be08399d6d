"""The store's own error rate: labels from people's decisions and from a labelled sample
(import_labels), and the precision and recall measured against them."""

import json

import pytest

from memadmin.curation import decisions, reviews
from memadmin.curation.models import Conflict, ConflictKind, PairLabel, Tier
from memadmin.curation.reads.measured import labelled_pairs, measured, reliability, wilson
from tests.factories import cluster, line, person, store, unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def six():
    """Three pairs: a and b clustered as proposed, c not clustered at all."""
    memories = store(
        *[line(f"{s}{i}", f"Fact {s} number {i}.", unit(i)) for s in "abc" for i in (1, 2)]
    )
    by_id = {m.external_id: m for m in memories}
    cluster(by_id["a1"], by_id["a2"])
    cluster(by_id["b1"], by_id["b2"])
    return by_id


def write_labels(tmp_path, **lists) -> str:
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"duplicate_groups": [], "conflicts": [], **lists}))
    return str(path)


def test_wilson_intervals_hold_the_share_and_stay_within_0_and_1():
    assert wilson(0, 0) == []
    assert wilson(50, 100) == [0.419, 0.581]
    low, high = wilson(10, 10)
    assert high == 1.0 and 0.7 < low < 1.0
    assert wilson(0, 3)[0] == 0.0


def test_a_sample_measures_precision_and_recall_per_tier(six, tmp_path, run_command):
    labels = write_labels(
        tmp_path,
        duplicate_groups=[["a1", "a2"], ["c1", "c2"]],
        hard_negatives=[["b1", "b2"]],
    )

    result = run_command("import_labels", labels)

    assert result.error is None, result.error
    assert "3 labelled pairs imported from labels.json: 2 one fact" in result.stdout
    proposed = measured()["clusters"]["proposed"]
    # a is right, b is wrong; of the two one-fact pairs, c was never clustered.
    assert (proposed["precision"], proposed["pairs"]) == (0.5, 2)
    assert (proposed["recall"], proposed["recall_pairs"]) == (0.5, 2)
    assert proposed["interval"][0] < 0.5 < proposed["interval"][1]
    assert measured()["conflicts"]["proposed"]["precision"] is None


def test_an_id_not_in_the_store_is_refused_by_name_and_nothing_is_imported(
    six, tmp_path, run_command
):
    labels = write_labels(tmp_path, duplicate_groups=[["a1", "a2"], ["c1", "nowhere"]])

    result = run_command("import_labels", labels)

    assert "not in the store: nowhere; nothing imported" in str(result.error)
    assert not PairLabel.objects.exists()


def test_a_pair_across_two_namespaces_is_refused(six, tmp_path, run_command):
    store(line("elsewhere", "Fact elsewhere.", unit(9), namespace="bob"))
    labels = write_labels(tmp_path, conflicts=[{"a": "a1", "b": "elsewhere", "kind": "update"}])

    result = run_command("import_labels", labels)

    assert "a1 and elsewhere are in two namespaces" in str(result.error)
    assert not PairLabel.objects.exists()


def test_an_id_in_two_namespaces_needs_the_namespace_named(six, tmp_path, run_command):
    store(line("a1", "Another a1.", unit(8), namespace="bob"))
    labels = write_labels(tmp_path, duplicate_groups=[["a1", "a2"]])

    assert "in several namespaces: a1" in str(run_command("import_labels", labels).error)
    result = run_command("import_labels", labels, "--namespace", "alice")
    assert result.error is None
    assert PairLabel.objects.get().label == "one_fact"


def test_decisions_label_what_they_decided_and_an_undo_takes_it_back(six):
    carla = person("carla", "curator")
    accepted = decisions.open_cluster_by_hand(memory_ids=[six["c1"].pk, six["c2"].pk], user=carla)
    decisions.accept_proposal(proposal=reviews.proposal_to_decide(accepted), user=carla)
    dismissed = next(c for c in six["b1"].clusters.all())
    decisions.dismiss_cluster(cluster=dismissed, user=carla)

    proposed = measured()["clusters"]["proposed"]
    assert (proposed["precision"], proposed["pairs"]) == (0.5, 2)
    # Decisions label only what detection proposed: no recall rests on them.
    assert proposed["recall"] is None

    decisions.unmerge(cluster=accepted, actor="user:carla", user=carla)
    assert measured()["clusters"]["proposed"]["pairs"] == 1
    assert labelled_pairs() == 1


def test_a_settled_conflict_is_a_conflict_and_a_dismissed_one_two_facts(six):
    admin = person("ada", "admin")
    opened = [
        Conflict.objects.create(
            namespace=six[a].namespace,
            memory_a=six[a],
            memory_b=six[b],
            kind=ConflictKind.UPDATE,
            tier=Tier.PROPOSED,
        )
        for a, b in (("a1", "b1"), ("a2", "b2"))
    ]
    decisions.resolve_conflict(
        conflict=opened[0], resolution="both_valid", user=admin, scope_note="two teams"
    )
    decisions.resolve_conflict(conflict=opened[1], resolution="b_supersedes_a", user=admin)

    conflicts = measured()["conflicts"]["proposed"]
    assert (conflicts["precision"], conflicts["pairs"]) == (0.5, 2)


def test_find_duplicates_and_export_review_say_the_measured_figures(six, tmp_path, run_command):
    assert "measured" not in run_command("find_duplicates").stdout  # nothing labelled yet
    run_command("import_labels", write_labels(tmp_path, duplicate_groups=[["a1", "a2"]]))

    found = run_command("find_duplicates")
    exported = json.loads(run_command("export_review", "--format", "json").stdout)

    assert "measured clusters (90 % intervals): proposed precision 1.00 [" in found.stdout
    assert "of 1 pairs labelled, recall 1.00" in found.stdout
    assert exported["measured"]["clusters"]["proposed"]["precision"] == 1.0
    assert set(exported["measured"]["conflicts"]["possible"]) == {
        "precision",
        "interval",
        "pairs",
        "by",
        "recall",
        "recall_interval",
        "recall_pairs",
        "recall_by",
    }
    assert exported["measured"]["clusters"]["proposed"]["by"] == "people"
    assert exported["measured"]["judge"] is None  # no audit without an LLM


def test_reliability_bins_what_detection_said_against_what_was_measured(six, tmp_path, run_command):
    from memadmin.curation.models import Cluster
    from memadmin.curation.reads.measured import reliability

    Cluster.objects.filter(memberships__memory=six["a1"]).update(confidence=0.95)
    Cluster.objects.filter(memberships__memory=six["b1"]).update(confidence=0.65)
    run_command(
        "import_labels",
        write_labels(tmp_path, duplicate_groups=[["a1", "a2"]], hard_negatives=[["b1", "b2"]]),
    )

    points = reliability()["clusters"]

    assert points == [
        {"low": 0.6, "high": 0.7, "said": 0.65, "measured": 0.0, "pairs": 1},
        {"low": 0.9, "high": 1.0, "said": 0.95, "measured": 1.0, "pairs": 1},
    ]
    assert reliability()["conflicts"] == []


def test_the_dashboard_shows_the_measured_error_rate_and_the_reliability_charts(
    six, tmp_path, run_command, client
):
    client.force_login(person("vera", "viewer"))
    assert "No labelled pairs yet" in client.get("/").content.decode()
    run_command(
        "import_labels",
        write_labels(tmp_path, duplicate_groups=[["a1", "a2"]], hard_negatives=[["b1", "b2"]]),
    )

    content = client.get("/").content.decode()

    assert "Measured error rate" in content and "No labelled pairs yet" not in content
    assert "0.50 (0." in content  # the proposed clusters' precision and its interval
    assert 'aria-label="Clusters (one fact): said against measured: said' in content
    assert "No labelled or audited pair detection proposed yet." in content  # the conflicts' chart


def test_a_complete_sample_counts_the_pairs_it_does_not_list_as_two_facts(
    six, tmp_path, run_command
):
    labels = write_labels(tmp_path, duplicate_groups=[["a1", "a2"], ["c1", "c2"]])
    # b1 and b2 are named by nothing: even complete, the file says nothing of them.
    run_command("import_labels", labels)
    assert measured()["clusters"]["proposed"]["pairs"] == 1

    complete = write_labels(tmp_path, duplicate_groups=[["a1", "a2"], ["c1", "c2"], ["b1"], ["b2"]])
    assert run_command("import_labels", complete, "--complete").error is None

    proposed = measured()["clusters"]["proposed"]
    assert (proposed["precision"], proposed["pairs"]) == (0.5, 2)  # b1/b2 unlisted: two facts


@pytest.mark.parametrize(
    "text, said",
    [
        ("[" * 5000 + "]" * 5000, "is not JSON: invalid JSON: nested"),
        ('{"duplicate_groups": [["a1", "a\\u0000"]], "conflicts": []}', "contains a NUL"),
        ('{"duplicate_groups": [["a1", 1e999]], "conflicts": []}', "is not JSON"),
        ('{"duplicate_groups": [["a1", "' + "x" * 300 + '"]], "conflicts": []}', "longer than"),
    ],
)
def test_a_hostile_labels_file_is_refused_with_a_reason_and_imports_nothing(
    six, tmp_path, run_command, text, said
):
    path = tmp_path / "labels.json"
    path.write_text(text)

    result = run_command("import_labels", str(path))

    assert said in str(result.error)
    assert not PairLabel.objects.exists()


def audit_of(namespace, said_proposed: dict, *, readings=40, disagreed=4, pairs=None, whole=True):
    """A judge's audit of a pass over `namespace`: 30 proposed cluster pairs (of which
    the judge answered `said_proposed`), 200 near pairs nothing was proposed for;
    `pairs` the audited pairs as kept (by default one row a proposed pair's answer);
    `whole`: whether the pass compared every memory (else it was incremental)."""
    if pairs is None:
        pairs = [
            [0, 0, "clusters", "proposed", [label], None]
            for label, count in said_proposed.items()
            for _ in range(count)
        ]
    decisions.record_audit(
        namespace_id=namespace.pk,
        strata=[
            {
                "kind": "clusters",
                "tier": "proposed",
                "size": 30,
                "exact": 0,
                "said": said_proposed,
                "read": sum(said_proposed.values()),
            },
            {
                "kind": "apart",
                "tier": "",
                "size": 200,
                "exact": 0,
                "said": {"two_facts": 20},
                "read": 20,
            },
        ],
        readings=readings,
        disagreed=disagreed,
        pairs=list(pairs),
        whole=whole,
    )


def test_an_audit_by_the_judge_measures_where_people_labelled_fewer_pairs(
    six, tmp_path, run_command
):
    namespace = six["a1"].namespace
    run_command("import_labels", write_labels(tmp_path, duplicate_groups=[["a1", "a2"]]))
    audit_of(namespace, {"one_fact": 18, "two_facts": 2})

    found = measured()
    proposed = found["clusters"]["proposed"]

    # 20 pairs audited against 1 labelled: the judge's figure, corrected for its error.
    assert (proposed["by"], proposed["pairs"]) == ("judge", 20)
    assert 0.85 < proposed["precision"] <= 1.0
    assert proposed["interval"][0] < proposed["precision"] <= proposed["interval"][1]
    assert 0.0 < found["judge"]["error"] < 0.15 and found["judge"]["pairs"] == 40
    # No conflict was audited or labelled: nothing to say of them.
    assert found["conflicts"]["proposed"]["precision"] is None
    # Only a namespace's newest audit counts.
    audit_of(namespace, {"one_fact": 10, "two_facts": 10})
    assert measured()["clusters"]["proposed"]["precision"] < 0.6


def test_an_incremental_run_s_audit_adds_to_the_whole_pass_s_and_does_not_replace_it(six):
    namespace = six["a1"].namespace
    audit_of(namespace, {"one_fact": 18, "two_facts": 2})
    # The nightly run's few new pairs: all wrong. Alone they would say precision 0.
    audit_of(namespace, {"two_facts": 2}, readings=4, disagreed=0, whole=False)

    proposed = measured()["clusters"]["proposed"]

    # Both counted: the whole pass's 20 pairs and the increment's 2, each its own band.
    assert (proposed["by"], proposed["pairs"]) == ("judge", 22)
    assert 0.5 < proposed["precision"] < 0.95
    assert measured()["judge"]["pairs"] == 44
    # A new whole pass measures the namespace afresh: what came before it no longer counts.
    audit_of(namespace, {"one_fact": 10, "two_facts": 10})
    again = measured()["clusters"]["proposed"]
    assert again["pairs"] == 20 and again["precision"] < 0.6


def test_a_namespace_no_whole_pass_audited_counts_every_audit(six):
    namespace = six["a1"].namespace
    audit_of(namespace, {"one_fact": 9, "two_facts": 1}, whole=False)
    audit_of(namespace, {"one_fact": 9, "two_facts": 1}, whole=False)

    assert measured()["clusters"]["proposed"]["pairs"] == 20


def test_people_s_labels_win_where_they_are_as_many(six, tmp_path, run_command):
    run_command(
        "import_labels",
        write_labels(tmp_path, duplicate_groups=[["a1", "a2"]], hard_negatives=[["b1", "b2"]]),
    )
    audit_of(six["a1"].namespace, {"one_fact": 2})

    proposed = measured()["clusters"]["proposed"]

    assert (proposed["by"], proposed["precision"], proposed["pairs"]) == ("people", 0.5, 2)


def test_the_dashboard_and_find_duplicates_say_what_the_judge_measured(six, client, run_command):
    audit_of(six["a1"].namespace, {"one_fact": 18, "two_facts": 2})
    client.force_login(person("vera", "viewer"))

    content = client.get("/").content.decode()
    said = run_command("find_duplicates").stdout

    assert "No labelled pairs yet" not in content
    assert "LLM judge&#x27;s audit" in content or "LLM judge's audit" in content
    assert "The LLM judge is wrong on 0.0" in content and "40 pairs it read twice" in content
    assert "of 20 pairs audited by the LLM judge" in said
    assert "the LLM judge's error rate: 0.0" in said


def test_the_reliability_chart_reads_the_judge_s_audit_where_it_holds_more_pairs(six):
    a, b = six["a1"].pk, six["a2"].pk
    right = [[a, b, "clusters", "proposed", ["one_fact", "one_fact"], 0.85]] * 9
    wrong = [[a, b, "clusters", "proposed", ["two_facts", "two_facts"], 0.85]]
    unsaid = [[a, b, "apart", "", ["two_facts", "two_facts"], None]]
    audit_of(six["a1"].namespace, {"one_fact": 18, "two_facts": 2}, pairs=right + wrong + unsaid)

    (point,) = reliability()["clusters"]
    error = measured()["judge"]["error"]

    assert (point["low"], point["high"], point["said"], point["pairs"]) == (0.8, 0.9, 0.85, 10)
    # Nine in ten answered right, corrected for the judge's error.
    assert point["measured"] == round(min(1.0, (0.9 - error / 2) / (1 - 1.5 * error)), 3)
    assert reliability()["conflicts"] == []


def test_the_audit_queue_s_recall_weighs_each_band_by_its_size(six):
    curator = person("cleo", "curator")
    # One labelled pair in the proposed clusters (two clusters of one pair each: a band
    # of 2 pairs), one among the near pairs (one a memory: a band of 6).
    decisions.label_pair(memory_ids=(six["a1"].pk, six["a2"].pk), label="one_fact", user=curator)
    decisions.label_pair(memory_ids=(six["c1"].pk, six["c2"].pk), label="one_fact", user=curator)

    proposed = measured()["clusters"]["proposed"]

    # Unweighted it would be 1 of 2; weighed, 2 of the 2 + 6 one-fact pairs the bands hold.
    assert (proposed["recall"], proposed["recall_pairs"]) == (0.25, 2)
    assert proposed["recall_interval"][0] < 0.25 < proposed["recall_interval"][1]
    assert proposed["precision"] == 1.0
