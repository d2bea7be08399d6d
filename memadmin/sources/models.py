"""Sources: the stores agents already run (a ChromaDB or Qdrant collection, a pgvector
table, a records file beside a FAISS index). A pull brings a source's points in as
memories of its namespaces; a push writes back what people and runs decided here. Every
operation a push sends is journalled first (PushOperation), so a push that dies halfway
resumes without doing anything twice, and the journal keeps each point as it was before
(text, metadata, the source's own vector): an undo here restores it on the next push."""

from __future__ import annotations

import hashlib
import json

from django.db import models

from memadmin.store.models import Memory


class Source(models.Model):
    class Kind(models.TextChoices):
        CHROMA = "chroma"
        QDRANT = "qdrant"
        PGVECTOR = "pgvector"
        JSONL = "jsonl"

    class Layout(models.TextChoices):
        PLAIN = "plain"
        MEM0 = "mem0"  # the payload Mem0 writes (stores.layouts)

    class Mode(models.TextChoices):
        DELETE = "delete"  # a merged or superseded memory's point is deleted
        MARK = "mark"  # its metadata says so (for stores whose readers filter)

    name = models.SlugField(max_length=40, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # A path (ChromaDB, Qdrant local mode, a records file), a URL (a Qdrant server) or a
    # DSN (PostgreSQL), never with a password in it: a location with credentials is read
    # from the environment variable `location_env` names when the source is opened.
    location = models.CharField(max_length=1000, blank=True, default="")
    location_env = models.CharField(max_length=100, blank=True, default="")
    api_key_env = models.CharField(max_length=100, blank=True, default="")  # Qdrant server
    collection = models.CharField(max_length=200)  # the collection, or the table
    namespace = models.CharField(max_length=100, blank=True, default="")
    # A metadata key (user_id, agent_id): one namespace per value, "<source>-<value>".
    namespace_from = models.CharField(max_length=100, blank=True, default="")
    layout = models.CharField(max_length=10, choices=Layout.choices, default=Layout.PLAIN)
    # Where each part of a point is: text, created, and for a table id, vector, metadata.
    fields = models.JSONField(default=dict)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.DELETE)
    created_at = models.DateTimeField(auto_now_add=True)
    last_pull_at = models.DateTimeField(null=True, blank=True)
    last_push_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def shown_location(self) -> str:
        """The location as it may be printed: a variable's name, never its value."""
        return f"${self.location_env}" if self.location_env else self.location


def point_hash(text: str, metadata: dict) -> str:
    """What a point says (text and metadata), as one hash: a push compares the source's
    point with the one memadmin last saw or wrote before touching it."""
    said = json.dumps([text, metadata], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(said.encode()).hexdigest()


class SourcePoint(models.Model):
    """One point of a source and the memory it became. `text` and `said` are what the
    source holds as memadmin last read or wrote it; `present` is false once a push
    deleted it or a pull found it gone."""

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="points")
    point_id = models.CharField(max_length=200)
    memory = models.OneToOneField(Memory, on_delete=models.PROTECT, related_name="source_point")
    text = models.TextField()
    said = models.CharField(max_length=64)  # point_hash of text and metadata
    present = models.BooleanField(default=True)
    marked = models.BooleanField(default=False)  # mark mode: memadmin_status is set on it
    # A push wrote a new text beside the store's old vector (memadmin never calls the
    # agent's embedder): its owner may embed it again. Recorded here, never in the point.
    vector_stale = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "point_id"], name="one_point_per_id")
        ]

    def __str__(self) -> str:
        return f"{self.source_id}:{self.point_id}"


class PushOperation(models.Model):
    """One operation of a push, journalled before it is sent."""

    class Action(models.TextChoices):
        DELETE = "delete"
        MARK = "mark"
        UNMARK = "unmark"
        UPDATE = "update"  # a merge's survivor: the merged text
        RESTORE = "restore"  # an undo: the point as it was

    class Status(models.TextChoices):
        PENDING = "pending"
        DONE = "done"
        SKIPPED = "skipped"  # changed in the source since memadmin read it: left alone

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="operations")
    point = models.ForeignKey(SourcePoint, on_delete=models.PROTECT, related_name="operations")
    push = models.PositiveIntegerField()  # the push that planned it (1, 2, ...)
    action = models.CharField(max_length=10, choices=Action.choices)
    text = models.TextField(blank=True, default="")  # the text it writes (all but delete, mark)
    status_marked = models.CharField(max_length=20, blank=True, default="")  # mark
    superseded_by = models.CharField(max_length=200, blank=True, default="")  # mark
    why = models.CharField(max_length=300)  # the decision, in words
    # The operations of one decision (a merge: its carrier's update and its members'
    # deletes) share a group: sent all together or none (sources/pushing.py).
    group = models.CharField(max_length=40, blank=True, default="")
    # The point before the operation (id, text, metadata, the source's vector), read from
    # the source just before it was sent: what an undo restores.
    before = models.JSONField(null=True, blank=True)
    # A restore writes the point another operation's `before` holds.
    restores = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    note = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["push", "pk"]
        indexes = [models.Index(fields=["source", "status"], name="push_operation_status")]

    def __str__(self) -> str:
        return f"push {self.push}: {self.action} {self.point_id}"
