"""The minimal-pair suites (tests/curation/detection/pairs/), judged as find_duplicates
judges them: one table row per suite, the share read right (proposed as its label says,
or nothing for two facts), left doubtful (the possible tier) and wrong (proposed as
something it is not), by language, and any automatic merge of a pair that is not one
fact. With --oracle ERROR, the doubtful pairs are asked an oracle judge
(curation/learning/oracle.py) wrong that share of the time, as a run with an LLM asks
them. The README's tables are this output.

    .venv/bin/python bench/minimal_pairs.py [--details] [--suite NAME ...] [--oracle 0]
    .venv/bin/python bench/minimal_pairs.py --file tests/data/held_out/probe_pairs.txt

With --file, the suites are those files instead (in the same format): pairs kept out of
every fit, such as tests/data/held_out/probe_pairs.txt.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("DATABASE_URL", "postgresql://unused@/unused")  # no database needed
SUITES = ROOT / "tests" / "curation" / "detection" / "pairs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--details", action="store_true", help="list every failed pair")
    parser.add_argument("--suite", action="append", default=[], help="only these suites")
    parser.add_argument("--oracle", type=float, help="ask an oracle wrong this share of the time")
    parser.add_argument("--file", action="append", default=[], help="a suite kept out of the fit")
    args = parser.parse_args()
    if args.file and args.oracle is not None:
        # The oracle answers from the fitted suites' labels: it knows no other file's pairs.
        parser.error("--oracle reads the suites' own labels; it cannot answer a --file")
    missing = [name for name in args.file if not Path(name).is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")

    import django

    django.setup()
    from memadmin.curation.detection.thresholds import Thresholds
    from memadmin.curation.learning import calibration

    paths = [Path(f) for f in args.file] or sorted(SUITES.glob("*.txt"))
    if args.suite:
        paths = [p for p in paths if p.stem in args.suite]
    pairs = [pair for path in paths for pair in calibration.read_suite(path)]
    if args.oracle is None:
        outcomes = calibration.judge_pairs(pairs, Thresholds.from_settings(), calibration.Vectors())
    else:
        from memadmin.curation.learning import fitting as model_fit
        from memadmin.curation.learning.oracle import Oracle
        from memadmin.curation.llm import client as llm

        rows, labels = model_fit.load("minimal_pairs")
        with Oracle(rows, labels, error_rate=args.oracle) as oracle:
            os.environ.update(ANTHROPIC_BASE_URL=oracle.url, ANTHROPIC_API_KEY="oracle")
            outcomes = calibration.judge_pairs(
                pairs,
                Thresholds.from_settings(),
                calibration.Vectors(),
                session=llm.Session(max_calls=10**9),
            )
    print(calibration.format_pairs(outcomes))
    passed = sum(o.passed for o in outcomes)
    print(
        f"\n{passed} of {len(outcomes)} pairs passed ({passed / len(outcomes):.1%}); "
        f"unsafe automatic merges: {sum(o.unsafe for o in outcomes)}"
    )
    if args.details:
        for outcome in outcomes:
            if not outcome.passed:
                pair = outcome.pair
                print(
                    f"{pair.suite}:{pair.line}: want {pair.label}, got {outcome.found}: "
                    f"{pair.older!r} / {pair.newer!r}"
                )


if __name__ == "__main__":
    main()
