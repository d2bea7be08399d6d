"""The second, multilingual vector in the store: every memory of a multilingual namespace
and short memories anywhere get it (long memories in one language never pay for it),
every write path gives it, and detection reads memories across languages and short
paraphrases with it."""

import json

import pytest
from django.test import Client

from memadmin.api.models import ApiToken
from memadmin.curation.models import Cluster, DedupRun
from memadmin.store import multilingual
from memadmin.store.models import Memory, Namespace
from tests.factories import line, namespace

pytestmark = pytest.mark.django_db

ANA = [
    ("en", "Ana works remotely from Lisbon."),
    ("de", "Ana arbeitet remote aus Lissabon."),
    ("fr", "Ana travaille à distance depuis Lisbonne."),
]


def with_vector(name: str) -> set[str]:
    return set(
        Memory.objects.filter(
            namespace__name=name,
            embedding_multi__isnull=False,
            embedding_multi_model=multilingual.MODEL_ID,
        ).values_list("external_id", flat=True)
    )


LONG = "Deploys of the billing service happen on Tuesdays after the standup meeting."
VEGAN = [("vegan", "I'm vegan."), ("plants", "Eats a plant-based diet.")]
# Short memories of one user that say other things (MiniLM and e5 keep them apart).
OTHERS = [
    ("run", "Runs 5 km every Saturday."),
    ("cat", "Has a cat called Biscuit."),
    ("denver", "Lives in Denver."),
    ("mac", "Works on a MacBook Air."),
]


def test_long_memories_in_one_language_pay_nothing_for_the_second_model(load):
    load(line("long", LONG), line("tea", "Prefers green tea in the morning."))

    found = Namespace.objects.get(name="alice")
    assert (found.language, found.multilingual) == ("en", False)
    # Short memories (store.text.short) get it in any namespace; long ones do not.
    assert with_vector("alice") == {"tea"}


def test_find_duplicates_finds_a_short_paraphrase_through_the_second_model(load, run_command):
    """ "I'm vegan" / "Eats a plant-based diet": no word in common, MiniLM 0.33 (below the
    vector layer's floor); the multilingual model places them together (0.87)."""
    load(*(line(key, text) for key, text in VEGAN + OTHERS))

    assert run_command("find_duplicates").error is None

    cluster = Cluster.objects.get()
    assert {m.memory.external_id for m in cluster.memberships.all()} == {"vegan", "plants"}
    assert [edge["method"] for edge in cluster.edges] == ["multilingual"]


def test_an_incremental_run_finds_it_in_the_database_too(load, run_command):
    load(*(line(key, text) for key, text in VEGAN[:1] + OTHERS))
    assert run_command("find_duplicates").error is None
    assert not Cluster.objects.exists()

    load(line(*VEGAN[1]), name="later.jsonl")
    assert run_command("find_duplicates").error is None

    assert DedupRun.objects.latest("pk").parameters["route"] == "database"  # read narrow
    cluster = Cluster.objects.get()
    assert {m.memory.external_id for m in cluster.memberships.all()} == {"vegan", "plants"}


def test_short_memories_stored_before_this_version_get_the_vector_from_the_next_run(
    load, run_command
):
    load(*(line(key, text) for key, text in VEGAN), line("long", LONG))
    Memory.objects.update(embedding_multi=None, embedding_multi_model="")

    assert run_command("find_duplicates").error is None

    assert with_vector("alice") == {"vegan", "plants"}
    assert Cluster.objects.get().edges[0]["method"] == "multilingual"


def test_a_second_language_gives_every_memory_of_the_namespace_the_vector(load):
    load(line("tea", "Prefers tea."), line("ana-en", ANA[0][1]))
    load(line("ana-de", ANA[1][1]), name="later.jsonl")

    assert Namespace.objects.get(name="alice").multilingual
    # The memories stored before the namespace turned multilingual got it too.
    assert with_vector("alice") == {"tea", "ana-en", "ana-de"}


def test_find_duplicates_proposes_one_fact_written_in_three_languages(load, run_command):
    load(*(line(f"ana-{code}", text) for code, text in ANA), line("tea", "Prefers green tea."))

    assert run_command("find_duplicates").error is None

    cluster = Cluster.objects.get()
    assert {m.memory.external_id for m in cluster.memberships.all()} == {
        "ana-en",
        "ana-de",
        "ana-fr",
    }
    assert any(edge["method"] == "multilingual" for edge in cluster.edges)


def test_memories_stored_before_this_version_get_the_vector_from_the_next_run(load, run_command):
    load(*(line(f"ana-{code}", text) for code, text in ANA))
    Memory.objects.update(embedding_multi=None, embedding_multi_model="")
    Namespace.objects.update(multilingual=False, language="")

    assert run_command("find_duplicates", "--dry-run").error is None
    assert with_vector("alice") == set()  # a dry run stores nothing...
    assert run_command("find_duplicates").error is None
    assert with_vector("alice") == {"ana-en", "ana-de", "ana-fr"}  # ...a run does
    assert Namespace.objects.get(name="alice").multilingual


def test_embed_memories_backfills_the_multilingual_vector(load, run_command):
    load(*(line(f"ana-{code}", text) for code, text in ANA))
    Memory.objects.update(embedding_multi=None, embedding_multi_model="")

    result = run_command("embed_memories")

    assert f"embedded 3 memories of alice with {multilingual.MODEL_ID}" in result.stdout
    assert with_vector("alice") == {"ana-en", "ana-de", "ana-fr"}


def agent_writes(external_id: str, content: str):
    """An agent's POST of one memory to alice through the API."""
    token = ApiToken.issue(namespace=namespace("alice"), name="agent")[1]
    agent = Client(headers={"Authorization": f"Bearer {token}"})
    return agent.post(
        "/api/v1/namespaces/alice/memories",
        data=json.dumps({"id": external_id, "content": content}),
        content_type="application/json",
    )


def test_an_api_write_in_another_language_is_checked_against_the_namespace(load):
    load(line("ana-en", ANA[0][1], category=""))
    Memory.objects.update(embedding_multi=None, embedding_multi_model="")  # stored before

    answer = agent_writes("ana-de", ANA[1][1])

    assert answer.status_code == 201, answer.content
    # Found across the languages: a sure pair opens a cluster for review at once, a
    # doubtful one is listed for the next run to rank with the others (which of the two
    # is the fitted model's say). Either way it is found, never passed over.
    if answer.json()["queued_for_review"]:
        members = Cluster.objects.get().members.values_list("external_id", flat=True)
        assert set(members) == {"ana-en", "ana-de"}
    else:
        assert [similar["id"] for similar in answer.json()["similar"]] == ["ana-en"]
    assert Namespace.objects.get(name="alice").multilingual
    # The older memory's vector was computed for the check; the next run stores it.
    assert with_vector("alice") == {"ana-de"}


def test_a_long_api_write_in_an_english_namespace_computes_one_vector(load, monkeypatch):
    load(line("long", LONG, category=""))

    def never(texts):
        raise AssertionError("the multilingual model ran for an English-only namespace")

    monkeypatch.setattr(multilingual, "encode", never)
    answer = agent_writes(
        "coffee", "Drinks a double espresso before the daily standup meeting of the platform team."
    )

    assert answer.status_code == 201
    assert with_vector("alice") == set()


def test_a_short_api_write_is_checked_with_the_second_model_too(load):
    load(*(line(key, text, category="") for key, text in VEGAN[:1] + OTHERS))

    answer = agent_writes(*VEGAN[1])

    assert answer.status_code == 201, answer.content
    assert "vegan" in [similar["id"] for similar in answer.json()["similar"]]
    assert not Namespace.objects.get(name="alice").multilingual
    assert "plants" in with_vector("alice")
