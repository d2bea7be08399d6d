"""The pair model: calibrated probabilities of one fact, a conflict and two facts, from
what the readers found (curation.detection.comparing.evidence).

The model has two logistic stages, each over its own part of the evidence, because that
is how the question splits: do the two memories speak of the same subject and slot
(`related`: the cosines, the lexical scores, the subjects, the clause relation), and if
so, do they disagree (`disagree`: differing values, polarity, change cues)? Then

    P(one fact) = related x (1 - disagree)
    P(conflict) = related x disagree
    P(two facts) = 1 - related

The related stage doubts with a committee (`fit_pair_model` fits it; `--no-committee`
measures the model alone: docs/detection.md): its members are the models fit leaving
one labelled set out each, and where one of them reads a pair on the other side of an
even chance, the stage stands at an even chance. A pair whose reading rests on one
set's habits (one set taught that a reader outweighs the embeddings) is doubtful, not
sure. So is a pair showing a feature that too few of the pairs the stage was fit on
showed (UNSEEN_BELOW) against the side the stage reads. Held out, they take the pairs
read surely wrong from 93 to 65.

Where the related stage reads the two as apart (its log-odds below an even chance), they
are divided by the model's `apart_temperature` before they are read as a probability.
No tier is chosen on that side, so nothing held its sureness to account: fit on sets
that share their writers' habits, it read paraphrases in other words as two facts at
0.9 and more on a store written by others. The temperature is the least under which a
pair read two facts at 0.8 or more is wrong at most one time in five on every labelled
set held out; the side the tiers are chosen on is left as it is (docs/detection.md).

The weights are data (pair_model.json beside this module), fit on labelled pairs (a
logistic fit: `manage.py fit_pair_model`, curation.learning.fitting) and judged leave one
set out; the file keeps the command, the training sets and the held-out figures with
them. The run applies them with numpy: nothing learned is a number in code. What a pair
becomes from its probabilities is curation.detection.scoring.judgement's to say.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from django.core.exceptions import ImproperlyConfigured

from memadmin.curation.detection.comparing import relations
from memadmin.curation.detection.comparing.evidence import FEATURES, INDEX

MODEL_PATH = Path(__file__).with_name("pair_model.json")


@dataclass(frozen=True)
class Stage:
    """One logistic stage: the features it reads (positions in FEATURES), its weights
    and intercept, and its committee's (a row each: the fits leaving one set out)."""

    name: str
    features: tuple[str, ...]
    positions: np.ndarray
    weights: np.ndarray
    intercept: float
    committee_weights: np.ndarray  # members x features
    committee_intercepts: np.ndarray  # members (none: the stage's own log-odds alone)
    # The features fewer than UNSEEN_BELOW of the pairs it was fit on showed (none where
    # the stored model keeps no counts): their weights say nothing the data taught.
    unseen: np.ndarray
    # The side each feature speaks for by its meaning (+1 related, -1 apart; 0 where the
    # stored model does not say): an unseen feature doubts only a reading it speaks against.
    signs: np.ndarray

    def own_logit(self, values: np.ndarray) -> np.ndarray:
        """The log-odds of the model fit on every set alone."""
        return values[..., self.positions] @ self.weights + self.intercept

    def logit(self, values: np.ndarray) -> np.ndarray:
        """The model's own log-odds where every member of its committee reads the pair on
        the same side of an even chance, an even chance (0) where one reads the other
        way or the pair shows a feature too few of the fit's pairs showed (`unseen`)
        against the side the model reads: "one value in other words" (rare in the sets)
        doubts a reading of two facts, not one of one fact it would only make surer.
        Held out, taking the least sure member's log-odds instead took 20 more errors
        away but its proposals needed lower thresholds, where paraphrases of one value
        ("Relocated to Madrid for work." / "Moved to Madrid for a new job.") were
        proposed as conflicts (docs/detection.md)."""
        own = self.own_logit(values)
        read = values[..., self.positions]
        if len(self.unseen):
            # Shown, and speaking for the other side (or for neither it is known to).
            against = read * self.signs * np.sign(own)[..., None] <= 0.0
            doubted = (read != 0.0) & against & self.unseen
            own = np.where(np.any(doubted, axis=-1), 0.0, own)
        if not len(self.committee_intercepts):
            return own
        members = read @ self.committee_weights.T + self.committee_intercepts
        agreed = np.all(np.sign(members) == np.sign(own)[..., None], axis=-1)
        return np.where(agreed, own, 0.0)

    def doubt(self, values: np.ndarray) -> float:
        """How far the committee moved one pair's log-odds towards an even chance."""
        return float(self.logit(values) - self.own_logit(values))

    def contributions(self, values: np.ndarray) -> list[tuple[str, float]]:
        """Each feature's share of the logit for one pair, largest first (zeros left
        out): what moved the probability."""
        shares = values[self.positions] * self.weights
        order = np.argsort(-np.abs(shares))
        return [(self.features[i], float(shares[i])) for i in order if shares[i] != 0.0]


@dataclass(frozen=True)
class PairModel:
    related: Stage
    disagree: Stage
    thresholds: dict[str, float]
    about: dict
    # How much surer the model is than it has a right to be on a set it never saw: the
    # LLM band weighs an answer against the model's probabilities tempered by it
    # (curation/llm/band.py; chosen leave one set out: curation.learning.held_out.band_temperature).
    llm_temperature: float = 1.0
    # What the related stage's log-odds below an even chance are divided by (see the
    # module's docstring; chosen leave one set out: curation.learning.held_out.apart_temperature).
    apart_temperature: float = 1.0

    def probabilities(self, values: np.ndarray, temperature: float | None = None) -> np.ndarray:
        """(P(one fact), P(conflict), P(two facts)) of one pair's evidence values, or of
        each row of a matrix of them: the related stage held back where it reads the two
        apart (`apart_temperature`); with a `temperature` (the LLM band's), each stage's
        logit divided by that instead (less sure, the order of pairs unchanged)."""
        related, disagree = self.related.logit(values), self.disagree.logit(values)
        if temperature is None:
            related = related + self.held_back(related)
        else:
            related, disagree = related / temperature, disagree / temperature
        related, disagree = _sigmoid(related), _sigmoid(disagree)
        return np.stack([related * (1.0 - disagree), related * disagree, 1.0 - related], axis=-1)

    def held_back(self, related_logit):
        """What `apart_temperature` takes off the related stage's log-odds (0 where they
        are at an even chance or above)."""
        below = np.minimum(related_logit, 0.0)
        return below / self.apart_temperature - below


def _sigmoid(logit):
    return 1.0 / (1.0 + np.exp(-np.clip(logit, -40.0, 40.0)))


def from_dict(data: dict) -> PairModel:
    """A model from its stored form (the JSON of pair_model.json)."""
    if list(data.get("features", [])) != list(FEATURES):
        raise ImproperlyConfigured(
            f"{MODEL_PATH.name} was fit on other evidence features than "
            "curation.detection.comparing.evidence reads: fit it again (manage.py fit_pair_model)"
        )

    committee = data.get("committee", [])

    def stage(name: str) -> Stage:
        stored = data["stages"][name]
        names = tuple(stored["features"])
        members = [member["stages"][name] for member in committee if name in member["stages"]]
        if any(member["features"] != stored["features"] for member in members):
            raise ImproperlyConfigured(
                f"{MODEL_PATH.name}: a committee member's {name} stage reads other features"
            )
        if len(stored.get("signs", names)) != len(names):
            raise ImproperlyConfigured(
                f"{MODEL_PATH.name}: the {name} stage's signs are not its features'"
            )
        return Stage(
            name,
            names,
            np.array([INDEX[f] for f in names], dtype=np.int64),
            np.array(stored["weights"], dtype=np.float64),
            float(stored["intercept"]),
            np.array([m["weights"] for m in members], dtype=np.float64).reshape(
                len(members), len(names)
            ),
            np.array([m["intercept"] for m in members], dtype=np.float64),
            (np.array(stored["shown"], dtype=np.int64) < UNSEEN_BELOW) | np.isin(names, BLIND)
            if "shown" in stored and name in DOUBTED_STAGES
            else np.zeros(0, dtype=bool),
            np.array(stored.get("signs", [0] * len(names)), dtype=np.float64),
        )

    return PairModel(
        stage("related"),
        stage("disagree"),
        {k: float(v) for k, v in data["thresholds"].items()},
        {
            k: v
            for k, v in data.items()
            if k not in ("stages", "thresholds", "features", "committee")
        },
        float(data.get("llm_temperature", 1.0)),
        float(data.get("apart_temperature", 1.0)),
    )


# A doubted stage stands at an even chance on a pair showing a feature fewer than this
# many of the pairs it was fit on showed (the rule of thumb of ten events a variable for
# a logistic fit): that feature's weight is the prior's, not the data's, and the rest of
# the evidence would decide alone what the reading changes. The committee's doubt one
# level down: held out, a set's own readings (the same words in other roles, taught by
# the minimal pairs) are shown by a few pairs of the others, and the held-out model read
# them surely wrong where the shipped model, with its committee, doubts them. Every
# feature of the shipped model was shown by 17 pairs or more; it guards the readings a
# later fit has too few pairs of.
UNSEEN_BELOW = 10


# The stages a committee and UNSEEN_BELOW doubt: whether two memories speak of one
# subject and slot, where the readers are blind past their sets. Whether two such
# memories disagree stays the model's own say: committee-doubted too, held out, it took
# 3 more confident errors away and left a changed value of one slot ("The staging target
# is Azure." / "... is Fly.io.") no longer a proposed conflict; doubted for its unseen
# features, none, and left a dev conflict of two identifiers (shown by 2 related pairs)
# undecided.
DOUBTED_STAGES = ("related",)

# What a doubted stage doubts however many pairs showed it: where no reader reads both
# sides (Chinese, Japanese or Korean on one side only, or a language none reads, such as
# Dutch or Polish: store.lexicon.UNREAD_LANGUAGES), what the rest of the evidence
# says of one subject and slot is the embeddings' guess and the readers' blindness
# ("neither could be read" weighed -2.8 towards two facts; without it, "Yuki works
# remotely from Fukuoka." / "健太は福岡からリモートで働いている。" was one fact at 0.80).
# Nor where two languages' clauses were read and nothing in them compared
# (evidence.SURE_ACROSS: "Joue du violon." / "Plays the cello." was one fact at 0.80, on
# the multilingual model's say alone). Their weights are held at 0.
BLIND = ("across_scripts", "unread_across")


def with_committee(stored: dict, members: dict[str, dict]) -> dict:
    """A stored model with its committee (Stage.logit): `members` by the set each leaves
    out, their DOUBTED_STAGES' weights kept (a member's own counts doubt nothing)."""
    committee = [
        {"left_out": name, "stages": {s: undoubted(m)["stages"][s] for s in DOUBTED_STAGES}}
        for name, m in members.items()
    ]
    return {**stored, "committee": committee}


def undoubted(stored: dict) -> dict:
    """A stored model without its doubts: no committee, no counts of what its pairs
    showed (the model's own say, as `--no-committee` measures it)."""
    stages = {
        name: {k: v for k, v in stage.items() if k != "shown"}
        for name, stage in stored["stages"].items()
    }
    return {**{k: v for k, v in stored.items() if k != "committee"}, "stages": stages}


@lru_cache(maxsize=1)
def stored_model() -> PairModel:
    """The fitted model shipped with memadmin (read once a process)."""
    return from_dict(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


def stored_threshold(name: str) -> float:
    """A tier threshold as the fit chose it (settings default to these)."""
    return float(json.loads(MODEL_PATH.read_text(encoding="utf-8"))["thresholds"][name])


# Every feature as a curator reads it (a relation's in the words relations gives it): the
# one table the evidence a page shows is worded from. Features read together in one
# phrase share their words (their shares add up on the page).
_SAID = {
    "cosine": "meaning alike (embeddings)",
    "multi_known": "short texts, read by the multilingual model too",
    "containment": "words they share",
    "containment_sq": "words they share",
    "similarity": "meaning and words alike",
    **{f"relation_{kind}": words for kind, words in relations.WORDS.items()},
    "relation_update": "the newer changes the older",
    "differs_count": "different values",
    "differs_x_cosine": "different values",
    "one_slot": "the same slot with its value set aside",
    "slot_overlap": "the same slot with its value set aside",
    "opposed": "one denies or reverses the other",
    "newer_announces_change": "the newer says something changed",
    "older_announces_change": "the older says something changed",
    "different_subjects": "different subjects",
    "two_subjects_x_cosine": "different subjects",
    "subjects_differ": "different subjects",
    "names_differ": "different names",
    "different_things": "different things",
    "words_in_order": "every word matched, in order",
    "same_words_same_roles": "names and values in the same roles",
    "same_words_other_roles": "the same words in other roles",
    "across_languages": "two languages",
    "across_scripts": "no reader reads both (Chinese, Japanese or Korean on one side only, "
    "or a language none reads)",
    "unread_across": "two languages, and no word the readers could compare",
    "lexical_only": "text the embeddings cannot read, compared word by word",
    "both_short": "both short",
    "length_ratio": "of a like length",
    "both_about_user": "both about the user",
    "one_names_a_subject": "only one names a subject",
    "subjects_agree": "the same subject",
    "subject_extra": "one names more of the subject",
    "alignment": "the words each adds mean alike",
    "alignment_unknown": "too many words added on each side to pair them up",
    "one_adds_nothing": "one adds nothing the other lacks",
    "shared_share": "words they share",
    "added_most": "words one side adds",
    "added_least": "words both sides add",
    "one_word_each": "one word differs on each side",
    "names_swapped_in": "a name swapped for another",
    "modifier_differs": "one thing told apart by its modifier",
    "values_and_more": "a value and more words differ",
    "value_and_thing_differ": "a value and the thing it belongs to differ",
    "frame_overlap": "said the same way, names and values set aside",
    "frame_identical": "said the same way, names and values set aside",
    "frame_x_same_names": "said the same way, of the same names",
    "other_frame_same_names": "said another way, of the same names",
    "new_value_same_frame": "one value changed in the same sentence",
    "new_value_other_frame": "one value changed, the rest said otherwise",
    "new_value_x_added": "one value changed, words added",
    "conflict_reading_x_cosine": "one slot, two values, meaning alike",
    "spans_differ": "places where the sentences differ",
    "one_span_replaced": "one part of the sentence said two ways",
    "span_opens": "the sentences differ at their start",
    "span_closes": "the sentences differ at their end",
    "subject_swapped": "the sentences differ in who they are about",
    "value_swapped": "the sentences differ in their last value",
    "value_in_other_words": "one value in other words",
    "nearest_of_one": "the closest memory of one side",
    "nearest_of_both": "each other's closest memory",
    "nearest_of_none_else": "no other memory near either",
    "no_difference_read": "nothing that could disagree",
    "signs_differ": "one says not",
    "events_differ": "one tells an event, the other a state",
    "rule_review": "the rules read one fact",
    "rule_conflict": "the rules read a conflict",
    "rule_apart": "the rules read two facts",
    "doubt": "doubt: a reading too few examples taught, or one set alone",
    "held_back": "held back: no surer of two facts than stores it was not fit on bear out",
}


def said(feature: str) -> str:
    """A feature's name as a curator reads it."""
    if feature.startswith(("cosine_above", "multi_above", "across_multi_above")):
        return "meaning alike (embeddings)"
    if feature.startswith("differs_"):
        return "different values"
    return _SAID.get(feature, feature.replace("_", " "))
