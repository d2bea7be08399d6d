"""export_review --format json."""

import json

import pytest

from tests.factories import line, near, unit

pytestmark = pytest.mark.django_db(transaction=True)


def test_export_review_prints_clusters_and_conflicts(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
        line("c", "Deployed on Hetzner.", unit(2)),
        line("d", "Deployed on Railway.", near(2, 0.95), created_at="2026-02-01T00:00:00Z"),
    )
    run_command("find_duplicates")

    exported = json.loads(run_command("export_review", "--format", "json").stdout)

    (cluster,) = exported["clusters"]
    assert (cluster["namespace"], cluster["members"], cluster["status"], cluster["proposal"]) == (
        "alice",
        ["a", "b"],
        "open",
        None,
    )
    assert isinstance(cluster["min_similarity"], float)
    (conflict,) = exported["conflicts"]
    assert {k: conflict[k] for k in ("namespace", "a", "b", "kind", "status")} == {
        "namespace": "alice",
        "a": "c",
        "b": "d",
        # Where a service deploys changes over time: the newer is an update.
        "kind": "update",
        "status": "open",
    }
    # How the model weighed it travels with it: the waterfall's figures, in words.
    stages = conflict["explanation"]["stages"]
    assert [s["question"] for s in stages] == ["the same subject and slot", "they disagree"]
    assert all(bar["words"] and "_" not in bar["words"] for s in stages for bar in s["bars"])
    assert set(cluster["explanation"]["model"]) == {"one", "conflict", "two"}
