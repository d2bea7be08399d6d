"""Fitting the pair model (curation.model_fit): every weight keeps its sign, and leave
one set out, fit again here from the labelled sets, gives the held-out figures the
shipped model was chosen on (bench/calibrate.py --fit wrote them into pair_model.json)."""

import json

import numpy as np
import pytest

from memadmin.curation import calibration, model_fit
from memadmin.curation.detection import confidence
from memadmin.curation.detection.judgement import Thresholds


def test_a_weight_the_data_would_turn_against_its_meaning_stays_at_zero():
    # y follows x; the first feature is x plus some noise, the second that noise alone:
    # the data wants the second weighed against its sign (to take the noise out).
    rng = np.random.default_rng(3)
    x, noise = rng.normal(size=400), rng.normal(size=400)
    y = (x + 0.3 * rng.normal(size=400) > 0).astype(int)
    features = np.stack([x + noise, noise], axis=1)

    allowed, _ = model_fit.signed_logistic(features, y, np.ones(400), [+1, -1], 10.0)
    bounded, _ = model_fit.signed_logistic(features, y, np.ones(400), [+1, +1], 10.0)

    assert allowed[1] < -0.5  # what the data says, where the sign allows it
    assert bounded[1] == 0.0 and bounded[0] > 0


@pytest.mark.skipif(
    not {"dev", "peers"} <= set(model_fit.available()),
    reason="the dev and peers sets are not beside the repository",
)
def test_leave_one_set_out_gives_the_shipped_figures_and_meets_the_targets():
    thresholds, vectors = Thresholds.from_settings(), calibration.Vectors()
    tables = [model_fit.table_of(name, thresholds, vectors) for name in model_fit.available()]

    held_out = model_fit.leave_one_set_out(tables, thresholds)

    stored = json.loads(confidence.MODEL_PATH.read_text())
    assert held_out.thresholds == stored["thresholds"]
    pooled = held_out.pooled
    assert pooled.as_dict()["duplicates"] == stored["held_out"]["pooled"]["duplicates"]
    assert pooled.as_dict()["conflicts"] == stored["held_out"]["pooled"]["conflicts"]
    # Issue 39's acceptance, no LLM, held out.
    assert pooled.precision >= 0.93
    assert pooled.conflict_precision >= 0.85
    assert pooled.unsafe == 0
    assert pooled.automatic_precision == 1.0
