# Storing vectors is a write with a history event (curation.decisions), so this command
# lives in curation; the engine it calls is store.embeddings.
from django.core.management.base import CommandError
from django.db.models import Q

from memadmin.curation import decisions
from memadmin.store import embeddings, multilingual
from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Memory, MemoryStatus, Namespace
from memadmin.store.progress import progress_bar
from memadmin.store.text import SHORT_WORDS

BATCH = 500


class Command(MemadminCommand):
    help = (
        "Embed every memory that has no vector of the current model "
        f"({embeddings.MODEL_ID}): new rows, and rows embedded by another model; also "
        f"with the multilingual model ({multilingual.MODEL_ID}) every memory of a "
        f"namespace in more than one language, and every memory of at most "
        f"{SHORT_WORDS} words."
    )

    def add_arguments(self, parser):
        parser.add_argument("--namespace")

    def handle(self, *args, namespace, **options):
        pending = Memory.objects.filter(
            Q(embedding__isnull=True) | ~Q(embedding_model=embeddings.MODEL_ID)
        )
        if namespace:
            if not Namespace.objects.filter(name=namespace).exists():
                raise CommandError(f"no namespace {namespace!r}")
            pending = pending.filter(namespace__name=namespace)
        total = pending.count()
        done = 0
        with progress_bar(total=total, desc="embed") as bar:
            # Always take the first BATCH still pending: each batch leaves the pending set.
            while batch := list(
                pending.defer("embedding", "embedding_multi").order_by("id")[:BATCH]
            ):
                vectors = embeddings.encode([memory.content for memory in batch])
                done += decisions.store_embeddings(
                    memories=batch, vectors=vectors, actor="command:embed_memories"
                )
                bar.update(len(batch))
        self.stdout.write(f"embedded {done} memories with {embeddings.MODEL_ID}")
        namespaces = Namespace.objects.all()
        if namespace:
            namespaces = namespaces.filter(name=namespace)
        for found in namespaces:
            texts = list(
                found.memories.filter(status=MemoryStatus.ACTIVE).values_list("content", flat=True)
            )
            if multilingual.needs_multilingual(texts):
                decisions.note_languages(found, texts)
            # All of a multilingual namespace, else its short memories (store.multilingual).
            count = decisions.embed_multilingual(found, actor="command:embed_memories")
            if count or found.multilingual:
                self.stdout.write(
                    f"embedded {count} memories of {found.name} with {multilingual.MODEL_ID}"
                )
