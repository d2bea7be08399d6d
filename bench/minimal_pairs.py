"""The minimal-pair suites (tests/curation/detection/pairs/), judged as find_duplicates
judges them with no LLM: one table row per suite, the share passed by language, and any
automatic merge of a pair that is not one fact. The README's table is this output.

    .venv/bin/python bench/minimal_pairs.py [--details] [--suite NAME ...]
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
    args = parser.parse_args()

    import django

    django.setup()
    from memadmin.curation import calibration
    from memadmin.curation.detection.judgement import Thresholds

    paths = sorted(SUITES.glob("*.txt"))
    if args.suite:
        paths = [p for p in paths if p.stem in args.suite]
    pairs = [pair for path in paths for pair in calibration.read_suite(path)]
    outcomes = calibration.judge_pairs(pairs, Thresholds.from_settings(), calibration.Vectors())
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
