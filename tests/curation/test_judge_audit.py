"""The LLM judge's audit of a detection pass (curation.llm.audit) and what it measures
(curation.reads.audited): pairs drawn from every band, the answers corrected for the
judge's own error, 90 % intervals that hold the truth."""

import random
from collections import Counter
from types import SimpleNamespace

import pytest

from memadmin.curation.llm import audit
from memadmin.curation.reads.audited import CONFLICT, ONE, TWO, Stratum, estimate, merged

LABELS = (ONE, CONFLICT, TWO)


def judged_by(truths: list[str], error: float, rng: random.Random) -> list[str]:
    """A judge wrong with rate `error`, its errors split evenly between the two others."""
    said = []
    for truth in truths:
        if rng.random() < error:
            said.append(rng.choice([label for label in LABELS if label != truth]))
        else:
            said.append(truth)
    return said


def simulated(rng: random.Random, error: float, per_band: int, *, all_right: bool = False):
    """A store whose bands hold known shares of one fact and conflicts, audited by a
    judge wrong `error` of the time: (strata, readings, disagreed, the true figures).
    `all_right`: every proposed cluster and conflict is right (precision 1, the bound)."""
    clusters = (1.0, 0.0, 0.0) if all_right else (0.85, 0.05, 0.10)
    conflicts = (0.0, 1.0, 0.0) if all_right else (0.05, 0.80, 0.15)
    bands = [
        # kind, tier, pairs, exact copies, true shares (one fact, conflict, two facts)
        ("clusters", "proposed", 400, 50, clusters),
        ("clusters", "possible", 300, 0, (0.45, 0.05, 0.50)),
        ("conflicts", "proposed", 200, 0, conflicts),
        ("conflicts", "possible", 150, 0, (0.10, 0.30, 0.60)),
        ("apart", "", 3000, 0, (0.01, 0.01, 0.98)),
    ]
    strata, readings, disagreed = [], 0, 0
    for kind, tier, size, exact, shares in bands:
        truths = rng.choices(LABELS, weights=shares, k=per_band)
        said = judged_by(truths, error, rng)
        again = judged_by(truths, error, rng)  # the other way round: errs on its own
        readings += per_band
        disagreed += sum(a != b for a, b in zip(said, again, strict=True))
        strata.append(Stratum(kind, tier, size, exact, Counter(said + again), read=per_band))
    true_clusters = (400 * clusters[0] + 50) / 450
    true_conflicts = conflicts[1]
    return strata, readings, disagreed, {"clusters": true_clusters, "conflicts": true_conflicts}


def test_the_interval_holds_the_true_precision_nine_times_in_ten_and_is_narrow_at_100_pairs():
    rng = random.Random(11)
    held, widths = Counter(), []
    runs = 40
    for seed in range(runs):
        strata, readings, disagreed, truth = simulated(rng, 0.15, per_band=100)
        found = estimate(strata, readings, disagreed, seed=seed)
        for kind in ("clusters", "conflicts"):
            low, high = found[kind]["proposed"]["interval"]
            held[kind] += low <= truth[kind] <= high
            widths.append(high - low)
        assert found["judge"]["pairs"] == 500
    # A 90 % interval misses about one time in ten: at least 80 % of 40 holds it.
    assert held["clusters"] >= 0.8 * runs and held["conflicts"] >= 0.8 * runs
    # The acceptance's bound: no wider than ±0.10 where 100 pairs were audited.
    assert sorted(widths)[len(widths) // 2] <= 0.2


def test_the_interval_reaches_the_bound_where_every_proposal_is_right():
    # Draws piled against 1: an interval cut 5 % off each end stopped short of it about
    # one time in ten at these sizes (the oracle's peers: 24 conflicts audited, all
    # right, measured 0.869 [0.624, 0.989]); the shortest interval holds 1.
    rng = random.Random(5)
    held, runs = Counter(), 100
    for seed in range(runs):
        strata, readings, disagreed, truth = simulated(rng, 0.15, per_band=25, all_right=True)
        found = estimate(strata, readings, disagreed, seed=seed)
        for kind in ("clusters", "conflicts"):
            low, high = found[kind]["proposed"]["interval"]
            held[kind] += low <= truth[kind] <= high
    assert held["clusters"] >= 0.95 * runs and held["conflicts"] >= 0.95 * runs


def test_uncorrected_the_judge_would_put_the_precision_too_low():
    rng = random.Random(3)
    strata, readings, disagreed, truth = simulated(rng, 0.15, per_band=400)
    found = estimate(strata, readings, disagreed)
    proposed = next(s for s in strata if (s.kind, s.tier) == ("conflicts", "proposed"))
    answered = proposed.said[CONFLICT] / sum(proposed.said.values())
    assert answered < truth["conflicts"] - 0.08  # what the judge said, as it said it
    assert abs(found["conflicts"]["proposed"]["precision"] - truth["conflicts"]) < 0.05
    assert 0.11 < found["judge"]["error"] < 0.19


def test_a_judge_that_never_disagrees_with_itself_is_taken_at_its_word():
    strata = [
        Stratum("clusters", "proposed", 100, 0, Counter({ONE: 9, TWO: 1}), read=10),
        Stratum("apart", "", 1000, 0, Counter({TWO: 10}), read=10),
    ]
    found = estimate(strata, readings=200, disagreed=0)
    assert found["judge"]["error"] < 0.02
    assert abs(found["clusters"]["proposed"]["precision"] - 0.9) < 0.02
    # Every one-fact pair the answers show is in the proposed band.
    assert found["clusters"]["proposed"]["recall"] == 1.0
    assert found["conflicts"]["proposed"]["precision"] is None
    assert found["conflicts"]["proposed"]["interval"] == []


def test_exact_copies_are_one_fact_for_certain_and_never_asked():
    only_copies = [Stratum("clusters", "proposed", 0, 12)]
    assert estimate(only_copies, 0, 0)["clusters"]["proposed"]["precision"] == 1.0
    with_others = [Stratum("clusters", "proposed", 10, 30, Counter({ONE: 5, TWO: 5}), read=10)]
    found = estimate(with_others, readings=100, disagreed=0)
    # 30 copies right and about half of the 10 others: 35 of 40.
    assert abs(found["clusters"]["proposed"]["precision"] - 35 / 40) < 0.02


def test_a_band_with_pairs_but_no_answer_leaves_recall_unmeasured():
    strata = [
        Stratum("clusters", "proposed", 10, 0, Counter({ONE: 4}), read=4),
        Stratum("apart", "", 5000, 0, Counter()),
    ]
    found = estimate(strata, 4, 0)
    assert found["clusters"]["proposed"]["precision"] is not None
    assert found["clusters"]["proposed"]["recall"] is None


def test_several_namespaces_bands_add_up():
    first = Stratum("clusters", "proposed", 10, 1, Counter({ONE: 2}), read=1)
    second = Stratum("clusters", "proposed", 30, 2, Counter({ONE: 1, TWO: 1}), read=2)
    (both,) = merged([first, second])
    assert (both.size, both.exact, both.said, both.read) == (40, 3, Counter({ONE: 3, TWO: 1}), 3)
    # What a pass stored reads back the same.
    assert Stratum.from_json(both.as_json()) == both


def test_two_readings_of_a_pair_weigh_as_one_pair_in_the_interval():
    once = [Stratum("clusters", "proposed", 1000, 0, Counter({ONE: 18, TWO: 2}), read=20)]
    twice = [Stratum("clusters", "proposed", 1000, 0, Counter({ONE: 18, TWO: 2}), read=10)]
    width = {}
    for name, strata in (("once", once), ("twice", twice)):
        low, high = estimate(strata, 100, 0)["clusters"]["proposed"]["interval"]
        width[name] = high - low
    assert width["twice"] > 1.2 * width["once"]


def fake_pass():
    """Six memories: 0-1 exact copies and 1-2 in a proposed cluster, 3-4 a proposed
    conflict, 2-5 a candidate nothing was proposed for."""
    memories = [SimpleNamespace(content_hash=h) for h in ("x", "x", "y", "z", "w", "v")]
    judgements = {
        (0, 1): SimpleNamespace(llm_answer=""),
        (1, 2): SimpleNamespace(llm_answer="duplicate"),
        (3, 4): SimpleNamespace(llm_answer="conflict"),
        (2, 5): SimpleNamespace(llm_answer=""),
    }
    judged = SimpleNamespace(
        memories=memories, judgements=judgements, ordered=lambda i, j: (min(i, j), max(i, j))
    )
    plan = SimpleNamespace(
        collapses=[SimpleNamespace(representative=0, others=[1])],
        auto_merges=[],
        clusters=[SimpleNamespace(members=[1, 2], tier="proposed", confidence=0.9)],
        conflicts=[
            SimpleNamespace(
                older=3, newer=4, judgement=SimpleNamespace(tier="proposed", confidence=0.85)
            )
        ],
    )
    return judged, plan


def test_the_bands_hold_each_pair_once_in_the_surest_and_leave_exact_copies_unasked():
    judged, plan = fake_pass()
    strata = {(s.kind, s.tier): s for s in audit.strata_of(judged, plan)}
    # The copy and the cluster joined: 0-1 (a copy), 0-2 and 1-2, one pair of texts
    # (x, y) that stands for two pairs of memories.
    proposed = strata[("clusters", "proposed")]
    assert (proposed.size, proposed.exact, proposed.pairs, proposed.weights) == (
        2,
        1,
        [(0, 2)],
        [2],
    )
    assert strata[("conflicts", "proposed")].pairs == [(3, 4)]
    # The candidates in no cluster or conflict: 2-5 (0-1, 1-2 and 3-4 are taken).
    assert strata[("apart", "")].pairs == [(2, 5)]


def test_a_thousand_copies_of_two_texts_are_counted_not_listed():
    memories = [SimpleNamespace(content_hash="x")] * 1000 + [
        SimpleNamespace(content_hash="y")
    ] * 1000
    judged = SimpleNamespace(memories=memories, judgements={}, ordered=lambda i, j: (i, j))
    plan = SimpleNamespace(
        collapses=[
            SimpleNamespace(representative=0, others=list(range(1, 1000))),
            SimpleNamespace(representative=1000, others=list(range(1001, 2000))),
        ],
        auto_merges=[],
        clusters=[SimpleNamespace(members=[0, 1000], tier="proposed", confidence=0.8)],
        conflicts=[],
    )

    (proposed, *_) = audit.strata_of(judged, plan)

    assert proposed.exact == 2 * 1000 * 999 // 2
    assert (proposed.pairs, proposed.weights, proposed.size) == ([(0, 1000)], [10**6], 10**6)
    assert proposed.said_of == {(0, 1000): 0.8}


def test_the_draw_spreads_the_calls_over_every_band_and_never_draws_a_pair_twice():
    strata = [
        Stratum("clusters", "proposed", 3, pairs=[(0, i) for i in range(1, 4)]),
        Stratum("conflicts", "proposed", 50, pairs=[(1, i) for i in range(2, 52)]),
        Stratum("apart", "", 500, pairs=[(2, i) for i in range(3, 503)]),
        Stratum("clusters", "possible", 0),
    ]
    drawn = audit.draw(strata, 21, random.Random(1))
    by_band = Counter(index for index, _, _ in drawn)
    # The small band gives what it has; the other two share the rest.
    assert by_band[0] == 3 and by_band[1] == 9 and by_band[2] == 9
    assert len(set(drawn)) == 21


class Answers:
    """A session that answers each pair as `said` says, and fails where it says None."""

    def __init__(self, said: dict, granted: int):
        self.said, self.granted, self.asked = said, granted, []

    def reserve(self, wanted: int) -> int:
        return min(wanted, self.granted)

    def skip(self, count: int) -> None:
        pass

    def audits(self, calls):
        found = []
        for pairs in calls:
            self.asked.append([(a.content_hash, b.content_hash) for a, b in pairs])
            found.append([self.answer(a.content_hash, b.content_hash) for a, b in pairs])
        return found

    def answer(self, a, b):
        label = self.said.get((a, b), self.said.get((b, a)))
        return SimpleNamespace(label=label) if label else RuntimeError("no answer")


def audited(calls: int, granted: int, said: dict, passes: int = 1):
    """`passes` copies of the fake pass, every pair drawn, asked within `calls`."""
    found = []
    for _ in range(passes):
        judged, plan = fake_pass()
        found.append(audit.draw_pass(judged, plan, 10, random.Random(0)))
    session = Answers(said, granted)
    made = audit.ask(session, found, calls, random.Random(0))
    return found, session, made


SAID = {("x", "y"): "related_distinct", ("z", "w"): "conflict", ("y", "v"): None}


@pytest.mark.parametrize("granted", [2, 1])
def test_an_audit_reads_each_drawn_pair_twice_one_way_then_the_other(granted, settings):
    settings.LLM_AUDIT_PAIRS = 4

    (found,), session, made = audited(2, granted, SAID)

    # Three pairs of texts to audit (the exact copy is never asked), four a call: two
    # calls, the second showing each pair the other way round, unless only one was
    # granted.
    assert made == len(session.asked) == granted
    first = session.asked[0]
    assert len(first) == 3 and all(a != b for a, b in first)
    if granted == 2:
        assert sorted((b, a) for a, b in session.asked[1]) == sorted(first)
    by_pair = {(p.older, p.newer): p.said for p in found.pairs}
    assert (2, 5) not in by_pair  # the judge gave no answer: it measures nothing
    assert by_pair[(3, 4)] == [CONFLICT] * granted
    assert by_pair[(0, 2)] == [TWO] * granted
    # What the pass said of each: the conflict's and the cluster's confidence.
    said = {(p.older, p.newer): p.confidence for p in found.pairs}
    assert (said[(3, 4)], said[(0, 2)]) == (0.85, 0.9)
    assert found.readings == (2 if granted == 2 else 0)
    assert found.disagreed == 0
    proposed = next(s for s in found.strata if (s.kind, s.tier) == ("clusters", "proposed"))
    assert (proposed.read, sum(proposed.said.values())) == (1, granted)


def test_an_audit_with_one_call_reads_each_pair_once(settings):
    settings.LLM_AUDIT_PAIRS = 8

    (found,), session, made = audited(1, 5, {**SAID, ("y", "v"): "x"})

    assert made == len(session.asked) == 1
    assert len(found.pairs) == 3
    assert all(len(p.said) == 1 for p in found.pairs) and found.readings == 0


def test_the_audits_of_several_namespaces_share_their_calls(settings):
    settings.LLM_AUDIT_PAIRS = 8

    found, session, made = audited(2, 5, SAID, passes=2)

    # Six pairs of two passes: one call a reading, not one a pass.
    assert made == 2 and [len(call) for call in session.asked] == [6, 6]
    assert [len(one.pairs) for one in found] == [2, 2]
    assert all(one.readings == 2 for one in found)


def test_a_pass_with_no_pair_left_to_draw_still_counts_its_bands():
    judged, plan = fake_pass()
    found = audit.draw_pass(judged, plan, 0, random.Random(0))
    assert found.drawn == [] and sum(s.size for s in found.strata) == 4
    empty = SimpleNamespace(collapses=[], auto_merges=[], clusters=[], conflicts=[])
    nothing = SimpleNamespace(memories=judged.memories, judgements={}, ordered=judged.ordered)
    assert audit.draw_pass(nothing, empty, 5, random.Random(0)) is None
