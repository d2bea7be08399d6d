"""Real stores for the source tests, each built and read with its own client library: a
ChromaDB PersistentClient folder, a Qdrant collection in local mode laid out as Mem0
writes it, a pgvector table in another schema of the test database, a records file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from tests.processes import database_url

DIMENSIONS = 8  # the agent's own embedder: not memadmin's (384), never compared


def vector_of(seed: int) -> list[float]:
    found = np.random.default_rng(seed).normal(size=DIMENSIONS)
    return [float(x) for x in found / np.linalg.norm(found)]


class Chroma:
    kind = "chroma"

    def __init__(self, folder: Path):
        self.folder = str(folder / "chroma")

    def args(self) -> list[str]:
        return ["--kind", "chroma", "--location", self.folder, "--collection", "memories"]

    def _collection(self):
        import chromadb
        from chromadb.config import Settings

        client = chromadb.PersistentClient(
            path=self.folder, settings=Settings(anonymized_telemetry=False)
        )
        return client.get_or_create_collection("memories", embedding_function=None)

    def build(self, points: list[dict]) -> None:
        self._collection().add(
            ids=[p["id"] for p in points],
            documents=[p["text"] for p in points],
            metadatas=[p["metadata"] for p in points],
            embeddings=[p["vector"] for p in points],
        )

    def read(self) -> dict[str, dict]:
        found = self._collection().get(include=["documents", "metadatas", "embeddings"])
        return {
            id_: {"text": text, "metadata": dict(metadata or {}), "vector": list(vector)}
            for id_, text, metadata, vector in zip(
                found["ids"],
                found["documents"],
                found["metadatas"],
                found["embeddings"],
                strict=True,
            )
        }

    def agent_writes(self, id_: str, text: str) -> None:
        """An agent rewrites a point (its own embedder gives it a new vector)."""
        point = self.read()[id_]
        self._collection().update(ids=[id_], documents=[text], embeddings=[vector_of(99)])
        assert point["text"] != text


class QdrantMem0:
    """A Qdrant collection as Mem0 (2.0.18) writes it: the text under "data", its MD5 under
    "hash", created and updated times and the user's id in the payload."""

    kind = "qdrant"

    def __init__(self, folder: Path):
        self.folder = str(folder / "qdrant")

    def args(self) -> list[str]:
        return [
            "--kind",
            "qdrant",
            "--location",
            self.folder,
            "--collection",
            "mem0",
            "--layout",
            "mem0",
            "--namespace-from",
            "user_id",
        ]

    def _client(self):
        from qdrant_client import QdrantClient

        return QdrantClient(path=self.folder)

    def build(self, points: list[dict]) -> None:
        from qdrant_client import models

        client = self._client()
        try:
            client.create_collection(
                "mem0",
                vectors_config=models.VectorParams(
                    size=DIMENSIONS, distance=models.Distance.COSINE
                ),
            )
            client.upsert(
                "mem0",
                points=[
                    models.PointStruct(
                        id=p["id"], vector=p["vector"], payload=self.payload(p["text"], p)
                    )
                    for p in points
                ],
            )
        finally:
            client.close()

    @staticmethod
    def payload(text: str, point: dict) -> dict:
        return {
            **point["metadata"],
            "data": text,
            "hash": hashlib.md5(text.encode()).hexdigest(),
            "user_id": "alice",
        }

    def read(self) -> dict[str, dict]:
        client = self._client()
        try:
            records, _ = client.scroll("mem0", limit=1000, with_payload=True, with_vectors=True)
        finally:
            client.close()
        found = {}
        for record in records:
            payload = dict(record.payload)
            text = payload.pop("data")
            found[str(record.id)] = {"text": text, "metadata": payload, "vector": record.vector}
        return found

    def agent_writes(self, id_: str, text: str) -> None:
        from qdrant_client import models

        point = self.read()[id_]
        payload = {**point["metadata"], "data": text}
        payload["hash"] = hashlib.md5(text.encode()).hexdigest()
        payload["updated_at"] = "2026-06-01T00:00:00+00:00"
        client = self._client()
        try:
            client.upsert(
                "mem0", points=[models.PointStruct(id=id_, vector=vector_of(99), payload=payload)]
            )
        finally:
            client.close()

    def agent_deletes(self, id_: str) -> None:
        from qdrant_client import models

        client = self._client()
        try:
            client.delete("mem0", points_selector=models.PointIdsList(points=[id_]))
        finally:
            client.close()


class Pgvector:
    """A home-grown agent's table: (id text, content, embedding vector, metadata JSONB), in
    a schema of its own in the test database."""

    kind = "pgvector"
    DSN_VARIABLE = "AGENT_MEMORY_DSN"

    def args(self) -> list[str]:
        return [
            "--kind",
            "pgvector",
            "--location-env",
            self.DSN_VARIABLE,
            "--table",
            "agent.memories",
        ]

    def connect(self):
        return psycopg.connect(database_url(), autocommit=True)

    def build(self, points: list[dict]) -> None:
        with self.connect() as connection:
            connection.execute("DROP SCHEMA IF EXISTS agent CASCADE")
            connection.execute("CREATE SCHEMA agent")
            connection.execute(
                f"CREATE TABLE agent.memories (id text PRIMARY KEY, content text NOT NULL, "
                f"embedding vector({DIMENSIONS}), metadata jsonb, created_at timestamptz)"
            )
            for p in points:
                connection.execute(
                    "INSERT INTO agent.memories VALUES (%s, %s, %s, %s, %s)",
                    [
                        p["id"],
                        p["text"],
                        json.dumps(p["vector"]),
                        Jsonb(p["metadata"]),
                        p["metadata"].get("created_at"),
                    ],
                )

    def read(self) -> dict[str, dict]:
        with self.connect() as connection:
            rows = connection.execute(
                "SELECT id, content, metadata, embedding::text FROM agent.memories"
            ).fetchall()
        return {
            id_: {"text": text, "metadata": metadata or {}, "vector": json.loads(vector)}
            for id_, text, metadata, vector in rows
        }

    def agent_writes(self, id_: str, text: str) -> None:
        with self.connect() as connection:
            connection.execute(
                "UPDATE agent.memories SET content = %s, embedding = %s WHERE id = %s",
                [text, json.dumps(vector_of(99)), id_],
            )

    def drop(self) -> None:
        with self.connect() as connection:
            connection.execute("DROP SCHEMA IF EXISTS agent CASCADE")


class Records:
    """Seed 001's way: records beside a FAISS index memadmin cannot write; a push writes
    ops.jsonl beside them, which the owner applies."""

    kind = "jsonl"

    def __init__(self, folder: Path):
        self.path = folder / "records.jsonl"
        self.ops = folder / "ops.jsonl"

    def args(self) -> list[str]:
        return ["--kind", "jsonl", "--location", str(self.path)]

    def build(self, points: list[dict]) -> None:
        self.path.write_text(
            "".join(
                json.dumps({"id": p["id"], "text": p["text"], **p["metadata"]}) + "\n"
                for p in points
            )
        )

    def read(self) -> dict[str, dict]:
        """The records as the owner has them once ops.jsonl is applied."""
        found = {}
        for line in self.path.read_text().splitlines():
            row = json.loads(line)
            id_, text = row.pop("id"), row.pop("text")
            found[id_] = {"text": text, "metadata": row, "vector": None}
        if self.ops.exists():
            for line in self.ops.read_text().splitlines():
                op = json.loads(line)
                if op["op"] == "delete":
                    del found[op["id"]]
                else:
                    found[op["id"]] = {
                        "text": op["text"],
                        "metadata": op["metadata"],
                        "vector": None,
                    }
        return found

    def agent_writes(self, id_: str, text: str) -> None:
        lines = []
        for line in self.path.read_text().splitlines():
            row = json.loads(line)
            if row["id"] == id_:
                row["text"] = text
            lines.append(json.dumps(row))
        self.path.write_text("\n".join(lines) + "\n")

    def agent_deletes(self, id_: str) -> None:
        kept = [
            line for line in self.path.read_text().splitlines() if json.loads(line)["id"] != id_
        ]
        self.path.write_text("\n".join(kept) + "\n")


class QdrantMem0Keywords(QdrantMem0):
    """A collection as Mem0 2.x makes it: a named dense vector "" and a sparse "bm25" (its
    keyword search), and `text_lemmatized` in the payload."""

    kind = "qdrant-keywords"

    def build(self, points: list[dict]) -> None:
        from qdrant_client import models

        client = self._client()
        try:
            client.create_collection(
                "mem0",
                vectors_config={
                    "": models.VectorParams(size=DIMENSIONS, distance=models.Distance.COSINE)
                },
                sparse_vectors_config={"bm25": models.SparseVectorParams()},
            )
            client.upsert(
                "mem0",
                points=[
                    models.PointStruct(
                        id=p["id"],
                        vector={"": p["vector"], "bm25": keywords(p["text"], models)},
                        payload={
                            **self.payload(p["text"], p),
                            "text_lemmatized": p["text"].lower(),
                        },
                    )
                    for p in points
                ],
            )
        finally:
            client.close()


def keywords(text: str, models):
    """A stand-in for Mem0's BM25 encoder: one index per distinct word, its count."""
    counts: dict[int, float] = {}
    for word in text.lower().split():
        index = int(hashlib.md5(word.encode()).hexdigest()[:6], 16)
        counts[index] = counts.get(index, 0.0) + 1.0
    return models.SparseVector(indices=list(counts), values=list(counts.values()))


class ChromaMem0(Chroma):
    """A ChromaDB collection as Mem0 writes it: the text in the metadata's "data", no
    document, Mem0's hash and user id beside it."""

    kind = "chroma-mem0"

    def args(self) -> list[str]:
        return [*super().args(), "--layout", "mem0", "--namespace-from", "user_id"]

    def build(self, points: list[dict]) -> None:
        self._collection().add(
            ids=[p["id"] for p in points],
            metadatas=[QdrantMem0.payload(p["text"], p) for p in points],
            embeddings=[p["vector"] for p in points],
        )

    def read(self) -> dict[str, dict]:
        found = self._collection().get(include=["documents", "metadatas", "embeddings"])
        points = {}
        for id_, document, metadata, vector in zip(
            found["ids"], found["documents"], found["metadatas"], found["embeddings"], strict=True
        ):
            metadata = dict(metadata)
            points[id_] = {
                "text": metadata.pop("data"),
                "metadata": metadata,
                "vector": list(vector),
                "document": document,
            }
        return points

    def agent_writes(self, id_: str, text: str) -> None:
        point = self.read()[id_]
        metadata = {**point["metadata"], "data": text}
        metadata["hash"] = hashlib.md5(text.encode()).hexdigest()
        self._collection().update(ids=[id_], metadatas=[metadata])
