"""An LLM answer that overturns what the (tempered) model reads of a pair is asked a
second time, the newer memory shown first, and decides only if both readings agree; two
that overturn it by far are asked a third time, shown as the first was
(curation/llm/band.py). Measured with the oracle judge (curation/learning/oracle.py)
through the real SDK, in memory as bench/llm_band.py runs the band."""

from dataclasses import replace
from types import SimpleNamespace

import pytest

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import POSSIBLE, PROPOSED, Verdict
from memadmin.curation.learning import calibration
from memadmin.curation.learning.oracle import Oracle
from memadmin.curation.llm import asking, prompts, weighing
from memadmin.curation.llm import band as llm_verdicts
from memadmin.curation.llm import client as llm
from memadmin.curation.llm.groups import Asked, Reading
from memadmin.curation.runs import planning
from memadmin.curation.runs.options import NamespaceReport, Options
from tests.data.labelled_set import load_set


class ContraryOnSecondReading(Oracle):
    """Right on a first reading, always another answer on the second."""

    def judge(self, older: str, newer: str, *, newer_first=False, shown="") -> tuple[str, str]:
        label, kind = super().judge(older, newer, shown=shown)
        if newer_first:
            return ("related_distinct" if label != "related_distinct" else "duplicate"), ""
        return label, kind


def band(oracle_class, monkeypatch, vectors) -> tuple[list, Oracle]:
    """Every namespace of a labelled set judged and its doubtful pairs asked: each pair's
    judgement, and the oracle (with what it was asked)."""
    rows, labels = load_set("everyday")
    found = []
    with oracle_class(rows, labels, error_rate=0.0) as oracle:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", oracle.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "oracle-not-secret")
        options = Options(dry_run=True, llm_session=llm.Session(max_calls=10_000))
        for memories in calibration.by_namespace(rows).values():
            judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
            report = NamespaceReport(namespace="", changed=len(memories))
            llm_verdicts.ask_band(judged, None, options, report, cached=dict)
            found.extend(
                (judged.memories[i].content, judged.memories[j].content, judgement)
                for (i, j), judgement in judged.judgements.items()
            )
    return found, oracle


@pytest.fixture(scope="module")
def vectors():
    return calibration.Vectors()


def test_a_second_reading_that_agrees_lets_the_answer_decide(monkeypatch, vectors, settings):
    settings.LLM_THIRD_READING_BELOW = 0.0  # two readings always enough
    settings.LLM_CONFLICT_THIRD_READING_BELOW = 0.0
    judgements, oracle = band(Oracle, monkeypatch, vectors)

    # A first reading may come in a group (the anchor first): pairs by their two texts.
    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    firsts = {frozenset((a, b)) for a, b, newer_first in oracle.asked if not newer_first}
    assert seconds and seconds <= firsts  # asked again only after a first reading
    twice = [j for older, newer, j in judgements if frozenset((older, newer)) in seconds]
    assert twice and all(j.decided_by == "llm" for j in twice)
    assert all(j.reasons[0].endswith("(read twice)") for j in twice)


def only_the_duplicate_bar(settings, bar: float) -> None:
    """Second readings owed to the bar of an answer "duplicate" alone (above every
    probability at 1.01)."""
    settings.LLM_SECOND_READING_BELOW = 0.0
    settings.LLM_CONFLICT_SECOND_READING_BELOW = 0.0
    settings.LLM_DISTINCT_SECOND_READING_BELOW = 0.0
    settings.LLM_DUPLICATE_SECOND_READING_BELOW = bar


def test_second_readings_that_wait_go_several_to_a_call_and_decide_as_pairs_alone_do(
    monkeypatch, vectors, settings
):
    # Every answer "duplicate" owes a second reading that waits for spare calls.
    only_the_duplicate_bar(settings, 1.01)
    settings.LLM_CALLS_PER_MEMORY = 10.0  # every second reading affordable either way
    settings.LLM_SECOND_READINGS_A_CALL = 1
    alone, by_pairs = band(Oracle, monkeypatch, vectors)
    settings.LLM_SECOND_READINGS_A_CALL = 8
    several, by_calls = band(Oracle, monkeypatch, vectors)

    seconds = [pair for pair in by_calls.asked if pair[2]]
    assert by_pairs.recheck_calls == 0 and len(seconds) > 8
    assert 0 < by_calls.recheck_calls < len(seconds) / 2
    assert by_calls.calls < by_pairs.calls
    decided = [[(a, b, j.verdict, j.decided_by, j.reasons[0]) for a, b, j in found]
               for found in (alone, several)]  # fmt: skip
    assert decided[0] == decided[1]


@pytest.mark.parametrize("bar", [0.0, 1.01])
def test_an_answer_one_fact_has_its_own_second_reading_bar(monkeypatch, vectors, settings, bar):
    # Only the bar of an answer "duplicate" asks again: above every probability each pair
    # answered so is read a second time (and nothing else), at 0.0 none is.
    only_the_duplicate_bar(settings, bar)
    settings.LLM_CALLS_PER_MEMORY = 10.0  # budget enough for every second reading
    _, oracle = band(Oracle, monkeypatch, vectors)

    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    answered_one = {
        frozenset((a, b)) for a, b, _ in oracle.asked if oracle.truth(a, b)[0] == "duplicate"
    }
    assert answered_one
    assert seconds == (answered_one if bar else set())


def test_a_confirmation_of_one_fact_waits_for_calls_the_groups_leave(
    monkeypatch, vectors, settings
):
    # Every pair answered "duplicate" owes a second reading by its own bar only; within
    # one call a memory the groups come first (each near candidate read), and an answer
    # no call was left to confirm decides alone, as under the general bar.
    only_the_duplicate_bar(settings, 1.01)
    # A little more than the groups take (small ones packed, about half a call a memory
    # here): a few calls are left to confirm answers, too few for all of them.
    settings.LLM_CALLS_PER_MEMORY = 0.6
    judgements, oracle = band(Oracle, monkeypatch, vectors)

    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    firsts = {frozenset((a, b)) for a, b, newer_first in oracle.asked if not newer_first}
    one_fact = {
        frozenset((older, newer)): judgement
        for older, newer, judgement in judgements
        if frozenset((older, newer)) in firsts and oracle.truth(older, newer)[0] == "duplicate"
    }
    assert seconds and set(one_fact) - seconds  # some confirmed, some not affordable
    for pair, judgement in one_fact.items():
        assert judgement.decided_by == "llm", pair
        assert judgement.reasons[0].endswith("(read twice)") == (pair in seconds)


def test_an_answer_whose_confirmation_waits_keeps_deciding_in_a_later_pass(
    monkeypatch, vectors, settings
):
    only_the_duplicate_bar(settings, 1.01)
    settings.LLM_CALLS_PER_MEMORY = 0.6  # as above: some answers are never confirmed
    judgements, _ = band(Oracle, monkeypatch, vectors)
    once = {
        frozenset((older, newer))
        for older, newer, judgement in judgements
        if judgement.decided_by == "llm" and judgement.reasons[0].startswith("LLM: duplicate")
        and not judgement.reasons[0].endswith("(read twice)")
    }  # fmt: skip
    assert once

    # A later pass with no LLM: the cached answer alone still decides its pair.
    rows, _ = load_set("everyday")
    later = []
    for memories in calibration.by_namespace(rows).values():
        judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
        by_text = {m.content: m.content_hash for m in judged.memories}
        answers = {
            tuple(sorted(by_text[text] for text in pair)): [
                SimpleNamespace(
                    verdict="duplicate",
                    conflict_kind="",
                    reason="one fact",
                    prompt_version=prompts.GROUP_VERSION,
                )
            ]
            for pair in once
            if all(text in by_text for text in pair)
        }
        report = NamespaceReport(namespace="", changed=len(memories))
        llm_verdicts.ask_band(
            judged, None, Options(dry_run=True), report, cached=lambda answers=answers: answers
        )
        later.extend(
            judgement
            for (i, j), judgement in judged.judgements.items()
            if frozenset((judged.memories[i].content, judged.memories[j].content)) in once
        )
    assert len(later) == len(once)
    assert all(judgement.decided_by == "llm" for judgement in later)


def test_readings_that_disagree_leave_the_pair_to_the_evidence(monkeypatch, vectors, settings):
    settings.LLM_THIRD_READING_WHERE_READINGS_DISAGREE = False
    judgements, oracle = band(ContraryOnSecondReading, monkeypatch, vectors)

    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    assert seconds
    for older, newer, judgement in judgements:
        if frozenset((older, newer)) not in seconds:
            continue
        assert judgement.decided_by == "rule", (older, newer)
        assert any("the readings disagree" in reason for reason in judgement.reasons)


class ContraryOnThirdReading(Oracle):
    """Right on the first two readings of a pair, another answer on a third (asked as the
    first was, after one with the newer memory first)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.read_newer_first: set[frozenset] = set()

    def judge(self, older: str, newer: str, *, newer_first=False, shown="") -> tuple[str, str]:
        label, kind = super().judge(older, newer, newer_first=newer_first, shown=shown)
        pair = frozenset((older, newer))
        if newer_first:
            self.read_newer_first.add(pair)
        elif pair in self.read_newer_first:
            return ("related_distinct" if label != "related_distinct" else "duplicate"), ""
        return label, kind


def read_three_times(asked: list[tuple[str, str, bool]]) -> set[frozenset]:
    """The pairs asked again as the first was after a reading with the newer first."""
    seconds, thirds = set(), set()
    for older, newer, newer_first in asked:
        pair = frozenset((older, newer))
        if newer_first:
            seconds.add(pair)
        elif pair in seconds:
            thirds.add(pair)
    return thirds


@pytest.mark.parametrize("bar", [0.0, 1.0])
def test_two_readings_that_overturn_the_model_by_far_decide_once_a_third_agrees(
    monkeypatch, vectors, settings, bar
):
    # The bar at 1.0: every pair two readings overturned is read a third time; at 0.0 none.
    settings.LLM_THIRD_READING_BELOW = settings.LLM_CONFLICT_THIRD_READING_BELOW = bar
    judgements, oracle = band(Oracle, monkeypatch, vectors)

    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    thirds = read_three_times(oracle.asked)
    assert seconds
    assert thirds == (seconds if bar else set())
    for older, newer, judgement in judgements:
        if frozenset((older, newer)) in seconds:
            assert judgement.decided_by == "llm"
            assert judgement.reasons[0].endswith("(read three times)" if bar else "(read twice)")


def test_a_third_reading_that_disagrees_leaves_the_pair_to_the_evidence(
    monkeypatch, vectors, settings
):
    settings.LLM_THIRD_READING_BELOW = 1.0
    judgements, oracle = band(ContraryOnThirdReading, monkeypatch, vectors)

    thirds = read_three_times(oracle.asked)
    assert thirds
    for older, newer, judgement in judgements:
        if frozenset((older, newer)) in thirds:
            assert judgement.decided_by == "rule", (older, newer)
            assert any("the readings disagree" in reason for reason in judgement.reasons)


def test_readings_that_disagree_are_read_a_third_time_and_two_of_three_decide(
    monkeypatch, vectors, settings
):
    # Right on every reading but the second (the newer memory first); two agreeing
    # readings always enough, and calls for every reading.
    settings.LLM_THIRD_READING_BELOW = settings.LLM_CONFLICT_THIRD_READING_BELOW = 0.0
    settings.LLM_CALLS_PER_MEMORY = 10.0
    judgements, oracle = band(ContraryOnSecondReading, monkeypatch, vectors)

    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    assert seconds and read_three_times(oracle.asked) == seconds
    decided = 0
    for older, newer, judgement in judgements:
        if frozenset((older, newer)) not in seconds:
            continue
        reason = judgement.reasons[-1]
        if judgement.decided_by == "llm":
            # The two readings shown older first agree, and they are right; where the
            # evidence leaves them in doubt, the merge or conflict is possible only.
            assert "(2 of 3 readings)" in reason, reason
            doubted = judgement.tier == POSSIBLE
            assert reason.endswith("(possible only: the evidence leaves it in doubt)") == doubted
            assert judgement.llm_answer == oracle.truth(older, newer)[0]
            decided += 1
        else:  # the model sure enough that two of three do not overturn it
            assert "too unlikely by the evidence" in reason, reason
    assert decided > len(seconds) / 2


def test_how_many_agreeing_readings_an_answer_needs_by_what_it_overturns(settings):
    # (p one fact, p conflict, p two facts) as the tempered model gives them.
    needed = weighing.agreeing_needed
    # "Two facts" where the model barely leaned that way is read twice (one wrong such
    # answer lost the duplicates the model half saw), where it leaned far, once.
    assert needed((0.45, 0.17, 0.38), "related_distinct") == 2
    assert needed((0.26, 0.09, 0.65), "unrelated") == 1
    assert needed((0.6, 0.35, 0.05), "related_distinct") == 3
    # Two answers "conflict" on a pair the model gave little are read a third time: two
    # wrong readings agree one time in 180, and most pairs read are two facts.
    assert needed((0.01, 0.17, 0.82), "conflict") == 3
    assert needed((0.01, 0.3, 0.69), "conflict") == 2
    assert needed((0.0, 0.6, 0.4), "conflict") == 1
    # Each label's bar is at least the general ones.
    settings.LLM_SECOND_READING_BELOW = settings.LLM_THIRD_READING_BELOW = 0.7
    assert needed((0.26, 0.09, 0.65), "unrelated") == 3
    assert needed((0.01, 0.3, 0.69), "conflict") == 3


def test_third_readings_go_several_a_call_where_no_earlier_reading_was_packed():
    # Third readings took a third of a spent budget one a call; packed in the pairs prompt
    # they cost a share of a call, but a pair already read in that form is shown another way,
    # one a call: a judge that answers one prompt one way would only confirm itself.
    def asked(k: int, *versions: str) -> Asked:
        earlier = tuple(Reading("duplicate", "", "", version) for version in versions)
        return Asked(k, k + 1, ("a", "b"), earlier)

    alone, newer = prompts.VERDICT_VERSION, prompts.SECOND_READING_VERSION
    second = [asked(k, alone) for k in range(3)]
    packable = [asked(k, alone, newer) for k in range(10)]
    packed_before = [asked(k, prompts.PAIRS_VERSION, newer) for k in range(2)]
    assert all(asking.packs(a, 8) for a in packable)
    assert not any(asking.packs(a, 8) or asking.packs(a, 1) for a in packed_before)
    # Seconds 8 a call (1), packable thirds 8 a call (2), the others one each (2).
    readings = second + packable + packed_before
    assert asking.calls_for(readings, 8) == 5
    assert asking.calls_for(readings, 1) == 15
    # Within three calls the seconds and every packable third; within two, one call of them.
    assert asking.readings_within(readings, 3, 8) == second + packable
    assert asking.readings_within(readings, 2, 8) == second + packable[:8]


HAMBURG = [
    {"id": "en", "content": "Jonas lives in Hamburg.", "created_at": "2026-01-05T09:00:00Z"},
    {"id": "de", "content": "Jonas wohnt in Hamburg.", "created_at": "2026-01-06T09:00:00Z"},
]


@pytest.mark.parametrize(
    "lean, proposes_from, tier",
    [
        # Two of three against a model that gave one fact 0.15: 0.70 likely once read.
        ((0.15, 0.05, 0.80), 0.75, POSSIBLE),
        ((0.15, 0.05, 0.80), 0.5, PROPOSED),
        # The same readings against a model that gave it 0.3: 0.84.
        ((0.30, 0.05, 0.65), 0.75, PROPOSED),
    ],
)
def test_a_merge_two_readings_of_three_leave_in_doubt_is_offered_as_possible(
    monkeypatch, vectors, settings, lean, proposes_from, tier
):
    settings.LLM_ANSWER_PROPOSES_FROM = proposes_from
    memories = [calibration.as_memory(dict(row, namespace="u")) for row in HAMBURG]
    judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
    # What the tempered model gives the pair, as it gives pairs its readers are blind on.
    monkeypatch.setattr(llm_verdicts, "band_prior", lambda judged, judgement: lean)
    readings = [Reading(label, "", "read") for label in ("duplicate", "unrelated", "duplicate")]

    llm_verdicts.override(judged, 0, 1, readings)

    pair = judged.judge(0, 1)
    assert (pair.decided_by, pair.llm_answer, pair.tier) == ("llm", "duplicate", tier)
    assert pair.p_one == pytest.approx(llm_verdicts.posterior(lean, [r.label for r in readings])[0])
    assert pair.reasons[0].endswith("(possible only: the evidence leaves it in doubt)") == (
        tier == POSSIBLE
    )
    # The plan offers it in its tier: a curator still sees it, never as a proposal.
    plan = planning.group(judged)
    assert [(sorted(c.members), c.tier) for c in plan.clusters] == [([0, 1], tier)]


@pytest.mark.parametrize(
    "lean, verdict",
    [((0.15, 0.05, 0.80), Verdict.REVIEW), ((0.30, 0.05, 0.65), Verdict.AUTO_MERGE)],
)
def test_a_merge_in_doubt_is_never_made_without_review(monkeypatch, vectors, lean, verdict):
    # The rules' strict check passed and the automatic threshold (0.6 shipped) is under
    # the doubt bar: only the pair not in doubt merges with no review.
    memories = [calibration.as_memory(dict(row, namespace="u")) for row in HAMBURG]
    judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
    pair = judged.judge(0, 1)
    judged.settle(0, 1, replace(pair, rules=replace(pair.rules, verdict=Verdict.AUTO_MERGE)))
    monkeypatch.setattr(llm_verdicts, "band_prior", lambda judged, judgement: lean)
    readings = [Reading(label, "", "read") for label in ("duplicate", "unrelated", "duplicate")]
    assert (
        judged.thresholds.auto_confidence
        <= llm_verdicts.posterior(lean, [r.label for r in readings])[0]
    )

    llm_verdicts.override(judged, 0, 1, readings)

    assert judged.judge(0, 1).verdict == verdict
