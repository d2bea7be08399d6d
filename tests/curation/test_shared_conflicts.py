"""A conflict a cluster's members share (curation.runs.planning): a memory proposed as one
fact with another conflicts with what that one conflicts with, unless an LLM read the
pair otherwise. In memory, the LLM's answers applied as the band applies them."""

from dataclasses import replace

import pytest

from memadmin.curation.detection.comparing import relations
from memadmin.curation.detection.comparing.evidence import INDEX
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import POSSIBLE, PROPOSED, Verdict
from memadmin.curation.learning import calibration
from memadmin.curation.llm import band, weighing
from memadmin.curation.llm.groups import Reading
from memadmin.curation.models import Cluster, Conflict
from memadmin.curation.runs import planning
from tests.factories import line, person
from tests.fake_anthropic import verdict

HAMBURG = "Jonas lives in Hamburg."
WOHNT = "Jonas wohnt in Hamburg."
MUNICH = "Jonas ist vor Kurzem nach München gezogen."
ROWS = [
    {"id": "en", "content": HAMBURG, "created_at": "2026-01-05T09:00:00Z", "namespace": "u"},
    {"id": "de", "content": WOHNT, "created_at": "2026-01-06T09:00:00Z", "namespace": "u"},
    {"id": "moved", "content": MUNICH, "created_at": "2026-03-01T09:00:00Z", "namespace": "u"},
]


@pytest.fixture(scope="module")
def vectors():
    return calibration.Vectors()


def judged_with(vectors, answers: dict[tuple[str, str], list[str]]):
    """The three memories judged, each pair of `answers` (by ids) settled by those LLM
    readings as the band settles them."""
    memories = [calibration.as_memory(row) for row in ROWS]
    judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
    at = {m.external_id: k for k, m in enumerate(judged.memories)}
    for (a, b), labels in answers.items():
        readings = [
            Reading(label, "update" if label == "conflict" else "", "read") for label in labels
        ]
        band.override(judged, *judged.ordered(at[a], at[b]), readings)
    return judged, at


def conflicts_of(plan, judged) -> dict[frozenset, object]:
    return {
        frozenset((judged.memories[c.older].external_id, judged.memories[c.newer].external_id)): c
        for c in plan.conflicts
    }


def test_a_paraphrase_of_an_outdated_fact_conflicts_with_its_update_too(vectors):
    judged, at = judged_with(
        vectors,
        {("en", "de"): ["duplicate"] * 3, ("en", "moved"): ["conflict"] * 3},
    )

    plan = planning.group(judged)

    assert [sorted(judged.memories[p].external_id for p in c.members) for c in plan.clusters] == [
        ["de", "en"]
    ]
    found = conflicts_of(plan, judged)
    assert set(found) == {frozenset(("en", "moved")), frozenset(("de", "moved"))}
    shared = found[frozenset(("de", "moved"))].judgement
    assert shared.verdict == Verdict.CONFLICT and shared.conflict_kind == "update"
    # As sure as both its grounds together: proposed, with a person-readable reason.
    assert shared.tier == PROPOSED
    assert shared.probabilities[1] == pytest.approx(
        judged.judge(at["en"], at["moved"]).probabilities[1]
        * judged.judge(at["en"], at["de"]).p_one
    )
    assert shared.reasons[0].startswith(f"\u201c{WOHNT}\u201d says what \u201c{HAMBURG}\u201d says")
    assert shared.reasons[0].endswith("LLM: conflict: read (read three times)")


def test_an_llm_that_read_the_pair_otherwise_keeps_it_apart(vectors):
    judged, _ = judged_with(
        vectors,
        {
            ("en", "de"): ["duplicate"] * 3,
            ("en", "moved"): ["conflict"] * 3,
            ("de", "moved"): ["related_distinct"] * 3,
        },
    )

    found = conflicts_of(planning.group(judged), judged)

    assert set(found) == {frozenset(("en", "moved"))}


def test_a_cluster_an_earlier_run_opened_shares_a_new_memorys_conflict(vectors):
    """An incremental run compares the new memory with the others, not the others among
    themselves: the two Hamburg memories, clustered by an earlier run and still open, are
    no cluster of this run's plan, and the move's conflict with one is the other's too."""
    judged, at = judged_with(vectors, {("en", "moved"): ["conflict"] * 3})
    earlier = tuple(sorted((at["en"], at["de"])))

    def planned(**options):
        judged.judgements.pop(earlier, None)  # not a pair this run compares
        return conflicts_of(planning.group(judged, **options), judged)

    said = f"\u201c{WOHNT}\u201d says what \u201c{HAMBURG}\u201d says"
    # Alone, the German memory and the move are the model's own doubtful reading.
    alone = planned()[frozenset(("de", "moved"))].judgement
    assert alone.tier == POSSIBLE and not alone.reasons[0].startswith(said)
    shared = planned(open_clusters=[[at["en"], at["de"]]])[frozenset(("de", "moved"))].judgement
    assert shared.tier == PROPOSED and shared.reasons[0].startswith(said)


def read_as_two_facts(judged, at, relation=None):
    """The model's own reading of the German memory and the move made "two facts"
    (relation: what the readers read of it), as it reads pairs it is blind on."""
    pair = judged.judge(at["de"], at["moved"])
    read = replace(pair.rules, relation=relation)
    two_facts = replace(
        pair, rules=read, verdict=Verdict.DISTINCT, tier="", probabilities=(0.05, 0.05, 0.9)
    )
    judged.settle(*judged.ordered(at["de"], at["moved"]), two_facts)


def test_an_llm_answer_that_did_not_decide_alone_leaves_the_shared_conflict_possible(vectors):
    """One reading of "one fact" against a model sure of two facts waits for another
    (band.override) and decides nothing; it still weighs against the conflict shared onto
    the pair, as it would against the model's reading: a person looks, nothing proposed."""
    judged, at = judged_with(
        vectors, {("en", "de"): ["duplicate"] * 3, ("en", "moved"): ["conflict"] * 3}
    )
    read_as_two_facts(judged, at)
    band.override(judged, *judged.ordered(at["de"], at["moved"]), [Reading("duplicate", "", "")])
    pair = judged.judge(at["de"], at["moved"])
    assert (pair.decided_by, pair.llm_answer) == ("rule", "duplicate")

    found = conflicts_of(planning.group(judged), judged)

    shared = found[frozenset(("de", "moved"))].judgement
    grounds = judged.judge(at["en"], at["moved"]).probabilities[1]
    unanswered = grounds * judged.judge(at["en"], at["de"]).p_one
    assert unanswered >= judged.thresholds.propose_conflict  # proposed, were it not answered
    assert shared.tier == POSSIBLE
    assert shared.probabilities[1] == pytest.approx(
        weighing.posterior((0.0, unanswered, 1.0 - unanswered), ["duplicate"])[1]
    )
    # The reason says both: the conflict shared, and the answer that weighed against it.
    assert shared.reasons[0].startswith(f"\u201c{WOHNT}\u201d says what \u201c{HAMBURG}\u201d")
    answer = shared.reasons[1]
    assert answer.startswith("LLM: duplicate: ") and "another reading agrees" in answer


@pytest.mark.parametrize(
    "relation", [relations.OTHER_SUBJECT, relations.OTHER_PREDICATE, relations.REFINES]
)
def test_a_pair_the_readers_read_as_no_conflict_shares_none(vectors, relation):
    """Read as two subjects, as another thing said of one, or as one fact with detail
    added, the pair is what no conflict is: the inference from the two other pairs fails
    there (one of them is wrong), and the pair stays as its own reading left it."""
    judged, at = judged_with(
        vectors, {("en", "de"): ["duplicate"] * 3, ("en", "moved"): ["conflict"] * 3}
    )
    read_as_two_facts(judged, at, relations.Relation(relation, "Jonas / Kurzem"))

    found = conflicts_of(planning.group(judged), judged)

    assert set(found) == {frozenset(("en", "moved"))}


def test_a_pair_whose_subjects_each_miss_from_the_other_shares_none(vectors):
    """Nothing read of the two clauses, but each side's subject missing from the other
    (in one script): two subjects, as the readers read them."""
    judged, at = judged_with(
        vectors, {("en", "de"): ["duplicate"] * 3, ("en", "moved"): ["conflict"] * 3}
    )
    read_as_two_facts(judged, at, relations.Relation(relations.UNREAD))
    pair = judged.judge(at["de"], at["moved"])
    values = pair.evidence.values.copy()
    values[INDEX["subjects_differ"]] = 1.0
    two_subjects = replace(pair, evidence=replace(pair.evidence, values=values))
    judged.settle(*judged.ordered(at["de"], at["moved"]), two_subjects)

    found = conflicts_of(planning.group(judged), judged)

    assert set(found) == {frozenset(("en", "moved"))}


def test_a_pair_read_as_two_facts_with_nothing_read_still_shares(vectors):
    """The readers blind on the pair (no relation read, another language): the shared
    conflict is what finds it."""
    judged, at = judged_with(
        vectors, {("en", "de"): ["duplicate"] * 3, ("en", "moved"): ["conflict"] * 3}
    )
    read_as_two_facts(judged, at, relations.Relation(relations.UNREAD))

    found = conflicts_of(planning.group(judged), judged)

    assert set(found) == {frozenset(("en", "moved")), frozenset(("de", "moved"))}
    assert found[frozenset(("de", "moved"))].judgement.reasons[0].startswith(f"\u201c{WOHNT}\u201d")


def test_a_doubtful_cluster_shares_its_conflict_only_as_possible(vectors):
    judged, at = judged_with(vectors, {("en", "moved"): ["conflict"] * 3})
    # The model's own reading of the two Hamburg memories, made doubtful: a possible edge.
    pair = judged.judge(at["en"], at["de"])
    judged.settle(
        *judged.ordered(at["en"], at["de"]),
        replace(pair, verdict=Verdict.REVIEW, tier=POSSIBLE, probabilities=(0.6, 0.1, 0.3)),
    )

    found = conflicts_of(planning.group(judged), judged)

    shared = found[frozenset(("de", "moved"))].judgement
    assert shared.tier == POSSIBLE
    assert shared.probabilities[1] == pytest.approx(
        judged.judge(at["en"], at["moved"]).probabilities[1] * 0.6
    )
    assert shared.reasons[0].startswith(f"\u201c{WOHNT}\u201d says what \u201c{HAMBURG}\u201d says")


def test_a_conflict_the_model_reads_surer_than_its_shared_grounds_stays_as_read(vectors):
    judged, at = judged_with(vectors, {("en", "moved"): ["conflict"] * 3})
    pair = judged.judge(at["en"], at["de"])
    judged.settle(
        *judged.ordered(at["en"], at["de"]),
        replace(pair, verdict=Verdict.REVIEW, tier=POSSIBLE, probabilities=(0.21, 0.1, 0.69)),
    )
    own = judged.judge(at["de"], at["moved"])

    found = conflicts_of(planning.group(judged), judged)

    assert own.verdict == Verdict.CONFLICT and own.probabilities[1] > 0.21
    assert found[frozenset(("de", "moved"))].judgement == own


def _answer(body, number):
    """The LLM's answer by the pair in the prompt: one fact for the two Hamburg memories,
    the move an update of the English one; no usable answer for the German one and the
    move (a label the prompt does not offer: the pair stays with the model)."""
    text = body["messages"][0]["content"]
    if HAMBURG in text and WOHNT in text:
        return verdict("duplicate", reasoning="the same home, in two languages")
    if HAMBURG in text:
        return verdict("conflict", "update", reasoning="he moved to Munich since")
    return verdict("perhaps", reasoning="cannot tell")


@pytest.mark.django_db(transaction=True)
def test_a_run_opens_the_shared_conflict_and_its_page_says_why(
    run_command, write_jsonl, fake_llm, settings, client
):
    settings.LLM_GROUP_SIZE = 1  # pair prompts: each answer by its pair
    settings.LLM_CALLS_PER_MEMORY = 4.0
    fake_llm.handler = _answer
    lines = [line(r["id"], r["content"], created_at=r["created_at"]) for r in ROWS]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None

    assert run_command("find_duplicates").error is None

    shared = Conflict.objects.get(memory_a__external_id="de", memory_b__external_id="moved")
    assert (shared.tier, shared.kind, shared.detected_by) == ("proposed", "update", "llm")
    assert shared.reason.startswith(
        f"\u201c{WOHNT}\u201d says what \u201c{HAMBURG}\u201d says (proposed as one"
    )
    assert Conflict.objects.filter(memory_a__external_id="en", memory_b__external_id="moved")
    client.force_login(person("v", "viewer"))
    page = client.get(f"/conflicts/{shared.pk}/").content.decode()
    assert "says what" in page and "he moved to Munich since" in page


@pytest.mark.django_db(transaction=True)
def test_a_later_run_shares_a_new_memorys_conflict_with_a_cluster_still_open(
    run_command, write_jsonl, fake_llm, settings
):
    """The two Hamburg memories are proposed as one fact by one run and nobody has decided
    yet; the move arrives later, and the next run compares only it with the others."""
    settings.LLM_GROUP_SIZE = 1
    settings.LLM_CALLS_PER_MEMORY = 4.0
    fake_llm.handler = _answer
    lines = [line(r["id"], r["content"], created_at=r["created_at"]) for r in ROWS]
    assert run_command("import_memories", str(write_jsonl(lines[:2], "first.jsonl"))).error is None
    assert run_command("find_duplicates").error is None
    assert Cluster.objects.get(status="open").memberships.count() == 2

    assert run_command("import_memories", str(write_jsonl(lines[2:], "later.jsonl"))).error is None
    assert run_command("find_duplicates").error is None

    shared = Conflict.objects.get(memory_a__external_id="de", memory_b__external_id="moved")
    assert (shared.tier, shared.kind) == ("proposed", "update")
    assert shared.reason.startswith(f"\u201c{WOHNT}\u201d says what \u201c{HAMBURG}\u201d says")


def test_a_copy_from_another_source_shares_the_conflict_as_read(vectors):
    rows = [
        {**ROWS[0], "source_ref": "chat"},
        {**ROWS[0], "id": "en-agent", "source_ref": "agent", "created_at": "2026-01-07T09:00:00Z"},
        ROWS[2],
    ]
    memories = [calibration.as_memory(row) for row in rows]
    judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
    at = {m.external_id: k for k, m in enumerate(judged.memories)}
    readings = [Reading("conflict", "update", "he moved")] * 3
    band.override(judged, *judged.ordered(at["en"], at["moved"]), readings)

    plan = planning.group(judged)

    # The guard keeps the two copies from folding: a cluster a person accepts.
    assert [sorted(judged.memories[p].external_id for p in c.members) for c in plan.clusters] == [
        ["en", "en-agent"]
    ]
    shared = conflicts_of(plan, judged)[frozenset(("en-agent", "moved"))].judgement
    # The same two texts as the conflict it shares: its reason as read, no "says what".
    assert shared.reasons == ("LLM: conflict: he moved (read three times)",)
    assert shared.tier == PROPOSED
