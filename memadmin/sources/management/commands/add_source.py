from pathlib import Path
from urllib.parse import urlsplit

from django.core.management.base import CommandError
from django.db import IntegrityError

from memadmin.sources import mem0
from memadmin.sources.models import Source
from memadmin.sources.stores import (
    EMBEDDER_MEMADMIN,
    SourceError,
    open_store,
    require_library,
)
from memadmin.store import validation
from memadmin.store.commands import MemadminCommand

FIELD_PARTS = ("text", "created", "id", "vector", "metadata")


class Command(MemadminCommand):
    help = (
        "Connect a store an agent already runs (a ChromaDB or Qdrant collection, a pgvector "
        "table, a records file) as a source: pull_source brings its points in for review, "
        "push_source writes the decisions back."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="letters, digits, '-' or '_'")
        parser.add_argument("--kind", required=True, choices=Source.Kind.values)
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument(
            "--location",
            help="a folder (chroma, qdrant local mode), a URL (qdrant server), a DSN "
            "(pgvector) or a records file (jsonl); no password in it",
        )
        where.add_argument(
            "--location-env", help="an environment variable holding the location (credentials)"
        )
        parser.add_argument(
            "--api-key-env", default="", help="qdrant server: the API key's variable"
        )
        what = parser.add_mutually_exclusive_group()
        what.add_argument("--collection", default="")
        what.add_argument("--table", default="", help="pgvector: [schema.]table")
        into = parser.add_mutually_exclusive_group()
        into.add_argument("--namespace", default="", help="one namespace for every point")
        into.add_argument(
            "--namespace-from",
            default="",
            help="a metadata key (user_id, agent_id): one namespace per value",
        )
        parser.add_argument("--layout", choices=Source.Layout.values, default="plain")
        parser.add_argument("--mode", choices=Source.Mode.values, default="delete")
        for part in FIELD_PARTS:
            parser.add_argument(f"--{part}-field", default=None, help=f"where the {part} is")
        parser.add_argument(
            "--embedder",
            choices=[EMBEDDER_MEMADMIN],
            default=None,
            help="the store's vectors are memadmin's model: a push embeds merged texts itself",
        )
        parser.add_argument(
            "--mem0-history",
            default=None,
            metavar="PATH",
            help="Mem0's history database (history.db): each push adds the rows Mem0 "
            "writes for an update or a delete, so Memory.history(id) tells what was done",
        )

    def handle(self, *args, **options):
        name, kind = options["name"], options["kind"]
        try:
            validation.namespace_name(name, "name")
        except validation.Invalid as error:
            raise CommandError(str(error)) from None
        location = options["location"] or ""
        if location and urlsplit(location).password:
            raise CommandError(
                "the location holds a password: put it in an environment variable and pass "
                "--location-env NAME (memadmin stores the variable's name, never its value)"
            )
        collection = options["collection"] or options["table"]
        if kind != Source.Kind.JSONL and not collection:
            raise CommandError(f"a {kind} source needs --collection (or --table)")
        if options["layout"] == "mem0" and kind not in ("qdrant", "pgvector", "chroma"):
            raise CommandError("--layout mem0 is Mem0's payload on qdrant, chroma or pgvector")
        history = options["mem0_history"]
        if history is not None:
            if options["layout"] != "mem0":
                raise CommandError("--mem0-history is for a source with --layout mem0")
            try:
                validation.short_text(history, "--mem0-history", 1000)
            except validation.Invalid as error:
                raise CommandError(str(error)) from None
            if problem := mem0.check_history(history):
                raise CommandError(f"--mem0-history: {problem}")
        source = Source(
            name=name,
            kind=kind,
            location=location,
            location_env=options["location_env"] or "",
            api_key_env=options["api_key_env"],
            collection=collection,
            namespace=options["namespace"] or ("" if options["namespace_from"] else name),
            namespace_from=options["namespace_from"],
            layout=options["layout"],
            mode=options["mode"],
            fields={
                part: options[f"{part}_field"]
                for part in FIELD_PARTS
                if options[f"{part}_field"] is not None
            }
            | ({"embedder": options["embedder"]} if options["embedder"] else {})
            | ({"mem0_history": str(Path(history).resolve())} if history else {}),
        )
        try:
            # What a column holds: no NUL byte or unreadable text, within its length.
            for field in (
                "location",
                "location_env",
                "api_key_env",
                "collection",
                "namespace_from",
            ):
                limit = Source._meta.get_field(field).max_length
                validation.short_text(getattr(source, field), f"--{field.replace('_', '-')}", limit)
            for part, value in source.fields.items():
                named = f"--{part}-field" if part in FIELD_PARTS else f"--{part.replace('_', '-')}"
                validation.short_text(value, named, 1000)
            if source.namespace:
                validation.namespace_name(source.namespace)
            require_library(kind)
            open_store(source).close()  # reachable, and the collection or table is there
        except (SourceError, validation.Invalid) as error:
            raise CommandError(str(error)) from None
        try:
            source.save()
        except IntegrityError:
            raise CommandError(f"a source named {name} exists already") from None
        into = source.namespace or f"{name}-<{source.namespace_from}>"
        self.stdout.write(
            f"added source {name}: {kind} {collection or ''} at {source.shown_location}, "
            f"into namespace {into}; next: python manage.py pull_source {name}"
        )
