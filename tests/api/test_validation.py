"""Hostile agents: every bad field is a 400 naming it, and nothing a refused request sends
is stored; what is stored never breaks the namespace's readers."""

import json

import pytest
from django.test import Client

from memadmin.api.models import ApiToken
from memadmin.curation.models import HistoryEvent
from memadmin.store.models import Memory
from tests.factories import namespace

pytestmark = pytest.mark.django_db
URL = "/api/v1/namespaces/alice/memories"


@pytest.fixture
def agent():
    token = ApiToken.issue(namespace=namespace("alice"), name="agent")[1]
    return Client(headers={"Authorization": f"Bearer {token}"})


def post_raw(agent, raw: bytes):
    return agent.post(URL, data=raw, content_type="application/json")


def stored() -> tuple[int, int]:
    return Memory.objects.count(), HistoryEvent.objects.count()


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ({"content": "x", "created_at": "0001-01-01T00:00:00+05:00"}, "created_at", "1970"),
        ({"content": "x", "created_at": "2026-02-30T00:00:00Z"}, "created_at", "not a real"),
        ({"content": "x", "created_at": "2026-01-01T25:00:00Z"}, "created_at", "hour"),
        ({"content": "x", "created_at": "2026-01-01T00:00:00+24:00"}, "created_at", "offset"),
        ({"content": "nul \u0000"}, "content", "NUL"),
        ({"content": "x", "category": "\u0000"}, "category", "NUL"),
        ({"content": "x", "metadata": {"k\u0000": 1}}, "metadata", "key"),
        ({"content": "x", "tags": ["t" * 101]}, "tags", "at most 100 characters"),
        ({"content": "x", "id": "i" * 201}, "id", "longer than 200"),
        ({"content": "x", "id": "merged-3-4"}, "id", "may not start with merged-"),
        ({"content": "x", "id": "api-0123456789abcdef"}, "id", "may not start with"),
        ({"content": "x", "importance": 1e308}, "importance", "from 0 to 1"),
    ],
)
def test_a_hostile_field_is_a_400_naming_it_and_nothing_is_stored(agent, body, field, reason):
    before = stored()

    response = agent.post(URL, data=json.dumps(body), content_type="application/json")

    assert response.status_code == 400
    assert reason in response.json()["error"]["fields"][field]
    assert stored() == before


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b'{"content": "x", "importance": NaN}', "NaN is not a number"),
        (b'{"content": "x", "metadata": {"a": Infinity}}', "Infinity is not a number"),
        (b'{"content": "x", "confidence": ' + b"1" * 5000 + b"}", "a number of 5000"),
        (b'{"content": "x", "metadata": ' + b"[" * 5_000 + b"]" * 5_000 + b"}", "nested"),
        (b'{"content": "caf\xe9"}', "invalid UTF-8"),
        (b'{"content": "\\ud800"}', None),
    ],
)
def test_a_body_that_is_not_strict_json_is_a_400(agent, raw, reason):
    before = stored()

    response = post_raw(agent, raw)

    assert response.status_code == 400
    error = response.json()["error"]
    assert reason is None or reason in error["message"]
    assert reason is not None or "lone surrogate" in error["fields"]["content"]
    assert stored() == before


def test_a_year_one_date_leaves_the_namespace_readable(agent):
    refused = agent.post(
        URL,
        data=json.dumps({"content": "x", "created_at": "0001-01-01T00:00:00+05:00"}),
        content_type="application/json",
    )
    written = agent.post(
        URL, data=json.dumps({"content": "Alice likes tea."}), content_type="application/json"
    )

    assert (refused.status_code, written.status_code) == (400, 201)
    assert written.json()["check_failed"] is False
    assert agent.get("/api/v1/namespaces/alice/profile").status_code == 200
    assert agent.get(URL, {"q": "tea"}).status_code == 200


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"q": "tea", "k": "9" * 5000}, "k"),
        ({"q": "tea", "k": "0"}, "k"),
        ({"q": "tea", "k": "-3"}, "k"),
        ({"q": "   "}, "q"),
        ({}, "q"),
    ],
)
def test_a_bad_search_parameter_is_a_400_naming_it(agent, query, field):
    response = agent.get(URL, query)

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_a_nul_in_a_query_string_is_a_400_in_json(agent):
    response = agent.get(URL + "?q=te%00a")

    assert response.status_code == 400
    assert "'q' contains a NUL character" in response.json()["error"]["message"]


def test_a_huge_declared_length_is_a_413(agent):
    response = agent.generic(
        "POST", URL, b"{}", content_type="application/json", CONTENT_LENGTH="9" * 40
    )

    assert response.status_code == 413
