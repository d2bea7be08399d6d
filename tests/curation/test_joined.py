"""Pairs joined through a third memory (curation/llm/joined.py): where the answers say A
is B and A is C, one answer that B and C are two facts owes another reading, and right
readings keep the three in one cluster; measured with the oracle judge through the real
SDK, as bench/llm_band.py measures the band."""

from types import SimpleNamespace

import pytest

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import Verdict
from memadmin.curation.learning import calibration
from memadmin.curation.learning.oracle import Oracle
from memadmin.curation.llm import band, joined, prompts, weighing
from memadmin.curation.llm import client as llm
from memadmin.curation.runs.options import NamespaceReport, Options

# Three paraphrases of one fact in other words (the pair model reads some of their pairs
# as two facts), and memories about other things around them.
TEXTS = {
    "a": "User likes flat white coffee.",
    "b": "User usually orders a flat white coffee.",
    "c": "User's favorite coffee is a flat white.",
    "d": "User drinks green tea in the afternoon.",
    "e": "User runs 5 km every Sunday morning.",
    "f": "User works as a nurse in Leeds.",
}
ROWS = [
    {"id": key, "namespace": "coffee", "content": text, "created_at": f"2026-01-0{n + 1}T10:00:00Z"}
    for n, (key, text) in enumerate(TEXTS.items())
]
LABELS = {"duplicate_groups": [["a", "b", "c"]], "conflicts": []}
# The forms a pair's first, second and third readings take.
VERSIONS = (prompts.GROUP_VERSION, prompts.RECHECK_VERSION, prompts.PAIRS_VERSION)


class WrongOnceOn(Oracle):
    """Right, but for the first reading of one pair (`pair`, its two texts), answered
    two facts."""

    def __init__(self, *args, pair: frozenset, **kwargs):
        super().__init__(*args, **kwargs)
        self.pair, self.wrong_given = pair, False

    def judge(self, older, newer, *, newer_first=False, shown=""):
        with self._lock:
            first = frozenset((older, newer)) == self.pair and not self.wrong_given
            self.wrong_given = self.wrong_given or first
        if first:
            return "related_distinct", ""
        return super().judge(older, newer, newer_first=newer_first, shown=shown)


@pytest.fixture(scope="module")
def vectors():
    return calibration.Vectors()


def weakest_pair(vectors) -> frozenset:
    """Of the three paraphrases, the pair the model least reads as one fact."""
    judged = judged_namespace(vectors)
    at = {m.external_id: k for k, m in enumerate(judged.memories)}
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    x, y = min(pairs, key=lambda p: judged.judge(at[p[0]], at[p[1]]).probabilities[0])
    return frozenset((TEXTS[x], TEXTS[y]))


def judged_namespace(vectors):
    memories = calibration.by_namespace(ROWS)["coffee"]
    return calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)


def asked_with(monkeypatch, settings, vectors, pair: frozenset):
    """The band over the namespace, the oracle wrong once on `pair`: (each pair's
    judgement by its two texts, how often the oracle read `pair`)."""
    settings.LLM_AUDIT_SHARE = 0.0
    settings.LLM_CALLS_PER_MEMORY = 1.0
    with WrongOnceOn(ROWS, LABELS, error_rate=0.0, pair=pair) as oracle:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", oracle.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "oracle-not-secret")
        judged = judged_namespace(vectors)
        options = Options(dry_run=True, llm_session=llm.Session(max_calls=100))
        report = NamespaceReport(namespace="", changed=len(judged.memories))
        band.ask_band(judged, None, options, report, cached=dict)
    found = {
        frozenset((judged.memories[i].content, judged.memories[j].content)): judgement
        for (i, j), judgement in judged.judgements.items()
    }
    readings = sum(frozenset((a, b)) == pair for a, b, _ in oracle.asked)
    return found, readings


def one_fact(judgement) -> bool:
    return judgement.verdict in (Verdict.REVIEW, Verdict.AUTO_MERGE)


def test_one_answer_against_two_joining_pairs_is_read_again(monkeypatch, settings, vectors):
    pair = weakest_pair(vectors)
    found, readings = asked_with(monkeypatch, settings, vectors, pair)

    assert readings >= 2  # the wrong answer was read again
    assert one_fact(found[pair]) and found[pair].decided_by == "llm"
    assert found[pair].implied_one >= joined.LEAST_IMPLIED
    assert any("one fact with a third memory" in reason for reason in found[pair].reasons)
    paraphrases = [found[p] for p in found if p <= set(TEXTS[k] for k in "abc")]
    assert len(paraphrases) == 3 and all(one_fact(j) for j in paraphrases)


def test_without_the_joining_pairs_the_wrong_answer_splits_the_three(
    monkeypatch, settings, vectors
):
    """The same run with nothing lifted (what the joining pairs imply never counts):
    the one wrong answer decides, and the cluster of three cannot hold."""
    monkeypatch.setattr(joined, "LEAST_IMPLIED", 1.01)
    pair = weakest_pair(vectors)
    found, readings = asked_with(monkeypatch, settings, vectors, pair)

    assert readings == 1
    assert not one_fact(found[pair]) and found[pair].never_together


def test_what_the_joining_pairs_imply_lifts_one_fact_only():
    assert weighing.lifted((0.02, 0.08, 0.9), 0.8) == pytest.approx((0.8, 0.0163, 0.1837), abs=1e-3)
    assert weighing.lifted((0.9, 0.05, 0.05), 0.8) == (0.9, 0.05, 0.05)
    assert sum(weighing.lifted((0.1, 0.3, 0.6), 0.95)) == pytest.approx(1.0)


@pytest.mark.parametrize("lifts", [True, False])
def test_a_later_pass_weighs_cached_answers_through_the_third_memory_too(
    monkeypatch, settings, vectors, lifts
):
    """With no LLM, the answers cached by a pass like the one above decide as they did:
    the pair read two facts, then one fact twice, against a model that needs three
    agreeing readings to be overturned (the third-reading bar raised to 0.5 here), is
    decided by them only through what the two joining pairs imply."""
    settings.LLM_THIRD_READING_BELOW = 0.5
    if not lifts:
        monkeypatch.setattr(joined, "LEAST_IMPLIED", 1.01)
    pair = weakest_pair(vectors)
    judged = judged_namespace(vectors)
    hash_of = {m.content: m.content_hash for m in judged.memories}
    said = {frozenset((TEXTS[x], TEXTS[y])): ["duplicate"] * 3 for x, y in ("ab", "ac", "bc")}
    said[pair] = ["related_distinct", "duplicate", "duplicate"]
    answers = {
        tuple(sorted(hash_of[text] for text in texts)): [
            SimpleNamespace(verdict=label, conflict_kind="", reason="r", prompt_version=version)
            for label, version in zip(labels, VERSIONS, strict=True)
        ]
        for texts, labels in said.items()
    }
    report = NamespaceReport(namespace="", changed=len(judged.memories))
    band.ask_band(judged, None, Options(dry_run=True), report, cached=lambda: answers)

    at = {m.content: k for k, m in enumerate(judged.memories)}
    judgement = judged.judge(*(at[text] for text in pair))
    # Unlifted, the answers leave the pair to the model ("it overturns the evidence").
    assert judgement.decided_by == ("llm" if lifts else "rule")
    assert one_fact(judgement) or not lifts
