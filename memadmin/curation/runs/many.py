"""Many namespaces: in batches, batches side by side in worker processes; a namespace
large enough to fill a batch alone, its vector layer in the workers."""

from __future__ import annotations

import gc
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from django.conf import settings
from django.db import connection, connections

from memadmin.curation.detection.candidates import neighbours as detect
from memadmin.curation.detection.reading import clause as reading
from memadmin.curation.runs.batch import Outcome, run_batch
from memadmin.curation.runs.options import Options
from memadmin.store import queries as store_queries
from memadmin.store.models import Namespace

logger = logging.getLogger("memadmin.curation")


# --- Many namespaces -----------------------------------------------------------------------


# The fewest memories a batch is split down to for the workers' sake: below it a store
# is read in seconds, and a batch of its own is not worth a process.
SPLIT_FLOOR = 1_000


def batches(
    namespaces: list[Namespace],
    sizes: dict[int, int],
    options: Options | None = None,
    *,
    workers: int = 1,
) -> list[list[int]]:
    """The namespaces in batches, in order: up to DEDUP_BATCH_MEMORIES active memories
    (DEDUP_INCREMENTAL_BATCH_MEMORIES in a run that is not --full) and
    DEDUP_BATCH_NAMESPACES namespaces each; a namespace that fills a batch alone is one.
    With `workers`, batches hold at most half a worker's share of all the memories, so
    that a store of a few namespaces keeps every worker busy until the end (four of 1,250
    ran as one batch, on one of the two cores: 50 s; as two batches of two, one worker
    waited for the other: 37 s; bench/many_subjects.py)."""
    most = settings.DEDUP_BATCH_MEMORIES
    if options is not None and not options.full:
        most = settings.DEDUP_INCREMENTAL_BATCH_MEMORIES
    if workers > 1:
        total = sum(sizes.get(namespace.pk, 0) for namespace in namespaces)
        most = min(most, max(SPLIT_FLOOR, -(-total // (2 * workers))))
    found: list[list[int]] = []
    current: list[int] = []
    memories = 0
    for namespace in namespaces:
        size = sizes.get(namespace.pk, 0)
        if current and (memories + size > most or len(current) >= settings.DEDUP_BATCH_NAMESPACES):
            found.append(current)
            current, memories = [], 0
        current.append(namespace.pk)
        memories += size
    if current:
        found.append(current)
    return found


def run_many(
    namespaces: list[Namespace],
    options: Options,
    *,
    workers: int,
    on_done: Callable[[Outcome], None],
    on_progress: Callable[[str, int, int], None] | None = None,
) -> None:
    """Run every namespace, in batches (see batches), batches side by side in `workers`
    processes. A namespace that fills a batch alone runs afterwards in this process, its
    vector layer in the `workers` processes; `on_progress(namespace, done, total)` follows
    the pairs compared inside such a namespace. `on_done` hears of every namespace.

    Batches share nothing (each namespace has its own advisory lock, each batch its own
    transactions), so they run side by side; each worker opens its own database
    connection, and inside a worker the vector layer stays in one process so the two
    levels do not fight for the cores."""
    sizes = store_queries.active_counts([ns.pk for ns in namespaces])
    by_pk = {ns.pk: ns for ns in namespaces}
    all_batches = batches(namespaces, sizes, options, workers=workers)
    large = [b for b in all_batches if len(b) == 1 and sizes[b[0]] >= settings.DEDUP_BATCH_MEMORIES]
    small = [b for b in all_batches if b not in large]
    # Worker processes could not see a caller's uncommitted transaction: stay serial then;
    # and LLM calls go one at a time, within one run's budget.
    serial = (
        workers <= 1
        or len(small) <= 1
        or options.llm_session is not None
        or options.llm_batch is not None
    )
    if serial or connection.in_atomic_block:
        large, small = all_batches, []
    if small:
        connections.close_all()  # a forked child must not share the parent's socket
        # The readers' dictionaries (lemmas, units: about 1.5 s to load) are loaded once
        # here and shared by the workers, not loaded again in each.
        reading.warm_up()
        # What this process holds is the workers' to read, never to collect: frozen, the
        # garbage collector of a worker does not walk (and copy) it all.
        gc.freeze()
        context = multiprocessing.get_context("fork")
        try:
            with ProcessPoolExecutor(
                max_workers=workers, mp_context=context, initializer=_start_worker
            ) as pool:
                # Each worker is busy with its own batch: its vector layer stays in it.
                run = partial(run_batch, options=options, vector_workers=1)
                for outcomes in pool.map(run, small):
                    for outcome in outcomes:
                        on_done(outcome)
        finally:
            gc.unfreeze()
    for batch in large:
        alone = len(batch) == 1 and on_progress is not None
        follow = partial(on_progress, by_pk[batch[0]].name) if alone else None
        for outcome in run_batch(batch, options, on_progress=follow, vector_workers=workers):
            on_done(outcome)


def _start_worker() -> None:
    connections.close_all()  # its own connection, opened on first use
    # Each worker judges its own batch: two BLAS threads per worker on two cores made the
    # run slower than one process (measured: bench/find_duplicates.py, scenario b).
    detect.one_blas_thread()
