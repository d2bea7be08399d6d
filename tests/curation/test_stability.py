"""Curation is stable: an undone automatic merge stays undone, a second run on an
unchanged namespace does nothing, deferred work is picked up, merges never chain."""

import pytest

from memadmin.curation import decisions
from memadmin.curation.models import Cluster, ClusterStatus, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, near, status, unit

pytestmark = pytest.mark.django_db(transaction=True)


def changes() -> tuple[int, int, int]:
    """What a run could have written: clusters, history events, active memories."""
    return (
        Cluster.objects.count(),
        HistoryEvent.objects.count(),
        Memory.objects.filter(status="active").count(),
    )


@pytest.mark.parametrize(
    ("second", "kind"),
    [
        (lambda: line("b", "Prefers tea in the morning", unit(1)), "collapse"),
        (lambda: line("b", "Prefers tea in the mornings.", near(1, 0.97)), "merge"),
    ],
)
@pytest.mark.parametrize("rerun", [(), ("--full",)])
def test_an_undone_automatic_fold_is_never_redone(run_command, load, second, kind, rerun):
    load(line("a", "Prefers tea in the morning.", unit(1)), second())
    run_command("find_duplicates")
    (fold,) = Cluster.objects.filter(status=ClusterStatus.AUTO_MERGED)
    assert fold.flags == [kind]

    decisions.unmerge(cluster=fold, actor="test")
    before = changes()
    result = run_command("find_duplicates", *rerun)

    assert "0 exact collapsed, 0 auto-merged, 0 clusters opened" in result.stdout
    assert (status("a"), status("b")) == ("active", "active")
    assert changes() == before


def test_a_second_run_on_an_unchanged_namespace_proposes_and_merges_nothing(run_command, load):
    load(
        line("a", "Prefers tea in the morning.", unit(1)),
        line("b", "Prefers tea in the mornings.", near(1, 0.97), importance=0.7),
        line("c", "Her cat Miso is an orange tabby.", unit(2), tags=["pets"]),
        line("d", "Her cat Miso is a tabby.", near(2, 0.92), tags=["pets"]),
        line("e", "The billing API is deployed on Hetzner.", unit(3)),
        line("f", "The billing API is deployed on Railway.", near(3, 0.97)),
    )
    first = run_command("find_duplicates")
    assert "1 auto-merged, 1 clusters opened" in first.stdout
    before = changes()

    for rerun in ((), ("--full",)):
        result = run_command("find_duplicates", *rerun)

        assert (
            "0 exact collapsed, 0 auto-merged, 0 clusters opened, 0 grown, 0 conflicts; "
            "possible apart: 0 clusters, 0 conflicts"
        ) in result.stdout
    assert changes()[:2] == (before[0], before[1])


def test_work_deferred_by_max_ops_is_done_by_the_next_run_and_then_nothing(run_command, load):
    load(*(line(f"g{n}-{copy}", f"Fact number {n}.", unit(n)) for n in range(3) for copy in "ab"))

    assert "1 exact collapsed" in run_command("find_duplicates", "--max-ops", "1").stdout
    assert "2 exact collapsed" in run_command("find_duplicates").stdout
    assert "0 exact collapsed" in run_command("find_duplicates").stdout
    assert Memory.objects.filter(status="active").count() == 3


def test_a_survivor_is_not_folded_into_a_memory_it_did_not_absorb(run_command, load):
    # s took a; b is near-identical to s but not to a (0.94): folding s into b would
    # chain a -> s -> b, a merge of a and b no run ever judged. (Every word matches, so
    # only the cosines decide: automatic at 0.95 and more.)
    load(
        line("s", "Backups run nightly at the Lyon site.", unit(1), importance=0.6),
        line("a", "Backups run nightly at Lyon site.", near(1, 0.97, other_seed=2)),
    )
    run_command("find_duplicates")
    assert status("a") == "superseded"
    load(
        line(
            "b",
            "Backups are run nightly at the Lyon site.",
            near(1, 0.97, other_seed=3),
            importance=0.9,
            created_at="2026-03-01T00:00:00Z",
        ),
        name="b.jsonl",
    )

    result = run_command("find_duplicates")

    assert "0 auto-merged, 1 clusters opened" in result.stdout
    assert (status("s"), status("b")) == ("active", "active")
    held = Cluster.objects.get(status=ClusterStatus.OPEN)
    assert held.flags == ["held back: an earlier automatic merge differs"]
    assert not Memory.objects.filter(superseded_by__status="superseded").exists()
