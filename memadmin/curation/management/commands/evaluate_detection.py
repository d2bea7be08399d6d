from pathlib import Path

from django.core.management.base import CommandError

from memadmin.curation.learning import evaluation
from memadmin.curation.reads.exports import detection_output
from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Namespace


class Command(MemadminCommand):
    help = (
        "Score the clusters and conflicts detection produced against a labels file "
        "(README: Measuring detection): duplicate-pair precision and recall, conflict "
        "precision and recall, unsafe automatic merges, per namespace and overall, and "
        "the false and missed pairs."
    )

    def add_arguments(self, parser):
        parser.add_argument("labels", type=Path, help="labels.json")
        parser.add_argument("--namespace", help="only this namespace")
        parser.add_argument("--quiet", action="store_true", help="figures only, no pairs")

    def handle(self, *args, labels, namespace, quiet, **options):
        try:
            truth = evaluation.read_labels(labels)
        except evaluation.BadLabels as problem:
            raise CommandError(str(problem)) from None
        namespaces = Namespace.objects.order_by("name")
        if namespace:
            namespaces = namespaces.filter(name=namespace)
            if not namespaces:
                raise CommandError(f"no namespace {namespace!r}")
        outputs = [detection_output(found) for found in namespaces]
        for output in outputs:
            result = evaluation.score_output(truth, [output])
            self.stdout.write(f"{output.namespace}: {result.summary()}")
        overall = evaluation.score_output(truth, outputs)
        self.stdout.write(f"overall: {overall.summary()}")
        possible = evaluation.score_possible(truth, outputs)
        self.stdout.write(f"possible tier, apart: {possible}")
        if not quiet:
            texts = {key: text for output in outputs for key, text in output.texts.items()}
            for title, pairs in (
                ("false duplicate", overall.false_pairs),
                ("missed duplicate", overall.missed_pairs),
                ("false conflict", overall.false_conflicts),
                ("missed conflict", overall.missed_conflicts),
            ):
                for a, b in pairs:
                    self.stdout.write(f"{title}: {a} {_short(texts, a)} | {b} {_short(texts, b)}")
            for item in overall.unsafe_auto_merges:
                self.stdout.write(f"UNSAFE automatic merge: {item}")


def _short(texts: dict[str, str], key: str) -> str:
    text = texts.get(key)
    return "(not in the store)" if text is None else repr(text[:60])
