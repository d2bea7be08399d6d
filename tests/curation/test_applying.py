"""Applying a plan: the dry run, the cap on automatic changes, proposing nothing twice."""

import pytest

from memadmin.curation.models import Cluster, Conflict, DedupRun, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, near, unit

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_dry_run_writes_nothing_and_prints_the_plan(run_command, load):
    load(
        line("a", "Prefers tea.", unit(1)),
        line("b", "prefers tea", unit(1)),
        line("c", "Deployed on Hetzner.", unit(2)),
        line("d", "Deployed on Railway.", near(2, 0.95)),
    )
    before = (Memory.objects.filter(status="active").count(), HistoryEvent.objects.count())

    result = run_command("find_duplicates", "--dry-run")

    assert "alice: would collapse a into b" in result.stdout or (
        "alice: would collapse b into a" in result.stdout
    )
    assert "alice: would proposed conflict c / d" in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("dry run: 1 namespace(s)")
    assert (Memory.objects.filter(status="active").count(), HistoryEvent.objects.count()) == before
    assert not DedupRun.objects.exists() and not Cluster.objects.exists()
    assert not Conflict.objects.exists()


def test_max_ops_caps_automatic_changes_and_the_next_run_continues(run_command, load):
    lines = []
    for group in range(4):
        lines += [
            line(f"g{group}-a", f"Fact number {group} here.", unit(group)),
            line(f"g{group}-b", f"fact number {group} here", unit(group)),
        ]
    load(*lines)

    first = run_command("find_duplicates", "--max-ops", "2")

    assert "2 exact collapsed" in first.stdout and "2 deferred by --max-ops" in first.stdout
    assert Memory.objects.filter(status="superseded").count() == 2
    second = run_command("find_duplicates", "--max-ops", "2", "--full")
    assert "2 exact collapsed" in second.stdout
    assert Memory.objects.filter(status="superseded").count() == 4


def test_running_twice_proposes_nothing_new(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
        line("c", "Deployed on Hetzner.", unit(2)),
        line("d", "Deployed on Railway.", near(2, 0.95)),
    )
    run_command("find_duplicates")
    counts = (Cluster.objects.count(), Conflict.objects.count())

    again = run_command("find_duplicates")
    full = run_command("find_duplicates", "--full")

    assert "(0 compared," in again.stdout
    assert "0 clusters opened, 0 grown, 0 conflicts" in full.stdout
    assert (Cluster.objects.count(), Conflict.objects.count()) == counts == (1, 1)
