"""An oracle judge: a local server speaking the Anthropic Messages and Message Batches APIs
that answers memadmin's verdict prompts from a labelled set's labels, wrong a seeded
share of the time. The real `anthropic` SDK talks to it (ANTHROPIC_BASE_URL), so the
LLM path is measured exactly as it runs, with a judge whose quality is known.

    with Oracle(rows, labels, error_rate=0.15, seed=7) as oracle:
        os.environ["ANTHROPIC_BASE_URL"] = oracle.url
        ...

The pair's two texts are read back from the prompt; their label is "duplicate" when
some two memories with those texts (of one namespace) are in one duplicate group,
"conflict" (with its kind) when labelled so, else "related_distinct". With the error
rate e, a pair's answer is, with probability e, one of the two other labels (chosen by
a generator seeded from the seed and the prompt's two texts in their order: the same
question gets the same answer every time, as a cached verdict would, and a second reading
that shows the newer memory first is wrong or right on its own; so is each presentation:
a pair in a group, in a call of several second readings, in an audit). With
`correlated`, the generator is seeded from the pair alone: both readings are wrong
together, the worst case for reading twice (a real model's errors on the two orders are
somewhere between).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LABELS = ("duplicate", "conflict", "related_distinct")
_WHEN = r"\(\d{4}-\d\d-\d\d \d\d:\d\d(?: \[[^\]]*\])?\) "
_PAIR = re.compile(
    rf"Older memory: {_WHEN}(?P<older>.*)\nNewer memory: {_WHEN}(?P<newer>.*)\Z", re.DOTALL
)
_PAIR_NEWER_FIRST = re.compile(
    rf"Newer memory: {_WHEN}(?P<newer>.*)\nOlder memory: {_WHEN}(?P<older>.*)\Z", re.DOTALL
)
_GROUP = re.compile(
    rf"\AAnchor: {_WHEN}(?P<anchor>.*?)\n\nMemories to compare with the anchor:\n(?P<rest>.*)\Z",
    re.DOTALL,
)
_NUMBERED = re.compile(rf"(?:\A|\n)\d+\. {_WHEN}")
# An audit's pairs (prompts.audit_prompt): each text a JSON string on its line.
_AUDIT = re.compile(r"\APairs to judge:\n")
_AUDIT_PAIR = re.compile(r"^(\d+)\. A: (.*)\n   B: (.*)$", re.MULTILINE)
# Second readings of several pairs (prompts.recheck_prompt): each the newer first, dated.
_RECHECK = re.compile(r"\APairs to read again:\n")
_RECHECK_PAIR = re.compile(
    rf"^(\d+)\. Newer: {_WHEN}(.*?)\n   Older: {_WHEN}(.*?)(?=\n\d+\. Newer: |\Z)",
    re.MULTILINE | re.DOTALL,
)
# First readings of several pairs (prompts.pairs_prompt): each the older first, dated.
_PAIRS = re.compile(r"\APairs to compare:\n")
_PAIRS_PAIR = re.compile(
    rf"^(\d+)\. Older: {_WHEN}(.*?)\n   Newer: {_WHEN}(.*?)(?=\n\d+\. Older: |\Z)",
    re.MULTILINE | re.DOTALL,
)
# About four characters a token, as the API counts English text.
_CHARS_A_TOKEN = 4


class Oracle:
    """The server (a context manager: started on enter, stopped on exit). `asked` holds
    every pair of texts it was asked about; `batch_polls` how many looks a batch takes
    before it ends."""

    def __init__(
        self,
        rows: list[dict],
        labels: dict,
        *,
        error_rate: float,
        seed: int = 7,
        correlated: bool = False,
    ):
        self.error_rate, self.seed, self.correlated = error_rate, seed, correlated
        self.asked: list[tuple[str, str, bool]] = []  # (older, newer, newer shown first)
        self.grouped = 0  # how many of `asked` came in a group (anchor, candidate, False)
        self.audited: list[tuple[str, str]] = []  # pairs an audit asked about (A, B)
        self.calls = 0  # messages answered (a group's call answers several pairs)
        self.recheck_calls = 0  # calls of several second readings (prompts.recheck_prompt)
        self.pairs_calls = 0  # calls of several first readings (prompts.pairs_prompt)
        self.batches_created: list[str] = []
        self.batch_polls = 2
        self._batches: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._ids: dict[str, list[tuple[str, str]]] = {}
        for row in rows:
            self._ids.setdefault(row["content"], []).append((row["namespace"], row["id"]))
        self._one = {
            frozenset(pair)
            for group in labels["duplicate_groups"]
            for pair in itertools.combinations(group, 2)
        }
        self._conflicts = {
            frozenset((c["a"], c["b"])): c.get("kind", "contradiction") for c in labels["conflicts"]
        }
        oracle = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path.rstrip("/").endswith("/messages/batches"):
                    self._send(oracle._create_batch(body, self._base()))
                else:
                    self._send(oracle.answer(body))

            def do_GET(self):
                found = re.search(r"/messages/batches/([^/]+)(/results)?$", self.path)
                if not found:
                    self._send({"type": "error", "error": {"type": "not_found_error",
                                "message": self.path}}, status=404)  # fmt: skip
                    return
                batch_id, results = found.group(1), found.group(2)
                if results:
                    self._send_lines(oracle._results(batch_id))
                else:
                    self._send(oracle._look(batch_id, self._base()))

            def _base(self) -> str:
                return f"http://{self.headers['Host']}"

            def _send(self, payload: dict, status: int = 200) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _send_lines(self, lines: list[dict]) -> None:
                data = "".join(json.dumps(line) + "\n" for line in lines).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/binary")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Oracle:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- The judge ----------------------------------------------------------------------

    def truth(self, older: str, newer: str) -> tuple[str, str]:
        """(label, conflict kind) of two texts by the labels."""
        kind = ""
        for (ns_a, a), (ns_b, b) in itertools.product(
            self._ids.get(older, []), self._ids.get(newer, [])
        ):
            if ns_a != ns_b or a == b:
                continue
            pair = frozenset((a, b))
            if pair in self._one:
                return "duplicate", ""
            kind = kind or self._conflicts.get(pair, "")
        return ("conflict", kind) if kind else ("related_distinct", "")

    def judge(
        self, older: str, newer: str, *, newer_first: bool = False, shown: str = ""
    ) -> tuple[str, str]:
        """The oracle's answer: the truth, or with the error rate another label (`shown`:
        how the pair was shown, when not as a pair)."""
        label, kind = self.truth(older, newer)
        if not shown:
            shown = "newer-first" if newer_first else "older-first"
        first, second = (older, newer)
        if self.correlated:  # the pair alone, however shown: wrong every time alike
            shown, (first, second) = "", sorted((older, newer))
        digest = hashlib.sha256(f"{self.seed}\0{first}\0{second}\0{shown}".encode()).digest()
        rng = random.Random(digest)
        if rng.random() < self.error_rate:
            label = rng.choice([other for other in LABELS if other != label])
            kind = "contradiction" if label == "conflict" else ""
        return label, kind

    def answer(self, body: dict) -> dict:
        """A Messages API answer to a verdict request or a group's (a tool call), its
        usage counted from the prompt's length."""
        text = body["messages"][0]["content"]
        with self._lock:
            self.calls += 1
        group = _GROUP.search(text)
        if _AUDIT.search(text):
            tool, answered = "record_pair_verdicts", self._audit(text)
        elif _RECHECK.search(text):
            tool, answered = "record_pair_verdicts", self._recheck(text)
        elif _PAIRS.search(text):
            tool, answered = "record_pair_verdicts", self._pairs(text)
        elif group:
            tool, answered = "record_verdicts", self._group(group)
        else:
            tool, answered = self._pair(text)
        said = json.dumps(answered)
        return {
            "id": f"msg_oracle_{len(self.asked)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "oracle"),
            "content": [
                {"type": "tool_use", "id": "toolu_oracle", "name": tool, "input": answered}
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {
                "input_tokens": (len(body.get("system", "")) + len(text)) // _CHARS_A_TOKEN,
                "output_tokens": len(said) // _CHARS_A_TOKEN,
            },
        }

    def _group(self, found: re.Match) -> dict:
        """Each numbered memory's verdict against the anchor; a group's answer is wrong
        or right for each pair on its own (seeded from the two texts as shown)."""
        anchor = found.group("anchor")
        texts = _NUMBERED.split(found.group("rest"))[1:]
        verdicts = []
        for number, text in enumerate(texts, start=1):
            with self._lock:
                self.asked.append((anchor, text, False))
                self.grouped += 1
            label, kind = self.judge(anchor, text, shown="group")
            verdicts.append({"memory": number, "reasoning": "from the labels", "label": label,
                             "conflict_kind": kind or "none"})  # fmt: skip
        return {"verdicts": verdicts}

    def _audit(self, text: str) -> dict:
        """Each numbered pair's verdict, as shown (A, B: the other way round is another
        presentation, wrong or right on its own)."""
        verdicts = []
        for found in _AUDIT_PAIR.finditer(text):
            a, b = json.loads(found.group(2)), json.loads(found.group(3))
            with self._lock:
                self.audited.append((a, b))
            label, kind = self.judge(a, b, shown="audit")
            verdicts.append({"pair": int(found.group(1)), "reasoning": "from the labels",
                             "label": label, "conflict_kind": kind or "none"})  # fmt: skip
        return {"verdicts": verdicts}

    def _recheck(self, text: str) -> dict:
        """Each numbered pair's second reading, wrong or right on its own (shown apart
        from a pair alone, as another presentation is)."""
        verdicts = []
        with self._lock:
            self.recheck_calls += 1
        for found in _RECHECK_PAIR.finditer(text):
            newer, older = found.group(2), found.group(3)
            with self._lock:
                self.asked.append((older, newer, True))
            label, kind = self.judge(older, newer, newer_first=True, shown="recheck")
            verdicts.append({"pair": int(found.group(1)), "reasoning": "from the labels",
                             "label": label, "conflict_kind": kind or "none"})  # fmt: skip
        return {"verdicts": verdicts}

    def _pairs(self, text: str) -> dict:
        """Each numbered pair's first reading, wrong or right on its own (a presentation of
        its own, as a group's is)."""
        verdicts = []
        with self._lock:
            self.pairs_calls += 1
        for found in _PAIRS_PAIR.finditer(text):
            older, newer = found.group(2), found.group(3)
            with self._lock:
                self.asked.append((older, newer, False))
            label, kind = self.judge(older, newer, shown="pairs")
            verdicts.append({"pair": int(found.group(1)), "reasoning": "from the labels",
                             "label": label, "conflict_kind": kind or "none"})  # fmt: skip
        return {"verdicts": verdicts}

    def _pair(self, text: str) -> tuple[str, dict]:
        found = _PAIR.search(text)
        newer_first = found is None and (found := _PAIR_NEWER_FIRST.search(text)) is not None
        if not found:
            label, kind = "unrelated", ""
        else:
            older, newer = found.group("older"), found.group("newer")
            with self._lock:
                self.asked.append((older, newer, newer_first))
            label, kind = self.judge(older, newer, newer_first=newer_first)
        answered = {"reasoning": "from the labels", "label": label, "conflict_kind": kind or "none"}
        return "record_verdict", answered

    # --- Message Batches ----------------------------------------------------------------

    def _create_batch(self, body: dict, base: str) -> dict:
        with self._lock:
            batch_id = f"msgbatch_oracle_{len(self._batches) + 1}"
            self._batches[batch_id] = {"requests": body["requests"], "looks": 0}
            self.batches_created.append(batch_id)
        return self._batch_json(batch_id, base)

    def _look(self, batch_id: str, base: str) -> dict:
        with self._lock:
            self._batches[batch_id]["looks"] += 1
        return self._batch_json(batch_id, base)

    def _ended(self, batch_id: str) -> bool:
        return self._batches[batch_id]["looks"] >= self.batch_polls

    def _batch_json(self, batch_id: str, base: str) -> dict:
        batch = self._batches[batch_id]
        total = len(batch["requests"])
        ended = self._ended(batch_id)
        now = datetime.now(UTC)
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else total,
                "succeeded": total if ended else 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": now.isoformat(),
            "expires_at": (now + timedelta(days=1)).isoformat(),
            "ended_at": now.isoformat() if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{base}/v1/messages/batches/{batch_id}/results" if ended else None,
        }

    def _results(self, batch_id: str) -> list[dict]:
        return [
            {
                "custom_id": request["custom_id"],
                "result": {"type": "succeeded", "message": self.answer(request["params"])},
            }
            for request in self._batches[batch_id]["requests"]
        ]
