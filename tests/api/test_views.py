"""The agent API: write-time dedup, profile, search, tokens, validation."""

import json
import threading

import jsonschema
import pytest
from django.db import connection
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from memadmin.api.models import ApiToken
from memadmin.api.openapi import DOCUMENT
from memadmin.curation.models import Cluster, Conflict, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, namespace, person
from tests.fake_anthropic import text_message

pytestmark = pytest.mark.django_db
URL = "/api/v1/namespaces/alice/memories"


@pytest.fixture
def alice():
    return namespace("alice")


@pytest.fixture
def token(alice):
    return ApiToken.issue(namespace=alice, name="agent")[1]


@pytest.fixture
def agent(token):
    return Client(headers={"Authorization": f"Bearer {token}"})


@pytest.fixture
def stored(run_command, write_jsonl, alice):
    def store(*contents, **fields):
        # API writes have no category unless given: the stored ones neither.
        lines = [
            line(f"m{i}", text, **{"category": "", **fields}) for i, text in enumerate(contents)
        ]
        assert run_command("import_memories", str(write_jsonl(lines))).error is None

    return store


def conforms(response, schema_name):
    """The response body matches the OpenAPI document's schema."""
    jsonschema.validate(
        response.json(),
        {"$ref": f"#/components/schemas/{schema_name}", "components": DOCUMENT["components"]},
    )
    return True


def post(agent, body, url=URL):
    return agent.post(url, data=json.dumps(body), content_type="application/json")


def test_an_exact_repeat_adds_no_row_and_updates_provenance(agent, stored):
    stored("Prefers Python for data scripts.", confidence=0.6)

    response = post(
        agent,
        {"content": "prefers python for data scripts", "session_id": "s-9", "confidence": 0.9},
    )

    assert response.status_code == 200 and conforms(response, "WriteResult")
    assert response.json()["action"] == "duplicate"
    memory = Memory.objects.get()
    assert memory.confidence == 0.9
    assert memory.provenance[-1]["session_id"] == "s-9"


def test_a_near_identical_memory_replaces_the_older_one_undoably(agent, stored):
    stored("The team prefers squash merges into main.")

    response = post(agent, {"content": "The team prefers squash-merges into main."})

    assert response.status_code == 201 and conforms(response, "WriteResult")
    body = response.json()
    assert body["action"] == "replaced"
    assert Memory.objects.get(external_id="m0").status == "superseded"
    assert Memory.objects.get(external_id=body["memory"]["id"]).status == "active"
    assert Cluster.objects.get().status == "auto_merged"  # what an unmerge undoes


def test_a_proposed_pair_is_queued_without_an_llm(agent, stored):
    stored("Prefers dark mode.")

    body = post(agent, {"content": "Prefers dark mode in every app."}).json()

    assert (body["action"], body["queued_for_review"]) == ("inserted", True)
    cluster = Cluster.objects.get()
    assert (cluster.status, cluster.tier) == ("open", "proposed")
    assert cluster.confidence >= 0.8
    assert Memory.objects.filter(status="active").count() == 2


def test_a_sure_pair_is_merged_by_the_llm_when_configured(agent, stored, fake_llm):
    # One fact with detail added, that the calibrated model is as sure of as an
    # automatic merge needs: the LLM writes the merged text and it is accepted.
    stored("Prefers dark mode.")
    fake_llm.queue.append(text_message("Prefers dark mode in every app."))

    response = post(agent, {"content": "Prefers dark mode in every app."})

    body = response.json()
    assert body["action"] == "merged" and conforms(response, "WriteResult")
    assert body["memory"]["content"] == "Prefers dark mode in every app."
    assert Memory.objects.filter(status="superseded").count() == 2  # both originals kept
    assert HistoryEvent.objects.filter(action="merge").exists()


def test_a_doubtful_pair_is_left_to_the_next_run_even_with_an_llm(agent, stored, fake_llm):
    # The model is not sure these are one fact (detail on each side): an LLM merge would
    # be a merge nobody reviewed. The pair is listed as similar, nothing is opened, the
    # LLM is not called: the next find_duplicates run ranks it with the other doubtful
    # pairs of the namespace.
    stored("Alice's cat Miso is a four-year-old orange tabby.")

    body = post(agent, {"content": "Alice's cat Miso sleeps on the sofa."}).json()

    assert (body["action"], body["queued_for_review"]) == ("inserted", False)
    assert [s["id"] for s in body["similar"]] == ["m0"]
    assert not Cluster.objects.exists()
    assert fake_llm.requests == []


def test_a_key_token_difference_inserts_and_opens_a_conflict(agent, stored):
    stored("The billing API is deployed on Hetzner.")

    body = post(agent, {"content": "The billing API is deployed on Railway."}).json()

    assert body["action"] == "inserted"
    conflict = Conflict.objects.get()
    assert body["conflict_id"] == conflict.pk and body["conflict_ids"] == [conflict.pk]
    assert (conflict.memory_a.external_id, conflict.memory_b.content) == (
        "m0",
        "The billing API is deployed on Railway.",
    )


def test_a_write_opens_a_conflict_with_every_copy_of_the_old_fact(agent, stored):
    # The same fact stored twice (two sources wrote it) and said once more in other
    # words: the move contradicts each of them, not only the nearest. The copy's conflict
    # stands behind the first (one decision settles both).
    stored(
        "The billing API is deployed on Hetzner.",
        "The billing API is deployed on Hetzner.",
        "The billing API runs on Hetzner.",
    )

    response = post(agent, {"content": "The billing API is deployed on Railway."})

    body = response.json()
    assert conforms(response, "WriteResult")
    conflicts = {c.pk: c for c in Conflict.objects.all()}
    assert sorted(body["conflict_ids"]) == sorted(conflicts) and len(conflicts) == 3
    assert body["conflict_id"] == body["conflict_ids"][0]
    assert {c.memory_a.external_id for c in conflicts.values()} == {"m0", "m1", "m2"}
    assert sorted(c.status for c in conflicts.values()) == ["copy", "open", "open"]


def test_a_write_both_repeats_one_memory_and_contradicts_another(agent, stored):
    # The nearest neighbour says the new fact in other words (a merge for review), a
    # farther one the old value: both are acted on.
    stored("The billing API is deployed on Hetzner.", "Our billing API now runs on Railway.")

    body = post(agent, {"content": "The billing API is deployed on Railway."}).json()

    assert body["queued_for_review"] and body["conflict_ids"]
    members = Cluster.objects.get().memberships.values_list("memory__external_id", flat=True)
    assert "m1" in set(members)
    conflict = Conflict.objects.get(pk=body["conflict_id"])
    assert conflict.memory_a.external_id == "m0"


def test_an_unrelated_memory_is_inserted_with_its_similar_neighbours(agent, stored):
    stored("Alice likes hiking in the Alps.")

    response = post(agent, {"content": "Alice prefers dark mode in every editor.", "id": "dm"})

    body = response.json()
    assert (response.status_code, body["action"], body["memory"]["id"]) == (201, "inserted", "dm")
    assert [s["id"] for s in body["similar"]] == ["m0"]
    assert 0 < body["similar"][0]["similarity"] < 0.95
    assert "check;dur=" in response["Server-Timing"]


def test_a_known_id_is_refused(agent, stored):
    stored("Alice likes hiking in the Alps.")

    response = post(agent, {"content": "Something else entirely.", "id": "m0"})

    assert response.status_code == 409 and conforms(response, "Error")


def test_if_the_check_fails_the_memory_is_stored_anyway(agent, stored, settings):
    stored("Alice likes hiking in the Alps.")
    settings.API_NEIGHBOURS = 5000  # beyond pgvector's ef_search range: the query fails

    body = post(agent, {"content": "Alice likes hiking in the Dolomites."}).json()

    assert (body["action"], body["check_failed"]) == ("inserted", True)
    assert Memory.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_eight_clients_posting_the_same_text_leave_one_active_row(token, alice):
    answers = []

    def client_posts():
        client = Client(headers={"Authorization": f"Bearer {token}"})
        answers.append(post(client, {"content": "Deploys happen on Tuesdays."}).json()["action"])
        connection.close()

    threads = [threading.Thread(target=client_posts) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert Memory.objects.filter(status="active").count() == 1
    assert sorted(answers) == ["duplicate"] * 7 + ["inserted"]


def test_the_profile_lists_active_memories_without_duplicates_and_open_conflicts(agent, stored):
    stored("The billing API is deployed on Hetzner.", "Prefers dark mode.")
    post(agent, {"content": "The billing API is deployed on Railway."})
    post(agent, {"content": "Prefers dark mode in every app.", "confidence": 0.3})

    response = agent.get("/api/v1/namespaces/alice/profile")

    assert response.status_code == 200 and conforms(response, "Profile")
    body = response.json()
    contents = [m["content"] for m in body["memories"]]
    assert "Prefers dark mode in every app." not in contents  # a duplicate awaiting review
    assert len(contents) == 3
    (conflict,) = body["conflicts"]
    assert (conflict["a"]["content"], conflict["b"]["content"]) == (
        "The billing API is deployed on Hetzner.",
        "The billing API is deployed on Railway.",
    )


def test_search_returns_the_nearest_active_memories(agent, stored):
    stored("Alice likes hiking in the Alps.", "The billing API is deployed on Hetzner.")

    response = agent.get(URL, {"q": "mountain walks", "k": "1"})

    assert response.status_code == 200 and conforms(response, "SearchResult")
    assert [r["memory"]["id"] for r in response.json()["results"]] == ["m0"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"Authorization": "Bearer mem_wrong"}, 401), ({"Authorization": "Basic x"}, 401)],
)
def test_requests_without_a_valid_token_are_refused(alice, headers, status):
    response = Client(headers=headers).get(URL, {"q": "x"})

    assert response.status_code == status and conforms(response, "Error")


def test_a_token_of_another_namespace_is_forbidden(alice):
    bob_token = ApiToken.issue(namespace=namespace("bob"), name="b")[1]

    response = Client(headers={"Authorization": f"Bearer {bob_token}"}).get(URL, {"q": "x"})

    assert response.status_code == 403
    assert response.json()["error"]["message"] == "this token is for namespace 'bob'"


def test_a_revoked_token_is_refused(agent, token):
    ApiToken.objects.update(revoked_at="2026-01-01T00:00:00Z")

    assert agent.get(URL, {"q": "x"}).status_code == 401


def test_a_logged_in_session_cannot_call_the_api(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(person("sam", None))

    response = post(client, {"content": "Sneaky write."})

    assert response.status_code == 401
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"content": ""}, {"content": "must be a non-empty string"}),
        ({}, {"content": "required"}),
        (
            {"content": "ok", "importance": 2, "tags": "x", "colour": "red"},
            {
                "importance": "must be a number from 0 to 1, not 2",
                "tags": "must be a list of non-empty strings",
                "colour": "unknown field",
            },
        ),
        (
            {"content": "ok", "created_at": "soon"},
            {"created_at": "must be an ISO 8601 date-time, not 'soon'"},
        ),
        ([1, 2], {"body": "must be a JSON object"}),
    ],
)
def test_bad_fields_are_each_named(agent, alice, body, fields):
    response = post(agent, body)

    assert response.status_code == 400 and conforms(response, "Error")
    assert response.json()["error"]["fields"] == fields
    assert not Memory.objects.exists()


def test_a_body_that_is_not_json_is_refused(agent, alice):
    response = agent.post(URL, data="{nope", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("the body is not usable: invalid JSON")


def test_content_over_8_kb_and_bodies_over_64_kb_are_too_large(agent, alice):
    assert post(agent, {"content": "x" * 8193}).status_code == 413
    big = post(agent, {"content": "ok", "metadata": {"blob": "y" * 70000}})
    assert big.status_code == 413 and conforms(big, "Error")


def test_other_methods_are_refused_in_json(agent, alice):
    response = agent.delete(URL)

    assert (response.status_code, response["Allow"]) == (405, "GET, POST")
    assert conforms(response, "Error")


def test_the_openapi_document_describes_every_endpoint(client):
    document = client.get("/api/v1/openapi.json").json()

    assert set(document["paths"]) == {
        "/namespaces/{namespace}/memories",
        "/namespaces/{namespace}/profile",
    }
    statuses = set(document["paths"]["/namespaces/{namespace}/memories"]["post"]["responses"])
    assert statuses == {"200", "201", "400", "401", "403", "405", "409", "413"}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["content", "tags", "importance", "id", "x", "metadata", "created_at", "confidence"]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=10,
)


@hypothesis_settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=json_values)
def test_no_body_ever_causes_a_server_error(agent, alice, body):
    response = post(agent, body)

    assert response.status_code in (200, 201, 400, 409, 413)
    assert conforms(response, "WriteResult" if response.status_code < 300 else "Error")


@hypothesis_settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=st.binary(max_size=200))
def test_no_raw_bytes_ever_cause_a_server_error(agent, alice, raw):
    response = agent.post(URL, data=raw, content_type="application/json")

    assert response.status_code in (200, 201, 400, 409, 413)
