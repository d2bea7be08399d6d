from django.core.management.base import CommandError

from memadmin.sources.models import Source
from memadmin.sources.pushing import describe, push
from memadmin.sources.reembedding import reembed as reembed_points
from memadmin.sources.stores import SourceError
from memadmin.store.commands import MemadminCommand
from memadmin.store.progress import progress_bar


class Command(MemadminCommand):
    help = (
        "Write back to a source what was decided here since the last push: merged and "
        "superseded points deleted (or marked, --mode mark), a merge's text on the point that "
        "carries it, an undone decision's point restored. A point changed in the source "
        "since the pull is left alone and listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--dry-run", action="store_true", help="list, send nothing")
        parser.add_argument("--mode", choices=Source.Mode.values, default=None)
        parser.add_argument(
            "--reembed",
            action="store_true",
            help="then give the points whose vector is of their old text memadmin's own "
            "embedding (a store whose vectors are memadmin's model, all-MiniLM-L6-v2)",
        )

    def handle(self, *args, name, dry_run, mode, reembed, **options):
        source = Source.objects.filter(name=name).first()
        if source is None:
            raise CommandError(f"no source named {name} (add_source adds one)")
        with progress_bar(total=0, desc=f"push {name}", unit="operations") as bar:
            try:
                report = push(
                    source,
                    dry_run=dry_run,
                    mode=mode,
                    on_total=bar.reset,
                    on_progress=bar.update,
                )
            except SourceError as error:
                raise CommandError(str(error)) from None
        for operation in report.operations:
            self.stdout.write(("would " if dry_run else "") + describe(operation))
        for operation in report.skipped:
            self.stdout.write(f"left alone: {operation.point.point_id}: {operation.note}")
        said = "dry run, nothing sent: " if dry_run else f"pushed {name}: "
        self.stdout.write(said + report.summary())
        if reembed and not dry_run:
            try:
                done, left = reembed_points(source)
            except SourceError as error:
                raise CommandError(str(error)) from None
            self.stdout.write(f"re-embedded {done} point(s); {left} changed in the source, left")
