"""Detection quality on a labelled set, in memory (no database), with no LLM: the same
planning code as find_duplicates, scored against labels.json.

    .venv/bin/python bench/calibrate.py [--data ../shared/data/dev] [--set review=0.55 ...]
    .venv/bin/python bench/calibrate.py --details      # every false and missed pair
    .venv/bin/python bench/calibrate.py --lono         # leave one namespace out
    .venv/bin/python bench/calibrate.py --perturb      # the invariance table
    .venv/bin/python bench/calibrate.py --loso         # leave one labelled set out

--loso judges every labelled set (curation.learning.fitting.LABELLED_SETS: the dev set,
the peers' set, the everyday sets, many_subjects and the minimal pairs), fits the pair
model without each in turn and scores it on the one left out; the tier thresholds are
chosen on those held-out figures (curation.learning.report). `manage.py fit_pair_model`
prints the same and writes the model fit on every set (needs the dev extra: scipy).

--lono: for each namespace, the thresholds of calibration.GRID are chosen on the other
namespaces (the best duplicate F1 + conflict F1 with no unsafe automatic merge) and scored
on the one left out; pooled, the figure a user should expect on memories the thresholds
never saw. --perturb: the set as labelled, then with its tags emptied, renamed or made
unique per memory (as if each were in its own language), its categories made one, its
dates moved a year, its lines shuffled, and all metadata taken away; the README's
invariance table is this output.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("DATABASE_URL", "postgresql://unused@/unused")  # no database needed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "dev")
    parser.add_argument("--set", action="append", default=[], help="threshold=value")
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--lono", action="store_true", help="leave one namespace out")
    parser.add_argument("--perturb", action="store_true", help="the invariance table")
    parser.add_argument("--loso", action="store_true", help="leave one labelled set out")
    parser.add_argument("--c-related", type=float, default=1.0)
    parser.add_argument("--c-disagree", type=float, default=1.0)
    parser.add_argument(
        "--no-committee",
        dest="committee",
        action="store_false",
        help="with --loso: each model alone, without its committee and unseen features",
    )
    args = parser.parse_args()

    import django

    django.setup()
    if args.loso:
        leave_one_set_out(args)
        return
    from memadmin.curation.detection.thresholds import Thresholds
    from memadmin.curation.learning import calibration

    rows, labels = calibration.load_set(args.data)
    vectors = calibration.Vectors()
    thresholds = Thresholds.from_settings()
    for assignment in args.set:
        name, value = assignment.split("=")
        thresholds = dataclasses.replace(
            thresholds, **{name: type(getattr(thresholds, name))(value)}
        )
    if args.perturb:
        table = calibration.invariance(rows, labels, thresholds, vectors)
        print(calibration.format_invariance(table))
        return
    if args.lono:
        pooled, chosen = calibration.leave_one_namespace_out(
            rows,
            labels,
            thresholds,
            vectors,
            on_progress=lambda done, total: print(f"  grid {done}/{total}", file=sys.stderr),
        )
        for namespace, combo, result in chosen:
            print(f"{namespace}: chosen on the others {combo}")
            print(f"  held out: {result.summary()}")
        print(f"leave-one-namespace-out, pooled: {pooled.summary()}")
        return
    score_the_set(args, rows, labels, thresholds, vectors)


def score_the_set(args, rows, labels, thresholds, vectors) -> None:
    """The set's figures with no LLM, its confident errors and (--details) every false
    and missed pair."""
    from memadmin.curation.learning import calibration

    outputs = calibration.plan_set(rows, thresholds, vectors)
    result = calibration.score(labels, outputs)
    print(thresholds)
    print(result.summary())
    from memadmin.curation.learning.evaluation import Figures

    # The acceptance's no-LLM recall counts what the possible tier reaches too.
    reached = calibration.score(labels, calibration.with_possible(outputs))
    print(Figures.of(result, reached).line())
    from memadmin.curation.detection.scoring.model import MODEL_PATH
    from memadmin.curation.learning import fitting, held_out

    table = fitting.table_of(str(args.data), thresholds, vectors)
    count, pairs = held_out.confident_errors(table, json.loads(MODEL_PATH.read_text()))
    print(f"confident errors (read at {held_out.SURE} or more as what the label says it is not): "
          f"{count} of {pairs} candidate pairs")  # fmt: skip
    if args.details:
        by_id = {row["id"]: row["content"] for row in rows}
        for title, pairs in (("false", result.false_pairs), ("missed", result.missed_pairs)):
            for a, b in pairs:
                print(f"{title}: {a} {by_id[a][:50]!r} | {b} {by_id[b][:50]!r}")
        for title, pairs in (
            ("false conflict", result.false_conflicts),
            ("missed conflict", result.missed_conflicts),
        ):
            for a, b in pairs:
                print(f"{title}: {a} {by_id[a][:50]!r} | {b} {by_id[b][:50]!r}")
        for item in result.unsafe_auto_merges:
            print("UNSAFE", item)


def leave_one_set_out(args) -> None:
    from memadmin.curation.learning import report

    found = report.leave_one_set_out(
        c_related=args.c_related,
        c_disagree=args.c_disagree,
        committee=args.committee,
        on_progress=lambda said: print(f"  {said}", file=sys.stderr, flush=True),
    )
    print("\n".join(found.lines))


if __name__ == "__main__":
    main()
