"""Importing 10,000 memories end to end (import_memories: parse, both models, write),
mixed-language against English-only, in one run.

    .venv/bin/python bench/import_mixed.py [--count 10000] [--foreign-share 0.3]

A mixed-language namespace turns multilingual at its first German, French or Chinese
line, so its memories get both vectors; the English-only one gets MiniLM's, and its short
lines (at most eight words: store.text.SHORT_WORDS) the second too. Prints both
times and their ratio. Uses var/bench unless DATABASE_URL is set.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("MEMADMIN_DATA_DIR", str(ROOT / "var" / "bench"))
os.environ.setdefault("MEMADMIN_LOG_LEVEL", "WARNING")


def write_file(folder: Path, name: str, texts: list[str]) -> Path:
    path = folder / f"{name}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for index, text in enumerate(texts):
            line = {"id": f"{name}-{index}", "namespace": name, "content": text}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def timed_import(path: Path) -> float:
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("import_memories", str(path), stdout=io.StringIO())
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--foreign-share", type=float, default=0.3)
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command
    from find_duplicates import reset
    from synthetic import mixed_sentences, sentences

    from memadmin.store.models import Memory, Namespace

    call_command("migrate", verbosity=0)
    reset()
    with tempfile.TemporaryDirectory() as folder:
        mixed = write_file(
            Path(folder),
            "mixed",
            [
                f"{t} #{i}"
                for i, t in enumerate(mixed_sentences(args.count, foreign_share=args.foreign_share))
            ],
        )
        english = write_file(
            Path(folder), "english", [f"{t} #{i}" for i, t in enumerate(sentences(args.count))]
        )
        print(f"importing {args.count:,} English-only memories...", flush=True)
        english_s = timed_import(english)
        print(f"importing {args.count:,} mixed-language memories...", flush=True)
        mixed_s = timed_import(mixed)
    for name in ("english", "mixed"):
        namespace = Namespace.objects.get(name=name)
        both = Memory.objects.filter(namespace=namespace, embedding_multi__isnull=False).count()
        print(
            f"{name}: multilingual={namespace.multilingual}, "
            f"{both:,} of {args.count:,} with the multilingual vector"
        )
    print(
        f"import of {args.count:,}: English-only {english_s:.0f} s "
        f"({args.count / english_s:.0f}/s), mixed ({args.foreign_share:.0%} not English, "
        f"both models) {mixed_s:.0f} s ({args.count / mixed_s:.0f}/s): "
        f"{mixed_s / english_s:.1f}x"
    )


if __name__ == "__main__":
    main()
