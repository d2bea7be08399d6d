from django.core.management.base import CommandError

from memadmin.sources.models import Source
from memadmin.sources.pulling import pull
from memadmin.sources.stores import SourceError
from memadmin.store.commands import MemadminCommand
from memadmin.store.progress import progress_bar

SKIPPED_SHOWN = 20


class Command(MemadminCommand):
    help = (
        "Read a source's points into memadmin: new ones become memories, changed ones are "
        "updated, ones gone from the source are retired here. A second pull of an unchanged "
        "source changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")

    def handle(self, *args, name, **options):
        source = Source.objects.filter(name=name).first()
        if source is None:
            raise CommandError(f"no source named {name} (add_source adds one)")
        with progress_bar(total=0, desc=f"pull {name}", unit="points") as bar:
            try:
                report = pull(source, on_total=bar.reset, on_progress=bar.update)
            except SourceError as error:
                raise CommandError(str(error)) from None
        for point_id, why in report.skipped[:SKIPPED_SHOWN]:
            self.stderr.write(f"point {point_id}: skipped: {why}")
        self.stdout.write(f"pulled {name}: {report.summary()}")
