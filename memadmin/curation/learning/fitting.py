"""Fitting the pair model (curation.detection.scoring.model) on labelled sets, and judging it
on the set it was not fit on.

Every candidate pair of every labelled set is judged as find_duplicates judges it (the
same candidate layers, rules and readers, no LLM); its evidence (detection.comparing.evidence) and
its label (one fact, conflict, two facts) make one training row. The two logistic
stages are fit with scipy (the dev extra: `make install-dev`), each labelled set
weighing the same in all, so that a set of many pairs does not drown the others.

Leave one set out: for each set, a model fit on the others plans it (clusters, merges,
conflicts, grouped as a run groups them) and is scored against its labels. The tier
thresholds are chosen on those held-out figures, and stored with the weights
(pair_model.json), with the command, the training sets and the held-out figures.

    .venv/bin/python manage.py fit_pair_model      # fit, choose, write pair_model.json
    .venv/bin/python bench/calibrate.py --loso     # the held-out figures of each set
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from django.conf import settings

from memadmin.curation.detection import pipeline
from memadmin.curation.detection.comparing.evidence import FEATURES
from memadmin.curation.detection.scoring import model as pair_model
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.learning import calibration, evaluation, held_out
from memadmin.curation.learning.evaluation import Figures
from memadmin.curation.learning.held_out import CONFLICT, ONE, TWO

_SHARED = Path(settings.BASE_DIR).parent / "shared" / "data"
_TESTS = Path(settings.BASE_DIR) / "tests"
# Every labelled set the model is fit on; each is also the one left out once. The dev
# and peers sets live beside the repository (../shared/data), the others in tests/.
LABELLED_SETS = {
    "dev": _SHARED / "dev",
    "peers": _SHARED / "peers",
    "everyday": _TESTS / "data" / "everyday",
    "everyday2": _TESTS / "data" / "everyday2",
    "everyday3": _TESTS / "data" / "everyday3",
    "many_people": _TESTS / "data" / "many_people",
    "many_things": _TESTS / "data" / "many_things",
    "many_mixed": _TESTS / "data" / "many_mixed",
    "minimal_pairs": _TESTS / "curation" / "detection" / "pairs",
}

# The labelled sets bench/many_subjects.py generated (named many_*).
GENERATED = "many_"

# What each stage reads, with the sign its meaning gives its weight. The related stage
# asks whether the two speak of one subject and slot (whatever they say of it); the
# disagree stage, given that, whether they disagree. The fit keeps every weight on the
# side of zero its meaning says (signed_logistic): the labelled sets are small and their
# features overlap, and an unconstrained fit weighed some against their meaning.
RELATED_FEATURES = {
    "similarity": +1,
    "cosine_above_0.6": +1,
    "cosine_above_0.85": +1,
    "multi_above_0.85": +1,
    "multi_above_0.9": +1,
    "across_multi_above_0.85": +1,
    "across_multi_above_0.9": +1,
    "across_languages": +1,
    "across_scripts": 0,  # only doubts (scoring.model.BLIND): its weight stays 0
    "unread_across": 0,  # the same
    "lexical_only": +1,
    "words_in_order": +1,
    "same_words_same_roles": +1,
    "same_words_other_roles": -1,
    "relation_same": +1,
    "relation_refines": +1,
    "relation_opposite": +1,
    "new_value_same_frame": +1,
    "new_value_other_frame": -1,
    "relation_other_subject": -1,
    "relation_other_predicate": -1,
    "relation_other_value": -1,
    "relation_events": -1,
    "relation_unread": -1,
    "different_subjects": -1,
    "subjects_differ": -1,
    "subject_extra": -1,
    "names_differ": -1,
    "different_things": -1,
    "modifier_differs": -1,
    "values_and_more": -1,
    "frame_overlap": +1,
    "frame_identical": +1,
    "frame_x_same_names": +1,
    "other_frame_same_names": -1,
    "span_opens": -1,
    "one_span_replaced": +1,
    "subject_swapped": -1,
    "value_swapped": +1,
    "value_and_thing_differ": -1,
    "value_in_other_words": +1,
    "alignment": +1,
    "one_adds_nothing": +1,
    "one_word_each": +1,
    "nearest_of_one": +1,
    "nearest_of_both": +1,
    "nearest_of_none_else": -1,
}
DISAGREE_FEATURES = {
    "opposed": +1,
    "relation_opposite": +1,
    "new_value_same_frame": +1,
    "new_value_other_frame": -1,
    "relation_update": +1,
    "newer_announces_change": +1,
    "differs_name": +1,
    "differs_number": +1,
    "differs_when": +1,
    "differs_identifier": +1,
    "differs_other": +1,
    "one_slot": +1,
    "slot_overlap": +1,
    "names_swapped_in": +1,
    "frame_x_same_names": +1,
    "one_span_replaced": +1,
    "span_closes": +1,
    "value_swapped": +1,
    "value_and_thing_differ": -1,
    "value_in_other_words": -1,
    "no_difference_read": -1,
    "relation_same": -1,
    "relation_refines": -1,
    "words_in_order": -1,
    "alignment": -1,
    "one_adds_nothing": -1,
}

# The precision the proposed tier must keep on held-out sets, pooled and on their mean
# (issue 39), and on conflicts on each set alone (issue 48: a pool hides a kind of store
# that pays for the others).
TARGET_ONE, TARGET_CONFLICT, FLOOR_CONFLICT = 0.93, 0.90, 0.80
# The sets the thresholds are chosen on: all of them. The generated stores
# (bench/many_subjects.py) share their domains (customers, services, objects, companies)
# among three sets, so that each held out is a store of a known kind the model never
# saw; a store of a kind never seen is bench/calibrate.py --unseen-kind.
CHOOSING_SETS = tuple(LABELLED_SETS)
# A doubtful pair: one chance in five or more. Below it a pair is nothing (and two
# memories that unlikely to be one fact never share a cluster).
POSSIBLE_FLOOR = 0.2
GRID = (*(round(x, 2) for x in np.arange(0.40, 0.991, 0.05)), 0.97, 0.99)


def load(name: str) -> tuple[list[dict], dict]:
    """A labelled set by name: a folder with memories.jsonl and labels.json, or the
    minimal-pair suites (each pair a namespace of two memories, the newer 30 days
    later)."""
    folder = LABELLED_SETS[name]
    if (folder / "labels.json").exists():
        return calibration.load_set(folder)
    rows: list[dict] = []
    labels: dict = {"duplicate_groups": [], "conflicts": [], "hard_negatives": []}
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    for path in sorted(folder.glob("*.txt")):
        for pair in calibration.read_suite(path):
            namespace = f"{pair.suite}-{pair.line}"
            older, newer = f"{namespace}-a", f"{namespace}-b"
            for memory_id, text, when in (
                (older, pair.older, start),
                (newer, pair.newer, start + timedelta(days=30)),
            ):
                rows.append(
                    {
                        "id": memory_id,
                        "namespace": namespace,
                        "content": text,
                        "created_at": when.isoformat(),
                    }
                )
            if pair.label == "duplicate":
                labels["duplicate_groups"].append([older, newer])
            elif pair.label == "distinct":
                labels["hard_negatives"].append([older, newer])
            else:
                labels["conflicts"].append({"a": older, "b": newer, "kind": pair.label})
    return rows, labels


def available() -> list[str]:
    """The labelled sets present on this machine (dev and peers live outside the
    repository)."""
    return [
        name
        for name, folder in LABELLED_SETS.items()
        if (folder / "memories.jsonl").exists() or any(folder.glob("*.txt"))
    ]


@dataclass
class PairTable:
    """One labelled set's candidate pairs: evidence values, labels, and the judged
    namespaces (kept to plan them again under another model)."""

    name: str
    rows: list[dict]
    labels: dict
    values: np.ndarray
    classes: np.ndarray
    judged: list[pipeline.Judged]


def table_of(name: str, thresholds: Thresholds, vectors: calibration.Vectors) -> PairTable:
    """Judge every namespace of a set and collect its candidate pairs' evidence and
    labels (exact copies left out: the hash decides them, with no doubt)."""
    rows, labels = load(name) if name in LABELLED_SETS else calibration.load_set(Path(name))
    duplicates = {
        frozenset(pair)
        for group in labels["duplicate_groups"]
        for pair in itertools.combinations(group, 2)
    }
    conflicts = {frozenset((c["a"], c["b"])) for c in labels["conflicts"]}
    guarded = {frozenset(pair) for pair in labels.get("guarded_pairs", [])}
    values, classes, judged_all = [], [], []
    for memories in calibration.by_namespace(rows).values():
        judged = calibration.judge_namespace(memories, thresholds, vectors)
        judged_all.append(judged)
        for (i, j), judgement in judged.judgements.items():
            if judgement.evidence is None:
                continue
            pair = frozenset((judged.memories[i].external_id, judged.memories[j].external_id))
            if pair in guarded:
                continue  # an operator's veto, not a matter of meaning
            values.append(judgement.evidence.values)
            classes.append(ONE if pair in duplicates else CONFLICT if pair in conflicts else TWO)
    return PairTable(
        name,
        rows,
        labels,
        np.array(values).reshape(-1, len(FEATURES)),
        np.array(classes, dtype=np.int64),
        judged_all,
    )


def signed_logistic(x, y, sample_weight, signs, c: float) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression (scikit-learn's objective: C times the weighted
    log-loss, plus half the squared weights) whose every weight keeps the sign its
    feature's meaning gives it (0 where the data would have it the other way; a sign of 0
    holds it at 0). Fit with scipy's L-BFGS-B, which takes the signs as bounds; scikit-learn's
    LogisticRegression, which does not, gave weights against their meaning where
    features overlap (the frame of two attributes read as evidence of one slot)."""
    from scipy.optimize import minimize
    from scipy.special import expit

    count = x.shape[1]
    y = y.astype(np.float64)

    def loss(params):
        weights, intercept = params[:count], params[count]
        logits = x @ weights + intercept
        # log(1 + e^z) - y z, stably.
        losses = np.logaddexp(0.0, logits) - y * logits
        gradient_logits = sample_weight * (expit(logits) - y)
        value = c * float(sample_weight @ losses) + 0.5 * float(weights @ weights)
        gradient = np.concatenate(
            [c * (x.T @ gradient_logits) + weights, [c * gradient_logits.sum()]]
        )
        return value, gradient

    bounds = [
        (0.0, None) if sign > 0 else (None, 0.0) if sign < 0 else (0.0, 0.0) for sign in signs
    ] + [(None, None)]
    found = minimize(loss, np.zeros(count + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                     options={"maxiter": 5000})  # fmt: skip
    return found.x[:count], float(found.x[count])


def fit(tables: Iterable[PairTable], *, c_related: float, c_disagree: float) -> dict:
    """The two stages fit on these sets' pairs, in the stored form (no thresholds)."""
    tables = [t for t in tables if len(t.classes)]
    values = np.concatenate([t.values for t in tables])
    classes = np.concatenate([t.classes for t in tables])
    # Each set weighs the same in all (a mean weight of one a pair), but the generated
    # stores weigh as one set together: three draws of one generator's templates would
    # otherwise teach the model that template as a third of the world.
    share = {t.name: (1 / 3 if t.name.startswith(GENERATED) else 1.0) for t in tables}
    total = sum(share.values())
    weights = np.concatenate(
        [
            np.full(len(t.classes), share[t.name] * len(classes) / (total * len(t.classes)))
            for t in tables
        ]
    )
    stages = {}
    for name, signs, c, target in (
        ("related", RELATED_FEATURES, c_related, None),
        ("disagree", DISAGREE_FEATURES, c_disagree, CONFLICT),
    ):
        if target is None:
            x_all, y, w = values, (classes != TWO).astype(int), weights
        else:
            chosen = classes != TWO
            x_all, y, w = values[chosen], (classes[chosen] == target).astype(int), weights[chosen]
        features = list(signs)
        columns = [FEATURES.index(f) for f in features]
        weights_fit, intercept = signed_logistic(
            x_all[:, columns], y, w, [signs[f] for f in features], c
        )
        stages[name] = {
            "features": features,
            "weights": [round(float(v), 6) for v in weights_fit],
            "intercept": round(float(intercept), 6),
            # How many pairs showed each feature (scoring.model.UNSEEN_BELOW), and the
            # side each speaks for.
            "shown": [int(v) for v in (x_all[:, columns] != 0.0).sum(axis=0)],
            "signs": [signs[f] for f in features],
        }
    return {"features": list(FEATURES), "stages": stages}


def fits_leaving_out(
    tables: list[PairTable], *, c_related: float, c_disagree: float, committee: bool = True
) -> dict[str, dict]:
    """For each set, the model fit on the others, with (`committee`) its committee: the
    fits that each leave one more set out (what the model will be with every set, beside
    its own leave-one-set-out fits, for a store it never saw)."""
    fits: dict[frozenset, dict] = {}

    def without(*names: str) -> dict:
        key = frozenset(names)
        if key not in fits:
            kept = [t for t in tables if t.name not in key]
            fits[key] = fit(kept, c_related=c_related, c_disagree=c_disagree)
        return fits[key]

    if not committee:
        return {t.name: pair_model.undoubted(without(t.name)) for t in tables}
    return {
        t.name: pair_model.with_committee(
            without(t.name), {o.name: without(t.name, o.name) for o in tables if o is not t}
        )
        for t in tables
    }


def with_thresholds(stored: dict, thresholds: dict) -> pair_model.PairModel:
    return pair_model.from_dict({**stored, "thresholds": thresholds})


def replan(table: PairTable, model: pair_model.PairModel, thresholds: Thresholds):
    """The set's outputs under another model and thresholds: every judged pair decided
    again from its evidence (the rules and readers are not run again)."""
    outputs = []
    for judged in table.judged:
        judged.rescore(model, thresholds)
        outputs.append(calibration.output_of(judged))
    return outputs


def score(table: PairTable, outputs) -> evaluation.Score:
    return calibration.score(table.labels, outputs)


@dataclass
class HeldOut:
    """Leave one set out: each set's model fit on the others, and its figures under the
    thresholds chosen."""

    models: dict[str, dict]
    thresholds: dict[str, float]
    figures: dict[str, Figures]
    apart_temperature: float  # held_out.apart_temperature

    @property
    def pooled(self) -> Figures:
        return self.pooled_over(self.figures)

    def pooled_over(self, names) -> Figures:
        return sum((self.figures[name] for name in names), Figures())


def leave_one_set_out(
    tables: list[PairTable],
    base: Thresholds,
    *,
    c_related: float = 1.0,
    c_disagree: float = 1.0,
    committee: bool = True,
    on_progress: Callable[[str], None] | None = None,
) -> HeldOut:
    """Fit without each set, hold back its readings of two facts as the held-out sets bear
    out (held_out.apart_temperature), choose the thresholds on the held-out figures (the
    lowest that keeps the proposed tier's precision at the targets, pooled and on the sets'
    mean, and an automatic threshold under which no held-out automatic merge was unsafe),
    and score each set under them.

    With `committee`, each model doubts with its committee (fits_leaving_out) and its
    unseen features. The thresholds are chosen on each model's own say: doubt only takes
    a pair out of a tier, never puts one in (docs/detection.md: chosen on a doubting
    model, they let paraphrases of one value in as conflicts). A target must hold on the
    sets' mean as well as pooled, the pool being the largest sets' say."""
    models = fits_leaving_out(
        tables, c_related=c_related, c_disagree=c_disagree, committee=committee
    )
    apart = held_out.apart_temperature(tables, models)
    models = {name: {**stored, "apart_temperature": apart} for name, stored in models.items()}
    own = {name: pair_model.undoubted(stored) for name, stored in models.items()}
    # Every grid value is tried with the others at their floors.
    chosen = {
        "propose_one": 0.5,
        "propose_conflict": 0.5,
        "possible_one": POSSIBLE_FLOOR,
        "possible_conflict": POSSIBLE_FLOOR,
        "auto_confidence": 0.5,
    }

    def figures_under(values: dict[str, float], models: dict[str, dict]) -> dict[str, Figures]:
        thresholds = dataclasses.replace(base, **values)
        found = {}
        for table in tables:
            model = with_thresholds(models[table.name], values)
            outputs = replan(table, model, thresholds)
            found[table.name] = Figures.of(
                score(table, outputs), score(table, calibration.with_possible(outputs))
            )
        return found

    for name, precision, target, floor in (
        ("propose_one", "precision", TARGET_ONE, 0.0),
        ("propose_conflict", "conflict_precision", TARGET_CONFLICT, FLOOR_CONFLICT),
    ):
        for value in GRID:
            trial = {**chosen, name: value}
            found = figures_under(trial, own)
            if on_progress:
                on_progress(f"{name} {value}: {sum(found.values(), Figures()).line()}")
            if _reaches(found, precision, target, floor):
                chosen[name] = value
                break
        else:
            chosen[name] = GRID[-1]
    # An automatic merge is at least as sure as a proposal, and right every time on every
    # held-out set (generated ones too).
    for value in [v for v in GRID if v >= chosen["propose_one"]]:
        trial = {**chosen, "auto_confidence": value}
        if on_progress:
            on_progress(f"auto_confidence {value}")
        every = sum(figures_under(trial, own).values(), Figures())
        if every.unsafe == 0 and every.automatic_precision >= 1.0:
            chosen["auto_confidence"] = value
            break
    else:
        chosen["auto_confidence"] = 1.0
    chosen = {name: float(value) for name, value in chosen.items()}
    return HeldOut(models, chosen, figures_under(chosen, models), apart)


def _reaches(found: dict[str, Figures], precision: str, target: float, floor: float) -> bool:
    """Whether held-out `precision` reaches `target` pooled and on the mean, `floor` on each."""
    chosen_on = [f for n, f in found.items() if n in CHOOSING_SETS]
    pooled = getattr(sum(chosen_on, Figures()), precision)
    each = [getattr(f, precision) for f in chosen_on]
    return pooled >= target and float(np.mean(each)) >= target and min(each) >= floor


def stored_form(
    tables: list[PairTable],
    found: HeldOut,
    *,
    c_related: float,
    c_disagree: float,
    command: str,
    llm_temperature: float = 1.0,
) -> dict:
    """What pair_model.json holds: the weights fit on every set, the thresholds chosen
    leave-one-set-out, and where they came from."""
    import scipy

    stored = fit(tables, c_related=c_related, c_disagree=c_disagree)
    if any("committee" in model for model in found.models.values()):
        stored = pair_model.with_committee(stored, found.models)
    else:
        stored = pair_model.undoubted(stored)
    return {
        "about": (
            "The pair model of curation/detection/scoring/model.py: two logistic stages "
            "over the evidence features of curation/detection/comparing/evidence.py. "
            "Written by the command below; do not edit by hand."
        ),
        "command": command,
        "fitted_on": {t.name: len(t.classes) for t in tables},
        "fitted": {
            "library": f"scipy {scipy.__version__} L-BFGS-B: L2-regularised logistic "
            "regression with each weight bounded to its sign",
            "c_related": c_related,
            "c_disagree": c_disagree,
            "weights": "each labelled set the same in all",
        },
        "features": stored["features"],
        "stages": stored["stages"],
        **({"committee": stored["committee"]} if "committee" in stored else {}),
        "thresholds": found.thresholds,
        "apart_temperature": found.apart_temperature,
        "llm_temperature": llm_temperature,
        "held_out": {
            "how": "leave one set out: each set planned by a model fit on the others, "
            "scored on its proposed tier; the thresholds are the lowest whose pooled "
            f"figures over {', '.join(CHOOSING_SETS)} reach the targets",
            "targets": {"one_fact_precision": TARGET_ONE, "conflict_precision": TARGET_CONFLICT},
            "pooled": found.pooled.as_dict(),
            "sets": {name: f.as_dict() for name, f in found.figures.items()},
        },
    }


def write(stored: dict, path: Path = pair_model.MODEL_PATH) -> None:
    path.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
