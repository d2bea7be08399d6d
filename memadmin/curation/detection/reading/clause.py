"""Reading a memory as one clause: who it is about, what is said of them (the predicate
and what follows it), whether it is asserted or denied, whether it announces a change,
and whether it tells an event or a state.

Memories are short ("Loves cheese pizza": no subject, the user; "On 3 May the user said
that Tom works at Siemens"), and no parser runs offline here: the reading is built from
lemmas (simplemma; jieba's words for Chinese), the values reading.keytokens finds and the
predicate classes of store/lexicon.toml. What no class names is read by its form: the
first word of a memory with no subject ("Plays chess"), or the word after a named or
pronoun subject, is its predicate. Pure functions of text, cached: read once a run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property

from memadmin.curation.detection.reading import german, polarity, quantities
from memadmin.curation.detection.reading.ages import ages_read, length_said, measure_said
from memadmin.curation.detection.reading.bounds import body_of, clause_break, set_apart
from memadmin.curation.detection.reading.neighbours import QUANTITY_BOUND
from memadmin.curation.detection.reading.verbs import (
    been_to,
    inside_a_compound,
    moved,
    past_event,
    phrase_words,
    phrased,
    reduced_relative,
    unsaid_copula,
    value_given,
    verb_after,
    verb_form,
)
from memadmin.curation.detection.reading.words import (
    CHINESE_VERBS,
    PredicateClass,
    Token,
    class_of,
    classes,
    is_copula,
    lemma,
    per_language,
    predicate_class,
    relation_word,
    same_class,
    tokens,
)
from memadmin.store.lexicon import HAN, UNREAD_LANGUAGES, fold, language_of, words
from memadmin.store.text import text_cache

# --- The reading ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    text: str
    language: str
    body: str  # the text without its reporting preamble
    said_when: str  # the preamble set aside ("as of 2026-02-01,")
    label: str  # a label before the clause ("Safety rule:"), part of the body
    tokens: tuple[Token, ...]
    predicate_at: int  # index into tokens; -1 when no predicate was found
    predicate: PredicateClass | None
    subject_end: int  # tokens[:subject_end] hold the subject (before the predicate)
    stance: int  # +1 liking, -1 disliking, 0 neither (before negation)
    negated: bool
    ceased: bool  # quit, sold, gave up, changed one's mind
    change: bool  # the text announces a change
    event: bool  # something happened (past tense), not a state
    recommended: bool  # someone else's suggestion or gift
    clause_end: int  # tokens[:clause_end] are the main clause
    opening: bool  # the clause opens with a preposition ("After 40 min, ..."): no subject first
    # What a negation set apart after the clause denies ("uses pnpm, not npm": npm).
    denied: tuple[Token, ...] = ()
    # tokens[:subject_start] are a fragment with no verb set apart before the clause
    # ("Allergic to cats, prefers dogs"): neither its subject nor what it says.
    subject_start: int = 0
    # Below: worked out once a reading (cached_property writes past the frozen dataclass).

    @property
    def sign(self) -> int:
        """+1 asserted, -1 denied. A negation or a cessation denies (both at once, as in
        "decided against", still once); a negative stance flips ("doesn't hate")."""
        sign = -1 if self.negated or self.ceased else 1
        return -sign if self.stance < 0 else sign

    @cached_property
    def words_found(self) -> dict[Token, bool]:
        """comparing.matching.found_in's answers about this reading, by the word asked."""
        return {}

    @cached_property
    def subject(self) -> tuple[Token, ...]:
        """The tokens before the predicate (none when no predicate was found), less a share
        it starts with ("50% of the budget": how much of it, a value)."""
        tokens = self.tokens[self.subject_start : self.subject_end]
        return tuple(
            t for t in tokens if t.kind not in ("function", "marker") and t not in self.share
        )

    @cached_property
    def share(self) -> tuple[Token, ...]:
        """The share the subject starts with ("50% of the budget", "half of the team",
        "about a third of the orders")."""
        tokens = self.tokens[self.subject_start : self.subject_end]
        first = [t for t in tokens if t.kind != "function"][:1]
        return tuple(first) if first and first[0].value.startswith("share:") else ()

    @cached_property
    def subject_words(self) -> tuple[Token, ...]:
        """The subject's content words, less a word that only names the predicate ("her
        home is in Lyon": lives; "Mum's birthday": born)."""
        nouns = classes()[1]
        return tuple(
            t
            for t in self.subject
            if t.content
            and not (self.predicate is not None and nouns.get(t.lemma) is self.predicate)
        )

    @property
    def about_user(self) -> bool:
        """No subject, the user, or a pronoun: the namespace's user (or someone the text
        does not name)."""
        return not self.subject_words

    @cached_property
    def objects(self) -> tuple[Token, ...]:
        """The content tokens of the main clause after the predicate, and a subject's share."""
        return self.share + tuple(
            t
            for index, t in enumerate(self.tokens[: self.clause_end])
            if index >= self.subject_end
            and (index != self.predicate_at or t.kind == "value")  # "女儿8岁": an age
            and t.content
            and not _is_class_word(t, self.predicate)
        )

    @cached_property
    def content(self) -> tuple[Token, ...]:
        """Every content token of the body (all clauses)."""
        return tuple(t for t in self.tokens if t.content)

    @cached_property
    def content_keys(self) -> frozenset[str]:
        """The keys of the content tokens: a word of another text with one of them is
        found here at once (matching.same_word holds for tokens of one key)."""
        return frozenset(t.key for t in self.content)


def _is_class_word(token: Token, predicate: PredicateClass | None) -> bool:
    """A word that only says which predicate it is (the stance word, "home" of "lives")."""
    if predicate is None:
        return False
    return same_class(class_of(token), predicate) or token.text in phrase_words(predicate.name)


def warm_up(languages: tuple[str, ...] = ("en",)) -> None:
    """Load what reading most texts needs (simplemma's English dictionary, the unit
    table), so that worker processes forked after this share it. The German and French
    dictionaries (2.3 s and 0.4 s to load whole) wait for a text in their language; a
    note with no function word, whose language all three tell, loads their low-memory
    form (1.4 s for the three: store.lexicon). A store in English has such notes: each
    worker of bench/many_subjects.py loads them once, side by side, which costs a run no
    more time than loading them here first. A web server loads them all as it starts
    (`languages`): a person's decision that judges a pair again must not wait for them."""
    for language in languages:
        lemma("warm", language)
    if "de" in languages:
        german.no_names(("Kaffee",))  # the tagger's model
    if set(languages) - {"en"}:
        language_of("Raucht.")  # no function word: the dictionaries tell it
    read("Lives in Lyon and works 2 h a day.")
    quantities.read("1,5 km")


@text_cache
def read(text: str) -> Reading:
    """The reading of one memory's text (see the module's docstring)."""
    language = language_of(text)
    if language in UNREAD_LANGUAGES:
        return _unread(text, language)
    body, said = body_of(text.strip(), language)
    clause, label = _without_label(body, language)
    found = tokens(clause, language)
    ends = clause_break(clause)
    clause_end = len(found) if ends is None else sum(1 for t in found if t.start < ends)
    main = found[:clause_end]
    folded = fold(clause)
    predicate_at, predicate = phrased(main, folded) or _predicate(main, language)
    if (opened := unsaid_copula(found, clause_end, predicate_at, language)) is not None:
        found, clause_end, main = opened
        predicate_at, predicate = _predicate(main, language)  # "Allergic to X": "Is allergic"
    alternatives = set_apart(main, clause, predicate_at)
    denied: tuple[Token, ...] = ()
    if alternatives is not None:
        # "uses pnpm, not npm": the clause is what it asserts, the rest what it denies;
        # the statement stands.
        denied = tuple(t for t in main[alternatives:] if t.content)
        clause_end, main = alternatives, main[:alternatives]
    found, bare = ages_read(found, clause_end, predicate_at, predicate, language)
    main = found[:clause_end]
    measure = measure_said(clause, predicate, language) or length_said(main, predicate_at, language)
    if measure := "age" if bare else measure:
        predicate = predicate_class(measure)  # "is 7 years old", "女儿8岁"; "is 2 m tall"
        if predicate_at < 0:  # "大儿子今年10岁": what comes before the age is its subject
            predicate_at = next((i for i, t in enumerate(main) if t.kind == "value"), -1)
    lone = [i for i, t in enumerate(main) if t.kind == "word"]
    if predicate_at < 0 and len(lone) == 1 and not any(t.kind == "name" for t in main):
        predicate_at = lone[0]  # "Fume.", "Smokes.": one word, the verb
    predicate = value_given(main, predicate_at, predicate, language)
    if predicate is not None and predicate.name == "move":  # a thing moved, or to a time
        predicate = moved(main, predicate_at, predicate)
    stance = _stance(main, folded)
    if predicate is None and stance:
        predicate = predicate_class("like" if stance > 0 else "dislike")
    ceased = _ceased(main, predicate_at, folded)
    recommended = bool(words("recommendation") & {w for t in main for w in (t.lemma, t.text)})
    recommended = recommended or bool(_phrases("recommendation").search(folded))
    negated = polarity.denies(main, fold(clause[:ends])) and not _stance_phrase(folded)
    change = (
        polarity.announces_change(clause)
        # A state said to have begun ("since 2021") was set then: the values tell whether
        # it changes the other's (the evidence's change cue leaves it out).
        or any(t.text in words("change", "durations") for t in main)
        or ceased
        or any(t.text in words("markers", "new") for t in main[: max(predicate_at, 0)])
        or bool(predicate and predicate.sets)
        or polarity.no_longer(folded)
    )
    subject_end = _subject_end(main, predicate_at, language, said)
    opening = bool(main) and main[0].text in words("markers", "openings")
    when_only = opening and _only_when(main[:subject_end])  # "Since 2024 works at ..."
    return Reading(
        text=text,
        language=language,
        body=body,
        said_when=said,
        label=label,
        tokens=found,
        predicate_at=predicate_at,
        predicate=predicate,
        subject_end=subject_end,
        stance=stance,
        negated=negated,
        ceased=ceased,
        change=change,
        event=past_event(main, predicate_at, predicate, language, folded)
        and _event_of(predicate, main),
        recommended=recommended,
        clause_end=clause_end,
        opening=opening and not when_only,
        denied=denied,
        subject_start=subject_end
        if when_only or _fragment_before(main, clause, subject_end)
        else 0,
    )


def _unread(text: str, language: str) -> Reading:
    """A note in a language no reader here reads: no clause, subject or predicate (read
    as English, word for word, its first word was a verb: "Jag jobbar som ..."). What it
    says is the embeddings' to tell."""
    return Reading(
        text=text, language=language, body=text, said_when="", label="", tokens=(),
        predicate_at=-1, predicate=None, subject_end=0, stance=0, negated=False,
        ceased=False, change=False, event=False, recommended=False, clause_end=0,
        opening=False,
    )  # fmt: skip


def _only_when(before) -> bool:
    """Whether an opening before the verb says only when ("Since 2024 works at Stripe"):
    the subject is left out, the user's, as in "Works at Stripe"."""
    return all(t.kind in ("function", "value", "marker") for t in before)


def _fragment_before(main, clause: str, subject_end: int) -> bool:
    """ "Allergic to cats, prefers dogs": a plain word (no person, article or preposition)
    opening what stands before a verb right after a lone comma is a fragment, not the verb's
    subject (the user's); "Tom, my brother, lives in Lyon" closes an apposition."""
    if subject_end <= 0 or subject_end >= len(main):
        return False
    before = clause[: main[subject_end].start]
    return (
        main[0].kind == "word"
        and main[subject_end].kind == "word"
        and before.rstrip().endswith(",")
        and before.count(",") == 1
    )


_LABEL = re.compile(r"^([^:：;.。]{1,60}?)\s*[:：]\s+")


def _without_label(body: str, language: str) -> tuple[str, str]:
    """ "Safety rule: TCP speed is capped...", "Postmortem 2025-11-04: ingest lost...": a
    label with no verb before a clause that has one is set aside, like a preamble. Where
    no verb follows ("Package manager: pnpm"), the colon stays, as a copula."""
    match = _LABEL.match(body)
    if not match:
        return body, ""
    rest = body[match.end() :]
    ends = clause_break(rest)
    before = tokens(match.group(1), language)
    after = tokens(rest if ends is None else rest[:ends], language)
    if _predicate(before, language)[0] < 0 and _predicate(after, language)[0] >= 0:
        return body[match.end() :], body[: match.end()]
    return body, ""


def _ceased(main, predicate_at: int, folded: str) -> bool:
    """The clause ends what it names: a cessation phrase ("gave up", "changed my mind"),
    or a cessation verb as its predicate or before it ("quit the band", "sold the Golf";
    not "latency dropped" said of a thing, nor a present that says a habit: "Sells yarn
    on Etsy", "Leaves work at 5")."""
    if _phrases("cessation").search(QUANTITY_BOUND.sub(" ", folded)):  # "no more" ends
        return True
    if predicate_at < 0:
        return False
    ending = words("cessation")
    return any(
        (t.lemma in ending or t.text in ending) and t.text not in (f"{t.lemma}s", f"{t.lemma}es")
        for t in main[: predicate_at + 1]
        if t.kind == "word"
    ) and not any(t.content for t in main[:predicate_at])


def _subject_end(main, predicate_at: int, language: str, said: str) -> int:
    """Where the subject ends: at the predicate; after "dass" at the first person or name
    ("dass Jonas in Wien wohnt")."""
    if predicate_at < 0:
        return 0
    if language == "de" and "dass" in fold(said):
        for index, token in enumerate(main[:predicate_at]):
            if token.kind in ("user", "pronoun", "name") or token.upper:
                return index + 1
    # An auxiliary before the verb ends the subject ("ist nach Dresden gezogen", "wurde
    # auf Mittwoch verschoben": what stands between is the verb's).
    auxiliary = next((i for i, t in enumerate(main[:predicate_at]) if t.kind == "verb"), None)
    return predicate_at if auxiliary is None else auxiliary


def _stance_phrase(folded: str) -> bool:
    """ "can't stand", "ne supporte pas": a stance whose negation is part of it."""
    return bool(_stance_phrases().search(folded))


@cache
def _stance_phrases() -> re.Pattern:
    """The stances' phrases, not those of other classes: "Never went back to Windows"
    denies what it says."""
    said = [re.escape(phrase) for phrase, found in classes()[2] if found.stance]
    return re.compile("|".join(said) or "(?!)")


@cache
def _phrases(section: str) -> re.Pattern:
    """A section's phrases as one expression: one search a text, not one per phrase."""
    return re.compile("|".join(re.escape(p) for p in words(section, "phrases")) or "(?!)")


def _stance(main: tuple[Token, ...], folded: str) -> int:
    """+1 or -1 from the first word of liking or disliking in the main clause."""
    by_word, _, phrases = classes()
    for phrase, found in phrases:
        if found.stance and phrase in folded:
            return found.stance
    for token in main:
        found = by_word.get(token.lemma) or by_word.get(token.text)
        if found is not None and found.stance:
            return found.stance
    if HAN.search(folded):
        for word, found in by_word.items():
            if found.stance and HAN.search(word) and word in folded:
                return found.stance
    return 0


def _predicate(main: tuple[Token, ...], language: str) -> tuple[int, PredicateClass | None]:
    """The index of the main clause's predicate, and its class when the lexicon knows it.

    A class word (lives, works, loves...) is the predicate; a copula or an auxiliary gives
    way to a verb right after it ("is learning", "does not smoke", "was lowered"), and a
    copula with none names what its subject names ("her home is in Lyon": lives). A
    memory with no subject starts with its predicate ("Plays chess", "Took Rex camping");
    after a subject (a user word, a pronoun, a name) the next verb is ("Ana swam")."""
    by_noun = classes()[1]
    for index, token in enumerate(main[:3]):
        # "Please format answers as bullet points", "Antworten bitte auf Deutsch", "回答请用
        # …": a wish, whatever its verb and wherever it stands.
        if {token.lemma, token.text} & words("markers", "request"):
            return index, classes()[0]["prefer"]
    seen: list[Token] = []  # what came before: the subject
    for index, token in enumerate(main):
        if token.kind == "possessive" or token.text in ("'s", "’s") or _zh_of(main, index, seen):
            seen.append(token)  # "her best friend", "User's editor": what follows is a noun
            continue
        if token.kind in ("function", "negator", "marker"):
            continue
        found = class_of(token)
        if token.kind == "verb" and found is not None and found.name == "have":
            after = next((t for t in main[index + 1 : index + 3] if t.kind != "negator"), None)
            if after is not None and is_copula(after):
                continue  # "has been vegetarian", "has been living": the copula is the verb
        if token.kind == "verb":
            copula_here = found is not None
            main_verb = verb_after(main, index, language, any_word=not copula_here)
            if main_verb is not None and is_copula(main[main_verb]):
                # "must be deleted after 5 years": the modal's copula gives way in turn.
                main_verb = verb_after(main, main_verb, language, any_word=False) or main_verb
            if main_verb is not None:
                later = class_of(main[main_verb])
                if later is not None and later.needs_subject and not any(t.content for t in seen):
                    later = None  # "don't run zpool upgrade on tank": a command
                return main_verb, later and _with_preposition(later, main, main_verb, language)
            if copula_here:
                visit = been_to(main, index, language)
                return index, visit or _subject_noun_class(seen, by_noun) or found
            continue  # a modal whose verb was not found
        if token.kind == "word" and found is not None and _in_subject(main, index, seen, language):
            seen.append(token)  # "Upgrading tank's pool features breaks...", "The cat named Bo"
            continue
        if token.kind == "word" and found is not None:
            after = main[index + 1 : index + 3]
            if (
                found.stance
                and any(t.kind == "verb" and is_copula(t) for t in after)
                and after[0].kind != "function"  # "Prefers to be called Alex": a wish
            ):
                # "Alice's favourite film is...", "Preferred slot is...": a noun before a
                # copula. Before another verb it is the predicate: "Likes to have meetings
                # in the morning" is a liking, not something that has.
                seen.append(token)
                continue
            if found.needs_subject and not any(t.content for t in seen):
                return index, None
            return index, _with_preposition(found, main, index, language)
        if token.kind == "word" and _starts_predicate(main, index, seen, language):
            return index, None
        seen.append(token)
    return -1, None


def _zh_of(main, index: int, seen: list[Token]) -> bool:
    """ "她的女儿": "的" between a person and a word of relation is a possessive, as "her"
    is (not before a thing: "她的书桌宽1.2米" has no verb)."""
    if main[index].text != "的" or not seen or seen[-1].kind not in ("user", "pronoun"):
        return False
    following = main[index + 1] if index + 1 < len(main) else None
    return following is not None and relation_word(following, "zh")


def _with_preposition(found: PredicateClass, main, index: int, language: str):
    """The class, when the first preposition after the predicate (past its object) is
    one it takes, not before a time ("lives in Lyon", "host the docs on Netlify"); None
    otherwise ("works on a MacBook", "ran 10 km on Saturday"). Chinese, and a verb that
    ends its clause, are taken as they are."""
    if not found.preps or language == "zh" or index + 1 >= len(main):
        return found
    position = index + 1
    while position < min(index + 6, len(main)):
        token = main[position]
        following = main[position + 1] if position + 1 < len(main) else None
        if token.kind == "function" and following is not None and _timely(following):
            position += 2  # "wohnt seit März in Bonn": a time on the way
            continue
        position += 1
        if token.kind == "value" and not token.value.startswith("name:"):
            return None  # "runs 2 replicas in production", "ran 10 km": no place
        if found.needs_subject and token.kind == "name" and position == index + 2:
            return found  # "the database runs PostgreSQL 15": what it runs on
        if token.text in found.preps:  # before objects: "near", "after" read as words
            following = next((t for t in main[position:] if t.content), None)
            return None if following is not None and _timely(following) else found
        if token.content or token.text in _ARTICLES:
            continue  # the verb's object ("host the docs on ...")
        if token.kind == "function" and token.text in words("change") | {"up", "down"}:
            continue  # "wohnt jetzt in München", "works now at Bosch", "scaled up to 5"
        if token.kind in ("function", "marker"):
            return None  # another preposition first
    return None


def _timely(token: Token) -> bool:
    return token.value.split(":")[0] in ("date", "weekday", "month", "time", "season")


_PREPOSITIONS = frozenset("of in on for at about with by from into".split())
_ARTICLES = frozenset("the a an der die das den dem ein eine einen le la les un une l".split())


def _in_subject(main, index: int, seen: list[Token], language: str) -> bool:
    """A word of a class that is no predicate: an English -ing word that names an activity,
    after a preposition and its adjectives ("6.5 hours of mixed driving", "keen on hiking"),
    or a noun's modifier after an article or a possessive ("The living room", "her running
    shoes"), or opening a clause whose own verb comes later ("Upgrading the pool breaks
    ..."; not "Planning a trip to Japan"); a participle after its noun ("The cat named Bo
    is 3")."""
    token = main[index]
    if language == "en" and inside_a_compound(main, index):
        return True
    if language != "en" or not token.text.endswith("ing"):
        return language == "en" and reduced_relative(main, index, seen)
    if index:  # the nearest word before it, past up to two adjectives
        before = [t for t in main[max(0, index - 3) : index] if t.kind != "word"]
        right_before = main[index - 1]
        return bool(before) and (
            before[-1].text in _PREPOSITIONS
            or right_before.text in _ARTICLES
            or right_before.kind == "possessive"
        )
    return any(
        t.kind == "verb" or (t.kind == "word" and t.text.endswith("s") and t.lemma + "s" == t.text)
        for t in main[index + 2 :]
    )


def _subject_noun_class(subject: list[Token], by_noun) -> PredicateClass | None:
    """ "Her home is...", "User's name is...", "Mum's birthday is...": the class the last
    word of the subject names."""
    for token in reversed(subject):
        if token.content:
            return by_noun.get(token.lemma) or by_noun.get(token.text)
    return None


def _starts_predicate(main, index: int, seen: list[Token], language: str) -> bool:
    token = main[index]
    content_before = [t for t in seen if t.content]
    if language == "en" and index and main[index - 1].text in per_language("nouns_after", language):
        return False  # "Allergic to cats, prefers dogs", "The older daughter": no verb
    if not content_before and not seen:
        # The first word of the memory: a verb when it reads as one ("Plays chess",
        # "Took Rex camping"; not "Ana swam", not "Alerts are routed").
        # A copula just after ("Preferred meeting slot is ...") makes it part of the subject.
        copula_soon = any(t.kind == "verb" for t in main[index + 1 : index + 4])
        return verb_form(token, language) and not copula_soon and not _verb_next(main, index)
    if seen and seen[-1].kind in ("user", "pronoun"):
        return True  # "I collect", "she wants"
    if language == "zh" and token.text in CHINESE_VERBS:
        return True  # "前端测试需要5分钟": a verb, wherever it stands
    following = main[index + 1] if index + 1 < len(main) else None
    if len(content_before) == 1 and (seen[-1].kind == "name" or seen[-1].upper):
        # "Ana swam", "Tom works"; not a plural before a copula, after a word capitalised
        # only as the first ("Build artifacts are now deleted", "Raw readings are").
        plural_noun = (following is not None and following.kind == "verb") or _verb_next(
            main, index
        )
        return (verb_form(token, language) and not plural_noun) or language == "zh"
    # After a noun phrase, an English verb by its ending: "the unit-test job takes"; not
    # a plural before a colon or a copula ("the NAS datasets: ...", "gateways are").
    irregular_past = not token.text.endswith(("s", "ing"))  # "the broker ran out of disk"
    # A number right after its noun labels it, a verb in -s after ("the room on floor 3
    # seats 12"; not after a verb's form, "holds 12 servers", nor "force 12.5N best").
    labelled = len(seen) > 1 and seen[-1].kind == "value" and seen[-2].kind == "word"
    labelled = labelled and seen[-2].lemma == seen[-2].text and token.text.endswith("s")
    return (
        language == "en"
        and bool(content_before)
        and (seen[-1].kind in ("word", "name") or labelled)
        and (token.text.endswith(("s", "ed")) or irregular_past)
        and token.lemma != token.text
        and not (following is not None and following.kind == "verb")
        and not _verb_next(main, index)
    )


_ADVERBS = frozenset({"now", "still", "also", "usually", "often", "always", "never", "only"})


def _verb_next(main, index: int) -> bool:
    """Whether a word in -s is a plural noun, the subject of a verb of the lexicon in its
    plain form right after it or after an adverb ("Backups now run every six hours",
    "Database backups run nightly"), not a verb ("Plays chess", "Dropped the plan to
    run")."""
    after = main[index + 1 : index + 3]
    if after and after[0].text in _ADVERBS:
        after = after[1:]
    return (
        main[index].text.endswith("s")
        and bool(after)
        and after[0].kind == "word"
        and class_of(after[0]) is not None
        and after[0].text == after[0].lemma
    )


def _event_of(predicate: PredicateClass | None, main) -> bool:
    """Whether a past tense tells an event: of a one-value slot, the state ("deployed CEMS
    on Hetzner") unless a time says when ("worked at Initech in 2019")."""
    if predicate is None or predicate.slot != "one":
        return True
    if predicate.name == "age":
        return False  # "turned 13 in March": the age since, not a past one
    return any(_timely(t) or (t.value.startswith("number:") and len(t.text) == 4) for t in main)
