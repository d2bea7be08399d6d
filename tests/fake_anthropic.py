"""A local stand-in for the Anthropic Messages API: the real SDK talks HTTP to it.

Tests queue answers (or give a function of the request); every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def text_message(text: str, *, model: str = "claude-haiku-5-5") -> dict:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 20},
    }


def tool_message(answer: dict, *, model: str = "claude-haiku-5-5") -> dict:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [
            {"type": "tool_use", "id": "toolu_fake", "name": "record_verdict", "input": answer}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 150, "output_tokens": 40},
    }


def verdict(label: str, kind: str = "none", reasoning: str = "compared both") -> dict:
    return tool_message({"reasoning": reasoning, "label": label, "conflict_kind": kind})


def error(status: int, kind: str = "overloaded_error") -> tuple[int, dict]:
    return status, {"type": "error", "error": {"type": kind, "message": kind}}


class FakeAnthropic:
    def __init__(self):
        self.requests: list[dict] = []
        self.queue: deque = deque()
        self.handler: Callable[[dict, int], object] | None = None
        self.delay = 0.0
        # Headers every answer carries, or a function of the request's number giving them
        # (rate-limit headers, say).
        self.headers: Callable[[int], dict[str, str]] = lambda number: {}
        self.started: list[float] = []  # when each request came in (time.monotonic)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                fake.started.append(time.monotonic())
                if fake.delay:
                    time.sleep(fake.delay)
                answer = (
                    fake.handler(body, len(fake.requests))
                    if fake.handler
                    else (fake.queue.popleft() if fake.queue else error(500, "api_error"))
                )
                status, payload = answer if isinstance(answer, tuple) else (200, answer)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    # Retries come back at once, so tests do not wait for back-off.
                    self.send_header("retry-after-ms", "1")
                    for name, value in fake.headers(len(fake.requests)).items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeAnthropic:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
