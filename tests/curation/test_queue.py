"""find_duplicates through the procrastinate queue, with real workers started as
processes (`manage.py procrastinate worker`) against the test database: the same result as
a run here, a worker killed mid-batch and its batch done once by another, a namespace
never queued twice, a poisoned batch failed for all to see."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import connection

from memadmin.curation import runs
from memadmin.curation.llm import client as llm
from memadmin.curation.models import Cluster, DedupRun, HistoryEvent, LlmAllowance
from memadmin.curation.runs import tasks
from memadmin.store.models import Memory, Namespace
from tests.factories import line, llm_band_pair, near, person, run_state, unit, unsaved
from tests.fake_anthropic import verdict
from tests.processes import environment, history_refused

pytestmark = pytest.mark.django_db(transaction=True)


QUEUES = ["--queues", django_settings.DEDUP_QUEUE]


@pytest.fixture(autouse=True)
def empty_queue():
    """procrastinate's tables are not Django's to flush between tests: emptied here."""

    def empty():
        with connection.cursor() as cursor:
            cursor.execute(
                "TRUNCATE procrastinate_events, procrastinate_periodic_defers, "
                "procrastinate_jobs, procrastinate_workers CASCADE"
            )

    empty()
    yield
    empty()


@contextmanager
def worker(**overrides: str):
    """One worker process of the dedup queue (as on another machine: its own connections)."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", "procrastinate", "worker", "--concurrency", "1", *QUEUES],
        cwd=django_settings.BASE_DIR,
        env=environment(MEMADMIN_LOG_LEVEL="WARNING", **overrides),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # procrastinate's graceful stop
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_until(condition, seconds: float = 120, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.3)


def batches_finished(job_ids) -> bool:
    return all(s.status not in ("todo", "doing") for s in tasks.batch_states(job_ids))


def queue(prefix: str, **options) -> list[int]:
    namespaces = list(Namespace.objects.filter(name__startswith=prefix).order_by("name"))
    planned = tasks.enqueue(namespaces, runs.Options(**options), no_llm=True)
    return [job_id for job_id, _ in planned.queued]


def run_here(prefix: str, **options) -> None:
    namespaces = list(Namespace.objects.filter(name__startswith=prefix).order_by("name"))
    runs.run_many(namespaces, runs.Options(**options), workers=1, on_done=lambda outcome: None)


def test_the_dev_set_through_the_queue_leaves_what_a_run_here_leaves(
    run_command, write_jsonl, dev_memories_path, settings
):
    lines = [json.loads(text) for text in dev_memories_path.read_text().splitlines()]
    for prefix in ("here-", "queued-"):
        prefixed = [{**entry, "namespace": prefix + entry["namespace"]} for entry in lines]
        assert run_command("import_memories", str(write_jsonl(prefixed, name=prefix))).error is None
    run_here("here-")
    run_here("here-", full=True)

    settings.DEDUP_BATCH_NAMESPACES = 2  # five namespaces: three batches for two workers
    with worker(), worker():
        first = queue("queued-")
        wait_until(lambda: batches_finished(first), what="the first pass")
        second = queue("queued-", full=True)
        wait_until(lambda: batches_finished(second), what="the second pass")

    assert len(first) == 3
    assert {s.status for s in tasks.batch_states(first + second)} == {"succeeded"}
    here, queued = run_state("here-"), run_state("queued-")
    assert len(here["clusters"]) > 10 and len(here["conflicts"]) > 10
    assert queued == here


def copies(load, name: str) -> None:
    load(
        line("tea", "Prefers tea.", unit(1), namespace=name),
        line("tea-again", "prefers tea", unit(1), namespace=name),
        line("cat", "Has a cat called Miso.", unit(2), namespace=name),
        line("cat-again", "Has a cat named Miso.", near(2, 0.99), namespace=name),
        name=f"{name}.jsonl",
    )


@contextmanager
def history_writes_held():
    """Another session holding the history table against writes (reads go on): a batch
    gets as far as its writes and waits there."""
    found = connection.settings_dict
    other = psycopg.connect(
        dbname=found["NAME"], user=found["USER"], host=found["HOST"], port=found["PORT"] or None
    )
    other.execute("BEGIN")
    other.execute("LOCK TABLE curation_historyevent IN EXCLUSIVE MODE")
    try:
        yield
    finally:
        other.close()


def test_a_worker_killed_mid_batch_is_recovered_and_each_change_is_made_once(load, settings):
    copies(load, "here-x")
    copies(load, "killed-x")
    run_here("here-x")

    with history_writes_held():
        [job] = queue("killed-x")
        with worker() as doomed:
            wait_until(
                lambda: DedupRun.objects.filter(namespace__name="killed-x").exists(),
                what="the batch to start",
            )
            time.sleep(2)  # detection done, its writes waiting on the lock
            os.kill(doomed.pid, signal.SIGKILL)
            doomed.wait()
    assert [s.status for s in tasks.batch_states([job])] == ["doing"]  # nobody finished it

    settings.DEDUP_STALLED_SECONDS = 10
    wait_until(lambda: tasks.recover_stalled() == 1, seconds=60, what="the heartbeat to stop")
    with worker():
        wait_until(lambda: batches_finished([job]), what="the retry")

    assert [s.status for s in tasks.batch_states([job])] == ["succeeded"]
    attempts = list(
        DedupRun.objects.filter(namespace__name="killed-x")
        .order_by("id")
        .values_list("status", "error")
    )
    assert attempts == [
        ("failed", "interrupted: the process ended before the run finished"),
        ("done", ""),
    ]
    assert run_state("killed-")["memories"] == run_state("here-")["memories"]
    assert HistoryEvent.objects.filter(namespace__name="killed-x", action="collapse").count() == (
        HistoryEvent.objects.filter(namespace__name="here-x", action="collapse").count()
    )


def test_a_namespace_is_never_queued_twice(load, run_command):
    copies(load, "ns-a")
    copies(load, "ns-b")

    first = run_command("find_duplicates", "--enqueue", "--no-llm")
    again = run_command("find_duplicates", "--enqueue", "--no-llm")
    one = run_command("find_duplicates", "--enqueue", "--namespace", "ns-a")

    assert "queued batch" in first.stdout and "2 namespace(s): ns-a, ns-b" in first.stdout
    assert "left out, already queued or running: ns-a, ns-b" in again.stdout
    assert "0 batch(es) queued" in again.stdout
    assert "left out, already queued or running: ns-a" in one.stdout
    assert len(tasks.batch_states()) == 1


def test_a_poisoned_batch_is_failed_with_its_error_in_status_and_on_the_dashboard(
    load, run_command, client
):
    copies(load, "ns-a")
    copies(load, "ns-b")
    broken = Namespace.objects.get(name="ns-b")
    with history_refused(broken.pk):
        [job] = queue("ns-")
        with worker(MEMADMIN_DEDUP_TASK_RETRIES="0"):
            wait_until(lambda: batches_finished([job]), what="the batch to fail")

    status = run_command("find_duplicates", "--status").stdout
    client.force_login(person("ada", "admin"))
    dashboard = client.get("/").content.decode()

    assert f"batch {job} failed (attempts 1): ns-a, ns-b" in status
    assert status.strip().splitlines()[-1] == "0 queued, 0 running, 1 failed batch(es) on the queue"
    assert "  error: ns-b: writing failed: disk full" in status
    assert "writing failed: disk full" in dashboard
    # The rest of the batch is done, as in a run here.
    statuses = dict(
        Memory.objects.filter(external_id="tea-again").values_list("namespace__name", "status")
    )
    assert statuses == {"ns-a": "superseded", "ns-b": "active"}


def test_the_schedule_queues_the_due_namespaces_once(load, settings):
    settings.DEDUP_MIN_MEMORIES = 1
    copies(load, "ns-a")

    first, again = tasks.queue_due_namespaces(), tasks.queue_due_namespaces()

    assert (first, again) == (1, 0)
    assert [s.namespaces for s in tasks.batch_states()] == [["ns-a"]]


def test_wait_follows_the_batches_and_prints_the_summary_a_run_here_prints(load, run_command):
    copies(load, "ns-a")
    copies(load, "ns-b")
    here = run_command("find_duplicates", "--namespace", "ns-b", "--no-llm")
    handler = signal.getsignal(signal.SIGINT)

    with worker():
        result = run_command("find_duplicates", "--enqueue", "--wait", "--namespace", "ns-a")

    assert result.error is None, result.stderr
    assert signal.getsignal(signal.SIGINT) is handler  # Ctrl-C's handler given back
    assert (
        result.stdout.strip().splitlines()[-1]
        == here.stdout.strip().splitlines()[-1]
        == (
            "1 namespace(s), 4 memories (4 compared, 6 candidate pairs, 1.5 a memory), "
            "1 exact collapsed, 1 auto-merged, 0 clusters opened, 0 grown, 0 conflicts; "
            "possible apart: 0 clusters, 0 conflicts; 0 deferred by --max-ops; "
            "verdicts by rules only (no LLM)"
        )
    )


def test_wait_says_once_when_no_worker_runs_and_goes_on_when_one_starts(
    load, run_command, monkeypatch
):
    from memadmin.curation.management.commands import find_duplicates

    monkeypatch.setattr(find_duplicates, "QUEUE_NO_WORKER_SECONDS", 1.0)
    copies(load, "ns-a")

    def wait_for_the_run():
        try:
            return run_command("find_duplicates", "--enqueue", "--wait", "--no-llm")
        finally:
            connection.close()  # this thread's own connection

    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(wait_for_the_run)
        time.sleep(4)  # past the hint, a few polls later
        assert not waiting.done()
        with worker():
            result = waiting.result(timeout=120)

    assert result.error is None, result.stderr
    assert result.stderr.count("no worker is running: the batches wait on the queue") == 1
    assert "python manage.py procrastinate worker --queues dedup" in result.stderr
    assert "1 exact collapsed, 1 auto-merged" in result.stdout


@pytest.mark.parametrize("after", [0.0, 0.3, 1.0])
def test_ctrl_c_stops_the_waiting_only_and_says_so(load, after):
    """Whenever Ctrl-C comes once the batch is queued (at once, in the first look at the
    queue, in the waiting loop), only the waiting stops, at once, and says so."""
    copies(load, "ns-a")
    waiting = subprocess.Popen(
        [sys.executable, "manage.py", "find_duplicates", "--enqueue", "--wait", "--no-llm"],
        cwd=django_settings.BASE_DIR,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: tasks.batch_states() != [], what="the batch to be queued")
    time.sleep(after)
    waiting.send_signal(signal.SIGINT)
    _, err = waiting.communicate(timeout=60)

    assert waiting.returncode == 130
    assert "stopped waiting; the batches stay queued for the workers" in err
    assert "Traceback" not in err
    assert [s.status for s in tasks.batch_states()] == ["todo"]


def test_status_counts_the_workers_alive(run_command):
    with worker():
        wait_until(lambda: tasks.live_workers() == 1, what="the worker's first heartbeat")
        status = run_command("find_duplicates", "--status").stdout.strip().splitlines()

    assert status[0] == "1 worker(s) alive (a heartbeat in the last 60 s)"
    assert (
        status[1] == "no schedule (MEMADMIN_DEDUP_SCHEDULE is off): cron queues or runs the passes"
    )
    assert status[-1] == "0 queued, 0 running, 0 failed batch(es) on the queue"


def test_status_says_when_the_schedule_queues_next(run_command, settings):
    settings.DEDUP_SCHEDULE = "30 3 * * *"

    status = run_command("find_duplicates", "--status").stdout.splitlines()

    assert re.fullmatch(
        r"schedule '30 3 \* \* \*': the workers queue the due namespaces next at "
        r"\d{4}-\d\d-\d\d 03:30 UTC",
        status[1],
    )


def test_the_llm_call_cap_is_one_runs_shared_by_its_batches_on_every_worker(
    load, run_command, fake_llm, settings
):
    for name in ("ns-a", "ns-b", "ns-c", "ns-d"):
        load(*llm_band_pair(name), name=f"{name}.jsonl")
    # One reading of "two facts" decides (the workers' own second-reading bar for it off:
    # a second one would wait for a budget a namespace of two memories does not have).
    fake_llm.handler = lambda body, count: verdict("unrelated", reasoning="two digests")
    one_reading = {"MEMADMIN_LLM_DISTINCT_SECOND_READING_BELOW": "0"}
    settings.DEDUP_BATCH_NAMESPACES = 1  # four batches, each asking about its pair
    settings.LLM_MAX_CALLS_PER_RUN = 2

    with worker(**one_reading), worker(**one_reading):
        result = run_command("find_duplicates", "--enqueue", "--wait")

    assert result.error is None, result.stderr
    assert "4 batch(es) queued" in result.stdout
    assert len(fake_llm.requests) == 2  # each worker has a cap of 30 of its own
    assert (
        result.stdout.strip()
        .splitlines()[-1]
        .endswith(
            "; LLM claude-haiku-5-5: 2 verdicts, 0 cached, 2 calls (2 skipped by the cap, "
            "0 failed), 380 tokens (250 calls and 47,500 tokens per 1,000 memories compared)"
        )
    )
    assert LlmAllowance.objects.get().calls == 2
    # The pairs the LLM was asked about are set apart; the other two were left to the
    # model, which is not sure of them: possible.
    assert not Cluster.objects.filter(tier="proposed").exists()
    assert Cluster.objects.filter(tier="possible").count() == 2


def test_an_allowance_is_forgotten_once_every_batch_of_its_run_has_ended(load):
    copies(load, "ns-a")
    copies(load, "ns-b")
    enqueue = partial(tasks.enqueue, options=runs.Options(), no_llm=False)
    [done] = enqueue(list(Namespace.objects.filter(name="ns-a"))).queued
    with worker():
        wait_until(lambda: batches_finished([done[0]]), what="the first run")
    spent = LlmAllowance.objects.get()

    enqueue(list(Namespace.objects.filter(name="ns-b")))
    waiting = LlmAllowance.objects.get()  # the first run's is gone
    enqueue(list(Namespace.objects.filter(name="ns-a")))

    assert waiting.pk != spent.pk
    # ns-b's batch has not run yet: its run's allowance stays, beside the newest one.
    assert waiting.pk in LlmAllowance.objects.values_list("pk", flat=True)
    assert LlmAllowance.objects.count() == 2


def test_workers_taking_llm_calls_at_once_never_take_more_than_the_allowance():
    allowance = LlmAllowance.objects.create(max_calls=7)
    barrier = threading.Barrier(4)

    def take_five() -> list[int]:
        barrier.wait()  # the four start together, each on its own connection
        try:
            # One at a time, then three at once: both ways count against the allowance.
            return [tasks.take_llm_calls(allowance.pk) for _ in range(2)] + [
                tasks.take_llm_calls(allowance.pk, 3)
            ]
        finally:
            connection.close()

    with ThreadPoolExecutor(4) as pool:
        taken = [took for takes in pool.map(lambda _: take_five(), range(4)) for took in takes]

    assert sum(taken) == 7
    allowance.refresh_from_db()
    assert allowance.calls == 7


def test_a_batchs_session_stops_when_the_runs_allowance_is_spent(fake_llm):
    fake_llm.handler = lambda body, count: verdict("duplicate")
    allowance = LlmAllowance.objects.create(max_calls=1)
    options = tasks.options_from_arguments({"llm_allowance": allowance.pk})
    first, second = unsaved("Prefers tea."), unsaved("Likes tea.")

    options.llm_session.verdict(first, second)
    with pytest.raises(llm.CapReached, match="shared by its batches"):
        options.llm_session.verdict(first, second)
    with pytest.raises(llm.CapReached):  # known spent: the allowance is not asked again
        options.llm_session.verdict(first, second)

    assert len(fake_llm.requests) == 1
    assert (options.llm_session.calls, options.llm_session.skipped) == (1, 2)
    assert LlmAllowance.objects.get().calls == 1


def test_a_batch_queued_without_an_allowance_keeps_a_cap_of_its_own(fake_llm, settings):
    settings.LLM_MAX_CALLS_PER_RUN = 1
    fake_llm.handler = lambda body, count: verdict("duplicate")
    session = tasks.options_from_arguments({}).llm_session
    first, second = unsaved("Prefers tea."), unsaved("Likes tea.")

    session.verdict(first, second)
    with pytest.raises(llm.CapReached, match="cap of 1 LLM calls"):
        session.verdict(first, second)


def test_a_dry_run_is_not_queued(load, run_command):
    copies(load, "ns-a")

    result = run_command("find_duplicates", "--enqueue", "--dry-run")

    assert "--dry-run prints its plan here: run it without --enqueue" in str(result.error)
    assert tasks.batch_states() == []
