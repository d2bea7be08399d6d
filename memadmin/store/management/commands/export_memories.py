import json

from django.core.management.base import CommandError

from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Memory, MemoryStatus, Namespace


def export_line(memory: Memory, *, with_embedding: bool) -> dict:
    """One memory in the import format (plus the curation fields), so an export imports."""
    line = {
        "id": memory.external_id,
        "namespace": memory.namespace.name,
        "content": memory.content,
        "created_at": memory.created_at.isoformat(),
        "category": memory.category,
        "tags": memory.tags,
        "source_ref": memory.source_ref,
        "session_id": memory.session_id,
        "importance": memory.importance,
        "confidence": memory.confidence,
        "metadata": memory.metadata,
        "access_count": memory.access_count,
        "last_accessed_at": memory.last_accessed_at and memory.last_accessed_at.isoformat(),
        "valid_from": memory.valid_from and memory.valid_from.isoformat(),
        "valid_until": memory.valid_until and memory.valid_until.isoformat(),
        "pinned": memory.pinned,
        "status": memory.status,
        "superseded_by": memory.superseded_by.external_id if memory.superseded_by else None,
        "provenance": memory.provenance,
    }
    if with_embedding and memory.embedding is not None:
        line["embedding"] = [round(float(x), 7) for x in memory.embedding]
        line["embedding_model"] = memory.embedding_model
    return line


class Command(MemadminCommand):
    help = "Print memories as JSONL on stdout (the import format), oldest first."

    def add_arguments(self, parser):
        parser.add_argument("--namespace")
        parser.add_argument("--status", choices=MemoryStatus.values)
        parser.add_argument("--with-embeddings", action="store_true")

    def handle(self, *args, namespace, status, with_embeddings, **options):
        memories = Memory.objects.select_related("namespace", "superseded_by")
        if namespace:
            if not Namespace.objects.filter(name=namespace).exists():
                raise CommandError(f"no namespace {namespace!r}")
            memories = memories.filter(namespace__name=namespace)
        if status:
            memories = memories.filter(status=status)
        if not with_embeddings:
            memories = memories.defer("embedding", "superseded_by__embedding")
        count = 0
        for memory in memories.order_by("namespace__name", "created_at", "id").iterator(2000):
            line = export_line(memory, with_embedding=with_embeddings)
            self.stdout.write(json.dumps(line, ensure_ascii=False))
            count += 1
        self.stderr.write(f"exported {count} memories")
