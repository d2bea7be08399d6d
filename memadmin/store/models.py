"""The memory store: namespaces (one agent's or user's store) and their memories."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import models
from django.db.models import Q
from pgvector.django import HnswIndex, VectorField

EMBEDDING_DIMENSIONS = 384


def index_where_set(field: str, name: str) -> models.Index:
    """The index of a foreign key that most rows leave empty until something happens (a
    merge, a decision, an undo), holding only the rows that have it: every look-up by
    it is of a value, and the many rows written without one (a batch run writes them by
    the thousand) write no index entry for it."""
    return models.Index(fields=[field], condition=Q(**{f"{field}__isnull": False}), name=name)


class Namespace(models.Model):
    """One agent's or user's store. All detection happens within one namespace, and every
    heavy query is keyed by it (it is also the shard key when the tables are distributed)."""

    name = models.SlugField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The language of its first memory (store.lexicon.language_of), and whether a memory
    # in another one has come since: only a multilingual namespace's memories get the
    # second, multilingual vector (store.multilingual). Once set, it stays set.
    language = models.CharField(max_length=8, blank=True, default="")
    multilingual = models.BooleanField(default=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class MemoryStatus(models.TextChoices):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DELETED = "deleted"


class Memory(models.Model):
    """One fact an agent stored. Curation never hard-deletes a memory: it marks it
    superseded or deleted and writes a history event (curation.decisions)."""

    # No index of its own: memory_unique_external_id and the indexes below start with it
    # (one index fewer to write for every memory stored or changed).
    namespace = models.ForeignKey(
        Namespace, on_delete=models.PROTECT, related_name="memories", db_index=False
    )
    external_id = models.CharField(max_length=200)
    content = models.TextField()
    # sha256 of store.text.normalise(content): exact duplicates in O(1).
    content_hash = models.CharField(max_length=64)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    # The model that made `embedding`: vectors of two models are never compared.
    embedding_model = models.CharField(max_length=100, blank=True, default="")
    # The multilingual model's vector (store.multilingual), in multilingual namespaces only.
    embedding_multi = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_multi_model = models.CharField(max_length=100, blank=True, default="")
    category = models.CharField(max_length=100, blank=True, default="")
    tags = ArrayField(models.CharField(max_length=100), blank=True, default=list)
    source_ref = models.CharField(max_length=200, blank=True, default="")
    session_id = models.CharField(max_length=200, blank=True, default="")
    importance = models.FloatField(default=0.5)
    confidence = models.FloatField(default=0.5)
    access_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_until = models.DateTimeField(null=True, blank=True)
    # Where the fact was seen: [{"session_id", "source_ref", "external_id", "seen_at"}, ...].
    provenance = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    pinned = models.BooleanField(default=False)
    status = models.CharField(
        max_length=12, choices=MemoryStatus.choices, default=MemoryStatus.ACTIVE
    )
    # Indexed where set (memory_superseded_by_set): active memories have none.
    superseded_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="supersedes",
        db_index=False,
    )
    # Bumped by every change: incremental detection compares what changed since a run.
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["namespace_id", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "external_id"], name="memory_unique_external_id"
            ),
            models.CheckConstraint(
                condition=Q(importance__gte=0) & Q(importance__lte=1),
                name="memory_importance_0_1",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="memory_confidence_0_1",
            ),
            models.CheckConstraint(
                condition=Q(status__in=MemoryStatus.values), name="memory_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(superseded_by__isnull=True) | ~Q(status=MemoryStatus.ACTIVE),
                name="memory_active_not_superseded",
            ),
        ]
        indexes = [
            # The queues' and the browser's word search: PostgreSQL full text in its
            # 'simple' configuration (no stemming: memories come in many languages).
            GinIndex(SearchVector("content", config="simple"), name="memory_content_words"),
            # Exact-duplicate look-ups are always within one namespace.
            models.Index(fields=["namespace", "content_hash"], name="memory_ns_hash"),
            # Lists and incremental detection read one namespace's active rows by time.
            models.Index(fields=["namespace", "status", "updated_at"], name="memory_ns_status"),
            # k nearest by cosine distance; m/ef_construction are pgvector's defaults.
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            # The same for the multilingual vector (rows without one are not indexed).
            HnswIndex(
                name="memory_embedding_multi_hnsw",
                fields=["embedding_multi"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            # A namespace of long memories in one language has the multilingual vector on
            # its short ones only: the nearest of a few hundred are found by reading them,
            # where the planner, guessing few, would otherwise scan the whole table
            # (bench/api_write.py --short: the check's p50 48 ms without it, 10 ms with).
            models.Index(
                fields=["namespace"],
                name="memory_ns_multi",
                condition=Q(embedding_multi__isnull=False),
            ),
            index_where_set("superseded_by", "memory_superseded_by_set"),
        ]

    def __str__(self) -> str:
        return f"{self.external_id}: {self.content[:60]}"
