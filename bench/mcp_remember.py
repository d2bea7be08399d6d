"""`remember` over MCP Streamable HTTP, with 100,000 memories in the namespace.

    .venv/bin/python bench/mcp_remember.py [--size 100000] [--calls 500] [--reuse]

Loads the namespace as bench/api_write.py does (the model's own vectors, cached under
var/bench; --reuse keeps a namespace already loaded), starts
`uvicorn memadmin.asgi:application` on 127.0.0.1, and calls `remember` `--calls` times
with new memories through the official SDK client, one session, one call at a time.
Prints p50/p99 per call, measured by the client, including the embedding (target p99
<= 100 ms), and beside it the same writes through the JSON API of the same server, so
the ratio says what MCP costs over a plain POST. Uses var/bench unless DATABASE_URL is set.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("MEMADMIN_DATA_DIR", str(ROOT / "var" / "bench"))
os.environ.setdefault("MEMADMIN_LOG_LEVEL", "WARNING")

from api_write import NAMESPACE, new_texts, percentile, prepared_namespace  # noqa: E402


def serve() -> tuple[subprocess.Popen, str]:
    """uvicorn with the whole app, against the bench database."""
    from django.db import connection

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    found = connection.settings_dict
    url = (
        f"postgresql://{found['USER']}:{found['PASSWORD']}@/{found['NAME']}?host={found['HOST']}"
        if found["HOST"].startswith("/")
        else f"postgresql://{found['USER']}:{found['PASSWORD']}@{found['HOST']}:"
        f"{found['PORT'] or 5432}/{found['NAME']}"
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "memadmin.asgi:application", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(240):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.5)
    return server, f"http://127.0.0.1:{port}"


def over_mcp(base: str, token: str, texts: list[str]) -> tuple[list[float], dict]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def session() -> tuple[list[float], dict]:
        headers = {"Authorization": f"Bearer {token}"}
        url = f"{base}/mcp/{NAMESPACE}/"
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            for text in texts[:20]:  # warm up: the model, connections
                await client.call_tool("remember", {"content": text})
            latencies, actions = [], {}
            for done, text in enumerate(texts[20:], 1):
                started = time.perf_counter()
                result = await client.call_tool("remember", {"content": text})
                latencies.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result.content
                action = result.structured_content["action"]
                actions[action] = actions.get(action, 0) + 1
                if done % 100 == 0:
                    print(f"  {done} calls", file=sys.stderr, flush=True)
            return latencies, actions

    return asyncio.run(session())


def over_json_api(base: str, token: str, texts: list[str]) -> list[float]:
    url = f"{base}/api/v1/namespaces/{NAMESPACE}/memories"
    latencies = []
    for text in texts:
        request = urllib.request.Request(
            url,
            data=json.dumps({"content": text}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status in (200, 201)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--reuse", action="store_true", help="keep the loaded namespace")
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from memadmin.api.models import ApiToken
    from memadmin.store.models import Memory

    namespace = prepared_namespace(args.size, reuse=args.reuse)
    print(f"namespace {NAMESPACE}: {Memory.objects.filter(namespace=namespace).count():,} memories")
    token = ApiToken.issue(namespace=namespace, name="bench-mcp")[1]
    server, base = serve()
    try:
        texts = new_texts(args.calls + 20, seed=int(time.time()))
        mcp_latencies, actions = over_mcp(base, token, texts)
        api_latencies = over_json_api(base, token, new_texts(args.calls, seed=int(time.time()) + 7))
    finally:
        server.terminate()
        server.wait(timeout=30)
    mcp_p50, api_p50 = statistics.median(mcp_latencies), statistics.median(api_latencies)
    print(f"{args.calls} remember calls over MCP Streamable HTTP, one session ({actions}):")
    print(
        f"  per call incl. embedding: p50 {mcp_p50:.1f} ms, "
        f"p99 {percentile(mcp_latencies, 0.99):.1f} ms (target p99 <= 100 ms)"
    )
    print(
        f"  the same writes as JSON API POSTs to the same server: p50 {api_p50:.1f} ms, "
        f"p99 {percentile(api_latencies, 0.99):.1f} ms; MCP / API at p50: "
        f"{mcp_p50 / api_p50:.2f}x"
    )


if __name__ == "__main__":
    main()
