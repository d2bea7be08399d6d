"""With an LLM, every near candidate is read: a call holds a memory and up to
LLM_GROUP_SIZE of its candidates and answers each pair (curation/llm/band.py), measured
with the oracle judge (curation/learning/oracle.py) through the real SDK, as
bench/llm_band.py measures it; what a group's answer may hold (curation/llm/client.py)."""

import itertools

import pytest

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import Verdict
from memadmin.curation.learning import calibration
from memadmin.curation.learning.oracle import Oracle
from memadmin.curation.llm import band as llm_band
from memadmin.curation.llm import client as llm
from memadmin.curation.llm.band import Asked, in_groups
from memadmin.curation.llm.groups import packed, shared_memory
from memadmin.curation.runs.options import NamespaceReport, Options
from tests.conftest import DEV_DATA
from tests.data.labelled_set import load_set


def verdict(number, label="duplicate", **more) -> dict:
    return {"memory": number, "reasoning": "r", "label": label, "conflict_kind": "none", **more}


def blocks(*verdicts) -> list:
    return [llm._ToolUse({"verdicts": list(verdicts)})]


def test_a_group_answer_gives_each_candidate_its_own_verdict_or_failure():
    answers = llm.group_verdicts_of(
        blocks(
            verdict(2, "conflict", conflict_kind="update"),
            verdict(1),
            verdict(3, "maybe"),  # not a label
            verdict(9),  # no such memory
            verdict(True),  # a boolean is no number
            "not an object",
            verdict(4),
            verdict(4, "unrelated"),  # answered twice: neither stands
            verdict(5, reasoning="bad\x00text"),
        ),
        6,
        "m",
    )

    assert [a.label if isinstance(a, llm.VerdictAnswer) else None for a in answers] == [
        "duplicate", "conflict", None, None, None, None,
    ]  # fmt: skip
    assert answers[1].conflict_kind == "update"
    assert answers[0].prompt_version == "group-v1"
    assert "twice" in str(answers[3]) and "not answered" in str(answers[5])
    assert "not readable" in str(answers[4])


@pytest.mark.parametrize("content", [{}, {"verdicts": "all duplicates"}, None])
def test_a_group_answer_with_no_list_of_verdicts_fails_the_call(content):
    with pytest.raises(llm.LLMFailed, match="malformed group answer"):
        llm.group_verdicts_of([llm._ToolUse(content)], 3, "m")


def test_groups_hold_each_pair_once_around_one_memory():
    pairs = [(0, 1), (0, 2), (1, 2), (0, 3), (3, 4), (2, 4), (0, 4), (1, 3)]
    new = [Asked(a, b, (str(a), str(b))) for a, b in pairs]

    groups = in_groups(new, 3)

    held = [(a.older, a.newer) for group in groups for a in group]
    assert sorted(held) == sorted(pairs)
    assert all(len(group) <= 3 for group in groups)
    for group in groups:
        shared = set.intersection(*({a.older, a.newer} for a in group))
        assert shared, group  # every pair of a call holds its anchor
    assert groups[0][0] == new[0]  # the most doubtful pair opens the first call


def test_small_groups_share_calls_and_large_ones_keep_theirs():
    def pairs(*held):
        return [Asked(a, b, (str(a), str(b))) for a, b in held]

    large = pairs(*((0, k) for k in range(1, 9)))  # half of 16: a call of its own
    small = [pairs((10, 11), (10, 12)), pairs((20, 21)), pairs((30, 31), (30, 32), (30, 33))]
    groups = [small[0], large, small[1], small[2]]

    calls = packed(groups, 16)

    assert calls == [small[0] + small[1] + small[2], large]  # each where its first pair was
    assert shared_memory(calls[0]) is None and shared_memory(calls[1]) == 0
    singles = [pairs((k, k + 100)) for k in range(5)]
    four = [asked for single in singles[:4] for asked in single]
    assert packed(singles, 4) == [four, singles[4]]  # calls of up to 4


def test_pairs_from_small_groups_are_read_in_one_call_as_pairs(monkeypatch, settings):
    """On a store of small namespaces, the memories with one or two candidates left share
    calls (the pairs prompt, each pair alone): every near candidate is still read, in
    fewer calls than a group each, and as right."""
    found, oracle, _ = band_on("everyday", monkeypatch, settings, group_size=16)
    monkeypatch.setattr(llm_band, "packed", lambda groups, size: groups)
    unpacked, by_groups, _ = band_on("everyday", monkeypatch, settings, group_size=16)

    assert oracle.pairs_calls > 0
    # (Unpacked, the pairs prompt asks only the third readings owed, several a call.)
    assert oracle.calls < by_groups.calls and by_groups.pairs_calls < oracle.pairs_calls
    assert read_right(found) >= read_right(unpacked)
    candidates = [after for _, before, after in found if before.probabilities is not None]
    assert all(after.llm_answer for after in candidates)


class AlwaysOneFact(Oracle):
    def judge(self, older, newer, *, newer_first=False, shown=""):
        return "duplicate", ""


def band_on(
    set_name, monkeypatch, settings, *, group_size, error_rate=0.0, budget=1.0, judge=Oracle
):
    """A labelled set planned namespace by namespace with the oracle: (each pair's
    judgement with its labelled truth, the oracle, the memories)."""
    rows, labels = calibration.load_set(DEV_DATA) if set_name == "dev" else load_set(set_name)
    settings.LLM_GROUP_SIZE = group_size
    settings.LLM_CALLS_PER_MEMORY = budget
    # The band alone, with the whole budget: no audit is drawn here to spend its share
    # (tests/curation/test_llm_band.py runs both, within one call a memory).
    settings.LLM_AUDIT_SHARE = 0.0
    one = {frozenset(p) for g in labels["duplicate_groups"] for p in itertools.combinations(g, 2)}
    conflicts = {frozenset((c["a"], c["b"])) for c in labels["conflicts"]}
    found = []
    vectors = calibration.Vectors()
    with judge(rows, labels, error_rate=error_rate) as oracle:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", oracle.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "oracle-not-secret")
        options = Options(dry_run=True, llm_session=llm.Session(max_calls=10_000))
        for memories in calibration.by_namespace(rows).values():
            judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
            before = dict(judged.judgements)
            report = NamespaceReport(namespace="", changed=len(memories))
            llm_band.ask_band(judged, None, options, report, cached=dict)
            for (i, j), judgement in judged.judgements.items():
                pair = frozenset((judged.memories[i].external_id, judged.memories[j].external_id))
                truth = "one" if pair in one else "conflict" if pair in conflicts else "two"
                found.append((truth, before[(i, j)], judgement))
    return found, oracle, rows


def read_right(found) -> int:
    said = {Verdict.AUTO_MERGE: "one", Verdict.REVIEW: "one", Verdict.CONFLICT: "conflict"}
    return sum(
        truth == said.get(judgement.verdict, "two") and judgement.decided_by == "llm"
        for truth, _, judgement in found
    )


def test_every_near_candidate_is_read_within_one_call_a_memory(monkeypatch, settings):
    found, oracle, rows = band_on("everyday", monkeypatch, settings, group_size=16)

    candidates = [(b, a) for _, b, a in found if b.probabilities is not None]  # not copies
    assert candidates and all(after.llm_answer for _, after in candidates)
    assert 0 < oracle.calls <= len(rows)
    assert oracle.grouped > oracle.calls  # calls carried several pairs


def test_a_group_reads_as_right_as_pairs_do(monkeypatch, settings):
    """The oracle answers a group's pairs as it answers pairs alone: what the grouped
    calls read right is what as many pair calls read right, in fewer calls."""
    grouped, by_groups, _ = band_on("everyday", monkeypatch, settings, group_size=16)
    paired, by_pairs, _ = band_on("everyday", monkeypatch, settings, group_size=1, budget=20)

    assert read_right(grouped) >= read_right(paired)
    assert by_groups.calls < by_pairs.calls / 2


def test_an_answer_one_fact_on_a_protected_or_guarded_pair_is_a_person_s_to_merge(
    monkeypatch, settings, dev_labels_path
):
    found, _, _ = band_on("dev", monkeypatch, settings, group_size=16, judge=AlwaysOneFact)

    protected = [a for _, _, a in found if a.llm_answer == "duplicate" and "protected" in a.flags]
    assert protected and all(a.verdict == Verdict.REVIEW for a in protected)
    guarded = [
        a
        for _, _, a in found
        if a.llm_answer == "duplicate" and any("the guard keeps" in r for r in a.reasons)
    ]
    assert guarded and all(a.verdict != Verdict.REVIEW for a in guarded)
    assert all(a.verdict != Verdict.AUTO_MERGE for a in protected + guarded)
