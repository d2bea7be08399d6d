"""The second, multilingual vector in the store: only multilingual namespaces pay for it,
every write path gives it, and detection reads memories across languages with it."""

import json

import pytest
from django.test import Client

from memadmin.api.models import ApiToken
from memadmin.curation.models import Cluster
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


def test_an_english_only_namespace_pays_nothing_for_the_second_model(load):
    load(line("a", "Prefers tea."), line("b", "Deploys happen on Tuesdays."))

    found = Namespace.objects.get(name="alice")
    assert (found.language, found.multilingual) == ("en", False)
    assert with_vector("alice") == set()


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


def test_an_api_write_in_another_language_is_checked_against_the_namespace(load):
    load(line("ana-en", ANA[0][1], category=""))
    token = ApiToken.issue(namespace=namespace("alice"), name="agent")[1]
    agent = Client(headers={"Authorization": f"Bearer {token}"})

    answer = agent.post(
        "/api/v1/namespaces/alice/memories",
        data=json.dumps({"id": "ana-de", "content": ANA[1][1]}),
        content_type="application/json",
    )

    assert answer.status_code == 201, answer.content
    assert answer.json()["queued_for_review"] is True
    assert Namespace.objects.get(name="alice").multilingual
    # The older memory's vector was computed for the check; the next run stores it.
    assert with_vector("alice") == {"ana-de"}


def test_an_english_api_write_in_an_english_namespace_computes_one_vector(load, monkeypatch):
    load(line("tea", "Prefers tea.", category=""))
    token = ApiToken.issue(namespace=namespace("alice"), name="agent")[1]
    agent = Client(headers={"Authorization": f"Bearer {token}"})

    def never(texts):
        raise AssertionError("the multilingual model ran for an English-only namespace")

    monkeypatch.setattr(multilingual, "encode", never)
    answer = agent.post(
        "/api/v1/namespaces/alice/memories",
        data=json.dumps({"id": "coffee", "content": "Drinks coffee before standup."}),
        content_type="application/json",
    )

    assert answer.status_code == 201
    assert with_vector("alice") == set()
