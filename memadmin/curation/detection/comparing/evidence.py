"""What every reader finds about a candidate pair, as numbers a calibrated model weighs
(curation.detection.scoring): both models' cosines, the lexical scores, and each
reader's finding (the clause readings' relation, key-token differences, polarity,
change cues, subjects, parallel things, words in the same roles), with the rules' own
reading of the pair (curation.detection.comparing.rules) as three of them.

No finding decides here: a reader that says "two subjects" or "one slot, two values"
moves the probabilities by the weight the labelled pairs gave it, and the findings are
also kept as phrases a reviewer reads ("different values: Azure / Fly.io").

Every reader runs on every pair (none is skipped because another already spoke), so a
feature means one thing whatever the others found; the readers cache per text and per
pair (store.text.text_cache), and the rules already asked most of them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from memadmin.curation.detection.comparing import (
    alignment,
    contrast,
    frames,
    matching,
    order,
    relations,
    things,
)
from memadmin.curation.detection.comparing.rules import RuleReading
from memadmin.curation.detection.comparing.things import legal_forms_differ, one_form_two_ways
from memadmin.curation.detection.reading import clause, keytokens, polarity, roles
from memadmin.curation.detection.reading.tokens import content_words
from memadmin.store.lexicon import languages_differ
from memadmin.store.text import short

# Kinds of key token, as the features group them.
_WHEN = frozenset({"date", "weekday", "month", "time"})
_NUMBERS = frozenset({"number", "quantity"})
_IDENTIFIERS = frozenset({"version", "host", "ip", "env", "compound"})

# The features, in the order of the model's weights (curation/detection/scoring/pair_model.json).
# A feature's name says what it is; a change here is a new model: fit it again.
FEATURES = (
    "bias",
    "cosine",
    "cosine_above_0.6",
    "cosine_above_0.75",
    "cosine_above_0.85",
    "cosine_above_0.92",
    "multi_known",
    "multi_above_0.85",
    "multi_above_0.9",
    "multi_above_0.95",
    "across_multi_above_0.85",
    "across_multi_above_0.9",
    "containment",
    "containment_sq",
    "similarity",
    *(f"relation_{kind}" for kind in relations.KINDS),
    "relation_update",
    "differs_name",
    "differs_number",
    "differs_when",
    "differs_identifier",
    "differs_other",
    "differs_count",
    "one_slot",
    "slot_overlap",
    "opposed",
    "newer_announces_change",
    "older_announces_change",
    "different_subjects",
    "different_things",
    "words_in_order",
    "same_words_same_roles",
    "same_words_other_roles",
    "across_languages",
    "across_scripts",
    "unread_across",
    "lexical_only",
    "both_short",
    "length_ratio",
    "both_about_user",
    "one_names_a_subject",
    "subjects_agree",
    "subjects_differ",
    "names_differ",
    "alignment",
    "alignment_unknown",
    "one_adds_nothing",
    "shared_share",
    "added_most",
    "added_least",
    "one_word_each",
    "names_swapped_in",
    "modifier_differs",
    "values_and_more",
    "frame_overlap",
    "frame_identical",
    "frame_x_same_names",
    "other_frame_same_names",
    "spans_differ",
    "one_span_replaced",
    "span_opens",
    "span_closes",
    "subject_swapped",
    "value_swapped",
    "new_value_same_frame",
    "new_value_other_frame",
    "value_and_thing_differ",
    "value_in_other_words",
    "nearest_of_one",
    "nearest_of_both",
    "nearest_of_none_else",
    "no_difference_read",
    "subject_extra",
    "new_value_x_added",
    "signs_differ",
    "events_differ",
    "differs_x_cosine",
    "conflict_reading_x_cosine",
    "two_subjects_x_cosine",
    "rule_review",
    "rule_conflict",
    "rule_apart",
)
INDEX = {name: position for position, name in enumerate(FEATURES)}
# What a pair's neighbours say of it: set once every candidate of a namespace is read.
NEIGHBOURHOOD = ("nearest_of_one", "nearest_of_both", "nearest_of_none_else")


@dataclass(frozen=True)
class Evidence:
    """A pair's features (FEATURES order, read-only) and what the readers found, as
    phrases; `differing` the values that differ, as the texts write them."""

    values: np.ndarray
    findings: tuple[str, ...]
    differing: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.values.flags.writeable = False

    def with_neighbourhood(self, nearest_of: int, alone: bool) -> Evidence:
        """This evidence with the neighbourhood features: the pair is the closest
        candidate of `nearest_of` of its two memories, and `alone`, the only candidate
        of both."""
        values = self.values.copy()
        values[INDEX["nearest_of_one"]] = float(nearest_of >= 1)
        values[INDEX["nearest_of_both"]] = float(nearest_of == 2)
        values[INDEX["nearest_of_none_else"]] = float(alone)
        return replace(self, values=values)


# The hinges of each cosine, with their features' names (spelled once, not per pair).
_COSINE_HINGES = [(t, f"cosine_above_{t}") for t in (0.6, 0.75, 0.85, 0.92)]
_MULTI_HINGES = [(t, f"multi_above_{t}") for t in (0.85, 0.9, 0.95)]
_ACROSS_HINGES = [(t, f"across_multi_above_{t}") for t in (0.85, 0.9)]


# The multilingual cosine of two sentences of two languages from which the model alone is
# sure they say one thing: translations score 0.86-0.98, but two facts of one kind too up
# to 0.91 ("Joue du violon." / "Plays the cello." 0.90), where no reader compares a word.
SURE_ACROSS = 0.93


def _blind_across(pair: _Pair, multi: float | None) -> bool:
    """Two languages, the clauses unread, no value or name both write ("Montag um 10 Uhr"
    / "Monday at 10 am" share two) and the multilingual model not sure alone: what the
    evidence says of one subject is the embeddings' guess."""
    if not pair.across or (multi or 0.0) >= SURE_ACROSS:
        return False
    return not keytokens.key_tokens(pair.reading_a.body) & keytokens.key_tokens(pair.reading_b.body)


def _above(value: float, threshold: float) -> float:
    """How far a cosine is above a threshold, as a share of the way to 1 (0 to 1, like
    every feature: the fit's penalty on weights then treats them alike)."""
    return max(0.0, value - threshold) / (1.0 - threshold)


@dataclass(frozen=True)
class _Pair:
    """What every section of the evidence reads of a pair."""

    a: object
    b: object
    reading_a: clause.Reading
    reading_b: clause.Reading
    rules: RuleReading
    cosine: float  # MiniLM's, or the lexical score for text MiniLM cannot read
    across: bool  # two languages
    both_short: bool

    @property
    def bodies(self) -> tuple[str, str]:
        return self.reading_a.body, self.reading_b.body


def read_pair(
    a, b, rules: RuleReading, *, multi: float | None, tfidf, user_names=frozenset()
) -> Evidence:
    """The evidence of a pair (`a` the older memory; `rules` what the rules read of it;
    `multi` the multilingual cosine or None; `tfidf` the namespace's term weights). Its
    neighbourhood features are 0 until the namespace's candidates are all read
    (Evidence.with_neighbourhood)."""
    reading_a, reading_b = roles.read_both(a.content, b.content)
    pair = _Pair(
        a,
        b,
        reading_a,
        reading_b,
        rules,
        rules.cosine if rules.method != "lexical" else rules.similarity,
        languages_differ(a.content, b.content),
        short(a.content) and short(b.content),
    )
    # The features found, by name (those not found are 0), made an array at the end.
    found: dict[str, float] = {}
    findings: list[str] = []
    _similarities(pair, multi, found)
    relation = rules.relation or frames.compare(reading_a, reading_b, user_names=user_names)
    found[f"relation_{relation.kind}"] = 1.0
    if relation.update:
        found["relation_update"] = 1.0
    if relation.kind not in (relations.UNREAD, relations.SAME):
        findings.append(relation.said())
    elif relation.kind == relations.UNREAD and _blind_across(pair, multi):
        found["unread_across"] = 1.0  # only doubts (scoring.model.BLIND)
    differences, differing = _values(pair, tfidf, found, findings)
    opposed = _stances(pair, relation, differences, found, findings)
    same_names = _words(pair, found, findings)
    if found.get("same_words_other_roles") and relation.kind != relations.UNREAD:
        # "Léa remplace Hugo le lundi." / "Hugo remplace Léa le lundi.": the clause reader
        # finds each word in the other and reads the same, or one slot's two values.
        del found[f"relation_{relation.kind}"]
        found["relation_unread"] = 1.0
    only_a, only_b = _added_words(pair, relation, differences, found)
    _frames_and_spans(pair, relation, same_names, found)
    aligned = _alignment(only_a, only_b, a.content, b.content)
    if aligned is None:
        found["alignment_unknown"] = 1.0
    elif aligned < 0:
        found["one_adds_nothing"] = 1.0
    else:
        found["alignment"] = aligned
    _what_could_disagree(pair, relation, differences, opposed, found)
    values = np.zeros(len(FEATURES), dtype=np.float64)
    values[[INDEX[name] for name in found]] = list(found.values())
    return Evidence(values, tuple(dict.fromkeys(findings)), differing)


def _similarities(pair: _Pair, multi: float | None, found: dict) -> None:
    """Both models' cosines (the multilingual one across languages apart), the lexical
    containment and the combined similarity."""
    rules = pair.rules
    found["bias"] = 1.0
    found["cosine"] = pair.cosine
    for threshold, name in _COSINE_HINGES:
        found[name] = _above(pair.cosine, threshold)
    if multi is not None:
        found["multi_known"] = 1.0
        for threshold, name in _MULTI_HINGES:
            found[name] = _above(multi, threshold)
        if pair.across:
            # Across languages MiniLM cannot read one side: the multilingual model is the
            # similarity there (within one language its compressed scale says little).
            for threshold, name in _ACROSS_HINGES:
                found[name] = _above(multi, threshold)
    found["containment"] = rules.lexical
    found["containment_sq"] = rules.lexical**2
    found["similarity"] = rules.similarity


def _values(pair: _Pair, tfidf, found: dict, findings: list) -> tuple[tuple, tuple[str, ...]]:
    """The key tokens that differ, by kind, and how much of the texts agrees once they are
    set aside: (the differences, each as the texts write it)."""
    body_a, body_b = pair.bodies
    differences = contrast.key_token_differences(body_a, body_b)
    differing = []
    for difference in differences:
        kind = difference.kind.split(" ")[0]
        if kind == "name":
            found["differs_name"] = 1.0
        elif kind in _NUMBERS:
            found["differs_number"] = 1.0
        elif kind in _WHEN:
            found["differs_when"] = 1.0
        elif kind in _IDENTIFIERS:
            found["differs_identifier"] = 1.0
        else:
            found["differs_other"] = 1.0
        said = contrast.as_written(difference, body_a, body_b).split(": ", 1)[-1]
        differing.append(said)
        findings.append(f"different values: {said}")
    if matching.value_in_other_words(pair.reading_a, pair.reading_b):
        found["value_in_other_words"] = 1.0  # "3 h 45 min" / "225 minutes"
    found["differs_count"] = min(len(differences), 3)
    found["differs_x_cosine"] = pair.cosine if differences else 0.0
    if differences:
        overlap = pair.rules.slot_overlap
        if overlap is None:
            overlap = contrast.slot_overlap(body_a, body_b, differences, tfidf)
        found["slot_overlap"] = overlap
        if pair.rules.one_slot:
            found["one_slot"] = 1.0
    return differences, tuple(differing)


def _stances(pair: _Pair, relation, differences, found: dict, findings: list) -> str | None:
    """A stance one side reverses, change cues, two subjects, two things: the clash, if
    any."""
    body_a, body_b = pair.bodies
    # The rules' strict check of an automatic merge read the polarity already: none.
    strict = pair.rules.verdict == "auto_merge"
    opposed = None if strict else contrast.polarity_difference(body_a, body_b)
    if opposed:
        found["opposed"] = 1.0
        findings.append(f"one denies or reverses the other: {opposed}")
    if polarity.announces_change(body_a):
        found["older_announces_change"] = 1.0
    elif polarity.announces_change(body_b) and (
        differences or not matching.restated(pair.reading_a, pair.reading_b)
    ):
        # A change both tell is one change told twice ("Relocated to Madrid for work." /
        # "Moved to Madrid for a new job."): only the newer's own says the older is past.
        found["newer_announces_change"] = 1.0
        findings.append("the newer announces a change")
    subjects = contrast.different_subjects(body_a, body_b)
    if subjects or relation.kind == relations.OTHER_SUBJECT:
        found["different_subjects"] = 1.0
        found["two_subjects_x_cosine"] = pair.cosine
        if subjects:
            findings.append(
                f"{relations.WORDS[relations.OTHER_SUBJECT]}: {subjects[0]} / {subjects[1]}"
            )
    if differences or opposed:
        things = contrast.different_things(body_a, body_b)
        if things:
            found["different_things"] = 1.0
            findings.append(f"different things: {things}")
    if relation.kind in (relations.NEW_VALUE, relations.OPPOSITE):
        found["conflict_reading_x_cosine"] = pair.cosine
    return opposed


def _words(pair: _Pair, found: dict, findings: list) -> bool:
    """Words in order and in their roles, languages, lengths, and who each side is
    about: whether both name the same (or no) subjects and names."""
    reading_a, reading_b = pair.reading_a, pair.reading_b
    # What only short memories are read for (their frames, spans and word roles): in so
    # few words these say most; a long memory pays nothing for them.
    in_order = order.words_in_order(reading_a, reading_b)
    if in_order:
        found["words_in_order"] = 1.0
        if pair.rules.verdict == "auto_merge" or order.roles_kept(reading_a, reading_b):
            found["same_words_same_roles"] = 1.0
    elif (
        pair.both_short
        # A value in other words is a rewording, whose order tells no roles ("宽1.2米" /
        # "有120厘米宽": the unit's word stands elsewhere in each).
        and not found.get("value_in_other_words")
        and order.same_words(reading_a, reading_b)
        and not order.roles_kept(reading_a, reading_b)
    ):
        # "A is our champion at B" / "B is our champion at A": every word, two facts.
        found["same_words_other_roles"] = 1.0
        findings.append("the same words in other roles")
    if pair.across:
        found["across_languages"] = 1.0
    if matching.blind_to_one(pair.reading_a, pair.reading_b):
        found["across_scripts"] = 1.0
    if pair.rules.method == "lexical":
        found["lexical_only"] = 1.0
    if pair.both_short:
        found["both_short"] = 1.0
    length_a, length_b = len(reading_a.content) or 1, len(reading_b.content) or 1
    found["length_ratio"] = min(length_a, length_b) / max(length_a, length_b)
    if reading_a.about_user and reading_b.about_user:
        found["both_about_user"] = 1.0
    elif reading_a.about_user != reading_b.about_user and not matching.named_across_scripts(
        reading_a, reading_b
    ):
        found["one_names_a_subject"] = 1.0
    else:
        # Across languages only names can be compared (the words of two languages differ
        # whoever they are about); between Chinese characters and letters, the names in
        # letters against the other side romanised ("王伟" / "Wei").
        subject_a, subject_b = (
            _comparable(reading_a.subject_words, pair),
            _comparable(reading_b.subject_words, pair),
        )
        only_a, only_b = matching.one_name_aside(
            _missing(subject_a, reading_b), _missing(subject_b, reading_a), reading_a, reading_b,
            subject_a, subject_b,
        )  # fmt: skip
        if only_a and only_b and not things.may_be_one(reading_a, reading_b, only_a + only_b):
            found["subjects_differ"] = 1.0
            findings.append(
                f"{relations.WORDS[relations.OTHER_SUBJECT]}: "
                f"{matching.spelled(only_a)} / {matching.spelled(only_b)}"
            )
        elif not only_a and not only_b:
            found["subjects_agree"] = 1.0
        else:
            found["subject_extra"] = 1.0  # "Stock of the mug is 12" / "The mug is for the arm"
    names_a = _missing(_names(reading_a), reading_b)
    names_b = _missing(_names(reading_b), reading_a)
    if names_a and names_b:
        found["names_differ"] = 1.0
    return not (names_a or names_b) and not found.get("subjects_differ")


def _added_words(pair: _Pair, relation, differences, found: dict) -> tuple[list, list]:
    """The content words each side adds: how many, and whether they are one word each
    (a name swapped in, a modifier changed) or values with more besides."""
    a, b = pair.a, pair.b
    words_a, words_b = content_words(a.content), content_words(b.content)
    only_a, only_b = alignment.unshared(a.content, b.content)
    if len(only_a) == len(only_b) == 1 and one_form_two_ways(
        *only_a, *only_b, a.content, b.content
    ):
        only_a, only_b = [], []  # "Tom Inc." / "Tom Incorporated": one name written two ways
    longest = max(len(words_a), len(words_b)) or 1
    found["shared_share"] = (longest - max(len(only_a), len(only_b))) / longest
    found["added_most"] = min(max(len(only_a), len(only_b)), 4)
    found["added_least"] = min(min(len(only_a), len(only_b)), 4)
    if len(only_a) == len(only_b) == 1:
        found["one_word_each"] = 1.0
        if _written_as_name(only_a[0], a.content) and _written_as_name(only_b[0], b.content):
            found["names_swapped_in"] = 1.0  # "stages on Azure" / "stages on Hetzner"
        after_a, after_b = _next_word(only_a[0], words_a), _next_word(only_b[0], words_b)
        if (after_a and after_a == after_b) or (
            legal_forms_differ(*only_a, *only_b) and found.get("names_swapped_in")
        ):
            found["modifier_differs"] = 1.0  # "the small gripper pad" / "the glass gripper pad"
    if things.other_modifier_of_one_noun(pair.reading_a, pair.reading_b):
        found["modifier_differs"] = 1.0  # "on the blue motor" / "on the 12V motor"
    if relation.kind == relations.NEW_VALUE:
        found["new_value_x_added"] = min(min(len(only_a), len(only_b)), 4)
    if differences:
        # A value differs, and other words on both sides too: "15 N on the steel bracket"
        # / "20 N on the blue sensor" give two things their values, not one its new one.
        said = {
            word
            for d in differences
            for value in (*d.only_in_a, *d.only_in_b)
            for word in content_words(value)
        }
        if [w for w in only_a if w not in said] and [w for w in only_b if w not in said]:
            found["values_and_more"] = 1.0
    return only_a, only_b


def _frames_and_spans(pair: _Pair, relation, same_names: bool, found: dict) -> None:
    """What the two say of their subject with names and values taken out (one frame or
    two), and where a diff of their words replaces a span (at the start: two subjects;
    at the end: one slot's two values)."""
    a, b = pair.a, pair.b
    if pair.both_short:
        frame_a, frame_b = keytokens.frame_words(a.content), keytokens.frame_words(b.content)
        overlap = len(frame_a & frame_b) / len(frame_a | frame_b) if frame_a or frame_b else 1.0
    else:
        overlap = pair.rules.lexical  # the shared words, weighed: the frame of a long text
    found["frame_overlap"] = overlap
    if relation.kind == relations.NEW_VALUE:
        # "One value at a time" is read from the clause; it holds when both say it in one
        # frame ("lives in Lyon" / "lives in Lille"), hardly when the rest differs too
        # ("is a native of Ghent" / "is vegetarian": two attributes after one copula).
        found["new_value_same_frame"] = overlap
        found["new_value_other_frame"] = 1.0 - overlap
    if overlap == 1.0:
        found["frame_identical"] = 1.0
    # One subject is what both name alike (or neither names); one slot what both say of it
    # in the same frame. Either alone is weak in a store of many subjects: two customers
    # share every frame, one customer's plan and diet share a name.
    if same_names and not matching.scripts_differ(pair.reading_a, pair.reading_b):
        # Between Chinese characters and letters no frame is shared whatever they say:
        # the same names there (romanised) tell one subject, not another fact of it.
        found["frame_x_same_names"] = overlap
        if overlap < 0.5:
            found["other_frame_same_names"] = 1.0
    spans = alignment.differing_spans(a.content, b.content) if pair.both_short else []
    found["spans_differ"] = min(len(spans), 3)
    if len(spans) == 1 and spans[0][0] == "replace":
        # The texts are one sentence with one part said two ways: at its start, two
        # subjects ("Lea K. lives in Turin" / "Lea M. lives in Turin"); at its end, one
        # slot's two values ("The staging target is Azure" / "... is Fly.io").
        _, start, end, length = spans[0]
        found["one_span_replaced"] = 1.0
        if start == 0:
            found["span_opens"] = 1.0
        if end == length:
            found["span_closes"] = 1.0
        if start == 0 and end < length:
            found["subject_swapped"] = 1.0
        elif start > 0 and end == length and not found.get("modifier_differs"):
            found["value_swapped"] = 1.0  # not a modifier at the end: "at Tom Inc." / "Ltd."
    if found.get("values_and_more") and len(spans) >= 2:
        # A value and, elsewhere in the sentence, another word each: two things with a
        # value each ("Use 20 N of grip force on the glass pad" / "... 15 N ... the blue
        # pad"), not one thing's value changed.
        found["value_and_thing_differ"] = 1.0


def _what_could_disagree(pair: _Pair, relation, differences, opposed, found: dict) -> None:
    """Signs and events on each side, whether any reader saw something that could
    disagree, and what the rules read (one fact, a conflict, two facts)."""
    reading_a, reading_b, rules = pair.reading_a, pair.reading_b, pair.rules
    if reading_a.sign != reading_b.sign:
        found["signs_differ"] = 1.0
    if reading_a.event != reading_b.event:
        found["events_differ"] = 1.0
    if not (
        differences
        or opposed
        or found.get("newer_announces_change")
        or relation.kind in (relations.NEW_VALUE, relations.OPPOSITE, relations.OTHER_VALUE)
        or reading_a.sign != reading_b.sign
    ):
        # No reader saw anything that could disagree: no value, sign, change or slot.
        found["no_difference_read"] = 1.0
    if rules.verdict in ("review", "auto_merge"):
        found["rule_review"] = 1.0
    elif rules.verdict == "conflict":
        found["rule_conflict"] = 1.0
    elif rules.never_together:
        found["rule_apart"] = 1.0


def neighbourhoods(pairs: dict) -> dict:
    """The neighbourhood of each of a namespace's read pairs ({(i, j): rules}, in the
    order they were read): {(i, j): (how many of its two memories it is the closest
    candidate of, whether it is the only candidate of both)}. A paraphrase is usually
    the closest of both; among many memories of one kind, the nearest of each is often
    another subject's; and the only candidate of both is the closest by default, which
    says nothing. Closeness is the embedding cosine (the lexical score for text the
    model cannot read); of two as close, the first read."""
    best: dict[int, tuple[float, tuple[int, int]]] = {}
    seen: dict[int, int] = {}
    for key, rules in pairs.items():
        close = rules.similarity if rules.method == "lexical" else rules.cosine
        for end in key:
            seen[end] = seen.get(end, 0) + 1
            if end not in best or close > best[end][0]:
                best[end] = (close, key)
    return {
        key: (
            sum(best[end][1] == key for end in key if end in best),
            all(seen.get(end, 0) == 1 for end in key),
        )
        for key in pairs
    }


def _comparable(subject_words, pair: _Pair) -> list:
    return [t for t in subject_words if t.kind == "name"] if pair.across else list(subject_words)


def _names(reading_) -> list:
    """The tokens of a reading that name something: a name, or a capital after the first
    word."""
    return [t for t in reading_.content if t.kind == "name" or (t.upper and t.start > 0)]


def _missing(found, other) -> list:
    """The tokens (of `found`) the other reading has no counterpart of."""
    return [t for t in found if not matching.found_in(t, other)]


# Unshared words beyond this many a side are a rewording or another fact altogether: the
# word vectors are not asked (each new word costs a MiniLM call).
_ALIGN_WORDS = 6


def _next_word(word: str, words: list[str]) -> str:
    """The content word after `word` in a text's content words, or ""."""
    at = words.index(word) if word in words else -1
    return words[at + 1] if 0 <= at < len(words) - 1 else ""


def _written_as_name(word: str, text: str) -> bool:
    """Whether the text writes this (folded) word with a capital, after its first word."""
    for index, raw in enumerate(text.split()):
        if index and raw[:1].isupper() and raw.strip(".,;:!?()'\"").lower() == word:
            return True
    return False


def _alignment(only_a: list[str], only_b: list[str], text_a: str, text_b: str) -> float | None:
    """How alike in kind the words each text adds are (curation.detection.comparing.alignment):
    synonyms or two values of one slot score high, two attributes low; -1 when one side
    adds nothing; None when there are too many to ask."""
    if not only_a or not only_b:
        return -1.0
    if len(only_a) > _ALIGN_WORDS or len(only_b) > _ALIGN_WORDS:
        return None
    return alignment.word_alignment(text_a, text_b)
