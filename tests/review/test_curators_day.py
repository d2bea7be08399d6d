"""A curator's day replayed through the pages (Django's client), on a namespace of short
memories written more than once from several sources and sessions: the copies offered in
bulk and taken back with one undo, one conflict per pair of texts, settlements that
never leave a conflict between identical texts or on an inactive memory."""

import random
import re

import pytest
from django.test import Client

from memadmin.curation import reviews
from memadmin.curation.models import Cluster, Conflict
from tests.factories import person

pytestmark = pytest.mark.django_db

PEOPLE = ["Ines A.", "Ines D.", "Tomas", "the user", "Priya K.", "the ops team"]
THINGS = [
    ("lives in", ["Lyon", "Porto", "Osaka", "Leeds"]),
    ("works on", ["the billing API", "the search index", "the mobile app"]),
    ("drinks", ["green tea", "black coffee", "oat latte"]),
    ("deploys to", ["Fly.io", "Hetzner", "Azure"]),
    ("meets the team on", ["Monday", "Thursday", "Friday"]),
]


def day_lines(facts: int = 90, copies: int = 70, seed: int = 4) -> list[dict]:
    """`facts` short memories (a person, a slot, a value: two values of one slot are a
    conflict), `copies` of them written again from the agent or in another session."""
    rng = random.Random(seed)
    every = [f"{p} {verb} {value}." for p in PEOPLE for verb, values in THINGS for value in values]
    texts = rng.sample(every, facts)
    lines = []
    for index, text in enumerate(texts):
        day = f"2026-{1 + index % 9:02d}-{1 + index % 27:02d}T10:00:00Z"
        lines.append({"id": f"c{index}", "namespace": "day", "content": text,
                      "created_at": day, "source_ref": "chat", "session_id": "s1"})  # fmt: skip
    for number, index in enumerate(rng.sample(range(len(texts)), copies)):
        other = (
            {"source_ref": "agent"} if number % 3 else {"session_id": "s2", "source_ref": "chat"}
        )
        lines.append({"id": f"a{index}", "namespace": "day", "content": texts[index],
                      "created_at": "2026-11-01T10:00:00Z", **other})  # fmt: skip
    return lines


@pytest.fixture
def day(run_command, write_jsonl):
    assert run_command("import_memories", str(write_jsonl(day_lines()))).error is None
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None


def open_pairs_of_texts() -> tuple[int, int]:
    """(open conflicts, distinct pairs of texts among them)."""
    found = Conflict.objects.filter(status="open").values_list(
        "memory_a__content_hash", "memory_b__content_hash"
    )
    return len(found), len({frozenset(pair) for pair in found})


def test_a_curators_day_on_copies_from_several_sources(day, client):
    carla = person("carla", "curator")
    client.force_login(carla)
    # Every cluster of one text that differs only in source or session is offered in bulk.
    copies = [
        c
        for c in Cluster.objects.filter(status="open")
        if len({m.memory.content_hash for m in c.memberships.select_related("memory")}) == 1
    ]
    assert len(copies) >= 40  # the copies from the agent (other sessions collapse on their own)
    preview = client.get("/clusters/accept-exact").content.decode()
    offered = set(map(int, re.findall(r'name="selected" value="(\d+)" checked', preview)))
    assert {c.pk for c in copies} <= offered
    # One conflict per pair of texts in the queue and its counts.
    conflicts, pairs = open_pairs_of_texts()
    assert pairs and conflicts <= 1.05 * pairs
    # Accepted in bulk, taken back with one undo, accepted again.
    fields = {"selected": sorted(offered)} | dict(re.findall(
        r'<input type="hidden" name="(version-\d+)" value="([^"]*)"', preview))  # fmt: skip
    landed = client.post("/clusters/accept-exact", fields, follow=True).content.decode()
    assert Cluster.objects.filter(pk__in=offered, status="accepted").count() == len(offered)
    undo = re.search(r'action="(/history/unmerge-many\?clusters=[\d,]+)"', landed).group(1)
    client.post(undo.replace("&amp;", "&"))
    assert Cluster.objects.filter(pk__in=offered, status="open").count() == len(offered)
    # The preview drawn again (what the undo changed shows as it is now), and accepted.
    again = client.get("/clusters/accept-exact").content.decode()
    assert offered == set(map(int, re.findall(r'name="selected" value="(\d+)" checked', again)))
    versions = re.findall(r'<input type="hidden" name="(version-\d+)" value="([^"]*)"', again)
    client.post("/clusters/accept-exact", {"selected": sorted(offered)} | dict(versions))
    assert not Cluster.objects.filter(pk__in=offered, status="open").exists()


def test_forty_settlements_leave_no_conflict_between_identical_texts(day, client):
    ada = person("ada", "admin")
    client.force_login(ada)
    settled = 0
    while settled < 40:
        conflict = Conflict.objects.filter(status="open").order_by("-confidence", "pk").first()
        if conflict is None:
            break
        page = client.get(f"/conflicts/{conflict.pk}/").content.decode()
        seen = re.search(r'name="seen" value="([^"]*)"', page).group(1)
        client.post(f"/conflicts/{conflict.pk}/resolve",
                    {"resolution": "b_supersedes_a", "seen": seen})  # fmt: skip
        assert Conflict.objects.get(pk=conflict.pk).status != "open"
        settled += 1
        for left in Conflict.objects.filter(status="open").select_related("memory_a", "memory_b"):
            a, b = left.memory_a, left.memory_b
            assert a.content_hash != b.content_hash, (left.pk, a.content, b.content)
            assert a.status == b.status == "active", (left.pk, a.status, b.status)
            assert left.reason, left.pk
    assert settled >= 20


def test_a_refused_curator_is_told_who_decided_first(day):
    cluster = Cluster.objects.filter(status="open").first()
    carla, ada = Client(), Client()
    carla.force_login(person("carla", "curator"))
    ada.force_login(person("ada", "admin"))
    forms = [c.get(f"/clusters/{cluster.pk}/").content.decode() for c in (carla, ada)]
    posted = [
        dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page))
        for page in forms
    ]
    carla.post(f"/clusters/{cluster.pk}/accept", posted[0])
    refused = ada.post(f"/clusters/{cluster.pk}/accept", posted[1], follow=True)

    assert re.search(r"carla accepted this cluster[^<]* at \d\d:\d\d", refused.content.decode())
    assert Cluster.objects.get(pk=cluster.pk).status == "accepted"


def test_a_bulk_settlement_undone_at_once_leaves_every_conflict_as_it_was(run_command, write_jsonl):
    """Settlements overtake each other's copies in any order; undone (the last first),
    every conflict is back as detection left it, the oldest of two texts the one open."""
    lines = day_lines(facts=30, copies=24)
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    ada = person("ada", "admin")
    before = set(Conflict.objects.values_list("pk", "status", "copy_of"))
    ticked = [pk for pk, status, _ in before if status == "open"]

    settled = reviews.settle_many(ticked, "b_supersedes_a", ada)
    # One text's copies from two sources each conflict with a third text (a cluster's
    # members share their conflicts), the copies on either side of it in time: a
    # settlement may overtake a later one, which is left alone and says why.
    assert settled.done
    assert all("was left alone: this conflict was overtaken" in r for r in settled.refused)
    assert Conflict.objects.filter(status="overtaken").exists()  # they overtook others
    undone = reviews.undo_settlements(settled.done, ada)

    assert undone.refused == [] and sorted(undone.done) == sorted(settled.done)
    assert set(Conflict.objects.values_list("pk", "status", "copy_of")) == before
