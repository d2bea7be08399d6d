"""What a detection pass proposes, through find_duplicates: exact collapses, automatic
merges, guards, conflicts, clusters for review."""

import pytest

from memadmin.curation import decisions
from memadmin.curation.models import Cluster, ClusterStatus, Conflict, HistoryEvent, PairVerdict
from memadmin.store.models import Memory, Namespace
from memadmin.store.text import content_hash
from tests.factories import hosting_change, line, near, status, unit

pytestmark = pytest.mark.django_db(transaction=True)


def test_exact_duplicates_collapse_into_the_most_important_copy(run_command, load):
    load(
        line(
            "a",
            "Prefers Python for data scripts.",
            unit(1),
            session_id="s1",
            importance=0.4,
            tags=["python"],
        ),
        line(
            "b",
            "prefers python for data scripts",
            unit(1),
            session_id="s2",
            importance=0.7,
            tags=["lang"],
            created_at="2026-02-01T00:00:00Z",
        ),
        line("c", "Prefers Python for data scripts!", unit(1), session_id="s3", importance=0.5),
    )

    result = run_command("find_duplicates")

    assert result.error is None
    assert "2 exact collapsed" in result.stdout
    survivor = Memory.objects.get(external_id="b")
    assert (status("a"), status("b"), status("c")) == ("superseded", "active", "superseded")
    assert Memory.objects.get(external_id="a").superseded_by == survivor
    assert sorted(survivor.tags) == ["lang", "python"]
    assert sorted(p["session_id"] for p in survivor.provenance) == ["s1", "s2", "s3"]
    cluster = Cluster.objects.get()
    assert cluster.status == ClusterStatus.AUTO_MERGED
    assert sorted(
        HistoryEvent.objects.filter(cluster=cluster).values_list("action", flat=True)
    ) == ["collapse", "supersede", "supersede"]


def test_an_exact_duplicate_from_another_source_is_only_proposed(run_command, load):
    load(
        line("a", "Logs use structlog.", unit(1), source_ref="ingest"),
        line("b", "Logs use structlog.", unit(1), source_ref="dashboard"),
    )

    run_command("find_duplicates")

    cluster = Cluster.objects.get()
    assert cluster.status == ClusterStatus.OPEN
    assert cluster.flags == ["guard: different source_ref (ingest / dashboard)"]
    assert (status("a"), status("b")) == ("active", "active")


def test_a_protected_exact_duplicate_is_proposed_never_collapsed(run_command, load):
    load(
        line("a", "Never deploy on Fridays.", unit(1), category="constraint"),
        line("b", "Never deploy on Fridays", unit(1), category="constraint"),
    )

    run_command("find_duplicates")

    assert Cluster.objects.get().flags == ["protected"]
    assert (status("a"), status("b")) == ("active", "active")


def test_near_identical_memories_merge_automatically_and_the_merge_undoes(run_command, load):
    load(
        line("a", "The team prefers squash merges into main.", unit(1), tags=["git"]),
        line(
            "b",
            "Team prefers squash merges into main.",
            near(1, 0.97),
            tags=["git", "x"],
            created_at="2026-03-01T00:00:00Z",
            importance=0.6,
        ),
    )

    result = run_command("find_duplicates")

    assert "1 auto-merged" in result.stdout
    cluster = Cluster.objects.get(status=ClusterStatus.AUTO_MERGED)
    assert (status("a"), status("b")) == ("superseded", "active")

    decisions.unmerge(cluster=cluster, actor="test")

    assert (status("a"), status("b")) == ("active", "active")
    assert Memory.objects.get(external_id="b").tags == ["git", "x"]
    assert Cluster.objects.get(pk=cluster.pk).status == ClusterStatus.UNMERGED


def test_a_key_token_difference_opens_a_conflict_and_never_merges(run_command, load):
    load(*hosting_change())

    result = run_command("find_duplicates")

    conflict = Conflict.objects.get()
    assert (conflict.memory_a.external_id, conflict.memory_b.external_id) == ("old", "new")
    assert conflict.kind == "update"  # where a service deploys changes over time
    # The rule's reading first, then what weighed most in the calibrated model.
    assert conflict.reason.startswith("one slot, two values: Hetzner / Railway; weighed most: ")
    assert (status("old"), status("new")) == ("active", "active")
    assert not Cluster.objects.exists()
    assert "1 conflicts" in result.stdout


def test_an_update_is_told_from_a_contradiction(run_command, load):
    load(
        line("old", "The ingest service listens on port 8080.", unit(1)),
        line(
            "new",
            "The ingest service now listens on port 9100.",
            near(1, 0.9),
            created_at="2026-05-01T00:00:00Z",
        ),
    )

    run_command("find_duplicates")

    assert Conflict.objects.get().kind == "update"


def test_the_review_band_opens_a_cluster(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1), tags=["pets"]),
        line("b", "Has a cat called Miso.", near(1, 0.75), tags=["pets"]),
    )

    run_command("find_duplicates")

    cluster = Cluster.objects.get()
    assert cluster.status == ClusterStatus.OPEN
    assert [e["method"] for e in cluster.edges] == ["vector"]
    assert cluster.weakest_link == sorted(Memory.objects.values_list("id", flat=True))


def test_a_memory_its_copies_fold_into_is_still_proposed_with_its_paraphrase(run_command, load):
    # The copies collapse into one memory, and that memory, carrying them, is proposed
    # with the paraphrase in the same run (it was left out until a later pass).
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1), tags=["pets"]),
        line(
            "copy",
            "alice's cat miso is a four-year-old orange tabby",
            unit(1),
            tags=["pets"],
            created_at="2026-01-15T00:00:00Z",
        ),
        line("b", "Has a cat called Miso.", near(1, 0.75), tags=["pets"]),
    )

    result = run_command("find_duplicates")

    assert "1 exact collapsed" in result.stdout
    survivor = Memory.objects.get(status="active", external_id__in=["a", "copy"])
    cluster = Cluster.objects.get(status=ClusterStatus.OPEN)
    assert set(cluster.members.values_list("external_id", flat=True)) == {
        survivor.external_id,
        "b",
    }


@pytest.mark.parametrize(
    "difference",
    [{"category": "config"}, {"source_ref": "elsewhere"}, {"tags": ["session:s-9"]}],
)
def test_guarded_pairs_are_never_proposed(run_command, load, difference):
    load(
        line("a", "Python version is pinned to 3.12 in pyproject.", unit(1)),
        line("b", "Python version pinned to 3.12 in pyproject.", near(1, 0.99), **difference),
    )

    run_command("find_duplicates")

    assert not Cluster.objects.exists()
    assert (status("a"), status("b")) == ("active", "active")


def test_a_pair_people_judged_is_never_proposed_again(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
    )
    low, high = sorted(
        [
            content_hash("Alice's cat Miso is a four-year-old orange tabby."),
            content_hash("Has a cat called Miso."),
        ]
    )
    PairVerdict.objects.create(
        namespace=Namespace.objects.get(), hash_low=low, hash_high=high, verdict="not_duplicate"
    )

    run_command("find_duplicates", "--full")

    assert not Cluster.objects.exists()


def test_a_new_memory_joins_the_open_cluster(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.8)),
    )
    run_command("find_duplicates")

    load(line("c", "Alice has a cat named Miso.", near(1, 0.85, other_seed=5)), name="new.jsonl")
    result = run_command("find_duplicates")

    assert "0 clusters opened, 1 grown" in result.stdout
    cluster = Cluster.objects.get()
    assert sorted(cluster.memberships.values_list("memory__external_id", flat=True)) == [
        "a",
        "b",
        "c",
    ]


def test_chinese_text_is_compared_by_its_words_not_the_english_model(run_command, load):
    # MiniLM scores unrelated Chinese sentences about one person at 0.8-0.95: the vectors
    # below say "near-identical" for all three, and only the lexical layer tells them apart.
    load(
        line("tea", "林悦喜欢喝乌龙茶，不加糖。", unit(1), tags=["drinks"]),
        line("tea-again", "林悦喜欢喝乌龙茶", near(1, 0.9), tags=["drinks"]),
        line("dog", "林悦养了一只柯基，名字叫豆豆。", near(1, 0.93, other_seed=4), tags=["drinks"]),
    )

    run_command("find_duplicates")

    (cluster,) = Cluster.objects.all()
    assert sorted(cluster.memberships.values_list("memory__external_id", flat=True)) == [
        "tea",
        "tea-again",
    ]
    assert [edge["method"] for edge in cluster.edges] == ["lexical"]
    assert not Memory.objects.filter(status="superseded").exists()
