"""Nothing stored can break a reader: the most extreme values the validation layer lets
through are written by every entry point (an import file, an agent's write, a curator's
merged text, an admin's rewrite), then every reader runs: the API's profile and search,
both exports, the batch commands, and every page."""

import json

import pytest
from django.test import Client

from memadmin.api.models import ApiToken
from memadmin.curation.models import Cluster, Conflict
from memadmin.store import validation
from memadmin.store.models import Memory
from tests.factories import EXTREME_NAMESPACE, deep, extreme, near, person, unit

pytestmark = pytest.mark.django_db(transaction=True)

NAMESPACE = EXTREME_NAMESPACE
EDGE_TEXT = "é" * 4095 + "xy"  # 8,192 bytes: the content limit exactly, in 2-byte letters
ODD_TEXT = "<script>alert('x')</script> \u202eRTL\u202c 👩‍👩‍👧 e\u0301 \u200b {{ x }} %s"


@pytest.fixture
def everything(run_command, write_jsonl):
    """Extremes through the import, the API, a curator's accept and an admin's rewrite."""
    lines = [
        extreme("i" * 200, EDGE_TEXT, unit(1)),
        extreme("near", EDGE_TEXT[:-2] + "yx", near(1, 0.9), importance=0.5),
        extreme("old-host", "The billing API is deployed on Hetzner. " + ODD_TEXT, unit(2)),
        extreme(
            "new-host",
            "The billing API is deployed on Railway. " + ODD_TEXT,
            near(2, 0.97),
            created_at="2026-01-01T00:00:00Z",
        ),
    ]
    imported = run_command("import_memories", str(write_jsonl(lines)))
    assert imported.error is None, imported.stderr
    token = ApiToken.issue(namespace=Memory.objects.first().namespace, name="a" * 100)[1]
    agent = Client(headers={"Authorization": f"Bearer {token}"})
    api = f"/api/v1/namespaces/{NAMESPACE}/memories"
    body = {
        "id": "z" * 200,
        "content": "€" * 2730 + "xy",  # 8,192 bytes in 3-byte letters
        "created_at": "9999-12-31T23:59:59.999999Z",
        "metadata": deep(validation.MAX_DEPTH),
        "tags": ["t" * 100],
        "importance": 0.0,
        "confidence": 1.0,
    }
    written = agent.post(api, data=json.dumps(body), content_type="application/json")
    assert written.status_code == 201, written.content
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None
    pages = Client()
    pages.force_login(person("ada", "admin"))
    cluster = Cluster.objects.get(status="open")
    accepted = pages.post(f"/clusters/{cluster.pk}/accept", {"text": "ß" * 4096})
    assert accepted.status_code == 302 and Memory.objects.filter(content="ß" * 4096).exists()
    conflict = Conflict.objects.get()
    rewritten = pages.post(
        f"/conflicts/{conflict.pk}/resolve",
        {"resolution": "rewritten", "text": ODD_TEXT + "ä" * 4000},
    )
    assert rewritten.status_code == 302
    assert Memory.objects.filter(external_id__startswith="rewritten-").exists()
    return agent, pages


def test_every_reader_reads_the_extremes_back(everything, run_command):
    agent, pages = everything
    base = f"/api/v1/namespaces/{NAMESPACE}"

    profile = agent.get(f"{base}/profile")
    search = agent.get(f"{base}/memories", {"q": EDGE_TEXT, "k": "100"})
    exported = run_command("export_memories", "--with-embeddings")
    review = run_command("export_review", "--format", "json")
    runs = [run_command(name, "--full") for name in ("find_duplicates",)] + [
        run_command("propose_merges"),
        run_command("decay_memories"),
    ]

    assert (profile.status_code, search.status_code) == (200, 200)
    assert {m["content"] for m in profile.json()["memories"]} >= {"ß" * 4096}
    assert exported.error is None and len(exported.stdout.splitlines()) == Memory.objects.count()
    assert review.error is None and json.loads(review.stdout)["clusters"]
    assert [r.error for r in runs] == [None, None, None]
    urls = [
        "/",
        "/clusters/",
        "/clusters/?status=accepted",
        *(f"/clusters/{pk}/" for pk in Cluster.objects.values_list("pk", flat=True)),
        "/conflicts/",
        "/conflicts/?status=resolved",
        *(f"/conflicts/{pk}/" for pk in Conflict.objects.values_list("pk", flat=True)),
        f"/memories/?namespace={NAMESPACE}&q=%C3%A9",
        f"/memories/?namespace={NAMESPACE}&mode=semantic&q=billing",
        *(f"/memories/{pk}/" for pk in Memory.objects.values_list("pk", flat=True)),
        "/history/",
        "/tokens/",
    ]
    for url in urls:
        response = pages.get(url)
        assert response.status_code == 200, url
        assert b"<script>alert" not in response.content, url  # escaped, never run
