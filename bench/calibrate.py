"""Detection quality on a labelled set, in memory (no database), with no LLM: the same
planning code as find_duplicates, scored against labels.json.

    .venv/bin/python bench/calibrate.py [--data ../shared/data/dev] [--set review=0.55 ...]
    .venv/bin/python bench/calibrate.py --details      # every false and missed pair
    .venv/bin/python bench/calibrate.py --lono         # leave one namespace out
    .venv/bin/python bench/calibrate.py --perturb      # the invariance table
    .venv/bin/python bench/calibrate.py --loso         # leave one labelled set out
    .venv/bin/python bench/calibrate.py --fit          # fit the pair model, write it

--loso and --fit judge every labelled set (curation.model_fit.LABELLED_SETS: the dev set,
the peers' set, the everyday sets, many_subjects and the minimal pairs), fit the pair
model without each in turn and score it on the one left out; the tier thresholds are
chosen on those held-out figures. --fit then fits on every set and writes the weights,
the thresholds and the held-out figures to curation/detection/pair_model.json (needs the
dev extra: scikit-learn).

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
    parser.add_argument("--fit", action="store_true", help="fit and write the pair model")
    parser.add_argument("--c-related", type=float, default=1.0)
    parser.add_argument("--c-disagree", type=float, default=1.0)
    args = parser.parse_args()

    import django

    django.setup()
    if args.loso or args.fit:
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
    result = calibration.score(labels, calibration.plan_set(rows, thresholds, vectors))
    print(thresholds)
    print(result.summary())
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
    import time

    from memadmin.curation.detection.thresholds import Thresholds
    from memadmin.curation.learning import calibration
    from memadmin.curation.learning import fitting as model_fit
    from memadmin.curation.learning import held_out as held_out_module

    thresholds = Thresholds.from_settings()
    vectors = calibration.Vectors()
    tables = []
    for name in model_fit.available():
        started = time.perf_counter()
        table = model_fit.table_of(name, thresholds, vectors)
        tables.append(table)
        print(
            f"  {name}: {len(table.rows)} memories, {len(table.classes)} candidate pairs "
            f"({time.perf_counter() - started:.1f} s)",
            file=sys.stderr,
            flush=True,
        )
    held_out = model_fit.leave_one_set_out(
        tables,
        thresholds,
        c_related=args.c_related,
        c_disagree=args.c_disagree,
        on_progress=lambda what: print(f"  trying {what}", file=sys.stderr, flush=True),
    )
    print(f"thresholds chosen on the held-out figures: {held_out.thresholds}")
    for name, figures in held_out.figures.items():
        print(f"{name} (held out): {figures.line()}")
    print(f"pooled, every set held out once: {held_out.pooled.line()}")
    print("held-out log-loss by stage (knowing only the set's own shares in brackets):")
    for name, stages in held_out_module.held_out_log_loss(tables, held_out.models).items():
        said = (f"{stage} {loss:.3f} ({base:.3f})" for stage, (loss, base) in stages.items())
        print(f"  {name}: " + "; ".join(said))
    temperature = held_out_module.band_temperature(tables, held_out.models)
    print(
        f"the LLM band's temperature (the worst held-out set read best): {temperature}; "
        "that set's log-loss under it:"
    )
    for name, stages in held_out_module.held_out_log_loss(
        tables, held_out.models, temperature
    ).items():
        said = (f"{stage} {loss:.3f}" for stage, (loss, _) in stages.items())
        print(f"  {name}: " + "; ".join(said))
    chosen_on = [n for n in model_fit.CHOOSING_SETS if n in held_out.figures]
    print(
        f"pooled over the sets the thresholds were chosen on ({', '.join(chosen_on)}): "
        f"{held_out.pooled_over(chosen_on).line()}"
    )
    if args.fit:
        command = "bench/calibrate.py --fit" + "".join(
            f" --{flag} {value}"
            for flag, value in (("c-related", args.c_related), ("c-disagree", args.c_disagree))
            if value != 1.0
        )
        stored = model_fit.stored_form(
            tables,
            held_out,
            c_related=args.c_related,
            c_disagree=args.c_disagree,
            command=command,
            llm_temperature=temperature,
        )
        model_fit.write(stored)
        print("written: memadmin/curation/detection/pair_model.json")


if __name__ == "__main__":
    main()
