"""A records file beside an index memadmin cannot write to (a FAISS index, as seed 001
keeps one): one JSON object a line, with an id, the text and a created time. A push does
not touch the records: it appends each operation to a decisions file (`ops.jsonl` beside
them), which the store's owner applies (delete an id; upsert an id's text and metadata,
embedding it with their own model). What the owner has not applied yet is read as done:
the store is the records with the decisions file applied on top."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from memadmin.sources.stores.points import Point, SourceError

OPS_FILE = "ops.jsonl"


class JsonlStore:
    def __init__(self, location: str, fields: dict[str, str]):
        self.records = Path(location)
        if not self.records.is_file():
            raise SourceError(f"no records file {location}")
        self.ops = Path(fields.get("ops") or self.records.with_name(OPS_FILE))
        self.id_key = fields.get("id", "id")
        self.text_key = fields.get("text", "text")
        self.created_key = fields.get("created", "created_at")

    def _read(self) -> dict[str, Point]:
        points: dict[str, Point] = {}
        with self.records.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise SourceError(f"{self.records}: line {number}: {error}") from None
                if not isinstance(row, dict) or self.id_key not in row:
                    raise SourceError(f"{self.records}: line {number}: no {self.id_key!r}")
                metadata = {k: v for k, v in row.items() if k not in (self.id_key, self.text_key)}
                text = row.get(self.text_key)
                points[str(row[self.id_key])] = Point(
                    str(row[self.id_key]),
                    text if isinstance(text, str) else "",
                    metadata,
                    created=metadata.get(self.created_key),
                )
        if self.ops.is_file():
            with self.ops.open(encoding="utf-8") as lines:
                for line in lines:
                    op = json.loads(line)
                    if op["op"] == "delete":
                        points.pop(op["id"], None)
                    else:
                        points[op["id"]] = Point(op["id"], op["text"], op["metadata"])
        return points

    def count(self) -> int:
        return len(self._read())

    def scan(self, batch_size: int) -> Iterator[list[Point]]:
        points = list(self._read().values())
        for start in range(0, len(points), batch_size):
            yield points[start : start + batch_size]

    def fetch(self, ids: list[str]) -> dict[str, Point]:
        points = self._read()
        return {i: points[i] for i in ids if i in points}

    def delete(self, ids: list[str]) -> None:
        self._append([{"op": "delete", "id": i} for i in ids])

    def write(self, points: list[Point]) -> None:
        self._append(
            [{"op": "upsert", "id": p.id, "text": p.text, "metadata": p.metadata} for p in points]
        )

    def _append(self, ops: list[dict]) -> None:
        with self.ops.open("a", encoding="utf-8") as out:
            for op in ops:
                out.write(json.dumps(op, ensure_ascii=False) + "\n")
            out.flush()

    def companion(self, name: str) -> None:
        return None  # a records file has no other collection

    def close(self) -> None:
        pass
