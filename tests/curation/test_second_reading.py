"""An LLM answer that overturns what the (tempered) model reads of a pair is asked a
second time, the newer memory shown first, and decides only if both readings agree
(curation/llm/band.py). Measured with the oracle judge (curation/learning/oracle.py)
through the real SDK, in memory as bench/llm_band.py runs the band."""

import pytest

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.learning import calibration
from memadmin.curation.learning.oracle import Oracle
from memadmin.curation.llm import band as llm_verdicts
from memadmin.curation.llm import client as llm
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


def test_a_second_reading_that_agrees_lets_the_answer_decide(monkeypatch, vectors):
    judgements, oracle = band(Oracle, monkeypatch, vectors)

    # A first reading may come in a group (the anchor first): pairs by their two texts.
    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    firsts = {frozenset((a, b)) for a, b, newer_first in oracle.asked if not newer_first}
    assert seconds and seconds <= firsts  # asked again only after a first reading
    twice = [j for older, newer, j in judgements if frozenset((older, newer)) in seconds]
    assert twice and all(j.decided_by == "llm" for j in twice)
    assert all(j.reasons[0].endswith("(read twice)") for j in twice)


def test_readings_that_disagree_leave_the_pair_to_the_evidence(monkeypatch, vectors):
    judgements, oracle = band(ContraryOnSecondReading, monkeypatch, vectors)

    seconds = {frozenset((a, b)) for a, b, newer_first in oracle.asked if newer_first}
    assert seconds
    for older, newer, judgement in judgements:
        if frozenset((older, newer)) not in seconds:
            continue
        assert judgement.decided_by == "rule", (older, newer)
        assert any("two readings disagree" in reason for reason in judgement.reasons)
