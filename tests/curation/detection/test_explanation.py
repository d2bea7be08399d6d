"""Evidence a curator reads: the pair model's sum of log-odds as a waterfall
(scoring.judgement.explain), every bar in plain words, and the total its probability."""

import math
import re

import numpy as np
import pytest

from memadmin.curation.detection.comparing.evidence import FEATURES
from memadmin.curation.detection.scoring import model as pair_model
from memadmin.curation.detection.scoring.judgement import QUESTIONS, explain
from memadmin.curation.learning import calibration
from memadmin.review.charts import ROW, waterfall
from tests.curation.detection.test_confidence import judged_pair

QUESTION_STAGES = {question: stage for stage, question in QUESTIONS.items()}

# Words no page may show: a feature's or reader's internal name.
INTERNAL = re.compile(r"_|clause reading|hinge|cosine|containment|lexical|normalised")


@pytest.fixture(scope="module")
def vectors() -> calibration.Vectors:
    return calibration.Vectors()


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The staging target is Azure.", "The staging target is Fly.io."),
        ("Yuki A. lives in Osaka.", "Yuki R. lives in Osaka."),
        ("Alice prefers tea in the morning.", "In the morning Alice likes to drink tea."),
        ("Hana's older brother lives in Osaka.", "Hana's younger brother lives in Kyoto."),
    ],
)
def test_each_stage_adds_up_to_the_probability_the_model_gives(older, newer, vectors):
    judgement = judged_pair(older, newer, vectors)
    model = pair_model.stored_model()

    found = explain(judgement, model)

    for stage in found["stages"]:
        moved = stage["prior"] + sum(bar["share"] for bar in stage["bars"])
        assert moved == pytest.approx(stage["total"], abs=0.01 * (len(stage["bars"]) + 1))
        assert stage["probability"] == pytest.approx(1 / (1 + math.exp(-stage["total"])), abs=1e-3)
        assert len(stage["bars"]) <= 10  # seven, the rest, the committee's doubt, held back
        # A reading of two facts is held back towards an even chance, a bar of its own.
        if QUESTION_STAGES[stage["question"]] == "related" and stage["total"] < -0.05:
            assert model.apart_temperature > 1.0
            assert stage["bars"][-1]["words"] == pair_model.said("held_back")
            held = stage["total"] - stage["bars"][-1]["share"]
            assert stage["total"] == pytest.approx(held / model.apart_temperature, abs=0.02)
        for bar in stage["bars"]:
            assert not INTERNAL.search(bar["words"]), bar["words"]
    expected = model.probabilities(judgement.evidence.values)
    assert [found["model"][k] for k in ("one", "conflict", "two")] == pytest.approx(
        [float(p) for p in expected], abs=1e-4
    )


def test_the_committee_s_doubt_is_a_bar_of_its_own_and_the_total_still_adds_up(vectors):
    import json

    from tests.curation.detection.test_confidence import scaled_member

    stored = json.loads(pair_model.MODEL_PATH.read_text())
    # A member reading every pair the other way: each stage at an even chance.
    doubting = pair_model.from_dict({**stored, "committee": [scaled_member(stored, -1.0)]})
    judgement = judged_pair(
        "The staging target is Azure.", "The staging target is Fly.io.", vectors
    )

    found = explain(judgement, doubting)

    for stage in found["stages"]:
        doubt = stage["bars"][-1]
        assert doubt["words"] == pair_model.said("doubt")
        assert stage["total"] == pytest.approx(0.0, abs=1e-6)
        assert doubt["share"] != pytest.approx(0.0)
        moved = stage["prior"] + sum(bar["share"] for bar in stage["bars"])
        assert moved == pytest.approx(stage["total"], abs=0.01 * (len(stage["bars"]) + 1))
    expected = doubting.probabilities(judgement.evidence.values)
    assert [found["model"][k] for k in ("one", "conflict", "two")] == pytest.approx(
        [float(p) for p in expected], abs=1e-4
    )


def test_a_bar_names_what_it_found(vectors):
    judgement = judged_pair(
        "The staging target is Azure.", "The staging target is Fly.io.", vectors
    )

    words = [bar["words"] for stage in explain(judgement, pair_model.stored_model())["stages"]
             for bar in stage["bars"]]  # fmt: skip

    assert any("Azure / Fly.io" in said for said in words), words


def test_every_feature_of_the_model_has_plain_words():
    for feature in FEATURES:
        if feature != "bias":
            assert not INTERNAL.search(pair_model.said(feature)), feature


def test_an_exact_copy_has_no_waterfall(vectors):
    judgement = judged_pair("User likes coffee.", "user likes coffee", vectors)

    assert explain(judgement, pair_model.stored_model()) == {}


def test_the_waterfall_runs_from_the_prior_to_the_total():
    stage = {
        "question": "they disagree",
        "prior": -2.0,
        "bars": [
            {"words": "different values: A / B", "share": 3.0},
            {"words": "the same slot", "share": 1.5},
            {"words": "two languages", "share": -0.5},
        ],
        "total": 2.0,
        "probability": 0.88,
    }

    chart = waterfall(stage)

    kinds = [step.kind for step in chart.steps]
    assert kinds == ["prior", "for", "for", "against", "total"]
    prior, first, second, third, total = chart.steps
    # Each bar starts where the one before it ended (x of the running log-odds).
    assert prior.x == pytest.approx(first.x)  # -2 -> +1 starts at -2
    assert first.x + first.width == pytest.approx(second.x)
    assert second.x + second.width == pytest.approx(third.x + third.width)
    assert total.x == pytest.approx(chart.zero) and total.width > 0
    assert np.allclose([s.y for s in chart.steps], [0, ROW, 2 * ROW, 3 * ROW, 4 * ROW])


# What a reader's internal vocabulary leaves in a finding: a kind's label ("polarity:",
# "negation:", "withdrawn:"), a canonical value ("duration=1209600"), a stem.
INTERNAL_FINDING = re.compile(r"polarity:|negation:|withdrawn:|=\d|\b(uploa|downl)\b")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Likes cilantro in everything.", "Alice hates cilantro."),
        ("The build does not use Docker; it uses Podman.", "The build uses Docker."),
        ("Prefers the light theme.", "Actually I changed my mind, the light theme is too bright."),
        ("Sprints are two weeks long.", "Raw readings are retained for 2 years."),
        ("Max upload size is 10 MB.", "Max download size is 25 MB."),
        (
            "Router is an OPNsense box at 192.168.10.1.",
            "The gateway is the ISP router at 192.168.1.1 and it also serves DHCP.",
        ),
    ],
)
def test_findings_and_reasons_are_in_the_texts_words(older, newer, vectors):
    judgement = judged_pair(older, newer, vectors)
    said = [*judgement.findings, *judgement.reasons]

    assert not any(INTERNAL_FINDING.search(line) for line in said), said
    # A value read two ways (an address, also a version) is named once.
    assert sum(line.count("192.168.10.1") for line in judgement.reasons) <= 1, said
