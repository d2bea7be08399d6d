"""The MCP server, reached with the SDK's own client: over Streamable HTTP against a live
`uvicorn memadmin.asgi:application`, and over stdio against `manage.py mcp_server`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request

import httpx2
import pytest
from django.conf import settings
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memadmin.api.models import ApiToken
from memadmin.curation.models import Conflict, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import hosting_change, line, namespace, person, store
from tests.processes import environment, free_port, wait_for_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def asgi_server():
    """`uvicorn memadmin.asgi:application` against the test database (the database is
    named per process by pytest-django: the URL is read when the first test runs)."""
    server = {}

    def start():
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "memadmin.asgi:application", "--port", str(port)],
            cwd=settings.BASE_DIR,
            env=environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(port, process)
        server.update(process=process, url=f"http://127.0.0.1:{port}")
        return server["url"]

    yield lambda: server.get("url") or start()
    if "process" in server:
        server["process"].terminate()
        server["process"].wait(timeout=30)


@pytest.fixture
def alice(run_command, write_jsonl):
    """Namespace alice with a token, a memory (embedded by the model) and an open
    conflict."""
    lines = [line("tea", "Prefers green tea in the morning.")]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    store(*hosting_change("host-old", "host-new", seed=2))
    from memadmin.curation import decisions

    old, new = (
        Memory.objects.get(external_id="host-old"),
        Memory.objects.get(external_id="host-new"),
    )
    decisions.open_conflict(
        older=old, newer=new, kind="contradiction", reason="host", differing_tokens=[]
    )
    return ApiToken.issue(namespace=namespace("alice"), name="agent")[1]


def over_http(url: str, token: str, calls: list[tuple[str, dict]], path: str = "/mcp/alice/"):
    """Each (tool, arguments) called in one client session; the results, in order."""

    async def session():
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url + path, http_client=http)) as client,
        ):
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(session())


def over_stdio(calls: list[tuple[str, dict]], namespace_name: str = "alice"):
    async def session():
        parameters = StdioServerParameters(
            command=sys.executable,
            args=["manage.py", "mcp_server", "--namespace", namespace_name],
            env=environment(),
            cwd=str(settings.BASE_DIR),
        )
        async with Client(parameters) as client:
            listed = await client.list_tools()
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return listed, results

    return asyncio.run(session())


def error_text(result) -> str:
    assert result.is_error, result
    return " ".join(part.text for part in result.content)


def test_every_tool_over_streamable_http(asgi_server, alice):
    url = asgi_server()
    rows = Memory.objects.count()

    first, again, found, loaded = over_http(
        url,
        alice,
        [
            ("remember", {"content": "Works from Lisbon on Fridays.", "tags": ["work"]}),
            ("remember", {"content": "Works from Lisbon on Fridays.", "tags": ["work"]}),
            ("recall", {"query": "which tea does she like", "k": 3}),
            ("profile", {}),
        ],
    )

    assert first.structured_content["action"] == "inserted"
    assert first.structured_content["id"].startswith("api-")
    assert again.structured_content["action"] == "duplicate"  # answered, nothing added
    assert again.structured_content["id"] == first.structured_content["id"]
    assert Memory.objects.count() == rows + 1
    assert found.structured_content["results"][0]["memory"]["id"] == "tea"  # a paraphrase
    conflicts = loaded.structured_content["conflicts"]
    assert [(c["a"]["id"], c["b"]["id"]) for c in conflicts] == [("host-old", "host-new")]
    # The history names the token the agent used (the write, then the repeat's provenance).
    assert set(HistoryEvent.objects.filter(actor="mcp:agent").values_list("action", flat=True)) == {
        "write"
    }


def test_forget_retires_the_memory_with_history_and_people_can_restore_it(
    asgi_server, alice, client
):
    url = asgi_server()

    forgotten, loaded, unknown = over_http(
        url,
        alice,
        [
            ("forget", {"id": "tea", "reason": "the user asked"}),
            ("profile", {}),
            ("forget", {"id": "nothing-like-it", "reason": "x"}),
        ],
    )

    assert forgotten.structured_content == {"id": "tea", "status": "deleted", "restorable": True}
    assert "tea" not in [m["id"] for m in loaded.structured_content["memories"]]
    assert "no memory with id 'nothing-like-it'" in error_text(unknown)
    event = HistoryEvent.objects.get(action="forget")
    assert (event.actor, event.reason, event.before["status"]) == (
        "mcp:agent",
        "the user asked",
        "active",
    )
    client.force_login(person("cu", "curator"))
    assert "Undo forget of tea" in client.get("/history/").content.decode()
    client.post(f"/history/undo/{event.pk}")
    assert Memory.objects.get(external_id="tea").status == "active"


def test_a_pinned_memory_is_not_forgotten(asgi_server, alice):
    Memory.objects.filter(external_id="tea").update(pinned=True)

    (refused,) = over_http(asgi_server(), alice, [("forget", {"id": "tea", "reason": "x"})])

    assert "pinned" in error_text(refused)
    assert Memory.objects.get(external_id="tea").status == "active"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"content": "bad\x00byte"}, "content"),
        ({"content": "x" * 9000}, "content"),
        ({"content": "ok", "importance": 1e308}, "importance"),
        ({"content": "ok", "confidence": -1}, "confidence"),
        ({"content": "ok", "tags": [[[["deep"]]]]}, "tags"),
        ({"content": "ok", "session_id": "s" * 100_000}, "session_id"),
        ({"content": 12345678901234567890123456789}, "content"),
        ({"content": "ok", "importnace": 0.9}, "importnace"),  # misspelt: not dropped
    ],
)
def test_hostile_arguments_are_tool_errors_naming_the_field(asgi_server, alice, arguments, field):
    rows = Memory.objects.count()

    refused, still = over_http(
        asgi_server(), alice, [("remember", arguments), ("recall", {"query": "tea"})]
    )

    assert field in error_text(refused)
    assert not still.is_error  # the server goes on serving
    assert Memory.objects.count() == rows


@pytest.mark.parametrize(
    ("arguments", "field"),
    [({"query": "tea", "k": 10**30}, "k"), ({"query": "\x00"}, "query"), ({"query": ""}, "q")],
)
def test_hostile_recall_arguments_are_tool_errors(asgi_server, alice, arguments, field):
    (refused,) = over_http(asgi_server(), alice, [("recall", arguments)])

    assert field in error_text(refused)


def test_deeply_nested_json_is_refused_without_a_crash(asgi_server, alice):
    url = asgi_server()
    deep = "[" * 100_000 + "]" * 100_000
    body = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember",'
        '"arguments":{"content":"x","tags":' + deep + "}}}"
    )

    status, _ = post(url + "/mcp/alice/", body.encode(), alice)
    (after,) = over_http(url, alice, [("recall", {"query": "tea"})])

    assert status < 500
    assert not after.is_error


def test_a_lone_surrogate_is_refused_as_unparsable_and_stores_nothing(asgi_server, alice):
    rows = Memory.objects.count()
    body = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember",'
        '"arguments":{"content":"x","tags":["\\ud800"]}}}'
    )

    status, answer = post(asgi_server() + "/mcp/alice/", body.encode(), alice)

    assert (status, answer["error"]["code"]) == (400, -32700)  # JSON-RPC parse error
    assert Memory.objects.count() == rows


def post(url: str, body: bytes, token: str | None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, {}
    except urllib.error.HTTPError as answer:
        raw = answer.read()
        return answer.code, json.loads(raw) if raw.startswith(b"{") else {}


def test_the_http_endpoint_needs_the_namespace_s_own_token(asgi_server, alice):
    url = asgi_server()
    bob_token = ApiToken.issue(namespace=namespace("bob"), name="bob-agent")[1]
    hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()

    missing = post(url + "/mcp/alice/", hello, None)
    wrong = post(url + "/mcp/alice/", hello, "not-a-token")
    other = post(url + "/mcp/alice/", hello, bob_token)
    bare = post(url + "/mcp/", hello, alice)

    assert missing[0] == 401 and "missing bearer token" in missing[1]["error"]["message"]
    assert wrong[0] == 401
    assert other[0] == 403 and "'bob'" in other[1]["error"]["message"]
    assert bare[0] == 404
    with pytest.raises(Exception):  # noqa: B017 - the SDK's client refuses to go on
        over_http(url, bob_token, [("profile", {})])


def test_every_tool_over_stdio(alice):
    listed, (first, again, found, loaded, forgotten, bad) = over_stdio(
        [
            ("remember", {"content": "Works from Lisbon on Fridays."}),
            ("remember", {"content": "Works from Lisbon on Fridays."}),
            ("recall", {"query": "which tea does she like"}),
            ("profile", {}),
            ("forget", {"id": "tea", "reason": "outdated"}),
            ("remember", {"content": "nul\x00"}),
        ]
    )

    assert {tool.name for tool in listed.tools} == {"remember", "recall", "profile", "forget"}
    remember = next(tool for tool in listed.tools if tool.name == "remember")
    assert remember.input_schema["required"] == ["content"]
    assert remember.input_schema["additionalProperties"] is False
    assert (first.structured_content["action"], again.structured_content["action"]) == (
        "inserted",
        "duplicate",
    )
    assert found.structured_content["results"][0]["memory"]["id"] == "tea"
    assert len(loaded.structured_content["conflicts"]) == 1
    assert forgotten.structured_content["status"] == "deleted"
    assert "content" in error_text(bad)
    actions = set(HistoryEvent.objects.filter(actor="mcp:stdio").values_list("action", flat=True))
    assert actions == {"write", "forget"}


def test_the_stdio_server_refuses_an_unknown_namespace():
    from tests.processes import manage

    answer = manage("mcp_server", "--namespace", "nobody")

    assert answer.returncode == 1 and "no namespace 'nobody'" in answer.stderr
    assert Conflict.objects.count() == 0


def test_booleans_and_numeric_strings_are_not_numbers(asgi_server, alice):
    url = asgi_server()
    rows = Memory.objects.count()

    results = over_http(
        url,
        alice,
        [
            ("remember", {"content": "Likes rooibos.", "importance": True}),
            ("remember", {"content": "Likes rooibos.", "confidence": "0.5"}),
            ("recall", {"query": "tea", "k": True}),
            ("remember", {"content": "Likes rooibos.", "importance": 1}),
        ],
    )

    for refused in results[:3]:
        assert "valid" in error_text(refused).lower()
    assert not results[3].is_error  # a whole number is a number
    assert Memory.objects.count() == rows + 1
