"""Reading memory files (JSONL, one memory a line, or CSV with a header) into validated
records, every value checked by store.validation. Nothing here writes:
curation.decisions.import_records does.

A file is read twice: `validate_file` checks every line and keeps only the ids it has
seen (so 100k lines never sit in memory as rows), then `read_records` streams the valid
records again for the writer. A line is read as bytes and decoded on its own, so one
line of invalid UTF-8 is named by its number instead of stopping the whole read.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memadmin.store import validation
from memadmin.store.embeddings import DIMENSIONS
from memadmin.store.models import MemoryStatus
from memadmin.store.validation import Invalid

# Kept importable under its old names: a record's problem is a validation.Invalid.
InvalidRecord = Invalid
NAMESPACE_PATTERN = validation.NAMESPACE_PATTERN

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


def _lines(path: Path) -> Iterator[tuple[int, str | None, str]]:
    """(line number, text or None, why not) for every line of the file, decoded one by
    one; a byte-order mark at the start is skipped."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                yield number, raw.decode("utf-8"), ""
            except UnicodeDecodeError as error:
                yield number, None, f"invalid UTF-8 (byte {error.start + 1} of the line)"


def _raw_rows(path: Path) -> Iterator[tuple[int, dict | None, str | None]]:
    """(line number, raw mapping, syntax error) for every non-blank line of the file."""
    if path.suffix.lower() == ".csv":
        yield from _csv_rows(path)
        return
    for number, text, undecodable in _lines(path):
        if undecodable:
            yield number, None, undecodable
            continue
        if not text.strip():
            continue
        try:
            yield number, validation.decode_json(text), None
        except Invalid as error:
            yield number, None, error.message


def _csv_rows(path: Path) -> Iterator[tuple[int, dict | None, str | None]]:
    """CSV records with the number of the line each starts on. A record with a byte of
    invalid UTF-8, a NUL, an unclosed quote or a repeated header column is an error;
    after an unclosed quote the rest of the file cannot be read, so it ends there."""
    bad_lines: dict[int, str] = {}

    def decoded() -> Iterator[str]:
        for number, text, undecodable in _lines(path):
            if undecodable:
                bad_lines[number] = undecodable
                text = "\n"  # a placeholder line keeps the line numbers right
            yield text

    # strict: an unclosed quote is an error at the end of the file, not a merged record.
    reader = csv.reader(decoded(), strict=True)
    header: list[str] | None = None
    started = 1
    try:
        for cells in reader:
            first, started = started, reader.line_num + 1
            problem = next(
                (bad_lines[n] for n in range(first, reader.line_num + 1) if n in bad_lines), ""
            )
            if header is None:
                header = [name.strip() for name in cells]
                repeated = sorted({name for name in header if header.count(name) > 1})
                if problem or repeated or "" in header:
                    reason = problem or (
                        f"column {repeated[0]!r} appears twice in the header"
                        if repeated
                        else "the header has an empty column name"
                    )
                    yield first, None, reason
                    return
                continue
            if problem:
                yield first, None, problem
            elif not any(cell.strip() for cell in cells):
                continue
            elif len(cells) > len(header):
                yield first, None, "more cells than the header has columns"
            else:
                try:
                    yield first, _from_csv_cells(dict(zip(header, cells, strict=False))), None
                except Invalid as error:
                    yield first, None, str(error)
    except csv.Error as error:
        reason = str(error)
        if "unexpected end of data" in reason or "EOF" in reason:
            reason = "a quote opened here is never closed"
        elif "NUL" in reason:
            reason = "contains a NUL byte"
        yield started, None, f"unreadable CSV: {reason}"


def _from_csv_cells(row: dict[str, str]) -> dict[str, Any]:
    """CSV cells are text: numbers, JSON lists/objects and booleans are decoded here;
    an empty cell counts as absent. `tags` may be a JSON list or items split by `;`."""
    decoded: dict[str, Any] = {}
    for key, cell in row.items():
        cell = (cell or "").strip()
        if cell == "":
            continue
        if key in ("importance", "confidence"):
            decoded[key] = validation.decimal(cell, key, low=0.0, high=1.0)
        elif key == "access_count":
            decoded[key] = validation.whole_number(cell, key, low=0, high=validation.MAX_INTEGER)
        elif key == "pinned":
            decoded[key] = {"true": True, "1": True, "false": False, "0": False}.get(
                cell.lower(), cell
            )
        elif key in ("metadata", "embedding", "provenance") or (
            key == "tags" and cell.startswith("[")
        ):
            try:
                decoded[key] = validation.decode_json(cell)
            except Invalid as error:
                raise Invalid(key, f"cell: {error.message}") from None
        elif key == "tags":
            decoded[key] = [tag.strip() for tag in cell.split(";") if tag.strip()]
        else:
            decoded[key] = cell
    return decoded


def parse_record(raw: Any, *, line: int, default_namespace: str | None) -> Record:
    """Validate one mapping; raise Invalid with a reason naming the key at fault."""
    if not isinstance(raw, dict):
        raise Invalid("", "a line must be a JSON object")
    unknown = sorted(set(raw) - KNOWN_KEYS, key=str)
    if unknown:
        raise Invalid("", f"unknown key {validation.shown(unknown[0])}")
    if "id" not in raw:
        raise Invalid("", "missing 'id'")
    external_id = validation.identifier(raw["id"])
    if "content" not in raw:
        raise Invalid("", "missing 'content'")
    content = validation.content(raw["content"])
    namespace = raw.get("namespace", default_namespace)
    if namespace is None:
        raise Invalid("", "no namespace: give a 'namespace' key or --namespace")
    namespace = validation.namespace_name(namespace)

    fields: dict[str, Any] = {}
    for key, limit in validation.SHORT_TEXT_LIMITS.items():
        if key in raw:
            fields[key] = validation.short_text(raw[key], key, limit)
    for key in DATE_FIELDS:
        if key in raw:
            fields[key] = None if raw[key] is None else validation.timestamp(raw[key], key)
    if "created_at" in fields and fields["created_at"] is None:
        raise Invalid("created_at", "cannot be null")
    for key in ("importance", "confidence"):
        if key in raw:
            fields[key] = validation.unit_interval(raw[key], key)
    if "tags" in raw:
        fields["tags"] = validation.tags(raw["tags"])
    if "metadata" in raw:
        fields["metadata"] = validation.json_value(raw["metadata"], "metadata", kind=dict)
    if "provenance" in raw:
        fields["provenance"] = validation.json_value(raw["provenance"], "provenance", kind=list)
    if "pinned" in raw:
        fields["pinned"] = validation.boolean(raw["pinned"], "pinned")
    if "access_count" in raw:
        fields["access_count"] = validation.count(raw["access_count"], "access_count")
    if "status" in raw:
        if raw["status"] not in MemoryStatus.values:
            raise Invalid("status", f"must be one of {', '.join(MemoryStatus.values)}")
        fields["status"] = raw["status"]
    superseded_by = raw.get("superseded_by")
    if superseded_by is not None:
        superseded_by = validation.identifier(superseded_by, "superseded_by")
    if superseded_by and fields.get("status", MemoryStatus.ACTIVE) == MemoryStatus.ACTIVE:
        raise Invalid("", "an active memory cannot have superseded_by")
    if superseded_by == external_id:
        raise Invalid("superseded_by", "cannot name the memory itself")

    embedding = raw.get("embedding")
    if embedding is not None:
        embedding = validation.embedding(embedding, DIMENSIONS)
        if embedding is None:
            # Another model's vector: the configured model embeds the text instead.
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
        except Invalid as error:
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
