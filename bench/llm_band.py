"""The LLM band measured with an oracle judge (curation/learning/oracle.py): a local server speaking
the Messages API that answers verdicts from a labelled set's labels, wrong a seeded share
of the time. Detection runs in memory as find_duplicates runs it (candidates, rules, the
calibrated model, the doubtful pairs asked through the real anthropic SDK, grouping).

    .venv/bin/python bench/llm_band.py [--data DIR ...] [--error-rate 0,0.15] [--seed 7]
    .venv/bin/python bench/llm_band.py --loso      # each set under a model fit without it

Per set and error rate: duplicate and conflict precision / recall (recall also of the
labelled pairs some candidate layer reaches), the calls made, per 100 memories and per
memory, the labelled pairs no candidate layer reaches, and the share of labelled pairs
the pipeline neither asked about nor decided. With no --data: every labelled set of
curation.learning.fitting.LABELLED_SETS present here.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("DATABASE_URL", "postgresql://unused@/unused")  # no database needed
# The oracle answers here: a loaded machine must not cut a set's calls by the run's time.
os.environ.setdefault("MEMADMIN_LLM_RUN_BUDGET_SECONDS", "86400")


def labelled_pairs(labels: dict) -> tuple[set, set]:
    duplicates = {
        frozenset(pair)
        for group in labels["duplicate_groups"]
        for pair in itertools.combinations(group, 2)
    }
    conflicts = {frozenset((c["a"], c["b"])) for c in labels["conflicts"]}
    return duplicates, conflicts


def measure(
    name: str,
    rows: list[dict],
    labels: dict,
    error_rate: float,
    seed: int,
    model=None,
    *,
    correlated: bool = False,
) -> dict:
    """One set under one oracle (and `model`, else the shipped one): the figures."""
    from memadmin.curation.detection.thresholds import Thresholds
    from memadmin.curation.learning import calibration, evaluation
    from memadmin.curation.learning.oracle import Oracle
    from memadmin.curation.llm import client as llm

    with Oracle(rows, labels, error_rate=error_rate, seed=seed, correlated=correlated) as oracle:
        os.environ["ANTHROPIC_BASE_URL"] = oracle.url
        os.environ["ANTHROPIC_API_KEY"] = "oracle"
        session = llm.Session(max_calls=10**9)
        outputs = calibration.plan_set(
            rows, Thresholds.from_settings(), calibration.Vectors(), model, session=session
        )
    found = calibration.score(labels, outputs)
    duplicates, conflicts = labelled_pairs(labels)
    ids = {row["id"] for row in rows}
    duplicates = {p for p in duplicates if p <= ids}
    conflicts = {p for p in conflicts if p <= ids}
    reached = set().union(*(o.candidates for o in outputs)) if outputs else set()
    asked = set().union(*(o.asked for o in outputs)) if outputs else set()
    proposed_one = {
        frozenset(p)
        for c in evaluation.accepted_together(c for o in outputs for c in o.clusters)
        for p in itertools.combinations(c, 2)
    }
    proposed_conflicts = {frozenset(c) for o in outputs for c in o.conflicts}
    labelled = duplicates | conflicts
    left = {p for p in labelled if p not in asked and p not in proposed_one | proposed_conflicts}
    reached_one = duplicates & reached
    reached_conflicts = conflicts & reached
    counts = {
        "one_right": found.correct_pairs,
        "one_found": found.found_pairs,
        "one_labelled": found.true_pairs,
        "one_reached": len(reached_one),
        "one_reached_right": len(proposed_one & reached_one),
        "conflicts_right": found.conflicts_found,
        "conflicts_proposed": found.conflicts_proposed,
        "conflicts_labelled": found.conflicts_labelled,
        "conflicts_reached": len(reached_conflicts),
        "conflicts_reached_right": len(proposed_conflicts & reached_conflicts),
    }
    return {
        "counts": counts,
        "set": name,
        "error": error_rate,
        "memories": len(rows),
        "dup": (found.precision, found.recall),
        "dup_of_reached": len(proposed_one & reached_one) / len(reached_one)
        if reached_one
        else 1.0,
        "conflicts": (found.conflict_precision, found.conflict_recall),
        "conflicts_of_reached": len(proposed_conflicts & reached_conflicts) / len(reached_conflicts)
        if reached_conflicts
        else 1.0,
        "calls": session.calls,
        "tokens": session.input_tokens + session.output_tokens,
        "unreached": len(labelled - reached),
        "labelled": len(labelled),
        "left": len(left),
        "unsafe": len(found.unsafe_auto_merges),
        "audits": [o.audit for o in outputs if o.audit is not None],
        "true": {"clusters": found.precision, "conflicts": found.conflict_precision},
    }


def measured_line(audits: list, true: dict) -> str:
    """What the judge's audits (curation.llm.audit) measured of proposed clusters and
    conflicts, against the true precision: inside its 90 % interval or not."""
    from memadmin.curation.reads import audited

    strata = [s for found in audits for s in found.strata]
    readings = sum(found.readings for found in audits)
    disagreed = sum(found.disagreed for found in audits)
    figures = audited.estimate(strata, readings, disagreed)
    said = []
    for kind in ("clusters", "conflicts"):
        f = figures[kind]["proposed"]
        if f["precision"] is None:
            said.append(f"{kind} not measured")
            continue
        low, high = f["interval"]
        inside = "inside" if low <= true[kind] <= high else "OUTSIDE"
        said.append(
            f"{kind} P {f['precision']:.3f} [{low:.3f}, {high:.3f}] ({f['pairs']} audited; "
            f"true {true[kind]:.3f}, {inside}; recall {f['recall'] or 0:.3f})"
        )
    judge = figures["judge"]
    return (
        f"  measured by {sum(s.read for s in strata)} audited pairs: "
        + "; ".join(said)
        + f"; judge error {judge['error']:.3f} {judge['interval']} ({judge['pairs']} read twice)"
    )


def pooled_line(t: dict) -> str:
    def share(a: str, b: str) -> float:
        return t[a] / t[b] if t[b] else 1.0

    return (
        f"duplicates P {share('one_right', 'one_found'):.3f} R "
        f"{share('one_right', 'one_labelled'):.3f} (of reached "
        f"{share('one_reached_right', 'one_reached'):.3f}); conflicts P "
        f"{share('conflicts_right', 'conflicts_proposed'):.3f} R "
        f"{share('conflicts_right', 'conflicts_labelled'):.3f} (of reached "
        f"{share('conflicts_reached_right', 'conflicts_reached'):.3f})"
    )


def line(r: dict) -> str:
    return (
        f"{r['set']:14s} error {r['error']:.2f}: "
        f"duplicates P {r['dup'][0]:.3f} R {r['dup'][1]:.3f} "
        f"(of reached {r['dup_of_reached']:.3f}); conflicts P {r['conflicts'][0]:.3f} "
        f"R {r['conflicts'][1]:.3f} (of reached {r['conflicts_of_reached']:.3f}); calls "
        f"{r['calls']} ({1000 * r['calls'] / r['memories']:.0f} per 1,000 memories, "
        f"{r['calls'] / r['memories']:.2f} a memory; tokens "
        f"{1000 * r['tokens'] / r['memories']:,.0f} per 1,000 memories); labelled pairs no "
        f"layer reaches {r['unreached']} of {r['labelled']}; neither asked nor decided "
        f"{r['left'] / r['labelled']:.1%}; unsafe automatic merges {r['unsafe']}"
    )


def held_out_models(names: list[str], committee: bool = True) -> dict:
    """For each labelled set, the pair model fit on every other one (the shipped
    thresholds: they were chosen leave one set out), with the band's temperature and the
    apart temperature chosen without it too (each other set held out of a fit on the rest)."""
    from memadmin.curation.detection.scoring import model as pair_model
    from memadmin.curation.detection.thresholds import Thresholds
    from memadmin.curation.learning import calibration, held_out
    from memadmin.curation.learning import fitting as model_fit

    def fit(tables):
        return model_fit.fit(tables, c_related=1.0, c_disagree=1.0)

    thresholds, vectors = Thresholds.from_settings(), calibration.Vectors()
    tables = [model_fit.table_of(name, thresholds, vectors) for name in model_fit.available()]
    shipped = pair_model.stored_model().thresholds
    found = {}
    for table in tables:
        if table.name not in names:
            continue
        others = [t for t in tables if t is not table]
        inner = model_fit.fits_leaving_out(
            others, c_related=1.0, c_disagree=1.0, committee=committee
        )
        temperature = held_out.band_temperature(others, inner)
        apart = held_out.apart_temperature(others, inner)
        print(
            f"  {table.name} held out: the band's temperature {temperature}, apart {apart}",
            file=sys.stderr,
        )
        stored = (
            pair_model.with_committee(fit(others), inner)
            if committee
            else pair_model.undoubted(fit(others))
        )
        found[table.name] = model_fit.with_thresholds(
            {**stored, "llm_temperature": temperature, "apart_temperature": apart}, shipped
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, action="append", default=[])
    parser.add_argument("--error-rate", default="0,0.15")
    parser.add_argument(
        "--seed", default="7", help="the oracle's seed; several (7,8,9) measure the noise"
    )
    parser.add_argument(
        "--loso", action="store_true", help="each set under a pair model fit without it"
    )
    parser.add_argument(
        "--no-committee",
        dest="committee",
        action="store_false",
        help="with --loso: each model alone, without its doubts (detection.md)",
    )
    parser.add_argument(
        "--correlated",
        action="store_true",
        help="the oracle wrong on both readings of a pair together (the worst case)",
    )
    args = parser.parse_args()

    import django

    django.setup()
    from memadmin.curation.learning import calibration, report
    from memadmin.curation.learning import fitting as model_fit

    sets = (
        [(folder.name, *calibration.load_set(folder)) for folder in args.data]
        if args.data
        else [(name, *model_fit.load(name)) for name in model_fit.available()]
    )
    if args.loso and report.missing():
        print(f"  not on this machine, left out: {', '.join(report.missing())}", file=sys.stderr)
    models = held_out_models([name for name, *_ in sets], args.committee) if args.loso else {}
    rates = [float(x) for x in args.error_rate.split(",")]
    seeds = [int(x) for x in args.seed.split(",")]
    by_set: dict[tuple[float, str], list[dict]] = {}
    for rate, seed in itertools.product(rates, seeds):
        if len(seeds) > 1:
            print(f"seed {seed}", flush=True)
        totals = {"memories": 0, "calls": 0, "tokens": 0}
        audits = []
        for name, rows, labels in sets:
            result = measure(
                name, rows, labels, rate, seed, models.get(name), correlated=args.correlated
            )
            by_set.setdefault((rate, name), []).append(result)
            print(line(result), flush=True)
            if result["audits"]:
                print(measured_line(result["audits"], result["true"]), flush=True)
            audits.extend(result["audits"])
            for key in ("memories", "calls", "tokens"):
                totals[key] += result[key]
            for key, value in result["counts"].items():
                totals[key] = totals.get(key, 0) + value
        print(
            f"error {rate:.2f}, all sets: {totals['calls']} calls for {totals['memories']} "
            f"memories ({totals['calls'] / totals['memories']:.2f} a memory, "
            f"{1000 * totals['tokens'] / totals['memories']:,.0f} tokens per 1,000); pooled: "
            f"{pooled_line(totals)}"
        )
        if audits:
            true = {
                "clusters": totals["one_right"] / max(1, totals["one_found"]),
                "conflicts": totals["conflicts_right"] / max(1, totals["conflicts_proposed"]),
            }
            print(measured_line(audits, true), flush=True)
    if len(seeds) > 1:
        print(f"mean of seeds {args.seed} (the lowest in brackets):")
        for (rate, name), results in by_set.items():
            print(mean_line(rate, name, results))


def mean_line(rate: float, name: str, results: list[dict]) -> str:
    """One set's figures averaged over the oracle's seeds, the lowest of each beside."""

    def said(key: str, k: int) -> str:
        values = [r[key][k] for r in results]
        return f"{sum(values) / len(values):.3f} ({min(values):.3f})"

    calls = sum(r["calls"] / r["memories"] for r in results) / len(results)
    return (
        f"{name:14s} error {rate:.2f}: duplicates P {said('dup', 0)} R {said('dup', 1)}; "
        f"conflicts P {said('conflicts', 0)} R {said('conflicts', 1)}; {calls:.2f} calls a memory"
    )


if __name__ == "__main__":
    main()
