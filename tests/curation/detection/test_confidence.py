"""The calibrated pair model (curation.detection.scoring): what it reads, the
probabilities it gives, the tiers, and the vetoes only an operator controls."""

import itertools
import json

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured

from memadmin.curation.detection.comparing.evidence import FEATURES, INDEX
from memadmin.curation.detection.scoring import judgement as scoring
from memadmin.curation.detection.scoring import model as pair_model
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import Verdict
from memadmin.curation.learning import calibration


@pytest.fixture(scope="module")
def vectors() -> calibration.Vectors:
    return calibration.Vectors()


def judged_pair(older: str, newer: str, vectors, **fields):
    rows = [
        {"id": "a", "namespace": "n", "content": older, "created_at": "2026-01-01T00:00:00Z"},
        {"id": "b", "namespace": "n", "content": newer, "created_at": "2026-02-01T00:00:00Z"},
    ]
    memories = [calibration.as_memory({**row, **fields}) for row in rows]
    judged = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
    ((_, judgement),) = judged.judgements.items()
    return judgement


def test_the_shipped_model_reads_the_features_detection_computes():
    model = pair_model.stored_model()
    stored = json.loads(pair_model.MODEL_PATH.read_text())

    assert stored["features"] == list(FEATURES)
    assert set(model.thresholds) == {
        "propose_one",
        "propose_conflict",
        "possible_one",
        "possible_conflict",
        "auto_confidence",
    }
    # Where it came from travels with it (STYLE 10).
    assert stored["command"].startswith("manage.py fit_pair_model")
    assert "dev" in stored["fitted_on"] and "peers" in stored["fitted_on"]
    assert stored["held_out"]["pooled"]["duplicates"][0] >= 0.93


def test_a_model_fit_on_other_features_is_refused_by_name():
    stored = json.loads(pair_model.MODEL_PATH.read_text())
    stored["features"] = stored["features"][:-1]

    with pytest.raises(ImproperlyConfigured, match="fit it again"):
        pair_model.from_dict(stored)


def scaled_member(stored: dict, factor: float) -> dict:
    """A committee member whose every log-odds is the model's own times `factor`."""
    stages = {
        name: {
            **stage,
            "weights": [w * factor for w in stage["weights"]],
            "intercept": stage["intercept"] * factor,
        }
        for name, stage in stored["stages"].items()
    }
    return {"left_out": f"times {factor}", "stages": stages}


def evidence_in_one_script(seed: int, pairs: int) -> np.ndarray:
    """Made-up evidence values of pairs a reader reads both sides of (none shows a
    feature scoring.model.BLIND always doubts)."""
    values = np.random.default_rng(seed).uniform(0, 1, size=(pairs, len(FEATURES)))
    values[:, [INDEX[feature] for feature in pair_model.BLIND]] = 0.0
    return values


def test_a_stage_stands_at_an_even_chance_where_a_member_of_its_committee_reads_the_other_way():
    stored = json.loads(pair_model.MODEL_PATH.read_text())
    values = evidence_in_one_script(3, 40)
    own = pair_model.from_dict({**stored, "committee": []})

    agreeing = pair_model.from_dict(
        {**stored, "committee": [scaled_member(stored, 2.0), scaled_member(stored, 0.5)]}
    )
    split = pair_model.from_dict(
        {**stored, "committee": [scaled_member(stored, 0.5), scaled_member(stored, -1.0)]}
    )

    for stage in ("related", "disagree"):
        mine = getattr(own, stage).logit(values)
        # Members on the model's side of an even chance, however sure, change nothing.
        assert np.allclose(getattr(agreeing, stage).logit(values), mine)
        # A member reading the other way leaves the stage at an even chance.
        assert np.allclose(getattr(split, stage).logit(values), 0.0)
        # One pair reads as a row of a batch does, and its doubt is what moved it.
        assert getattr(split, stage).logit(values[0]) == pytest.approx(0.0)
        assert getattr(split, stage).doubt(values[0]) == pytest.approx(-mine[0])
        assert getattr(agreeing, stage).doubt(values[0]) == pytest.approx(0.0)
    assert np.allclose(split.probabilities(values), [0.25, 0.25, 0.5])
    # Where only some pairs are read the other way, only those move.
    one_flipped = pair_model.from_dict(
        {**stored, "committee": [{**scaled_member(stored, 1.0), "stages": {
            "related": {**stored["stages"]["related"],
                        "intercept": stored["stages"]["related"]["intercept"] - 1.0}}}]}
    )  # fmt: skip
    mine = own.related.logit(values)
    moved = one_flipped.related.logit(values)
    flipped = np.sign(mine) != np.sign(mine - 1.0)
    assert np.allclose(moved[flipped], 0.0)
    assert np.allclose(moved[~flipped], mine[~flipped])


def test_a_pair_showing_a_feature_too_few_pairs_showed_is_at_an_even_chance_on_related_only():
    stored = json.loads(pair_model.MODEL_PATH.read_text())
    related = stored["stages"]["related"]
    rare = related["features"].index("same_words_other_roles")
    shown = [pair_model.UNSEEN_BELOW] * len(related["features"])
    signs = [0] * len(related["features"])  # no side known: doubted whichever is read
    stored = {**stored, "committee": []}
    stored["stages"] = {**stored["stages"], "related": {**related, "shown": shown, "signs": signs}}
    stored["stages"]["disagree"] = {
        **stored["stages"]["disagree"],
        "shown": [0] * len(stored["stages"]["disagree"]["features"]),
    }
    values = evidence_in_one_script(7, 20)
    values[:10, INDEX["same_words_other_roles"]] = 0.0
    values[10:, INDEX["same_words_other_roles"]] = 1.0

    enough = pair_model.from_dict(stored)
    shown[rare] = pair_model.UNSEEN_BELOW - 1
    too_few = pair_model.from_dict(stored)
    undoubted = pair_model.from_dict(pair_model.undoubted(stored))

    mine = undoubted.related.logit(values)
    assert np.allclose(enough.related.logit(values), mine)
    assert np.allclose(too_few.related.logit(values[:10]), mine[:10])
    assert np.allclose(too_few.related.logit(values[10:]), 0.0)
    assert too_few.related.doubt(values[10]) == pytest.approx(-mine[10])
    # Whether two memories disagree stays the model's own say (DOUBTED_STAGES), however
    # few pairs showed its features.
    assert np.allclose(too_few.disagree.logit(values), undoubted.disagree.logit(values))

    # A feature whose meaning speaks for one side ("the same words in other roles": two
    # facts) doubts only a reading of the other: it would make a reading of two facts
    # surer, whatever weight more pairs would give it.
    signs[rare] = -1
    # Half of the pairs showing it read as one subject and slot, half apart.
    stored["stages"]["related"]["intercept"] -= float(np.median(mine[10:]))
    sided = pair_model.from_dict(stored)
    mine = pair_model.from_dict(pair_model.undoubted(stored)).related.logit(values)
    read_apart = mine[10:] < 0
    assert read_apart.any() and (~read_apart).any()
    assert np.allclose(sided.related.logit(values[10:])[read_apart], mine[10:][read_apart])
    assert np.allclose(sided.related.logit(values[10:])[~read_apart], 0.0)
    assert np.allclose(sided.related.logit(values[:10]), mine[:10])


def test_the_shipped_model_doubts_with_a_committee_of_its_leave_one_set_out_fits():
    # `fit_pair_model` fits it so (`--no-committee` measures the model alone): one member
    # a labelled set, each fit without it; only "the same subject and slot?" is doubted.
    stored = json.loads(pair_model.MODEL_PATH.read_text())
    model = pair_model.stored_model()
    values = np.random.default_rng(5).uniform(0, 1, size=(10, len(FEATURES)))

    assert "--no-committee" not in stored["command"]
    assert sorted(m["left_out"] for m in stored["committee"]) == sorted(stored["fitted_on"])
    assert len(model.related.committee_intercepts) == len(stored["fitted_on"])
    assert not len(model.disagree.committee_intercepts)
    assert np.array_equal(model.disagree.logit(values), model.disagree.own_logit(values))
    # It keeps how many pairs showed each feature, stage by stage (UNSEEN_BELOW).
    for stage in ("related", "disagree"):
        shown = stored["stages"][stage]["shown"]
        assert len(shown) == len(stored["stages"][stage]["features"])
        assert max(shown) <= sum(stored["fitted_on"].values())
    # Never surer than the model alone: its own log-odds, or an even chance.
    doubted, mine = model.related.logit(values), model.related.own_logit(values)
    assert np.all((doubted == mine) | (doubted == 0.0))


def test_a_committee_member_fit_on_other_features_is_refused():
    stored = json.loads(pair_model.MODEL_PATH.read_text())
    member = scaled_member(stored, 0.5)
    member["stages"]["related"]["features"] = member["stages"]["related"]["features"][:-1]

    with pytest.raises(ImproperlyConfigured, match="committee member"):
        pair_model.from_dict({**stored, "committee": [member]})


def test_a_stage_whose_signs_are_not_its_features_is_refused():
    stored = json.loads(pair_model.MODEL_PATH.read_text())
    related = stored["stages"]["related"]
    stored["stages"]["related"] = {**related, "signs": related["signs"][:-1]}

    with pytest.raises(ImproperlyConfigured, match="signs"):
        pair_model.from_dict(stored)


def test_the_thresholds_are_settings_defaulting_to_the_fit(settings):
    fitted = pair_model.stored_model().thresholds

    assert fitted["propose_one"] == settings.DEDUP_PROPOSE_ONE
    assert fitted["propose_conflict"] == settings.DEDUP_PROPOSE_CONFLICT
    assert fitted["auto_confidence"] == settings.DEDUP_AUTO_CONFIDENCE
    assert fitted["auto_confidence"] >= fitted["propose_one"]


def test_probabilities_are_one_fact_conflict_two_facts_summing_to_one():
    model = pair_model.stored_model()
    rng = np.random.default_rng(7)
    values = rng.uniform(0, 1, size=(50, len(FEATURES)))

    found = model.probabilities(values)

    assert found.shape == (50, 3)
    assert np.allclose(found.sum(axis=1), 1.0)
    assert (found >= 0).all() and (found <= 1).all()
    # The two stages: P(two facts) = 1 - related, and the rest split by disagree; the
    # related stage's log-odds below an even chance held back by the apart temperature.
    logit = model.related.logit(values)
    held = np.where(logit < 0, logit / model.apart_temperature, logit)
    assert np.allclose(found[:, 2], 1 - 1 / (1 + np.exp(-held)))


def test_every_weight_reads_the_way_its_name_says():
    from memadmin.curation.learning import fitting as model_fit

    stored = json.loads(pair_model.MODEL_PATH.read_text())
    for stage, signs in (
        ("related", model_fit.RELATED_FEATURES),
        ("disagree", model_fit.DISAGREE_FEATURES),
    ):
        weights = dict(
            zip(
                stored["stages"][stage]["features"], stored["stages"][stage]["weights"], strict=True
            )
        )
        assert all(weights[f] * sign >= 0 for f, sign in signs.items()), stage


def test_a_changed_value_of_one_slot_is_a_proposed_conflict_with_its_evidence(vectors):
    judgement = judged_pair(
        "The staging target is Azure.", "The staging target is Fly.io.", vectors
    )

    assert (judgement.verdict, judgement.tier) == (Verdict.CONFLICT, "proposed")
    assert judgement.confidence >= Thresholds.from_settings().propose_conflict
    assert any("Azure / Fly.io" in finding for finding in judgement.findings)


def test_two_attributes_of_one_subject_are_not_a_proposed_conflict(vectors):
    judgement = judged_pair("Lea is vegetarian.", "Lea has asthma.", vectors)

    assert not (judgement.verdict == Verdict.CONFLICT and judgement.tier == "proposed")
    assert judgement.probabilities[1] < Thresholds.from_settings().propose_conflict


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # "Max" and "limit", "velocity" and "speed" beside m/s: one limit, one slot. Both
        # were two subjects, sure (0.86 and 0.94 two facts).
        ("Max upload size is 10 MB.", "Upload limit increased to 25 MB."),
        (
            "Max linear velocity in shared aisles is 1.2 m/s.",
            "Speed cap in shared aisles lowered to 0.8 m/s after the near-miss.",
        ),
    ],
)
def test_one_limit_named_two_ways_is_no_pair_of_subjects(older, newer, vectors):
    judgement = judged_pair(older, newer, vectors)

    assert judgement.probabilities[2] < 0.8
    assert not any("different subjects" in finding for finding in judgement.findings)


def test_an_activity_after_a_preposition_is_no_other_predicate(vectors):
    # "driving" after "of mixed" was read as the verb (drives: a class), against "gives":
    # another predicate, two facts at 0.84, where the value is one in other words.
    judgement = judged_pair(
        "Battery lasts about 6.5 hours of mixed driving.",
        "A full charge gives roughly 6 h 30 min of runtime in mixed driving.",
        vectors,
    )

    assert judgement.probabilities[2] < 0.5


def test_the_same_words_in_swapped_roles_are_never_merged_without_review(vectors):
    judgement = judged_pair(
        "Nina is our champion at Hugo Ltd.", "Hugo is our champion at Nina Ltd.", vectors
    )

    assert judgement.verdict != Verdict.AUTO_MERGE
    assert judgement.evidence.values[INDEX["same_words_other_roles"]] == 1.0
    assert "the same words in other roles" in judgement.findings


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Léa remplace Hugo le lundi.", "Hugo remplace Léa le lundi."),  # read one slot, two values
        (
            "Der Server in Köln spiegelt den in Berlin.",
            "Der Server in Berlin spiegelt den in Köln.",
        ),
    ],
)
def test_what_the_clause_reader_reads_of_the_same_words_in_other_roles_is_no_finding(
    vectors, older, newer
):
    # Each word is found in the other text, so the clause reader reads the same statement
    # or one slot's two values; the roles say it is neither.
    values = judged_pair(older, newer, vectors).evidence.values

    assert values[INDEX["same_words_other_roles"]] == 1.0
    assert values[INDEX["relation_unread"]] == 1.0
    assert values[INDEX["relation_same"]] == values[INDEX["relation_new_value"]] == 0.0


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Spielt jeden Sonntag Tennis.", "Plays tennis every Sunday."),
        ("Plays tennis every Sunday.", "Every Sunday, plays tennis."),
    ],
)
def test_a_time_holds_no_role_wherever_it_stands(vectors, older, newer):
    # German puts the time before the object; English may open with it.
    judgement = judged_pair(older, newer, vectors)

    assert judgement.evidence.values[INDEX["same_words_other_roles"]] == 0.0
    assert judgement.p_one >= Thresholds.from_settings().propose_one


@pytest.mark.parametrize(
    ("older", "newer", "cue"),
    [
        # The newer's change is to the value the older gives already.
        (
            "We have 5 units of the green fixture in stock.",
            "Stock of the green fixture is now 5 units.",
            0,
        ),
        ("The spare cable is kept in drawer 3.", "The spare cable moved to drawer 3.", 0),
        # A change both tell is told twice.
        ("Relocated to Madrid for work.", "Moved to Madrid for a new job.", 0),
        # A change to another value, or of nothing the older gives, says the older is past.
        ("The spare cable is kept in drawer 3.", "The spare cable moved to drawer 5.", 1),
        ("Lives in Berlin.", "Now lives in Munich.", 1),
        ("Ana drinks coffee.", "Ana now drinks tea.", 1),
        # ... and so does a value the newer adds.
        ("Die Fotos liegen in Dropbox.", "Hat die Fotos von Dropbox nach iCloud umgezogen.", 1),
        (
            "Grace Liu is the VP of Engineering.",
            "Grace Liu left; the new VP of Engineering is Omar Said.",
            1,
        ),
    ],
)
def test_a_change_cue_says_the_older_is_past_only_where_it_could_be(vectors, older, newer, cue):
    values = judged_pair(older, newer, vectors).evidence.values

    assert values[INDEX["newer_announces_change"]] == cue


def test_a_value_in_other_words_is_a_rewording_not_words_in_other_roles(vectors):
    # Chinese puts the unit's word elsewhere when the unit changes ("宽1.2米" / "有120厘米宽").
    judgement = judged_pair("她的书桌宽1.2米。", "她的书桌有120厘米宽。", vectors)

    assert judgement.evidence.values[INDEX["value_in_other_words"]] == 1.0
    assert judgement.evidence.values[INDEX["same_words_other_roles"]] == 0.0
    assert judgement.probabilities[2] < 0.5


def test_two_things_named_by_one_noun_with_modifiers_of_their_own_are_told_apart(vectors):
    # The modifier is one word on one side and a value on the other: still two objects.
    judgement = judged_pair(
        "Use 12.5 N of grip force on the blue motor.",
        "Use 20 N of grip force on the 12V motor.",
        vectors,
    )

    assert judgement.evidence.values[INDEX["modifier_differs"]] == 1.0


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Alice's partner Tom works at Michelin.", "Alice works at Michelin."),
        ("Kenta's manager lives in Osaka.", "Kenta lives in Osaka."),
    ],
)
def test_someone_named_by_their_relation_to_a_subject_is_another_subject(vectors, older, newer):
    # Both were proposed merges at 0.98: the same words but for "partner Tom".
    judgement = judged_pair(older, newer, vectors)

    assert any(reason.startswith("different subjects") for reason in judgement.reasons)
    assert judgement.tier != "proposed"


@pytest.mark.parametrize("form", ["Inc.", "Ltd.", "Co.", "Corp."])
def test_a_company_form_ends_no_sentence_and_two_of_its_facts_are_not_one_statement(vectors, form):
    judgement = judged_pair(
        f"Northmark {form} has 400 employees.", f"Northmark {form} renews in March.", vectors
    )

    assert judgement.evidence.values[INDEX["relation_same"]] == 0.0
    assert judgement.tier != "proposed" or judgement.verdict == Verdict.DISTINCT


def test_a_near_identical_pair_merges_automatically(vectors):
    judgement = judged_pair(
        "The team prefers squash merges into main.",
        "The team prefers squash-merges into main.",
        vectors,
    )

    assert judgement.verdict == Verdict.AUTO_MERGE
    assert judgement.p_one >= Thresholds.from_settings().auto_confidence


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [({"category": "fact"}, {"category": "config"}), ({"source_ref": "a"}, {"source_ref": "b"})],
    ids=["category", "source"],
)
def test_a_metadata_guard_keeps_a_pair_out_of_every_cluster(vectors, mine, theirs):
    judgement = judged_pair(
        "The team prefers squash merges into main.",
        "The team prefers squash-merges into main.",
        vectors,
    )
    older, newer = (
        calibration.as_memory(
            {"id": i, "content": "x", "created_at": "2026-01-01T00:00:00Z", **fields}
        )
        for i, fields in (("a", mine), ("b", theirs))
    )

    judgement = scoring.place(
        judgement.rules,
        judgement.evidence,
        judgement.probabilities,
        older,
        newer,
        pair_model.stored_model(),
        Thresholds.from_settings(),
        own_p_one=judgement.p_one,
    )

    assert judgement.verdict == Verdict.DISTINCT and judgement.never_together
    assert judgement.p_one >= 0.9  # the model was sure: the operator's guard decided


def test_a_protected_member_is_flagged_never_merged_automatically(vectors):
    judgement = judged_pair(
        "The team prefers squash merges into main.",
        "The team prefers squash-merges into main.",
        vectors,
        importance=0.97,
    )

    assert judgement.verdict == Verdict.REVIEW
    assert "protected" in judgement.flags


def test_the_evidence_that_moved_a_pair_is_named():
    model = pair_model.stored_model()
    values = np.zeros(len(FEATURES))
    values[INDEX["bias"]] = 1.0
    values[INDEX["opposed"]] = 1.0

    moved = dict(model.disagree.contributions(values))

    assert moved["opposed"] > 0
    assert pair_model.said("opposed") == "one denies or reverses the other"


def test_words_of_two_scripts_are_no_evidence_of_two_subjects(vectors):
    # Chinese characters and letters cannot be compared word by word ("王伟" / "Wei"):
    # the pair is not read as two people.
    judgement = judged_pair(
        "王伟每周三晚上打羽毛球。", "Wei plays badminton every Wednesday evening.", vectors
    )

    assert not any("different subjects" in reason for reason in judgement.reasons)
    # Romanised, 王伟 is Wang Wei: the subjects agree (Li Na's would not). No reader reads
    # both scripts: the pair stays doubtful, for the LLM or a person.
    assert judgement.evidence.values[INDEX["subjects_agree"]] == 1.0
    assert max(judgement.probabilities) < 0.8


def test_one_company_with_its_form_spelled_out_is_one_fact(vectors):
    judgement = judged_pair(
        "Marco is our champion at Tom Inc.", "Marco is our champion at Tom Incorporated.", vectors
    )

    assert judgement.verdict in (Verdict.AUTO_MERGE, Verdict.REVIEW)
    assert judgement.p_one >= Thresholds.from_settings().propose_one


def test_two_legal_forms_of_one_name_tell_two_companies_apart(vectors):
    # "Tom Inc." / "Tom Ltd.": two companies, as "Sara Ltd." / "Zoe Ltd." are; the form at
    # the sentence's end is a modifier of the name, not the slot's value swapped.
    judgement = judged_pair(
        "Marco is our champion at Tom Inc.", "Marco is our champion at Tom Ltd.", vectors
    )

    assert judgement.evidence.values[INDEX["modifier_differs"]] == 1.0
    assert judgement.evidence.values[INDEX["value_swapped"]] == 0.0
    # Two subjects: no sure conflict between Marco at one company and at the other.
    assert judgement.evidence.values[INDEX["relation_other_subject"]] == 1.0
    assert judgement.probabilities[1] < Thresholds.from_settings().propose_conflict
    subject = judged_pair("Apex Inc. renews in March.", "Apex GmbH renews in March.", vectors)
    assert subject.probabilities[2] > 0.5  # two companies: two facts


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Sleeps seven and a half hours a night.", "Sleeps 7.5 hours a night."),
        ("The workshop lasts an hour and a half.", "The workshop lasts 90 minutes."),
        ("The commute takes half an hour.", "The commute takes 30 minutes."),
    ],
)
def test_a_half_written_in_words_is_no_other_value(vectors, older, newer):
    # Each was a sure conflict ("half hours / 7.5 hours", "an hour / 90 minutes", half an
    # hour read as half a French "an", six months).
    judgement = judged_pair(older, newer, vectors)

    assert judgement.verdict in (Verdict.AUTO_MERGE, Verdict.REVIEW)
    assert judgement.p_one >= Thresholds.from_settings().propose_one


def test_the_multilingual_reading_says_whether_the_languages_differ(vectors):
    # Its reason is shown to curators: "across languages" under two English sentences
    # sends them looking for a translation that is not there.
    english = judged_pair(
        "On-call rotation is one week long.", "Each on-call shift lasts 7 days.", vectors
    )
    across = judged_pair(
        "Ana is allergic to peanuts.", "Ana tiene alergia a los cacahuetes.", vectors
    )

    assert any(r.startswith("alike in meaning in other words") for r in english.reasons)
    assert not any("across languages" in r for r in english.reasons)
    assert any(r.startswith("alike in meaning across languages") for r in across.reasons)


def test_readings_of_two_facts_held_back_show_doubt_but_never_chain_a_cluster(vectors):
    # Held back hard (apart temperature 4), many pairs the model reads apart come up to
    # the possible tier (their probabilities show the doubt); two memories its own
    # reading puts under the possible floor still never share a cluster, proposed or
    # possible, as an edge or through others.
    from memadmin.curation.learning import fitting
    from memadmin.curation.runs import planning

    stored = json.loads(pair_model.MODEL_PATH.read_text())
    held = pair_model.from_dict({**stored, "apart_temperature": 4.0})
    thresholds = Thresholds.from_settings()
    rows, _ = fitting.load("everyday")
    lifted = chained = 0
    for memories in calibration.by_namespace(rows).values():
        judged = calibration.judge_namespace(memories, thresholds, vectors, model=held)
        for judgement in judged.judgements.values():
            if judgement.evidence is not None:
                own = held.probabilities(judgement.evidence.values, 1.0)[0]
                lifted += own < thresholds.possible_one <= judgement.p_one
        for cluster in planning.group(judged).clusters:
            for i, j in itertools.combinations(cluster.members, 2):
                found = judged.judge(i, j)
                if found.evidence is not None and found.decided_by == "rule":
                    own = held.probabilities(found.evidence.values, 1.0)[0]
                    chained += own < thresholds.possible_one

    assert lifted > 10  # the held-back readings reach the possible tier
    assert chained == 0


@pytest.mark.parametrize("blind", ["across_scripts", "unread_across"])
def test_a_pair_no_reader_reads_stands_at_an_even_chance_on_related(blind):
    model = pair_model.stored_model()
    values = evidence_in_one_script(11, 20)
    across = values.copy()
    across[:, INDEX[blind]] = 1.0

    assert not np.allclose(model.related.logit(values), 0.0)
    assert np.allclose(model.related.logit(across), 0.0)
    # Its weight is held at 0: it doubts, and says nothing of either side.
    related = json.loads(pair_model.MODEL_PATH.read_text())["stages"]["related"]
    assert related["weights"][related["features"].index(blind)] == 0.0


@pytest.mark.parametrize(
    ("older", "newer", "blind"),
    [
        # Two languages, no word compared, and the multilingual model not sure alone.
        ("Joue du violon.", "Plays the cello.", True),
        ("Sammelt alte Briefmarken.", "Collects vinyl records.", True),
        # A sure translation of each word, or a name both write, is compared.
        ("Hat einen Hund.", "Has a dog.", False),
        ("Wohnt in München.", "Lives in Munich.", False),
        # ... and so is a value both write.
        (
            "The team meets every Monday at 10 am.",
            "Das Team trifft sich jeden Montag um 10 Uhr.",
            False,
        ),
        ("Spielt jeden Sonntag Tennis.", "Plays tennis every Sunday.", False),
        # One language: the readers read both.
        ("Plays the violin.", "Plays the cello.", False),
    ],
)
def test_two_languages_with_nothing_compared_are_blind(older, newer, blind, vectors):
    found = judged_pair(older, newer, vectors)

    assert (found.evidence.values[INDEX["unread_across"]] == 1.0) == blind
    if blind:
        assert found.p_one < Thresholds.from_settings().propose_one  # the LLM's, a person's
