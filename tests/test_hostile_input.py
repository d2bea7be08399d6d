"""Property-based: whatever a file, an agent or a browser sends, no traceback, no 500, and
a refused input changes nothing. Fixed seed (derandomize) and bounded examples, so every
run of `make test` tries the same cases in a few seconds each."""

import json
from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memadmin.api.models import ApiToken
from memadmin.curation.models import Cluster, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, namespace, near, person, unit

pytestmark = pytest.mark.django_db

FUZZ = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Values the validation layer must refuse cleanly, or keep readable.
HOSTILE_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            " ",
            "\x00",
            "a\x00b",
            "\ud800",
            "x\udfff",
            "é" * 4097,
            "0001-01-01T00:00:00+05:00",
            "2026-02-30T00:00:00Z",
            "2026-01-01T25:00:00Z",
            "2026-01-01T00:00:00+24:00",
            "9999-12-31T23:59:59-01:00",
            "9" * 5000,
            "1e999",
            "NaN",
            "-Infinity",
            "<script>alert(1)</script>",
            "alice\n",
            "merged-1-2",
            "../../etc/passwd",
            "%00",
            "\u202e",
        ]
    ),
)
HOSTILE_NUMBER = st.one_of(
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2**31, -1, 10**40, 1e308, 5e-324, -0.0, True]),
)
HOSTILE_VALUE = st.recursive(
    st.none() | st.booleans() | HOSTILE_NUMBER | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HOSTILE_TEXT, inner, max_size=3),
    max_leaves=6,
)
FIELDS = [
    "id",
    "content",
    "namespace",
    "created_at",
    "last_accessed_at",
    "valid_until",
    "category",
    "tags",
    "source_ref",
    "session_id",
    "importance",
    "confidence",
    "metadata",
    "provenance",
    "embedding",
    "access_count",
    "pinned",
    "status",
    "superseded_by",
]
HOSTILE_LINE = st.dictionaries(st.sampled_from(FIELDS), HOSTILE_VALUE, max_size=6).map(
    lambda fields: {"id": "x", "namespace": "alice", "content": "A fact.", **fields}
)
DEEP = st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n)


def dump(value) -> bytes:
    """JSON text as a sloppy client writes it: NaN and lone surrogates included."""
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


def with_query(path: str, query: dict) -> str:
    """`path` and its query string, as raw bytes go on the wire (a lone surrogate becomes
    the invalid UTF-8 it is)."""
    return f"{path}?{urlencode(query, encoding='utf-8', errors='surrogatepass')}"


def state() -> tuple[int, int]:
    return Memory.objects.count(), HistoryEvent.objects.count()


@settings(FUZZ, max_examples=80)
@given(
    lines=st.lists(
        st.one_of(HOSTILE_LINE.map(dump), st.binary(max_size=60), DEEP.map(str.encode)),
        min_size=1,
        max_size=3,
    ),
    csv=st.booleans(),
)
def test_no_import_file_crashes_or_half_imports(run_command, tmp_path_factory, lines, csv):
    path = tmp_path_factory.mktemp("import") / ("memories.csv" if csv else "memories.jsonl")
    if csv:
        path.write_bytes(b"id,content,namespace,created_at,tags,metadata\n" + b"\n".join(lines))
    else:
        path.write_bytes(b"\n".join(lines) + b"\n")
    before = state()

    result = run_command("import_memories", str(path))

    if result.error is not None:
        assert "nothing imported" in str(result.error) or "line" in str(result.error)
        assert f"{path}: line " in result.stderr
        assert state() == before


@pytest.fixture
def agent():
    token = ApiToken.issue(namespace=namespace("alice"), name="agent")[1]
    return Client(headers={"Authorization": f"Bearer {token}"})


@settings(FUZZ, max_examples=120)
@given(body=st.one_of(HOSTILE_LINE.map(lambda fields: {**fields, "id": "y"}), HOSTILE_VALUE))
def test_no_api_body_causes_a_server_error_and_a_refusal_changes_nothing(agent, body):
    before = state()

    response = agent.post(
        "/api/v1/namespaces/alice/memories", data=dump(body), content_type="application/json"
    )

    assert response.status_code in (200, 201, 400, 409, 413)
    assert response.json()["error" if response.status_code >= 400 else "action"]
    if response.status_code >= 400:
        assert state() == before


@settings(FUZZ, max_examples=60)
@given(raw=st.one_of(st.binary(max_size=200), DEEP.map(str.encode)))
def test_no_raw_body_causes_a_server_error(agent, raw):
    response = agent.post(
        "/api/v1/namespaces/alice/memories", data=raw, content_type="application/json"
    )

    assert response.status_code in (200, 201, 400, 409, 413)


@settings(FUZZ, max_examples=60)
@given(q=HOSTILE_TEXT, k=HOSTILE_TEXT)
def test_no_search_query_causes_a_server_error(agent, q, k):
    response = agent.get(with_query("/api/v1/namespaces/alice/memories", {"q": q, "k": k}))

    assert response.status_code in (200, 400, 413)


PAGES = [
    "/",
    "/clusters/",
    "/conflicts/",
    "/memories/",
    "/history/",
    "/tokens/",
    "/clusters/batch/",
    "/clusters/selected",
    "/conflicts/selected",
    "/sources/",
]
PAGE_PARAMETERS = [
    "namespace",
    "status",
    "min_similarity",
    "max_similarity",
    "size",
    "category",
    "protected",
    "method",
    "sort",
    "page",
    "q",
    "mode",
    "action",
    "actor",
    "since",
    "until",
    "kind",
    "tier",
    "min_confidence",
    "group",
    "all",
    "from",
    "selected",
    "diff",
]


@pytest.fixture
def admin_pages(load, run_command):
    load(
        line("a", "Her cat Miso is an orange tabby.", unit(1), tags=["pets"]),
        line("b", "Has a cat called Miso.", near(1, 0.8), tags=["pets"]),
    )
    run_command("find_duplicates")
    client = Client()
    client.force_login(person("ada", "admin"))
    return client


@settings(FUZZ, max_examples=150)
@given(
    page=st.sampled_from(PAGES),
    query=st.dictionaries(st.sampled_from(PAGE_PARAMETERS), HOSTILE_TEXT, max_size=4),
    htmx=st.booleans(),
)
def test_no_page_query_string_causes_a_server_error(admin_pages, page, query, htmx):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    if query.get("mode") == "semantic" or "q" in query:
        query.setdefault("namespace", "alice")

    response = admin_pages.get(with_query(page, query), **headers)

    # 302: a bulk page with nothing to act on goes back to its queue, saying why.
    assert response.status_code in (200, 302, 400)


@settings(FUZZ, max_examples=60)
@given(
    form=st.dictionaries(
        st.sampled_from(
            ["text", "resolution", "scope_note", "next", "namespace", "name", "action", "ticked"]
        ),
        HOSTILE_TEXT,
        max_size=3,
    )
)
def test_no_form_causes_a_server_error_and_a_refusal_changes_nothing(admin_pages, form):
    cluster = Cluster.objects.filter(status="open").first()
    before = state()
    targets = ["/tokens/", "/clusters/accept-exact", "/clusters/batch/decide"]
    if cluster is not None:
        targets.append(f"/clusters/{cluster.pk}/dismiss")
        form = {**form, f"text-{cluster.pk}": form.get("text", "")}

    for target in targets:
        body = urlencode(form, encoding="utf-8", errors="surrogatepass")
        response = admin_pages.post(target, body, content_type="application/x-www-form-urlencoded")
        assert response.status_code in (200, 302, 400), target
        if response.status_code == 400:
            assert state() == before
