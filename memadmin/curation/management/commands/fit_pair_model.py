"""Fit the pair model on every labelled set present and write it (with the thresholds
chosen on the held-out figures and the figures themselves) to
curation/detection/scoring/pair_model.json. Needs the dev extra (scipy)."""

from django.core.management.base import BaseCommand

from memadmin.curation.detection.scoring import model as pair_model
from memadmin.curation.learning import fitting, report


class Command(BaseCommand):
    help = "Fit the pair model on the labelled sets, each held out once, and write it."

    def add_arguments(self, parser):
        parser.add_argument("--c-related", type=float, default=1.0)
        parser.add_argument("--c-disagree", type=float, default=1.0)
        parser.add_argument(
            "--no-committee",
            dest="committee",
            action="store_false",
            help="fit the model alone, without its doubts: the fits that leave one set out "
            "each, the features too few pairs showed (docs/detection.md)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="print the held-out figures, write nothing"
        )

    def handle(
        self, *args, c_related: float, c_disagree: float, committee: bool, dry_run: bool, **options
    ):
        command = "manage.py fit_pair_model" + "".join(
            f" --{flag} {value}"
            for flag, value in (("c-related", c_related), ("c-disagree", c_disagree))
            if value != 1.0
        )
        command += "" if committee else " --no-committee"
        found = report.leave_one_set_out(
            c_related=c_related,
            c_disagree=c_disagree,
            committee=committee,
            command=command,
            on_progress=lambda said: self.stderr.write(f"  {said}"),
        )
        for line in found.lines:
            self.stdout.write(line)
        if dry_run:
            self.stdout.write("dry run: pair_model.json left as it was")
            return
        fitting.write(found.stored)
        self.stdout.write(f"written: {pair_model.MODEL_PATH}")
