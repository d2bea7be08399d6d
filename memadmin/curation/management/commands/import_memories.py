# Import writes memories and their history events, so it is a curation command (the store,
# the layer below, never writes); the file parsing it calls is store.importing.
from pathlib import Path

from django.core.management.base import CommandError

from memadmin.curation import decisions
from memadmin.store import importing
from memadmin.store.commands import MemadminCommand
from memadmin.store.progress import progress_bar

MAX_ERRORS_SHOWN = 50


class Command(MemadminCommand):
    help = (
        "Import memories from a JSONL file (one memory a line) or a CSV file with a header. "
        "Every line is checked first; nothing is imported unless every line is valid "
        "(or --skip-invalid is given). Importing the same file twice changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--namespace", help="namespace of lines that name none")
        parser.add_argument(
            "--skip-invalid", action="store_true", help="import the valid lines, list the rest"
        )
        parser.add_argument(
            "--no-embed", action="store_true", help="leave vectors to embed_memories"
        )

    def handle(self, *args, path: Path, namespace, skip_invalid, no_embed, **options):
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        report = importing.validate_file(path, default_namespace=namespace)
        for line, reason in report.errors[:MAX_ERRORS_SHOWN]:
            self.stderr.write(f"{path}: line {line}: {reason}")
        if len(report.errors) > MAX_ERRORS_SHOWN:
            self.stderr.write(f"... and {len(report.errors) - MAX_ERRORS_SHOWN} more bad lines")
        if report.errors and not skip_invalid:
            raise CommandError(
                f"{len(report.errors)} invalid line(s); nothing imported "
                "(fix them, or pass --skip-invalid to import the valid lines)"
            )
        records = importing.read_records(
            path, default_namespace=namespace, skip_lines=report.bad_lines
        )
        with progress_bar(total=report.valid_lines, desc="import") as bar:
            try:
                result = decisions.import_records(
                    records=records,
                    actor="command:import_memories",
                    embed=not no_embed,
                    on_progress=bar.update,
                )
            except decisions.DecisionError as error:
                raise CommandError(f"{error}; nothing imported") from error
        skipped = f", {len(report.errors)} invalid skipped" if report.errors else ""
        if result.kept_curated:
            skipped += f", {result.kept_curated} kept the status curation gave them"
        self.stdout.write(
            f"imported {path.name}: {result.created} created, {result.updated} updated, "
            f"{result.unchanged} unchanged, {result.embedded} embedded{skipped} "
            f"({len(result.namespaces)} namespace(s))"
        )
