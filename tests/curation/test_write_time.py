"""Write-time dedup under concurrent writers: one row per id, nothing lost."""

import json
import threading
from collections import Counter

import pytest
from django.db import connection
from django.test import Client

from memadmin.api.models import ApiToken
from memadmin.store.models import Memory
from tests.factories import namespace

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/api/v1/namespaces/alice/memories"
BASE = "The nightly backup of the billing database runs on the staging server."
# Each is near-identical to BASE (cosine 0.95-0.99 with all-MiniLM-L6-v2): alone, each
# would replace BASE at write time.
NEAR = [
    "The nightly backups of the billing database run on the staging server.",
    "The nightly backup of the billing DB runs on the staging server.",
    "Nightly backup of the billing database runs on the staging server.",
    "The nightly backup of the billing database is run on the staging server.",
    "The nightly backup for the billing database runs on the staging server.",
    "The billing database nightly backup runs on the staging server.",
    "The nightly backup of the billing database runs on the staging server too.",
    "The nightly backup of our billing database runs on the staging server.",
]


@pytest.fixture
def token():
    return ApiToken.issue(namespace=namespace("alice"), name="agent")[1]


def post_all(token, bodies):
    """POST every body at once, one thread each; the answers in the bodies' order."""
    answers = [None] * len(bodies)
    start = threading.Barrier(len(bodies))

    def client_posts(position, body):
        client = Client(headers={"Authorization": f"Bearer {token}"})
        start.wait()
        answers[position] = client.post(URL, data=json.dumps(body), content_type="application/json")
        connection.close()

    threads = [threading.Thread(target=client_posts, args=item) for item in enumerate(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.parametrize("same_text", [True, False])
def test_sixteen_posts_of_one_new_id_give_one_201_and_409s(token, same_text):
    bodies = [
        {"id": "m-1", "content": "Deploys happen on Tuesdays." if same_text else f"Fact {n}."}
        for n in range(16)
    ]

    answers = post_all(token, bodies)

    assert Counter(a.status_code for a in answers) == {201: 1, 409: 15}
    assert {a.json()["error"]["message"] for a in answers if a.status_code == 409} == {
        "id 'm-1' already exists in alice"
    }
    assert Memory.objects.filter(external_id="m-1").count() == 1


def test_eight_near_identical_posts_at_once_lose_nothing(token):
    Client(headers={"Authorization": f"Bearer {token}"}).post(
        URL, data=json.dumps({"id": "base", "content": BASE}), content_type="application/json"
    )

    answers = post_all(token, [{"id": f"n{i}", "content": text} for i, text in enumerate(NEAR)])

    assert sorted({a.status_code for a in answers}) == [201]
    stored = set(Memory.objects.values_list("external_id", flat=True))
    assert stored == {"base", *(f"n{i}" for i in range(8))}
    # Exactly one of them replaced BASE; the others are stored as they were sent (a
    # neighbour that another writer had folded meanwhile is not acted on).
    assert Memory.objects.get(external_id="base").status == "superseded"
    assert Counter(a.json()["action"] for a in answers)["replaced"] >= 1
