import json

from django.core.management.base import CommandError

from memadmin.curation.reads.exports import review_export
from memadmin.store.commands import MemadminCommand


class Command(MemadminCommand):
    help = "Print the clusters and conflicts as one JSON object on stdout."

    def add_arguments(self, parser):
        parser.add_argument("--namespace")
        parser.add_argument("--format", choices=["json"], required=True)

    def handle(self, *args, namespace, format, **options):
        from memadmin.store.models import Namespace

        if namespace and not Namespace.objects.filter(name=namespace).exists():
            raise CommandError(f"no namespace {namespace!r}")
        self.stdout.write(json.dumps(review_export(namespace), ensure_ascii=False))
