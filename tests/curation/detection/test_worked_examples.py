"""The seeds' own worked examples, end to end with no LLM: imported (the model embeds
them), find_duplicates, and what a person would then see."""

import pytest

from memadmin.curation.models import Cluster, Conflict
from memadmin.store.models import Memory
from tests.factories import line

pytestmark = pytest.mark.django_db


def clusters_of(namespace: str) -> list[set[str]]:
    return [
        {m.memory.external_id for m in cluster.memberships.all()}
        for cluster in Cluster.objects.filter(namespace__name=namespace).prefetch_related(
            "memberships__memory"
        )
    ]


def together(clusters: list[set[str]], *ids: str) -> bool:
    return any(set(ids) <= cluster for cluster in clusters)


def test_adr_004_paraphrases_are_proposed_and_two_tastes_are_not(load, run_command):
    load(
        line("home-1", "I live in Paris"),
        line("home-2", "My home is in Paris, France"),
        line("lang-1", "I prefer Python"),
        line("lang-2", "Python is my favorite language"),
        line("taste-1", "Likes coffee"),
        line("taste-2", "Enjoys croissants"),
    )

    assert run_command("find_duplicates").error is None

    clusters = clusters_of("alice")
    assert together(clusters, "home-1", "home-2")
    assert together(clusters, "lang-1", "lang-2")
    assert not any({"taste-1", "taste-2"} & cluster for cluster in clusters)


def test_robotmem_episode_keeps_the_cup_pair_and_nothing_else_together(load, run_command):
    load(
        line("cups", "grip_force=12.5N works for cups", namespace="arm"),
        line("cylinders", "12.5N grip force optimal for cylinders", namespace="arm"),
        line("cup-grasp", "force 12.5N best for cup grasping", namespace="arm"),
        line("red", "red objects need 15N force", namespace="arm"),
        line(
            "rule",
            "always calibrate before grasping",
            namespace="arm",
            category="constraint",
            confidence=0.95,
        ),
    )

    assert run_command("find_duplicates").error is None

    clusters = clusters_of("arm")
    assert together(clusters, "cups", "cup-grasp")
    assert not any("red" in cluster for cluster in clusters)
    assert not any("rule" in cluster for cluster in clusters)
    # A proposal at most: nothing is merged without a person.
    assert Memory.objects.filter(namespace__name="arm", status="active").count() == 5


def test_cems_hosting_change_is_a_conflict_never_a_cluster(load, run_command):
    load(
        line("hetzner", "deployed CEMS to Coolify on Hetzner", namespace="cems"),
        line(
            "railway",
            "deployed CEMS to Coolify on Railway",
            namespace="cems",
            created_at="2026-03-01T00:00:00Z",
        ),
    )

    assert run_command("find_duplicates").error is None

    conflict = Conflict.objects.get()
    assert {conflict.memory_a.external_id, conflict.memory_b.external_id} == {
        "hetzner",
        "railway",
    }
    assert clusters_of("cems") == []


def test_issue_125_one_message_extracted_in_four_sessions_is_one_memory(load, run_command):
    text = "User wants commit messages in the imperative mood, under 72 characters."
    load(
        *(
            line(
                f"extract-{n}",
                text,
                session_id=f"session-{n}",
                created_at=f"2026-01-0{n}T09:00:00Z",
            )
            for n in range(1, 5)
        )
    )

    assert run_command("find_duplicates").error is None

    survivor = Memory.objects.get(status="active")
    assert survivor.content == text
    assert sorted(entry["session_id"] for entry in survivor.provenance) == [
        f"session-{n}" for n in range(1, 5)
    ]
    assert Memory.objects.filter(status="superseded", superseded_by=survivor).count() == 3
