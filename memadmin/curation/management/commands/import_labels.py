from pathlib import Path

from django.core.management.base import CommandError

from memadmin.curation import decisions
from memadmin.curation.learning import evaluation
from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Namespace


class Command(MemadminCommand):
    help = (
        "Import a labelled sample of the store's pairs, in the format evaluate_detection "
        "reads (README: Measuring detection): duplicate groups one fact, conflicts, hard "
        "negatives two facts. The store's measured error rate (find_duplicates, "
        "export_review) rests on it. Every id must name a memory of the store; nothing is "
        "imported otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument("labels", type=Path, help="labels.json")
        parser.add_argument("--namespace", help="the namespace the file labels")
        parser.add_argument(
            "--complete",
            action="store_true",
            help="the file labels every pair of the memories it names, as evaluate_detection "
            "reads one: a pair of them it does not list is two facts",
        )

    def handle(self, *args, labels: Path, namespace, complete, **options):
        try:
            found = evaluation.read_labels(labels)
        except evaluation.BadLabels as problem:
            raise CommandError(str(problem)) from None
        chosen = None
        if namespace:
            chosen = Namespace.objects.filter(name=namespace).first()
            if chosen is None:
                raise CommandError(f"no namespace {namespace!r}")
        try:
            counts = decisions.import_labels(
                found,
                source=labels.name,
                actor="command:import_labels",
                namespace=chosen,
                complete=complete,
            )
        except decisions.DecisionError as problem:
            raise CommandError(f"{labels}: {problem}; nothing imported") from None
        self.stdout.write(
            f"{sum(counts.values())} labelled pairs imported from {labels.name}: "
            f"{counts['one_fact']} one fact, {counts['conflict']} conflicts, "
            f"{counts['two_facts']} two facts"
        )
