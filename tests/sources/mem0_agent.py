"""An agent that keeps its memory with Mem0 itself (mem0ai, pinned in the dev extra), run
as its own process as an agent would be: `python -m tests.sources.mem0_agent SPEC`, SPEC
a JSON object {"store": Mem0's vector_store config, "history": its history database,
"keywords": whether to write keyword vectors, "steps": [...]}; it prints a JSON list, one
answer per step.

No network: `Memory.add(..., infer=False)` (no LLM), and the embedder is memadmin's own
offline MiniLM plugged in through Mem0's provider interface (EmbeddingBase). Mem0 writes
its keyword ("bm25") vectors with fastembed's Qdrant/bm25 model, which is downloaded on
first use; with "keywords" a small term-frequency encoder stands in for it, so the
collection holds sparse vectors as a store with fastembed installed does."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import zlib
from types import SimpleNamespace

os.environ["MEM0_TELEMETRY"] = "false"
os.environ.setdefault("OPENAI_API_KEY", "unused: infer=False calls no LLM")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")


class _TermCounts:
    """fastembed's SparseTextEmbedding.embed, in its shape: words hashed to indices."""

    def embed(self, texts):
        import numpy as np

        for text in texts:
            counts: dict[int, float] = {}
            for word in text.lower().split():
                index = zlib.crc32(word.strip(".,!?'").encode()) % 2**31
                counts[index] = counts.get(index, 0.0) + 1.0
            yield SimpleNamespace(
                indices=np.array(sorted(counts)),
                values=np.array([counts[i] for i in sorted(counts)]),
            )


def memory(spec: dict):
    from mem0 import Memory
    from mem0.embeddings.base import EmbeddingBase

    from memadmin.store import embeddings

    class MiniLM(EmbeddingBase):
        def embed(self, text, memory_action=None):
            return [float(x) for x in embeddings.encode([text])[0]]

    config = {"vector_store": spec["store"], "history_db_path": spec["history"]}
    found = Memory.from_config(config)
    found.embedding_model = MiniLM()
    if spec.get("keywords"):
        found.vector_store._bm25_encoder = _TermCounts()
    return found


def step(agent, spec: dict, order: dict):
    if "add" in order:
        added = agent.add(order["add"], user_id=order["user"], infer=False)
        return [result["id"] for result in added["results"]]
    if "update" in order:
        return agent.update(order["update"], order["text"])
    if "delete" in order:
        return agent.delete(order["delete"])
    if "entity" in order:  # an entity record as Mem0 links one (spaCy finds them)
        store = agent.entity_store
        vector = agent.embedding_model.embed(order["entity"])
        payload = {"data": order["entity"], "user_id": order["user"]}
        payload["linked_memory_ids"] = order["links"]
        store.insert(vectors=[vector], payloads=[payload], ids=[order["id"]])
        return order["id"]
    if "entities" in order:
        rows = agent.entity_store.list(filters={"user_id": order["entities"]}, top_k=100)
        rows = rows[0] if rows and isinstance(rows[0], list) else rows
        return {str(row.id): row.payload.get("linked_memory_ids") for row in rows}
    if "filtered" in order:  # what the agent reads through a filter: get_all and search
        filters = {"user_id": order["user"], **order["filtered"]}
        listed = agent.get_all(filters=filters, top_k=1000)["results"]
        found = agent.search(order["query"], filters=filters, top_k=1000)["results"]
        return [sorted(item["id"] for item in listed), sorted(item["id"] for item in found)]
    if "history" in order:
        return [
            [row["event"], row["old_memory"], row["new_memory"]]
            for row in agent.history(order["history"])
        ]
    if "read" in order:
        return read(agent, order["read"])
    raise ValueError(f"unknown step {order}")


def read(agent, users: list[str]) -> dict:
    """Everything the agent can read back, each point checked as Mem0 left it."""
    from mem0.utils.lemmatization import lemmatize_for_bm25

    seen = {}
    for user in users:
        for item in agent.get_all(filters={"user_id": user}, top_k=1000)["results"]:
            got = agent.get(item["id"])
            raw = agent.vector_store.get(vector_id=item["id"]).payload
            seen[item["id"]] = {
                "user": user,
                "memory": got["memory"],
                "metadata_keys": sorted(raw),
                "hash_ok": raw.get("hash") == hashlib.md5(raw["data"].encode()).hexdigest(),
                "keywords_ok": "text_lemmatized" not in raw
                or raw["text_lemmatized"] == lemmatize_for_bm25(raw["data"]),
                "history": [
                    [row["event"], row["old_memory"], row["new_memory"]]
                    for row in agent.history(item["id"])
                ],
            }
        for item in agent.search("Which programming language?", filters={"user_id": user}, top_k=3)[
            "results"
        ]:
            seen[item["id"]]["found_by_search"] = True
    return seen


def main() -> None:
    spec = json.loads(sys.argv[1])
    agent = memory(spec)
    try:
        answers = [step(agent, spec, order) for order in spec["steps"]]
    finally:
        client = getattr(agent.vector_store, "client", None)
        if hasattr(client, "close"):
            client.close()  # Qdrant's local mode: the folder's lock goes with it
    print(json.dumps(answers, default=str))


if __name__ == "__main__":
    main()
