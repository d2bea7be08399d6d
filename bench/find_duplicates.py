"""find_duplicates end to end on synthetic memories with precomputed 384-d vectors.

    .venv/bin/python bench/find_duplicates.py [--scenario a|b|both] [--size 100000]

(a) one namespace of 100,000 memories; (b) 1,000 namespaces of 1,000 memories (and,
with --namespaces 10000 --namespace-size 100, ten thousand small ones; with --queue N,
also through the procrastinate queue with N workers); (c) an incremental run, 100 new
memories in the 100,000, by the HNSW and the matrix route; (d, alone: --scenario d
--namespaces 2000) the nightly incremental run, 10 new memories in each namespace, in
process and (--queue 2) through the queue. Prints
the end-to-end time of `find_duplicates --full` (load, detection, writing clusters),
the time of its vector layer in both parallel modes, and, in the same run, a plain numpy
brute force over the same vectors and the ratio. With --profile, (b) also runs once in
one process under cProfile and prints where the time goes, phase by phase.

Uses its own embedded server folder (var/bench) unless DATABASE_URL is set; loads with
COPY and without the HNSW index (find_duplicates does not read it; building it for 1M
vectors would dominate the setup). The namespaces' language is noted as an import or an
API write notes it (English), so the run does not read every text for it.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
os.environ.setdefault("MEMADMIN_DATA_DIR", str(ROOT / "var" / "bench"))


def synthetic_namespace(size: int, seed: int):
    """Texts and unit vectors: random facts, with 2% exact re-extractions (same text
    and vector), 3% near copies (cosine about 0.97) and 2% paraphrases (about 0.8)."""
    import numpy as np
    from synthetic import sentences

    rng = np.random.default_rng(seed)
    # Templates repeat by chance at this size: a serial number keeps each fact distinct.
    texts = [
        f"{text[:-1]} (item {index})." for index, text in enumerate(sentences(size, seed=seed))
    ]
    vectors = rng.normal(size=(size, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    variants = ((0.02, 1.0, ""), (0.03, 0.97, " again"), (0.02, 0.8, " as noted before"))
    for share, cosine, suffix in variants:
        copies = rng.choice(size, int(size * share), replace=False)
        sources = rng.choice(size, len(copies))
        for copy, source in zip(copies, sources, strict=True):
            if copy == source:
                continue
            noise = rng.normal(size=384).astype(np.float32)
            noise -= (noise @ vectors[source]) * vectors[source]
            noise /= np.linalg.norm(noise)
            vectors[copy] = cosine * vectors[source] + np.sqrt(max(0.0, 1 - cosine**2)) * noise
            texts[copy] = texts[source] + suffix
    return texts, vectors


# The types of the columns load() copies, in its COPY's order.
COPY_TYPES = (
    "int8 varchar text varchar vector varchar varchar varchar[] varchar varchar float8 float8 "
    "int4 timestamptz timestamptz jsonb jsonb bool varchar varchar"
).split()


def load(namespaces: dict[str, tuple[list[str], object]], *, first: int = 0) -> None:
    """Binary COPY straight into store_memory (setup, not measured); with `first`, rows
    added to namespaces that exist, their ids numbered from there."""
    from django.db import connection, transaction
    from django.utils import timezone
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    from memadmin.store import embeddings
    from memadmin.store.models import Namespace
    from memadmin.store.text import content_hash

    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS memory_embedding_hnsw")
        cursor.execute("DROP INDEX IF EXISTS memory_embedding_multi_hnsw")
    connection.ensure_connection()
    register_vector(connection.connection)
    created = timezone.now()
    with transaction.atomic():
        for name, (texts, vectors) in namespaces.items():
            # An import notes the language of what it brings (decisions.note_languages).
            if first:
                namespace = Namespace.objects.get(name=name)
            else:
                namespace = Namespace.objects.create(name=name, language="en")
            with (
                connection.connection.cursor() as cursor,
                cursor.copy(
                    "COPY store_memory (namespace_id, external_id, content, content_hash, "
                    "embedding, embedding_model, category, tags, source_ref, session_id, "
                    "importance, confidence, access_count, created_at, updated_at, "
                    "provenance, metadata, pinned, status, embedding_multi_model) "
                    "FROM STDIN WITH (FORMAT BINARY)"
                ) as copy,
            ):
                copy.set_types(COPY_TYPES)
                for index, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
                    copy.write_row(
                        [
                            namespace.pk,
                            f"m{first + index}",
                            text,
                            content_hash(text),
                            vector,
                            embeddings.MODEL_ID,
                            "fact",
                            ["bench"],
                            "",
                            "",
                            0.5,
                            0.5,
                            0,
                            created,
                            created,
                            Jsonb([]),
                            Jsonb({}),
                            False,
                            "active",
                            "",
                        ]
                    )
    # Vacuumed and analysed as a store loaded long ago would be: else autovacuum's pass
    # over the rows just loaded runs during the measured run and takes a core from it.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) store_memory")


def reset() -> None:
    from django.core.management import call_command

    call_command("flush", "--no-input", verbosity=0)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM store_namespace")


def brute_force(vectors, floor: float) -> tuple[float, int]:
    """The plain way: the full product, block by block, counting pairs over the floor."""
    import numpy as np

    started = time.perf_counter()
    count = 0
    for start in range(0, len(vectors), 1024):
        scores = vectors[start : start + 1024] @ vectors.T
        count += int(np.count_nonzero(scores >= floor))
    return time.perf_counter() - started, (count - len(vectors)) // 2


def timed_runs(work, runs: int = 3) -> list[float]:
    """The times of `runs` runs of `work`: a brute-force pass, whose one sample moved by up
    to 50 % from run to run here; the scenarios take the median of several."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return times


def median_around_run(label: str, before: list[float], after: list[float]) -> float:
    """The median of brute-force times taken before a measured run and right after it
    (this machine's speed drifts by 15-20 % within the minutes a run and its loading
    take: the ratio is of the two at one speed); all of them printed."""
    print(
        f"  {label}, three runs before and three after: "
        + ", ".join(f"{t:.2f} s" for t in before + after)
    )
    return statistics.median(before + after)


def vector_layer(vectors, floor: float, workers: int) -> tuple[float, int]:
    import numpy as np

    from memadmin.curation.detection.candidates.neighbours import vector_pairs_exact

    started = time.perf_counter()
    pairs = vector_pairs_exact(vectors, np.arange(len(vectors)), floor=floor, workers=workers)
    return time.perf_counter() - started, len(pairs)


def cpu_seconds() -> tuple[float, float] | None:
    """CPU seconds used so far by the embedded PostgreSQL (its postmaster, the backends it
    has reaped, and the living ones) and by this process with its reaped children (a run's
    worker processes): taken before and after a run, the database's share of its work.
    None when the server is not the embedded one on this machine."""
    if os.environ.get("DATABASE_URL"):
        return None
    from django.conf import settings

    from memadmin.embedded_db import pgdata_dir

    def fields(pid: str) -> list[str]:
        # After the command's closing parenthesis: state, ppid, ... utime (11), stime,
        # cutime, cstime (see proc(5)).
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()

    try:
        postmaster = (pgdata_dir(settings.DATA_DIR) / "postmaster.pid").read_text().split()[0]
        server = sum(int(value) for value in fields(postmaster)[11:15])
    except (OSError, IndexError):
        return None  # no server of ours running (a stale pid file)
    tick = os.sysconf("SC_CLK_TCK")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            found = fields(pid)
        except OSError:
            continue  # ended meanwhile
        if found[1] == postmaster:
            server += int(found[11]) + int(found[12])
    mine = os.times()
    return server / tick, mine.user + mine.system + mine.children_user + mine.children_system


def print_cpu(before: tuple[float, float] | None, after: tuple[float, float] | None) -> None:
    if before is None or after is None:
        return
    server, run = after[0] - before[0], after[1] - before[1]
    print(
        f"  CPU: PostgreSQL {server:.1f} s, the run's processes {run:.1f} s "
        f"(the database {server / (server + run):.0%} of the work)"
    )


def run_find_duplicates(*arguments: str) -> tuple[float, str]:
    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    call_command("find_duplicates", *(arguments or ("--full",)), stdout=out, stderr=err)
    return time.perf_counter() - started, out.getvalue().strip().splitlines()[-1]


WORKER = [sys.executable, "manage.py", "procrastinate", "worker", "--concurrency", "1"]
WORKER += ["--queues", "dedup"]


def through_the_queue(workers: int, *arguments: str) -> tuple[float, str]:
    """find_duplicates --enqueue --wait with `workers` worker processes started first (each
    its own connections, as on other machines); the time from queueing to the summary."""
    import subprocess

    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE procrastinate_jobs, procrastinate_events CASCADE")
    env = {**os.environ, "MEMADMIN_LOG_LEVEL": "WARNING"}
    started_workers = [
        subprocess.Popen(
            WORKER,
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(workers)
    ]
    time.sleep(8)  # the workers start (Django, the readers' dictionaries): not measured
    try:
        return run_find_duplicates("--enqueue", "--wait", *arguments)
    finally:
        for process in started_workers:
            process.terminate()
        for process in started_workers:
            process.wait()


def scenario_a(size: int, repeat: int) -> None:
    import numpy as np
    from django.conf import settings

    texts, vectors = synthetic_namespace(size, seed=1)
    floor = settings.DEDUP_CANDIDATE_THRESHOLD
    print(f"(a) one namespace of {size:,} memories")
    timings = {
        "numpy brute force": [],
        "vector layer, 1 process": [],
        "vector layer, 2 workers": [],
    }
    for _ in range(repeat):
        seconds, brute_pairs = brute_force(vectors, floor)
        timings["numpy brute force"].append(seconds)
        seconds, pairs_1 = vector_layer(vectors, floor, workers=1)
        timings["vector layer, 1 process"].append(seconds)
        seconds, pairs_2 = vector_layer(vectors, floor, workers=2)
        timings["vector layer, 2 workers"].append(seconds)
    assert brute_pairs == pairs_1 == pairs_2, (brute_pairs, pairs_1, pairs_2)
    for name, values in timings.items():
        print(f"  {name}: median {statistics.median(values):.1f} s over {repeat} runs")
    end_to_end = []
    for _ in range(repeat):
        reset()
        load({"bench-a": (texts, vectors)})
        seconds, summary = run_find_duplicates()
        end_to_end.append(seconds)
        print(f"  find_duplicates --full: {seconds:.1f} s ({summary})")
    median = statistics.median(end_to_end)
    brute = statistics.median(timings["numpy brute force"])
    print(
        f"  => end to end median {median:.1f} s (target <= 30 s); brute force "
        f"{brute:.1f} s; ratio find_duplicates / brute force = {median / brute:.2f}; "
        f"pairs over {floor}: {brute_pairs:,}"
    )
    del np


def scenario_b(namespaces: int, size: int, *, profile: bool, queue: list[int]) -> None:
    import numpy as np
    from django.conf import settings

    print(f"(b) {namespaces:,} namespaces of {size:,} memories")
    data = {f"bench-b-{i:05d}": synthetic_namespace(size, seed=100 + i) for i in range(namespaces)}
    floor = settings.DEDUP_CANDIDATE_THRESHOLD

    def every_pair() -> None:
        for _, vectors in data.values():
            np.count_nonzero(vectors @ vectors.T >= floor)

    brute_before = timed_runs(every_pair)
    reset()
    load(data)
    before = cpu_seconds()
    seconds, summary = run_find_duplicates()
    print(f"  find_duplicates --full: {seconds:.1f} s ({summary})")
    print_cpu(before, cpu_seconds())
    brute = median_around_run("numpy brute force", brute_before, timed_runs(every_pair))
    # The ratio's target is set for the typical deployment, 1,000 namespaces of 1,000.
    ratio_target = " (target <= 15)" if (namespaces, size) == (1000, 1000) else ""
    print(
        f"  => end to end {seconds:.1f} s (target <= 60 s); numpy brute force (median) "
        f"{brute:.2f} s; ratio {seconds / brute:.1f}{ratio_target}"
    )
    for workers in queue:
        reset()
        load(data)
        seconds, summary = through_the_queue(workers, "--full")
        print(
            f"  through the queue, {workers} worker(s): {seconds:.1f} s, "
            f"{namespaces / seconds:.1f} namespaces/s ({summary})"
        )
    if profile:
        reset()
        load(data)
        profile_phases()


def scenario_d(namespaces: int, size: int, new: int, queue: list[int], *, profile: bool) -> None:
    """The nightly incremental run: `namespaces` of `size` memories, checked once
    (--full, not measured), then `new` memories arrive in each (some copies and near
    copies of what is there) and find_duplicates runs as cron would (incremental), in
    process and through the queue. Beside it, the numpy brute force of what an
    incremental pass must compare: each namespace's new vectors against all of its own."""
    import numpy as np
    from django.conf import settings

    print(f"(d) {namespaces:,} namespaces of {size:,} memories, then {new} new in each")
    data = {f"bench-d-{i:05d}": synthetic_namespace(size, seed=300 + i) for i in range(namespaces)}
    rng = np.random.default_rng(7)
    arrivals = {}
    for name, (texts, vectors) in data.items():
        picked = rng.choice(size, new, replace=False)
        fresh_texts, fresh_vectors = synthetic_namespace(new, seed=int(picked[0]))
        for slot, source in enumerate(picked[: new // 2]):  # half repeat what is there
            fresh_texts[slot] = texts[source] + (" again" if slot % 2 else "")
            fresh_vectors[slot] = vectors[source]
        arrivals[name] = (fresh_texts, fresh_vectors)
    floor = settings.DEDUP_CANDIDATE_THRESHOLD

    def new_against_all() -> None:
        for name, (_, fresh) in arrivals.items():
            everything = np.vstack([data[name][1], fresh])
            np.count_nonzero(fresh @ everything.T >= floor)

    brute_before = timed_runs(new_against_all)
    measured = []
    for workers in [0, *queue]:
        route = f"queue, {workers} worker(s)" if workers else "in process"
        reset()
        load(data)
        run_find_duplicates()  # the namespaces as last night left them
        load(arrivals, first=size)
        if workers:
            seconds, summary = through_the_queue(workers, "--no-llm")
        else:
            before = cpu_seconds()
            seconds, summary = run_find_duplicates("--no-llm")
            print_cpu(before, cpu_seconds())
        print(f"  {route}: {seconds:.1f} s ({summary})")
        measured.append((route, seconds))
    brute = median_around_run("numpy new-against-all", brute_before, timed_runs(new_against_all))
    for route, seconds in measured:
        print(
            f"  => {route}: {seconds:.1f} s (target <= 20 s); numpy new-against-all "
            f"{brute:.2f} s (median); ratio {seconds / brute:.1f} (target <= 30)"
        )
    if profile:
        reset()
        load(data)
        run_find_duplicates()
        load(arrivals, first=size)
        profile_phases("--no-llm")


# Where a run's time goes: the functions (file:function) that make up each phase, their
# cumulative wall time, none inside another of the list.
PHASES = {
    "read: rows and vectors (one query a batch)": [
        "store/queries.py:detection_batch",
        "store/queries.py:light_batch",
    ],
    "read: earlier verdicts, clusters, conflicts, runs": [
        "curation/reads/:human_judged_pairs",
        "curation/reads/:existing_member_sets",
        "curation/reads/:existing_conflict_pairs",
        "curation/reads/:absorbed_by",
        "curation/runs/selection.py:last_complete_starts",
        "store/queries.py:active_counts",
        "curation/runs/selection.py:namespaces_to_run",
    ],
    "read: routes' vectors, pairs, rows (database, hnsw)": [
        "curation/runs/routes.py:wide_routes",
        "curation/runs/routes.py:narrow",
    ],
    "counts: kept ones brought up to date, and kept": [
        "curation/runs/counting.py:counts_for",
        "curation/runs/counting.py:keep",
    ],
    "judge: exact, vector layer, rules": ["curation/runs/planning.py:judge_namespace"],
    "judge: language check (multilingual?)": ["curation/runs/batch.py:multilingual_vectors"],
    "judge: LLM band (cached answers)": ["curation/llm/band.py:ask_band"],
    "group: folds, clusters, conflicts": ["curation/runs/planning.py:group"],
    "collect: a namespace's writes": ["curation/runs/applying.py:collect"],
    "write: folds, clusters, conflicts, history (set-based)": ["curation/runs/applying.py:write"],
    "locks, DedupRun rows": [
        "curation/runs/selection.py:try_locks",
        "curation/runs/selection.py:unlock",
        "curation/runs/selection.py:close_interrupted",
        "curation/runs/batch.py:_finish",
        "django/db/models/query.py:bulk_create",  # counted where runs/batch.py calls it
    ],
}


def profile_phases(*arguments: str) -> None:
    """find_duplicates (--full unless `arguments` say otherwise) once more, in one process
    (no workers) under cProfile, and the time of each phase (PHASES) and of logging."""
    import cProfile
    import pstats

    from django.test import override_settings

    profiler = cProfile.Profile()
    with override_settings(DEDUP_WORKERS=1):
        started = time.perf_counter()
        profiler.enable()
        run_find_duplicates(*arguments)
        profiler.disable()
        total = time.perf_counter() - started
    stats = pstats.Stats(profiler).stats
    raw = Path(os.environ["MEMADMIN_DATA_DIR"]) / "find_duplicates.prof"
    profiler.dump_stats(raw)  # for pstats or snakeviz: the functions inside each phase

    def seconds_of(where: str) -> float:
        suffix, name = where.split(":")
        found = 0.0
        for (path, _, function), (_, _, _, cumulative, callers) in stats.items():
            if function != name or not path.endswith(suffix):
                continue
            if name == "bulk_create":  # the DedupRun rows only
                cumulative = sum(
                    call[3]
                    for caller, call in callers.items()
                    if caller[0].endswith("runs/batch.py")
                )
            found += cumulative
        return found

    print(f"  profile, one process, under cProfile: {total:.1f} s")
    accounted = 0.0
    for phase, functions in PHASES.items():
        seconds = sum(seconds_of(where) for where in functions)
        accounted += seconds
        print(f"    {phase:<56} {seconds:7.1f} s  {seconds / total:6.1%}")
    print(f"    {'the rest (command, progress bar)':<56} {total - accounted:7.1f} s")
    logging_seconds = seconds_of("logging/__init__.py:_log")
    print(f"    {'logging (inside the phases above)':<56} {logging_seconds:7.1f} s")


def scenario_c(size: int, new: int, repeat: int) -> None:
    """An incremental run: `new` memories arrive in a namespace of `size`. The HNSW route
    (k nearest per new memory from the index) against the matrix route (load every vector,
    one product), timed, and the candidate pairs each finds compared."""
    import numpy as np
    from django.conf import settings
    from django.db import connection

    from memadmin.curation import runs
    from memadmin.curation.detection.candidates.neighbours import vector_pairs_exact
    from memadmin.curation.detection.thresholds import Thresholds
    from memadmin.curation.models import DedupRun
    from memadmin.store import queries as store_queries
    from memadmin.store.models import Namespace

    print(f"(c) incremental: {new} new memories in a namespace of {size:,}")
    texts, vectors = synthetic_namespace(size + new, seed=3)
    reset()
    load({"bench-c": (texts[:size], vectors[:size])})
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE INDEX memory_embedding_hnsw ON store_memory "
            "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
    print(f"  HNSW index build over {size:,} vectors: {time.perf_counter() - started:.1f} s")
    namespace = Namespace.objects.get(name="bench-c")
    DedupRun.objects.create(
        namespace=namespace, status="done", dry_run=False, counts={"deferred": 0, "failed": 0}
    )
    time.sleep(0.01)
    load_more = {"bench-c": (texts[size:], vectors[size:])}
    _append(namespace, load_more["bench-c"], start=size)
    thresholds = Thresholds.from_settings()
    memories = store_queries.active_memories(namespace)
    since = runs.last_complete_starts([namespace])[namespace.pk]
    changed = runs.changed_positions(memories, since)
    assert len(changed) == new, len(changed)
    index_times, matrix_times = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        _, index_pairs = runs.index_candidates(namespace, memories, changed, thresholds)
        index_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        all_vectors = store_queries.active_vectors(namespace, memories)
        matrix_pairs = vector_pairs_exact(
            all_vectors, np.asarray(changed), floor=thresholds.candidate, workers=1
        )
        matrix_times.append(time.perf_counter() - started)
    as_set = lambda pairs, floor: {(int(a), int(b)) for a, b, c in pairs if c >= floor}  # noqa: E731
    for floor in (thresholds.candidate, thresholds.review):
        exact_set, index_set = as_set(matrix_pairs, floor), as_set(index_pairs, floor)
        print(
            f"  pairs with cosine >= {floor}: matrix {len(exact_set)}, HNSW {len(index_set)}, "
            f"missed by HNSW {len(exact_set - index_set)}"
        )
    index_median, matrix_median = statistics.median(index_times), statistics.median(matrix_times)
    print(
        f"  => HNSW route median {index_median * 1000:.0f} ms, matrix route (load all vectors + "
        f"product) median {matrix_median * 1000:.0f} ms, ratio {matrix_median / index_median:.1f}"
        f" (settings: HNSW route from {settings.DEDUP_INDEX_MIN_MEMORIES:,} memories, "
        f"up to {settings.DEDUP_INDEX_MAX_QUERIES} new)"
    )


def _append(namespace, data, *, start: int) -> None:
    """Insert a few memories through the ORM (the index is live)."""
    from django.utils import timezone

    from memadmin.store import embeddings
    from memadmin.store.models import Memory
    from memadmin.store.text import content_hash

    texts, vectors = data
    now = timezone.now()
    Memory.objects.bulk_create(
        Memory(
            namespace=namespace,
            external_id=f"m{start + index}",
            content=text,
            content_hash=content_hash(text),
            embedding=vector,
            embedding_model=embeddings.MODEL_ID,
            category="fact",
            tags=["bench"],
            created_at=now,
        )
        for index, (text, vector) in enumerate(zip(texts, vectors, strict=True))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenario", choices=["a", "b", "c", "d", "all"], default="all")
    parser.add_argument("--new", type=int, default=None, help="(c) 100, (d) 10: arriving")
    parser.add_argument(
        "--queue",
        type=int,
        action="append",
        default=[],
        help="(b), (d): also through the queue with this many workers (repeatable)",
    )
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--namespaces", type=int, default=1000)
    parser.add_argument("--namespace-size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--profile", action="store_true", help="(b), (d): where the time goes, phase by phase"
    )
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if args.scenario in ("a", "all"):
        scenario_a(args.size, args.repeat)
    if args.scenario in ("b", "all"):
        scenario_b(args.namespaces, args.namespace_size, profile=args.profile, queue=args.queue)
    if args.scenario in ("c", "all"):
        scenario_c(args.size, args.new or 100, args.repeat)
    if args.scenario == "d":
        scenario_d(
            args.namespaces, args.namespace_size, args.new or 10, args.queue, profile=args.profile
        )
    reset()


if __name__ == "__main__":
    main()
