"""The lost-fact check where it is shown: on the text a page offers, saved or not, after
a member changes, and on every row of the queue; propose_merges writes every open
cluster's proposal unless told a limit."""

import pytest

from memadmin.curation import decisions
from memadmin.curation.models import MergeProposal
from tests.factories import cluster, line, person, store, unit

pytestmark = pytest.mark.django_db


def two_people() -> list:
    return store(
        line("mia", "Mia T. prefers SMS.", unit(1), created_at="2026-01-01T00:00:00Z"),
        line("leo", "Leo P. wants replies by SMS.", unit(2), created_at="2026-01-02T00:00:00Z"),
        line("mia2", "Mia T. likes SMS.", unit(3), created_at="2026-01-03T00:00:00Z"),
    )


def test_an_unsaved_rule_proposal_shows_what_it_may_drop_on_the_page_and_the_queue(client):
    mia, leo, mia2 = two_people()
    opened = cluster(mia, leo, mia2)
    carla = person("carla", "curator")
    client.force_login(carla)
    assert not MergeProposal.objects.exists()

    page = client.get(f"/clusters/{opened.pk}/").content.decode()
    assert "rule, not saved yet" in page
    assert "may drop: name: " in page
    queue = client.get(f"/clusters/?tier={opened.tier}").content.decode()
    assert "may drop: name: " in queue

    # After a member changes the check runs again on what the page now offers.
    decisions.exclude_member(cluster=opened, memory_id=leo.pk, user=carla)
    page = client.get(f"/clusters/{opened.pk}/").content.decode()
    offered = "Mia T. likes SMS." if "Mia T. likes SMS." in page else "Mia T. prefers SMS."
    assert offered in page
    assert "may drop: name: Leo" not in page


def test_propose_merges_writes_every_open_clusters_proposal_by_default(run_command):
    for number in range(3):
        first, second = store(
            line(f"a{number}", f"Fact number {number}.", unit(10 + number)),
            line(f"b{number}", f"Fact number {number} again.", unit(20 + number)),
        )
        cluster(first, second)

    assert run_command("propose_merges", "--limit", "1").error is None
    assert MergeProposal.objects.count() == 1
    result = run_command("propose_merges")
    assert result.error is None
    assert MergeProposal.objects.count() == 3
    assert result.stdout.startswith("proposed 2 merges")
