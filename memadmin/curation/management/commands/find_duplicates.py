import re
import signal
import threading
import time
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.management.base import CommandError
from django.utils import timezone

from memadmin.curation import runs
from memadmin.curation.llm import client as llm
from memadmin.curation.reads import measured
from memadmin.store.commands import MemadminCommand
from memadmin.store.progress import progress_bar

SINCE = re.compile(r"^(\d+)([hdw])$")


def parse_since(value: str) -> timedelta:
    match = SINCE.match(value)
    if not match:
        raise CommandError(f"--since takes a number and h, d or w (e.g. 7d), not {value!r}")
    amount, unit = int(match.group(1)), match.group(2)
    return timedelta(hours=amount * {"h": 1, "d": 24, "w": 168}[unit])


def parse_shard(value: str) -> tuple[int, int]:
    match = re.match(r"^(\d+)/(\d+)$", value)
    if not match or not 0 <= int(match.group(1)) < int(match.group(2)):
        raise CommandError(f"--shard takes I/N with 0 <= I < N (e.g. 0/4), not {value!r}")
    return int(match.group(1)), int(match.group(2))


class Command(MemadminCommand):
    help = (
        "Find exact and near duplicates and conflicts in each namespace: collapse exact "
        "duplicates, merge near-identical ones, open clusters for review and conflicts. "
        "By default only memories added or changed since the namespace's last run are "
        "compared (against the whole namespace)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--namespace")
        parser.add_argument("--dry-run", action="store_true", help="write nothing; print the plan")
        parser.add_argument(
            "--max-ops",
            type=int,
            default=settings.DEDUP_MAX_OPS,
            help="cap on automatic changes per namespace and run",
        )
        parser.add_argument(
            "--if-due",
            action="store_true",
            help="only namespaces with enough memories and no recent run",
        )
        parser.add_argument("--full", action="store_true", help="compare every memory again")
        parser.add_argument("--since", type=parse_since, help="compare what changed in e.g. 7d")
        parser.add_argument("--shard", type=parse_shard, help="I/N: only namespaces of shard I")
        parser.add_argument(
            "--no-llm", action="store_true", help="rules only, even with ANTHROPIC_API_KEY set"
        )
        parser.add_argument(
            "--llm-batch",
            action="store_true",
            help="ask the doubtful pairs through one Message Batch, then run the pass "
            "(resumes a batch an earlier run left)",
        )
        queue = parser.add_argument_group("the queue (workers on any machine)")
        queue.add_argument(
            "--enqueue",
            action="store_true",
            help="queue the namespaces in batches for the workers instead of running them here",
        )
        queue.add_argument(
            "--wait", action="store_true", help="with --enqueue: follow the batches to the end"
        )
        queue.add_argument(
            "--status", action="store_true", help="list queued, running and failed batches"
        )

    def handle(
        self,
        *args,
        namespace,
        dry_run,
        max_ops,
        if_due,
        full,
        since,
        shard,
        no_llm,
        llm_batch,
        enqueue,
        wait,
        status,
        **options,
    ):
        if max_ops < 0:
            raise CommandError("--max-ops must be 0 or more")
        if status:
            return self.show_status()
        if wait and not enqueue:
            raise CommandError("--wait follows queued batches: give --enqueue too")
        if enqueue and dry_run:
            # A dry run's use is the plan it prints, here; a worker would print it nowhere.
            raise CommandError("--dry-run prints its plan here: run it without --enqueue")
        namespaces = runs.namespaces_to_run(
            name=namespace, if_due=if_due, shard=shard, now=timezone.now()
        )
        if namespace and not namespaces and not if_due:
            raise CommandError(f"no namespace {namespace!r}")
        if enqueue:
            queued = runs.Options(max_ops=max_ops, full=full, since=since)
            return self.enqueue(namespaces, queued, no_llm=no_llm, wait=wait)
        session = llm.Session() if llm.configured() and not no_llm else None
        if llm_batch:
            if session is None:
                raise CommandError(
                    "--llm-batch asks an LLM: set ANTHROPIC_API_KEY (and no --no-llm)"
                )
            if dry_run:
                raise CommandError("--llm-batch sends a batch: run it without --dry-run")
            self.ask_in_a_batch(
                namespaces, runs.Options(max_ops=max_ops, full=full, since=since), session
            )
        # After the batches, the pass below finds their answers as cached verdicts; its
        # session only audits what it says (curation.llm.audit), the band asks nothing.
        run_options = runs.Options(
            dry_run=dry_run, max_ops=max_ops, full=full, since=since, llm_session=session,
            llm_band=not llm_batch,
        )  # fmt: skip
        self.run_here(namespaces, run_options)

    def run_here(self, namespaces, run_options) -> None:
        """Run the namespaces in this process (DEDUP_WORKERS of them at once), with a bar
        per namespace and one inside each large one; then the one-line summary, and a
        refusal naming the namespaces another run held or that failed."""
        dry_run, session = run_options.dry_run, run_options.llm_session
        totals = runs.NamespaceReport(namespace="all")
        locked, failed = [], []
        with progress_bar(total=len(namespaces), desc="find_duplicates", unit="namespaces") as bar:

            def done(outcome: runs.Outcome) -> None:
                bar.update(1)
                if outcome.locked:
                    locked.append(outcome.namespace)
                    self.stderr.write(outcome.locked)
                    return
                if outcome.failed:
                    failed.append(outcome.namespace)
                    self.stderr.write(f"DEDUP_FAIL namespace {outcome.namespace}: {outcome.failed}")
                for line in outcome.report.actions:
                    self.stdout.write(f"{outcome.namespace}: would {line}")
                for alert in outcome.report.alerts:
                    self.stderr.write(f"ALERT {alert}")
                for name, value in outcome.report.counts().items():
                    setattr(totals, name, getattr(totals, name) + value)

            comparing: dict[str, object] = {}

            def compared(name: str, pairs_done: int, pairs_total: int) -> None:
                # A second bar inside one large namespace: its pairs take most of the run.
                if name not in comparing:
                    comparing[name] = progress_bar(
                        total=pairs_total, desc=f"comparing {name}", unit="pairs", scale=True
                    )
                pairs_bar = comparing[name]
                pairs_bar.update(pairs_done - pairs_bar.n)
                if pairs_done >= pairs_total:
                    pairs_bar.close()

            runs.run_many(
                namespaces,
                run_options,
                workers=settings.DEDUP_WORKERS,
                on_done=done,
                on_progress=compared,
            )
        summary = summary_line(totals, len(namespaces) - len(locked), dry_run=dry_run)
        models = [] if session is None else [session.model]
        if not dry_run:
            for line in measured_said():
                self.stdout.write(line)
        self.stdout.write(summary + verdicts_said(totals, models))
        problems = []
        if locked:
            problems.append(
                f"skipped {len(locked)} namespace(s) another run holds: {', '.join(locked)}"
            )
        if failed:
            problems.append(
                f"{len(failed)} namespace(s) failed and changed nothing: {', '.join(failed)} "
                "(the others are done)"
            )
        if problems:
            raise CommandError("; ".join(problems))

    def ask_in_a_batch(self, namespaces, options, session) -> None:
        """--llm-batch (curation.llm.batches): resume the batch an earlier run left, or plan
        every namespace without writing and send its doubtful pairs as one Message Batch;
        follow it with a bar and record its answers. Then once more for the second
        readings those answers need, and once more for the third readings (curation.llm.band):
        the pass after them applies every answer and asks nothing of the band."""
        from memadmin.curation.llm import batches as llm_batch

        sent: dict[int, int] = {}  # by namespace: what the later rounds asked
        for later in (None, sent, sent):
            batch = self.one_batch(namespaces, options, session, later=later)
            if batch is None:
                return
            llm_batch.count_later(batch, sent)

    def one_batch(self, namespaces, options, session, *, later: dict | None):
        """One Message Batch sent (or resumed), followed and recorded; None when there
        was nothing to ask. `later`: a later round's (runs.Options.llm_batch_later)."""
        from memadmin.curation.llm import batches as llm_batch

        batch = llm_batch.unfinished()
        if batch is not None:
            self.stdout.write(
                f"resuming LLM batch {batch.pk} ({batch.status}, {len(batch.requests)} pairs, "
                f"recorded {batch.created_at:%Y-%m-%d %H:%M})"
            )
        else:
            pairs: list = []
            collecting = runs.Options(
                dry_run=True, max_ops=options.max_ops, full=options.full, since=options.since,
                llm_batch=pairs, llm_batch_later=later,
            )  # fmt: skip
            with progress_bar(total=len(namespaces), desc="finding doubtful pairs",
                              unit="namespaces") as bar:  # fmt: skip
                runs.run_many(namespaces, collecting, workers=1, on_done=lambda _: bar.update(1))
            batch = llm_batch.record(pairs, later=later is not None)
            if batch is None:
                if later is None:
                    self.stdout.write("no doubtful pair to ask: no batch sent")
                return None
        try:
            if batch.status == batch.Status.SUBMITTING:
                llm_batch.submit(batch, session)
                self.stdout.write(
                    f"sent LLM batch {batch.pk} ({batch.provider_id}): {len(batch.requests)} pairs"
                )
            with progress_bar(total=len(batch.requests), desc="batch answers",
                              unit="pairs") as bar:  # fmt: skip
                llm_batch.follow(batch, session, lambda done, _: bar.update(done - bar.n))
            counts = llm_batch.apply(batch, session)
        except llm.LLMFailed as error:
            raise CommandError(
                f"the LLM batch {batch.pk} could not be sent or read: {error} (nothing was "
                "decided; find_duplicates --llm-batch again follows a batch that was sent, "
                "and asks anew if it was not)"
            ) from None
        self.stdout.write(
            f"LLM batch {batch.pk}: {counts.get('verdicts', 0)} verdicts recorded, "
            f"{counts.get('failed', 0)} left to the rules"
        )
        return batch

    def enqueue(self, namespaces, options, *, no_llm, wait):
        """--enqueue: the batches deferred (a namespace a queued or running batch holds is
        left out, named); with --wait, followed to the end with the same bar and summary
        line as a run here, read from the DedupRuns the workers write."""
        from memadmin.curation.runs import tasks

        started = timezone.now()
        with self.noting_ctrl_c(wait):
            planned = tasks.enqueue(namespaces, options, no_llm=no_llm)
            self.wait_for(planned, started, wait)

    @contextmanager
    def noting_ctrl_c(self, wait: bool):
        """Ctrl-C while waiting is only ever noted, then acted on between two looks at the
        queue: a KeyboardInterrupt raised inside the database driver or the queue's
        connection pool could leave threads that keep the process alive. (Only the main
        thread may set a handler; the previous one comes back after.)"""
        self.interrupted = False
        if not wait or threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(signal.SIGINT, self.note_interrupt)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def wait_for(self, planned, started, wait: bool) -> None:
        """What was queued, and with --wait its batches followed to the end."""
        for job_id, names in planned.queued:
            self.stdout.write(
                f"queued batch {job_id}: {len(names)} namespace(s): {', '.join(names)}"
            )
        if planned.already:
            self.stdout.write(f"left out, already queued or running: {', '.join(planned.already)}")
        self.stdout.write(
            f"{len(planned.queued)} batch(es) queued on {settings.DEDUP_QUEUE!r}; workers: "
            f"python manage.py procrastinate worker --queues {settings.DEDUP_QUEUE}"
        )
        if not wait or not planned.queued:
            return
        job_ids = [job_id for job_id, _ in planned.queued]
        total = sum(len(names) for _, names in planned.queued)
        try:
            states = self.follow(job_ids, total)
        except KeyboardInterrupt:
            # Only the waiting stops: the batches are the workers' and stay queued.
            raise CommandError(
                "stopped waiting; the batches stay queued for the workers "
                "(find_duplicates --status follows them)",
                returncode=130,
            ) from None
        names = [name for _, batch in planned.queued for name in batch]
        totals = runs.NamespaceReport(namespace="all")
        models = set()
        for counts, model in runs.finished_runs(names, since=started):
            for name, value in counts.items():
                setattr(totals, name, getattr(totals, name) + value)
            if model:
                models.add(model)
        self.stdout.write(
            summary_line(totals, total, dry_run=False) + verdicts_said(totals, sorted(models))
        )
        failed = [s for s in states if s.status != "succeeded"]
        if failed:
            raise CommandError(
                "; ".join(
                    f"batch {s.job_id} {s.status}: {', '.join(s.errors or s.namespaces)}"
                    for s in failed
                )
            )

    def note_interrupt(self, signum, frame) -> None:
        self.interrupted = True

    def follow(self, job_ids: list[int], total: int):
        """--wait: the batches' progress until every one has ended (their states), looking
        for batches of dead workers meanwhile, and saying once if no worker runs."""
        from memadmin.curation.runs import tasks

        recovered = waiting_since = time.monotonic()
        hinted = False
        with progress_bar(total=total, desc="find_duplicates", unit="namespaces") as bar:
            while True:
                if self.interrupted:
                    raise KeyboardInterrupt
                states = tasks.batch_states(job_ids)
                finished = [s for s in states if s.status not in ("todo", "doing")]
                bar.update(sum(len(s.namespaces) for s in finished) - bar.n)
                if len(finished) == len(states):
                    break
                if time.monotonic() - recovered >= QUEUE_RECOVER_SECONDS:
                    tasks.recover_stalled()  # a worker killed meanwhile: its batch again
                    recovered = time.monotonic()
                untouched = all(s.status == "todo" for s in states)
                waited = time.monotonic() - waiting_since >= QUEUE_NO_WORKER_SECONDS
                if not hinted and untouched and waited and tasks.live_workers() == 0:
                    # Otherwise the bar would sit at 0 with nothing saying why.
                    hinted = True
                    self.stderr.write(
                        "no worker is running: the batches wait on the queue until one "
                        f"starts (python manage.py procrastinate worker --queues "
                        f"{settings.DEDUP_QUEUE}); stopping --wait leaves them queued"
                    )
                time.sleep(QUEUE_POLL_SECONDS)
                if self.interrupted:
                    raise KeyboardInterrupt
        return states

    def show_status(self):
        """--status: the batches queued, running and failed, with their namespaces."""
        from memadmin.curation.runs import tasks

        states = tasks.batch_states()
        self.stdout.write(
            f"{tasks.live_workers()} worker(s) alive (a heartbeat in the last "
            f"{settings.DEDUP_STALLED_SECONDS:g} s)"
        )
        self.stdout.write(schedule_said())
        for state in states:
            said = {"todo": "queued", "doing": "running"}.get(state.status, state.status)
            self.stdout.write(
                f"batch {state.job_id} {said} (attempts {state.attempts}): "
                f"{', '.join(state.namespaces)}"
            )
            for error in state.errors:
                self.stdout.write(f"  error: {error}")
        counts = {status: sum(s.status == status for s in states) for status in STATES}
        self.stdout.write(
            ", ".join(f"{count} {STATES[status]}" for status, count in counts.items())
            + " batch(es) on the queue"
        )


# What --status counts, as it says it.
STATES = {"todo": "queued", "doing": "running", "failed": "failed"}
# How often --wait looks at the queue (one indexed query): a run ends at most this long
# after its last batch (at 1 s a poll, the nightly run of scenario d waited 0.5 s more
# on average), and how often it looks for batches whose worker died.
QUEUE_POLL_SECONDS = 0.2
QUEUE_RECOVER_SECONDS = 5.0
# After this long with no batch taken and no worker alive, --wait says so (once).
QUEUE_NO_WORKER_SECONDS = 10.0


def schedule_said() -> str:
    """Whether the workers queue runs by themselves (MEMADMIN_DEDUP_SCHEDULE), and when
    next: computed as procrastinate's periodic deferrer computes it."""
    if not settings.DEDUP_SCHEDULE:
        return "no schedule (MEMADMIN_DEDUP_SCHEDULE is off): cron queues or runs the passes"
    from croniter import croniter

    next_at = croniter(settings.DEDUP_SCHEDULE).get_next(ret_type=float, start_time=time.time())
    when = datetime.fromtimestamp(next_at, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"schedule {settings.DEDUP_SCHEDULE!r}: the workers queue the due namespaces next at {when}"
    )


def verdicts_said(totals: runs.NamespaceReport, models: list[str]) -> str:
    """What decided the pairs the rules leave open, for the summary line: the rules alone,
    or the LLM (`models`: the ones the run's namespaces used) and what its calls cost."""
    if not models and totals.llm_cached:
        # No call made, but what an LLM answered an earlier run about these very texts holds.
        return (
            f"; no LLM called: verdicts by the rules, and {totals.llm_cached} reused from "
            "an earlier run's LLM"
        )
    if not models:
        return "; verdicts by rules only (no LLM)"
    tokens = totals.llm_input_tokens + totals.llm_output_tokens
    per_thousand = 1000 / totals.changed if totals.changed else 0.0
    return (
        f"; LLM {', '.join(models)}: {totals.llm_verdicts} verdicts, "
        f"{totals.llm_cached} cached, "
        + (f"{totals.llm_audited} pairs audited, " if totals.llm_audited else "")
        + f"{totals.llm_calls} calls "
        f"({totals.llm_calls_skipped} skipped by the cap, {totals.llm_failures} failed), "
        f"{tokens:,} tokens ({totals.llm_calls * per_thousand:,.0f} calls and "
        f"{tokens * per_thousand:,.0f} tokens per 1,000 memories compared)"
    )


def summary_line(totals: runs.NamespaceReport, namespaces: int, *, dry_run: bool) -> str:
    """The run's one-line summary, the same in-process and through the queue."""
    per_memory = totals.pairs_checked / totals.changed if totals.changed else 0.0
    summary = (
        f"{'dry run: ' if dry_run else ''}{namespaces} namespace(s), "
        f"{totals.memories} memories ({totals.changed} compared, {totals.pairs_checked} "
        f"candidate pairs, {per_memory:.1f} a memory), "
        f"{totals.exact_collapsed} exact collapsed, {totals.auto_merged} auto-merged, "
        f"{totals.clusters_opened} clusters opened, {totals.clusters_grown} grown, "
        f"{totals.conflicts_opened} conflicts; possible apart: {totals.clusters_possible} "
        f"clusters, {totals.conflicts_possible} conflicts; {totals.deferred} deferred by "
        "--max-ops"
    )
    if totals.failed:
        summary += f", {totals.failed} failed"
    return summary


def measured_said() -> list[str]:
    """The store's measured error rate (reads.measured), a line per kind, and the judge's
    own where an audit measured it, when people, a labelled sample or the judge's audit
    labelled any pair; nothing otherwise."""
    if not measured.anything_measured():
        return []
    found = measured.measured()
    lines = []
    for kind in ("clusters", "conflicts"):
        said = []
        for tier, figures in found[kind].items():
            said.append(
                f"{tier} precision {_figure(figures, 'precision', 'interval', 'pairs', 'by')}, "
                f"recall "
                f"{_figure(figures, 'recall', 'recall_interval', 'recall_pairs', 'recall_by')}"
            )
        lines.append(f"measured {kind} (90 % intervals): " + "; ".join(said))
    if judge := found["judge"]:
        low, high = judge["interval"]
        lines.append(
            f"the LLM judge's error rate: {judge['error']:.2f} [{low:.2f}-{high:.2f}], from "
            f"{judge['pairs']} pairs it read twice (its figures above are corrected for it)"
        )
    return lines


def _figure(figures: dict, name: str, interval: str, pairs: str, by: str) -> str:
    if figures[name] is None:
        return "not measured (no labelled pair)"
    low, high = figures[interval]
    source = "labelled" if figures[by] == "people" else "audited by the LLM judge"
    return f"{figures[name]:.2f} [{low:.2f}-{high:.2f}] of {figures[pairs]} pairs {source}"
