"""The LLM band of find_duplicates, against the fake API."""

import time

import pytest

from memadmin.curation.models import Cluster, Conflict, DedupRun, PairVerdict
from tests.factories import llm_band_pair, near, unit
from tests.fake_anthropic import error, verdict

pytestmark = pytest.mark.django_db(transaction=True)
BAND = llm_band_pair()


def test_without_an_llm_the_band_pair_is_left_to_the_rules(run_command, load):
    load(*BAND)

    result = run_command("find_duplicates")

    assert not Cluster.objects.exists()
    assert "verdicts by rules only (no LLM)" in result.stdout


def test_a_duplicate_verdict_opens_a_cluster_marked_llm(run_command, load, fake_llm):
    load(*BAND)
    fake_llm.queue.append(verdict("duplicate", reasoning="same preference, reworded"))

    result = run_command("find_duplicates")

    (cluster,) = Cluster.objects.all()
    assert [edge["method"] for edge in cluster.edges] == ["llm"]
    stored = PairVerdict.objects.get()
    assert (stored.verdict, stored.decided_by, stored.prompt_version) == (
        "duplicate",
        "llm",
        "verdict-v1",
    )
    assert "LLM claude-haiku-5-5: 1 verdicts, 0 cached, 1 calls" in result.stdout
    counts = DedupRun.objects.get().counts
    assert (counts["llm_calls"], counts["llm_input_tokens"]) == (1, 150)


def test_a_conflict_verdict_opens_a_conflict_with_the_llm_reason(run_command, load, fake_llm):
    load(*BAND)
    fake_llm.queue.append(verdict("conflict", "update", reasoning="the digest replaced it"))

    run_command("find_duplicates")

    conflict = Conflict.objects.get()
    assert (conflict.kind, conflict.detected_by) == ("update", "llm")
    assert conflict.reason == "LLM: conflict: the digest replaced it"


@pytest.mark.parametrize("label", ["related_distinct", "unrelated"])
def test_a_distinct_verdict_drops_the_pair_and_is_remembered(run_command, load, fake_llm, label):
    load(*BAND)
    fake_llm.queue.append(verdict(label))

    run_command("find_duplicates")
    again = run_command("find_duplicates", "--full")

    assert not Cluster.objects.exists() and not Conflict.objects.exists()
    assert len(fake_llm.requests) == 1  # the second run used the cached verdict
    assert "0 verdicts, 1 cached, 0 calls" in again.stdout


def test_without_a_key_an_earlier_llm_verdict_still_holds_and_the_summary_says_so(
    run_command, load, fake_llm, monkeypatch
):
    load(*BAND)
    fake_llm.queue.append(verdict("unrelated"))
    run_command("find_duplicates")
    monkeypatch.delenv("ANTHROPIC_API_KEY")

    again = run_command("find_duplicates", "--full")

    assert again.stdout.strip().endswith(
        "; no LLM called: verdicts by the rules, and 1 reused from an earlier run's LLM"
    )
    assert not Cluster.objects.exists() and len(fake_llm.requests) == 1


@pytest.mark.parametrize(
    "difference",
    [{"category": "config"}, {"source_ref": "elsewhere"}, {"importance": 0.97}],
)
def test_guarded_and_protected_pairs_are_never_sent(run_command, load, fake_llm, difference):
    first, second = BAND
    load(first, {**second, **difference})

    run_command("find_duplicates")

    assert fake_llm.requests == []


def band_pairs(count: int) -> list[dict]:
    """`count` pairs in the LLM band (cosine 0.62, nothing for the rules to settle)."""
    lines = []
    first, second = BAND
    for number in range(count):
        lines += [
            {
                **first,
                "id": f"a{number}",
                "content": f"{first['content']} ({number})",
                "embedding": list(unit(10 + number)),
            },
            {
                **second,
                "id": f"b{number}",
                "content": f"{second['content']} ({number})",
                "embedding": near(10 + number, 0.62),
            },
        ]
    return lines


def test_the_call_cap_holds_across_a_run(run_command, load, fake_llm, settings):
    settings.LLM_MAX_CALLS_PER_RUN = 2
    fake_llm.handler = lambda body, number: verdict("unrelated")
    load(*band_pairs(4))

    result = run_command("find_duplicates")

    assert len(fake_llm.requests) == 2
    assert "2 calls (2 skipped by the cap, 0 failed)" in result.stdout


def test_a_hanging_gateway_costs_one_run_budget_then_the_rules_decide(
    run_command, load, fake_llm, settings, caplog
):
    settings.LLM_RUN_BUDGET_SECONDS = 1.5
    fake_llm.delay = 5.0  # longer than any timeout: the gateway hangs
    load(*band_pairs(6))
    started = time.perf_counter()

    result = run_command("find_duplicates")

    assert result.error is None
    assert time.perf_counter() - started < 8  # six pairs x 30 s timeout x 3 tries without it
    assert "0 verdicts" in result.stdout and "skipped" in result.stdout
    assert any("budget of 1.5 s is spent" in r.message for r in caplog.records)


def test_after_failures_in_a_row_the_circuit_opens(run_command, load, fake_llm, settings, caplog):
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_BREAKER_FAILURES = 3
    fake_llm.handler = lambda body, number: error(500, "api_error")
    load(*band_pairs(6))

    result = run_command("find_duplicates")

    assert result.error is None
    assert len(fake_llm.requests) == 3
    assert "3 failed" in result.stdout
    assert any("3 calls in a row failed" in r.message for r in caplog.records)
