from django.conf import settings
from django.core.management.base import CommandError

from memadmin.curation import decisions
from memadmin.store.commands import MemadminCommand
from memadmin.store.models import Namespace


class Command(MemadminCommand):
    help = (
        "Time decay: confidence *= (1 - rate) ** days since last access, for memories not "
        "accessed for over a day, never below the floor."
    )

    def add_arguments(self, parser):
        parser.add_argument("--namespace")
        parser.add_argument("--rate", type=float, default=settings.DECAY_RATE)
        parser.add_argument("--floor", type=float, default=settings.DECAY_FLOOR)

    def handle(self, *args, namespace, rate, floor, **options):
        if not 0 <= rate < 1 or not 0 <= floor <= 1:
            raise CommandError("--rate must be in [0, 1) and --floor in [0, 1]")
        target = None
        if namespace:
            target = Namespace.objects.filter(name=namespace).first()
            if target is None:
                raise CommandError(f"no namespace {namespace!r}")
        changed = decisions.decay_confidence(rate=rate, floor=floor, namespace=target)
        self.stdout.write(f"decayed {changed} memories (rate {rate}, floor {floor})")
