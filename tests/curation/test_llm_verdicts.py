"""The LLM band of find_duplicates, against the fake API."""

import time

import pytest

from memadmin.curation.models import Cluster, Conflict, DedupRun, PairVerdict
from tests.factories import line, llm_band_pair, near, unit
from tests.fake_anthropic import error, tool_message, verdict

pytestmark = pytest.mark.django_db(transaction=True)
BAND = llm_band_pair()


@pytest.fixture(autouse=True)
def pair_by_pair(settings):
    """The band one pair a call, within 0.6 calls a memory: the mechanics these tests
    hold (readings, budget, caps, failures) with the fake API's pair answers. Calls that
    carry a memory and its candidates are tests/curation/test_llm_groups.py's. The bars
    that read "two facts" twice and two "conflict" answers a third time are off: the
    answers scripted here are counted against the general bars, and those two bars are
    held by test_second_reading.py and the tests at the end of this file."""
    settings.LLM_GROUP_SIZE = 1
    settings.LLM_CALLS_PER_MEMORY = 0.6
    settings.LLM_DISTINCT_SECOND_READING_BELOW = 0.0
    settings.LLM_CONFLICT_THIRD_READING_BELOW = 0.0


def test_without_an_llm_a_doubtful_pair_is_possible_not_proposed(run_command, load):
    load(*BAND)

    result = run_command("find_duplicates")

    (cluster,) = Cluster.objects.all()
    assert cluster.tier == "possible" and 0.2 <= cluster.confidence < 0.8
    assert "0 clusters opened" in result.stdout
    assert "possible apart: 1 clusters" in result.stdout
    assert "verdicts by rules only (no LLM)" in result.stdout


def test_a_duplicate_verdict_read_twice_opens_a_cluster_marked_llm(
    run_command, load, fake_llm, settings
):
    # An answer the model gave less than the second-reading bar is asked again with the
    # newer memory first, right away where the budget allows two calls. (The bar is set
    # above any prior: what the fitted model says of this pair is not what is tested.)
    settings.LLM_SECOND_READING_BELOW = 1.0
    settings.LLM_CALLS_PER_MEMORY = 1.0
    load(*BAND)
    fake_llm.queue.append(verdict("duplicate", reasoning="same preference, reworded"))
    fake_llm.queue.append(verdict("duplicate", reasoning="one preference"))

    result = run_command("find_duplicates")

    (cluster,) = Cluster.objects.all()
    assert [edge["method"] for edge in cluster.edges] == ["llm"]
    stored = PairVerdict.objects.order_by("prompt_version")
    assert [(v.verdict, v.decided_by, v.prompt_version) for v in stored] == [
        ("duplicate", "llm", "verdict-v1"),
        ("duplicate", "llm", "verdict-v1/newer-first"),
    ]
    first, second = (r["messages"][0]["content"] for r in fake_llm.requests)
    assert first.startswith("Older memory: ") and second.startswith("Newer memory: ")
    assert "LLM claude-haiku-5-5: 2 verdicts, 0 cached, 2 calls" in result.stdout
    counts = DedupRun.objects.get().counts
    assert (counts["llm_calls"], counts["llm_input_tokens"]) == (2, 300)


def test_readings_that_disagree_leave_the_pair_to_the_model(run_command, load, fake_llm, settings):
    settings.LLM_SECOND_READING_BELOW = 1.0  # every answer read twice
    settings.LLM_CALLS_PER_MEMORY = 1.0
    settings.LLM_THIRD_READING_WHERE_READINGS_DISAGREE = False
    load(*BAND)
    fake_llm.queue.append(verdict("duplicate", reasoning="same preference, reworded"))
    fake_llm.queue.append(verdict("unrelated", reasoning="two preferences"))

    run_command("find_duplicates")
    again = run_command("find_duplicates", "--full")

    (cluster,) = Cluster.objects.all()
    assert cluster.tier == "possible"  # where the model alone puts it
    assert [edge["method"] for edge in cluster.edges] == ["vector"]
    assert len(fake_llm.requests) == 2  # both readings remembered, never asked again
    assert "0 verdicts, 1 cached, 0 calls" in again.stdout


def test_a_third_reading_breaks_two_that_disagree_shown_as_neither_was(
    run_command, load, fake_llm, settings
):
    settings.LLM_SECOND_READING_BELOW = 1.0  # every answer read twice
    settings.LLM_THIRD_READING_BELOW = 0.0  # two agreeing readings enough
    settings.LLM_CALLS_PER_MEMORY = 2.0
    load(*BAND)
    fake_llm.queue.append(verdict("duplicate", reasoning="same preference, reworded"))
    fake_llm.queue.append(verdict("unrelated", reasoning="two preferences"))
    fake_llm.queue.append(
        tool_message(
            {"verdicts": [{"pair": 1, "reasoning": "one preference", "label": "duplicate"}]}
        )
    )

    result = run_command("find_duplicates")
    again = run_command("find_duplicates", "--full")

    (cluster,) = Cluster.objects.all()
    assert cluster.tier == "proposed" and [edge["method"] for edge in cluster.edges] == ["llm"]
    # The pair alone older first, then newer first, then in the pairs prompt (where thirds
    # go several a call): three readings, each kept under its own version, never asked
    # again.
    first, second, third = (r["messages"][0]["content"] for r in fake_llm.requests)
    assert first.startswith("Older memory: ") and second.startswith("Newer memory: ")
    assert third.startswith("Pairs to compare:\n1. Older: ")
    stored = PairVerdict.objects.order_by("pk")
    assert [(v.verdict, v.prompt_version) for v in stored] == [
        ("duplicate", "verdict-v1"),
        ("unrelated", "verdict-v1/newer-first"),
        ("duplicate", "pairs-v1"),
    ]
    assert "3 verdicts, 0 cached, 3 calls" in result.stdout
    assert "0 verdicts, 1 cached, 0 calls" in again.stdout


def test_a_second_reading_the_budget_left_for_later_is_asked_by_the_next_run(
    run_command, load, fake_llm, settings
):
    # Two memories give a budget of one call: the first reading takes it, and the answer
    # waits for its second reading (the model places the pair meanwhile).
    settings.LLM_SECOND_READING_BELOW = 1.0  # every answer read twice
    load(*BAND)
    fake_llm.queue.append(verdict("duplicate", reasoning="same preference, reworded"))
    fake_llm.queue.append(verdict("duplicate", reasoning="one preference"))

    first = run_command("find_duplicates")
    (cluster,) = Cluster.objects.all()
    assert cluster.tier == "possible" and "1 verdicts, 0 cached, 1 calls" in first.stdout

    again = run_command("find_duplicates", "--full")

    (cluster,) = Cluster.objects.all()
    assert [edge["method"] for edge in cluster.edges] == ["llm"]
    assert "1 verdicts, 1 cached, 1 calls" in again.stdout
    assert fake_llm.requests[1]["messages"][0]["content"].startswith("Newer memory: ")


# A pair the model reads as one fact or a changed preference (0.68 / 0.07 / 0.25).
CHANGED = (
    line("a", "Prefers a daily digest of alerts.", unit(1), tags=["alerts"]),
    line(
        "b",
        "Wants alerts in real time.",
        near(1, 0.75),
        tags=["alerts"],
        created_at="2026-02-01T00:00:00Z",
    ),
)


# Two readings of CHANGED, the first's reason the one kept.
BOTH_READINGS_SAY_CONFLICT = (
    verdict("conflict", "update", reasoning="the digest replaced it"),
    verdict("conflict", "update", reasoning="real time now"),
)


def test_a_conflict_verdict_opens_a_conflict_with_the_llm_reason(
    run_command, load, fake_llm, settings
):
    # Against the model's lean: read twice (a budget of two calls), both say conflict.
    settings.LLM_CALLS_PER_MEMORY = 1.0
    load(*CHANGED)
    fake_llm.queue.extend(BOTH_READINGS_SAY_CONFLICT)

    run_command("find_duplicates")

    conflict = Conflict.objects.get()
    assert (conflict.kind, conflict.detected_by, conflict.tier) == ("update", "llm", "proposed")
    assert conflict.reason == "LLM: conflict: the digest replaced it (read twice)"
    assert conflict.confidence > 0.5  # the model's probabilities updated by the answer
    assert not Cluster.objects.exists()


@pytest.mark.parametrize(("conflict_below", "calls"), [(0.5, 2), (0.0, 1)])
def test_a_conflict_answer_is_read_twice_unless_the_model_holds_it_likelier_than_not(
    run_command, load, fake_llm, settings, conflict_below, calls
):
    # Other answers are taken at once here; "conflict" puts a pair before an admin, so it
    # has a bar of its own (LLM_CONFLICT_SECOND_READING_BELOW).
    settings.LLM_CALLS_PER_MEMORY = 1.0
    settings.LLM_SECOND_READING_BELOW = 0.0
    settings.LLM_CONFLICT_SECOND_READING_BELOW = conflict_below
    # One reading against the model's lean leaves the conflict in doubt (possible only,
    # test_second_reading): here only how often it is read is weighed.
    settings.LLM_ANSWER_PROPOSES_FROM = 0.5
    load(*CHANGED)
    fake_llm.queue.extend(BOTH_READINGS_SAY_CONFLICT)

    run_command("find_duplicates")

    conflict = Conflict.objects.get()
    assert (conflict.detected_by, conflict.tier) == ("llm", "proposed")
    assert len(fake_llm.requests) == calls
    assert conflict.reason.endswith("(read twice)") == (calls == 2)


def test_an_answer_the_evidence_makes_too_unlikely_is_not_taken_alone(run_command, load, fake_llm):
    # The model gives the band pair (one preference said two ways) a conflict chance of
    # 6 %: one answer "conflict", from an LLM wrong 15 % of the time, leaves it at 42 %.
    load(*BAND)
    fake_llm.queue.append(verdict("conflict", "update", reasoning="real time replaced it"))

    run_command("find_duplicates")

    assert not Conflict.objects.filter(tier="proposed").exists()
    assert not Cluster.objects.filter(tier="proposed").exists()
    assert PairVerdict.objects.get().verdict == "conflict"  # remembered, never asked again


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


def test_an_answer_on_a_pair_the_model_was_sure_of_holds_when_no_call_is_to_spare(
    run_command, load, fake_llm, monkeypatch, settings
):
    # Asked with a call to spare (LLM_SURE at 0: the model counts as sure of every pair),
    # the answer keeps the pair apart; a later pass with no LLM (no call to spare) reads
    # that answer again instead of leaving the pair to the model's possible tier.
    settings.LLM_SURE = 0.0
    settings.LLM_CALLS_PER_MEMORY = 1.0
    fake_llm.handler = lambda body, number: verdict("unrelated")
    load(*BAND)
    run_command("find_duplicates")
    assert len(fake_llm.requests) == 1 and not Cluster.objects.exists()
    monkeypatch.delenv("ANTHROPIC_API_KEY")

    again = run_command("find_duplicates", "--full")

    assert "1 reused from an earlier run's LLM" in again.stdout
    assert not Cluster.objects.exists()


@pytest.mark.parametrize(
    ("difference", "clustered"),
    [({"category": "config"}, False), ({"source_ref": "elsewhere"}, False),
     ({"importance": 0.97}, True)],
)  # fmt: skip
def test_guarded_and_protected_pairs_are_read_and_only_a_person_merges_them(
    run_command, load, fake_llm, settings, difference, clustered
):
    """Every near candidate is read; the operator's vetoes bound what an answer does: a
    guard keeps "one fact" out of every cluster, a protected memory is a flagged proposal
    (never merged automatically)."""
    settings.LLM_CALLS_PER_MEMORY = 1.0
    first, second = BAND
    load(first, {**second, **difference})
    fake_llm.queue.extend([verdict("duplicate", reasoning="one preference")] * 2)

    run_command("find_duplicates")

    assert fake_llm.requests  # read, though it may not merge
    clusters = Cluster.objects.filter(tier="proposed")
    assert clusters.exists() == clustered
    assert not Cluster.objects.filter(status="auto_merged").exists()
    if clustered:
        assert "protected" in clusters.get().flags


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
    settings.LLM_CONCURRENCY = 1  # one call at a time: exactly three are made
    fake_llm.handler = lambda body, number: error(500, "api_error")
    load(*band_pairs(6))

    result = run_command("find_duplicates")

    assert result.error is None
    assert len(fake_llm.requests) == 3
    assert "3 failed" in result.stdout
    assert any("3 calls in a row failed" in r.message for r in caplog.records)


def test_with_calls_in_flight_at_once_the_circuit_opens_within_one_round(
    run_command, load, fake_llm, settings
):
    # Four calls start together; once three have failed, no new call starts.
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_BREAKER_FAILURES = 3
    settings.LLM_CONCURRENCY = 4
    fake_llm.handler = lambda body, number: error(500, "api_error")
    load(*band_pairs(8))

    result = run_command("find_duplicates")

    assert result.error is None
    assert 3 <= len(fake_llm.requests) <= settings.LLM_CONCURRENCY + 2


def test_doubtful_pairs_are_asked_several_at_once(run_command, load, fake_llm, settings):
    settings.LLM_CONCURRENCY = 4
    settings.LLM_CALLS_PER_MEMORY = 0.5  # one call a doubtful pair, none to spare
    # Every call a pair's, as the fake answers: the pairs' numbers ("(5)" / "(7)") make
    # conflicts of the copies too, whose second readings would go several a call.
    settings.LLM_SECOND_READINGS_A_CALL = 1
    fake_llm.delay = 0.3
    fake_llm.handler = lambda body, number: verdict("unrelated")
    load(*band_pairs(8))

    result = run_command("find_duplicates")

    assert len(fake_llm.requests) == 8
    assert "8 verdicts" in result.stdout
    # Not one after another: some calls were in flight together (by when each came in,
    # not by the wall clock a loaded machine stretches).
    starts = fake_llm.started
    assert max(sum(s <= t < s + fake_llm.delay for s in starts) for t in starts) >= 2


def test_the_budget_grows_with_the_memories_compared(run_command, load, fake_llm, settings):
    # 0.25 calls a memory: 16 memories (8 doubtful pairs) allow 4 calls, the most
    # doubtful first; the other pairs stay possible.
    settings.LLM_CALLS_PER_MEMORY = 0.25
    fake_llm.handler = lambda body, number: verdict("unrelated")
    load(*band_pairs(8))

    result = run_command("find_duplicates")

    assert len(fake_llm.requests) == 4
    assert "4 verdicts" in result.stdout
    assert PairVerdict.objects.count() == 4
    assert Cluster.objects.filter(tier="possible").exists()


def test_calls_to_spare_go_to_the_pairs_the_model_is_sure_of_least_sure_first(
    run_command, load, fake_llm, settings
):
    # With LLM_SURE at 0 no pair is doubtful: the model is taken as sure of all three.
    # A budget of one call asks the least sure pair; a budget of three asks the rest
    # after it (a model fit on other data can be sure and wrong, and only an answer
    # shows it); with no calls to spare none would be asked.
    settings.LLM_SURE = 0.0
    fake_llm.handler = lambda body, number: verdict("unrelated")
    unrelated = line("c", "Deployed the blog on a Hetzner box in Falkenstein.", near(1, 0.55, 5))

    def asked(calls_per_memory: float) -> list[set[str]]:
        settings.LLM_CALLS_PER_MEMORY = calls_per_memory
        fake_llm.requests.clear()
        PairVerdict.objects.all().delete()
        run_command("find_duplicates", "--full")
        return [
            {name for name, text in TEXTS.items() if text in r["messages"][0]["content"]}
            for r in fake_llm.requests
        ]

    TEXTS = {m["id"]: m["content"] for m in (*BAND, unrelated)}
    load(*BAND, unrelated)

    assert asked(1 / 3) == [{"a", "b"}]
    first, *then = asked(1.0)
    assert first == {"a", "b"}
    assert then == [{"a", "c"}]


def test_a_possible_conflict_a_later_run_decides_is_raised_to_proposed(
    run_command, load, fake_llm, settings
):
    # A conflict the model puts in the possible tier: the first run's answer "conflict"
    # waits for its second reading (one call's budget); the next run asks it, and the
    # same conflict is proposed, not opened again.
    # The pair (0.68 / 0.07 / 0.25 today) a possible conflict: no tier of one fact.
    settings.DEDUP_PROPOSE_ONE = settings.DEDUP_POSSIBLE_ONE = 0.99
    settings.DEDUP_POSSIBLE_CONFLICT = 0.01
    settings.LLM_CONFLICT_SECOND_READING_BELOW = 1.0  # every "conflict" read twice
    load(*CHANGED)
    fake_llm.queue.extend(BOTH_READINGS_SAY_CONFLICT)

    run_command("find_duplicates")
    before = Conflict.objects.get()
    run_command("find_duplicates", "--full")

    after = Conflict.objects.get()
    assert before.tier == "possible" and after.pk == before.pk
    assert (after.tier, after.detected_by) == ("proposed", "llm")
    assert after.reason == "LLM: conflict: the digest replaced it (read twice)"


@pytest.mark.parametrize(("distinct_below", "calls"), [(0.6, 2), (0.0, 1)])
def test_an_answer_two_facts_the_model_barely_leaned_to_is_read_twice(
    run_command, load, fake_llm, settings, distinct_below, calls
):
    # The band pair is one preference said two ways; the model leans that way, so an
    # answer "two facts" overturns it: one wrong such answer would set a duplicate apart
    # alone, so under LLM_DISTINCT_SECOND_READING_BELOW it is read twice.
    settings.LLM_CALLS_PER_MEMORY = 1.0
    settings.LLM_DISTINCT_SECOND_READING_BELOW = distinct_below
    load(*BAND)
    fake_llm.handler = lambda body, number: verdict("related_distinct")

    run_command("find_duplicates")

    assert len(fake_llm.requests) == calls
    assert not Cluster.objects.filter(tier="proposed").exists()
    versions = sorted(PairVerdict.objects.values_list("prompt_version", flat=True))
    assert versions == ["verdict-v1", "verdict-v1/newer-first"][:calls]
