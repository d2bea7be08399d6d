"""Reading memory files (JSONL, one memory a line, or CSV with a header) into validated
records. Nothing here writes: curation.decisions.import_records does.

A file is read twice: `validate_file` checks every line and keeps only the ids it has
seen (so 100k lines never sit in memory as rows), then `read_records` streams the valid
records again for the writer.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.dateparse import parse_datetime

from memadmin.store.embeddings import DIMENSIONS
from memadmin.store.models import MemoryStatus

NAMESPACE_PATTERN = re.compile(r"^[-a-zA-Z0-9_]{1,100}$")
STRING_FIELDS = {"category": 100, "source_ref": 200, "session_id": 200, "embedding_model": 100}
DATE_FIELDS = ("created_at", "last_accessed_at", "valid_from", "valid_until")
# What an agent or a file says about a memory besides its text: every entry point takes
# these (the import, the API, the export).
DESCRIPTIVE_FIELDS = ("category", "tags", "source_ref", "session_id", "importance", "confidence")
# Record fields a re-import may change on a known memory: the descriptive ones, and the
# curation fields an export carries so that it imports back.
IMPORTABLE_FIELDS = (
    *DESCRIPTIVE_FIELDS,
    "metadata",
    "access_count",
    *DATE_FIELDS,
    "provenance",
    "pinned",
    "status",
)
KNOWN_KEYS = {
    "id",
    "content",
    "namespace",
    "embedding",
    "embedding_model",
    "superseded_by",
    *IMPORTABLE_FIELDS,
}


class InvalidRecord(ValueError):
    """One line's problem, worded for the person who wrote the file."""


@dataclass
class Record:
    """One valid line. `fields` holds only the keys the line gave (besides id, content and
    namespace), so a re-import never overwrites what the line did not mention."""

    line: int
    namespace: str
    external_id: str
    content: str
    fields: dict[str, Any] = field(default_factory=dict)
    embedding: list[float] | None = None
    superseded_by: str | None = None


@dataclass
class ValidationReport:
    valid_lines: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)

    @property
    def bad_lines(self) -> set[int]:
        return {line for line, _ in self.errors}


def _raw_rows(path: Path) -> Iterator[tuple[int, dict | None, str | None]]:
    """(line number, raw mapping, syntax error) for every non-blank line of the file."""
    if path.suffix.lower() == ".csv":
        yield from _csv_rows(path)
        return
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                yield number, json.loads(text), None
            except json.JSONDecodeError as error:
                yield number, None, f"invalid JSON ({error.msg} at column {error.colno})"


def _csv_rows(path: Path) -> Iterator[tuple[int, dict | None, str | None]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            number = reader.line_num
            if None in row:
                yield number, None, "more cells than the header has columns"
                continue
            try:
                yield number, _from_csv_cells(row), None
            except InvalidRecord as error:
                yield number, None, str(error)


def _from_csv_cells(row: dict[str, str]) -> dict[str, Any]:
    """CSV cells are text: numbers, JSON lists/objects and booleans are decoded here;
    an empty cell counts as absent. `tags` may be a JSON list or items split by `;`."""
    decoded: dict[str, Any] = {}
    for key, cell in row.items():
        cell = (cell or "").strip()
        if cell == "":
            continue
        if key in ("importance", "confidence"):
            try:
                decoded[key] = float(cell)
            except ValueError:
                raise InvalidRecord(f"{key} must be a number, not {cell!r}") from None
        elif key == "access_count":
            decoded[key] = int(cell) if cell.isdigit() else cell
        elif key == "pinned":
            decoded[key] = {"true": True, "1": True, "false": False, "0": False}.get(
                cell.lower(), cell
            )
        elif key in ("metadata", "embedding", "provenance") or (
            key == "tags" and cell.startswith("[")
        ):
            try:
                decoded[key] = json.loads(cell)
            except json.JSONDecodeError:
                raise InvalidRecord(f"{key} must be JSON, not {cell[:40]!r}") from None
        elif key == "tags":
            decoded[key] = [tag.strip() for tag in cell.split(";") if tag.strip()]
        else:
            decoded[key] = cell
    return decoded


def _parse_date(key: str, value: Any) -> datetime | None:
    if value is None:
        return None
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        raise InvalidRecord(f"{key} must be an ISO 8601 date-time, not {value!r}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _unit(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidRecord(f"{key} must be a number from 0 to 1, not {value!r}")
    return float(value)


def parse_record(raw: Any, *, line: int, default_namespace: str | None) -> Record:
    """Validate one mapping; raise InvalidRecord with a reason naming the key at fault."""
    if not isinstance(raw, dict):
        raise InvalidRecord("a line must be a JSON object")
    unknown = sorted(set(raw) - KNOWN_KEYS)
    if unknown:
        raise InvalidRecord(f"unknown key {unknown[0]!r}")
    external_id = raw.get("id")
    if isinstance(external_id, int) and not isinstance(external_id, bool):
        external_id = str(external_id)
    if not isinstance(external_id, str) or not external_id.strip():
        raise InvalidRecord(
            "missing 'id'" if "id" not in raw else "'id' must be a non-empty string"
        )
    if len(external_id) > 200:
        raise InvalidRecord("'id' is longer than 200 characters")
    content = raw.get("content")
    if "content" not in raw:
        raise InvalidRecord("missing 'content'")
    if not isinstance(content, str) or not content.strip():
        raise InvalidRecord("'content' must be a non-empty string")
    if len(content.encode("utf-8")) > settings.MAX_CONTENT_BYTES:
        raise InvalidRecord(f"'content' is longer than {settings.MAX_CONTENT_BYTES} bytes")
    namespace = raw.get("namespace", default_namespace)
    if namespace is None:
        raise InvalidRecord("no namespace: give a 'namespace' key or --namespace")
    if not isinstance(namespace, str) or not NAMESPACE_PATTERN.match(namespace):
        raise InvalidRecord(
            f"namespace must be letters, digits, '-' or '_' (at most 100), not {namespace!r}"
        )

    fields: dict[str, Any] = {}
    for key, limit in STRING_FIELDS.items():
        if key in raw:
            if not isinstance(raw[key], str) or len(raw[key]) > limit:
                raise InvalidRecord(f"{key} must be a string of at most {limit} characters")
            fields[key] = raw[key]
    for key in DATE_FIELDS:
        if key in raw:
            fields[key] = _parse_date(key, raw[key])
    if fields.get("created_at", "") is None:
        raise InvalidRecord("created_at cannot be null")
    for key in ("importance", "confidence"):
        if key in raw:
            fields[key] = _unit(key, raw[key])
    if "tags" in raw:
        tags = raw["tags"]
        if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
            raise InvalidRecord("tags must be a list of non-empty strings")
        fields["tags"] = tags
    if "metadata" in raw:
        if not isinstance(raw["metadata"], dict):
            raise InvalidRecord("metadata must be a JSON object")
        fields["metadata"] = raw["metadata"]
    if "provenance" in raw:
        if not isinstance(raw["provenance"], list):
            raise InvalidRecord("provenance must be a list")
        fields["provenance"] = raw["provenance"]
    if "pinned" in raw:
        if not isinstance(raw["pinned"], bool):
            raise InvalidRecord("pinned must be true or false")
        fields["pinned"] = raw["pinned"]
    if "access_count" in raw:
        count = raw["access_count"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidRecord("access_count must be a whole number >= 0")
        fields["access_count"] = count
    if "status" in raw:
        if raw["status"] not in MemoryStatus.values:
            raise InvalidRecord(f"status must be one of {', '.join(MemoryStatus.values)}")
        fields["status"] = raw["status"]
    superseded_by = raw.get("superseded_by")
    if superseded_by is not None and not isinstance(superseded_by, str):
        raise InvalidRecord("superseded_by must be the id of another memory")
    if superseded_by and fields.get("status", MemoryStatus.ACTIVE) == MemoryStatus.ACTIVE:
        raise InvalidRecord("an active memory cannot have superseded_by")

    embedding = raw.get("embedding")
    if embedding is not None:
        if not isinstance(embedding, list) or not all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
            for x in embedding
        ):
            raise InvalidRecord("embedding must be a list of finite numbers")
        if len(embedding) == DIMENSIONS and not any(embedding):
            raise InvalidRecord("embedding is all zeros")
        if len(embedding) != DIMENSIONS:
            # Another model's vector: the configured model embeds the text instead.
            embedding = None
            fields.pop("embedding_model", None)
    return Record(
        line=line,
        namespace=namespace,
        external_id=external_id,
        content=content,
        fields=fields,
        embedding=embedding,
        superseded_by=superseded_by or None,
    )


def validate_file(path: Path, *, default_namespace: str | None) -> ValidationReport:
    """Check every line; report `line N: reason` for each bad one, including ids that
    appear twice in the file."""
    report = ValidationReport()
    first_line_of: dict[tuple[str, str], int] = {}
    for number, raw, syntax_error in _raw_rows(path):
        if syntax_error:
            report.errors.append((number, syntax_error))
            continue
        try:
            record = parse_record(raw, line=number, default_namespace=default_namespace)
        except InvalidRecord as error:
            report.errors.append((number, str(error)))
            continue
        key = (record.namespace, record.external_id)
        if key in first_line_of:
            report.errors.append(
                (
                    number,
                    f"duplicate id {record.external_id!r} (first on line {first_line_of[key]})",
                )
            )
            continue
        first_line_of[key] = number
        report.valid_lines += 1
    return report


def read_records(
    path: Path, *, default_namespace: str | None, skip_lines: set[int]
) -> Iterator[Record]:
    """The file's valid records, streamed, leaving out `skip_lines` (the bad ones)."""
    for number, raw, syntax_error in _raw_rows(path):
        if number in skip_lines or syntax_error:
            continue
        yield parse_record(raw, line=number, default_namespace=default_namespace)
