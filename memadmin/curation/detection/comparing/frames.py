"""What two readings of memories (reading.clause) are to each other: one statement (maybe
with detail added), one statement asserted and denied, one slot with two values, or two
facts (another subject, another predicate, another value of a slot of several, events).

The comparison aligns the content words of the two texts (same lemma or canonical value,
a name in another form, an acronym) and looks at what is left over on each side and
where: in the subject ("the unit-test job" / "the integration job": two things), at the
predicate ("enjoys" / "dislikes": a stance reversed), or after it ("lives in Porto" /
"lives in Lyon": a new value of a slot of one; "likes tea" / "likes cocoa": of several).

When the readings say nothing sure (no predicate found, or two verbs the lexicon does
not know), the relation is UNREAD: the judgement falls back on its similarities."""

from __future__ import annotations

from memadmin.curation.detection.comparing import (
    contrast,
    ended,
    order,
    replaced,
    senses,
    slots,
    things,
)
from memadmin.curation.detection.comparing.matching import (
    RESIDUE_WORDS,
    changed_values,
    nothing_shared_across,
    one_name_aside,
    other_word_across,
    read_alike,
    same_objects_across,
    same_word,
    scoped_in_time,
    spelled,
    values_only,
    without_acronyms,
    written_together,
)
from memadmin.curation.detection.comparing.predicates import (
    content_verbs,
    copulas,
    done_again,
    one_class,
    same_predicate,
    stance_class,
    stance_of_doing,
)
from memadmin.curation.detection.comparing.relations import (
    EVENTS,
    NEW_VALUE,
    OPPOSITE,
    OTHER_PREDICATE,
    OTHER_SUBJECT,
    OTHER_VALUE,
    REFINES,
    SAME,
    UNREAD,
    Relation,
)
from memadmin.curation.detection.comparing.subjects import one_word_for_another, other_subjects
from memadmin.curation.detection.reading.ages import DIMENSIONS
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.polarity import set_against
from memadmin.curation.detection.reading.quantities import roughly_one
from memadmin.curation.detection.reading.words import (
    Token,
    same_class,
)
from memadmin.store.lexicon import languages_differ, words


def compare(older: Reading, newer: Reading, *, user_names: frozenset[str] = frozenset()):
    """The relation of two memories' readings (`older` written first). `user_names`: the
    names the namespace's user goes by (a subject with such a name is the user)."""
    if older.recommended != newer.recommended:
        return Relation(OTHER_PREDICATE, "a recommendation is not a preference")
    across = languages_differ(older.text, newer.text)
    subjects = other_subjects(older, newer, user_names, across=across)
    if subjects:  # two subjects, unless one side says its subject alone does it
        return Relation(NEW_VALUE if slots.sole_holder(older, newer) else OTHER_SUBJECT, subjects)
    if across:
        return _compare_across(older, newer)
    two_things = (
        contrast.otherwise_qualified(older.body, newer.body)
        or things.otherwise_modified(older.body, newer.body)
        or things.two_of_one_name(older.body, newer.body)
        or things.subjects_modified_apart(older, newer)
    )
    if two_things:  # "owes 830 euros to the welder from Porto" / "... from Perth": two
        return Relation(OTHER_SUBJECT, two_things)  # things, one subject's slot of each
    if senses.moved_elsewhere(older, newer):
        # "Lives in Porto" / "Moved the office to Lyon": a thing the older does not name.
        return Relation(OTHER_PREDICATE, senses.verb_phrases(older, newer))
    withdrawn = ended.taken_back(older, newer)
    if withdrawn:
        return withdrawn
    predicates = _predicates(older, newer)
    if predicates is not None:
        return predicates
    return _compare_objects(older, newer)


# --- Predicates -----------------------------------------------------------------------------


def _predicates(older: Reading, newer: Reading) -> Relation | None:
    """Two facts when the predicates differ in a way the readings are sure of; None when
    they are one predicate (or unsure), for the objects to decide."""
    class_a, class_b = older.predicate, newer.predicate
    if older.predicate_at < 0 and newer.predicate_at < 0:
        return None  # no verb found on either side ("喝酒" / "不喝酒"): compare all words
    if older.predicate_at < 0 or newer.predicate_at < 0:
        return Relation(UNREAD) if not (older.stance and newer.stance) else None
    if one_class(class_a, class_b) or (stance_class(class_a) and stance_class(class_b)):
        return _valued(older, newer)
    if any(c is not None and "*" in c.sets for c in (class_a, class_b)):
        if any(c is not None and c.fixed for c in (class_a, class_b)):
            # "User's name is Noah" / "Switched from VS Code to Neovim".
            return Relation(OTHER_PREDICATE, f"{class_a.name} / {class_b.name}")
        return None  # "switched", "migrated", "rescheduled": whatever the other says
    if class_b is not None and class_b.sets and replaced.replaced(older, newer):
        # "Moved my notes from Notion to Obsidian": a verb that sets a value, naming the
        # older's after "from", sets it whatever the slot (the words decide).
        return None
    verb_a, verb_b = older.tokens[older.predicate_at], newer.tokens[newer.predicate_at]
    if done_again(older, newer) or stance_of_doing(older, newer):
        # "is written in React" / "was rewritten in Svelte", "Likes to play cricket" /
        # "Plays cricket": one predicate.
        return None
    if verb_a.lemma == verb_b.lemma and senses.held_on_one_side(older, newer):
        # "I work at Spotify" / "I work from Barcelona", "I work remotely": the verb's
        # class holds with its prepositions only, and the other side says another thing.
        return Relation(OTHER_PREDICATE, senses.verb_phrases(older, newer))
    if class_a and class_b and {class_a.name, class_b.name} <= DIMENSIONS:
        return Relation(OTHER_PREDICATE, f"{class_a.name} / {class_b.name}")  # wide / deep
    if verb_a.lemma == verb_b.lemma and not (
        class_a is not None
        and class_b is not None
        and (slots.noun_named(older) or slots.noun_named(newer))
    ):
        # One verb, one predicate; but "My birthday is on March 3" / "The project deadline
        # is Friday" share only the copula: the noun says what each gives the value of.
        return None
    if older.event != newer.event and not (newer.change or older.change):
        return Relation(OTHER_PREDICATE, f"{verb_a.text} / {verb_b.text}: an event and a state")
    if senses.state_and_other_verb(class_a, class_b, verb_a, verb_b):
        # "Works at Amazon" / "Orders groceries from Amazon", "Lives in Lyon" / "Supports
        # Olympique Lyonnais": what one's state is, and something else done with its value.
        return Relation(OTHER_PREDICATE, f"{verb_a.text} / {verb_b.text}")
    if class_a is not None and class_b is not None:
        # A copula (or a colon): a verb word that is no "have".
        copulas = [
            c
            for c, verb in ((class_a, verb_a), (class_b, verb_b))
            if verb.kind == "verb" and c.name != "have"
        ]
        if len(copulas) == 2 and "be" in (class_a.name, class_b.name):
            # "User's name is Kenji" / "User is a data scientist": what the subject's
            # noun names against a bare copula, two attributes.
            return Relation(OTHER_PREDICATE, f"{class_a.name} / {class_b.name}")
        if (
            copulas
            and not slots.where_and_what(older, newer)
            and not slots.fixed_and_other(older, newer)
        ):
            # "The cache is Redis" / "uses Redis as its cache", "Her cat Miso is 4 years
            # old" / "Has a cat called Miso": a copula says too little to tell.
            return Relation(UNREAD)
        return Relation(OTHER_PREDICATE, f"{verb_a.text} / {verb_b.text}")
    if older.stance or newer.stance:
        # "Loves dogs" / "Has a dog": a liking and something else.
        return Relation(OTHER_PREDICATE, f"{verb_a.text} / {verb_b.text}")
    return Relation(UNREAD)


def _valued(older: Reading, newer: Reading) -> Relation | None:
    """ "Is single" / "Got married": in a class whose words are its values, two words are
    two values."""
    found = older.predicate
    if found is None or not found.valued or not same_class(found, newer.predicate):
        return None
    word_a, word_b = older.tokens[older.predicate_at], newer.tokens[newer.predicate_at]
    if word_a.lemma == word_b.lemma:
        return None
    return Relation(NEW_VALUE, f"{word_a.text} / {word_b.text}", update=True)


# --- Objects ----------------------------------------------------------------------------------


def _not_said_in(tokens, others: tuple[Token, ...], text: str = "") -> list[Token]:
    """The tokens no word of `others` says (matching.same_word), nor a name of `text` (one
    person's: "Ana Ruiz" / "A. Ruiz"). Words of one key (most) are found in a set."""
    keys = {other.key for other in others}
    said = [t for t in tokens if t.key not in keys and not any(same_word(t, o) for o in others)]
    return [t for t in said if not (text and contrast.one_person(t, text))]


def _denied(reading: Reading, other: Reading) -> list[Token]:
    """What `reading` denies ("uses pnpm, not npm") or sets its choice against ("pnpm
    instead of npm") that `other` asserts as its object, and `reading` does not."""
    against, others_against = set_against(reading, replaced_only=True), set_against(other)
    if others_against:
        against = ()  # two choices: one the other way round is _swapped's to say
    if not reading.denied and not against:
        return []
    objects = tuple(t for t in replaced.asserted(other) if t not in others_against)
    asserted = [t for t in reading.denied + against if not _not_said_in((t,), objects)]
    return _not_said_in(tuple(asserted), tuple(t for t in reading.objects if t not in against))


def _denied_by_both(older, newer, denied_a, denied_b, only_a, only_b) -> Relation | None:
    """What one denies after its clause the other's clause denies too ("Drinks tea, never
    coffee" / "Doesn't drink coffee"): one statement, the rest one side's detail."""
    agreed = denied_a if newer.sign < 0 else denied_b if older.sign < 0 else []
    if not agreed or older.sign == newer.sign:
        return None
    only_a, only_b = _not_said_in(tuple(only_a), agreed), _not_said_in(tuple(only_b), agreed)
    return Relation(REFINES, spelled(only_a or only_b)) if only_a or only_b else Relation(SAME)


def _both(only_a, older: Reading, only_b, newer: Reading) -> str:
    """ "42 cm / 45 cm": what each side has that the other lacks, as each writes it."""
    return f"{spelled(only_a, older.text)} / {spelled(only_b, newer.text)}"


def _compare_objects(older: Reading, newer: Reading) -> Relation:
    objects_a, objects_b = older.objects, newer.objects
    passive = bool(order.agent_first(older)) != bool(order.agent_first(newer))
    if copulas(older, newer) or _subject_said_after(older, newer) or passive:
        # "PO of the CEMS project: Jana Vogel" / "Jana Vogel is the product owner"; "The
        # office is run by Sven" / "Sven runs the office": what one says as its subject
        # the other says after its verb. Compare all that is said.
        objects_a = older.subject_words + objects_a
        objects_b = newer.subject_words + objects_b
    only_a = _not_said_in(objects_a, objects_b, newer.text)
    only_b = _not_said_in(objects_b, objects_a, older.text)
    only_a, only_b = written_together(*without_acronyms(only_a, only_b), older, newer)
    only_a, only_b = roughly_one(only_a, only_b, older.text, newer.text)
    only_a, only_b = one_name_aside(only_a, only_b, older, newer, objects_a, objects_b)
    if one_word_for_another(only_a, only_b):
        only_a, only_b = [], []  # "couch" / "sofa": one thing in two words
    shared = len(objects_a) - len(only_a)
    update = newer.change or done_again(older, newer)
    if max(len(only_a), len(only_b)) > RESIDUE_WORDS:
        # Several words differ on each side: reworded details, not one slot changed,
        # unless a name after the same preposition of one predicate says which slot did.
        named = same_predicate(older, newer) and slots.named_one(older, newer, only_a, only_b)
        if not named:
            return Relation(UNREAD)
        only_a, only_b = named
    denied_a, denied_b = _denied(older, newer), _denied(newer, older)
    if (denied_a or denied_b) and older.sign == newer.sign:
        # "Uses npm" / "Uses pnpm, not npm": what one asserts the other denies.
        said = spelled(denied_a or denied_b)
        detail = f"not {said} / {said}" if denied_a else f"{said} / not {said}"
        return Relation(OPPOSITE, detail, update=update)
    if agreed := _denied_by_both(older, newer, denied_a, denied_b, only_a, only_b):
        return agreed
    # One statement denied, unless each says it of something else ("Can't handle spicy
    # food" / "Loves Thai food"); a denial of the verb alone denies it of anything ("No
    # longer smokes." / "Smokes a pack a day.").
    one_thing = shared or not (objects_a if older.sign < 0 else objects_b)
    if older.sign != newer.sign and one_thing and not (only_a and only_b):
        return Relation(OPPOSITE, _sign_detail(older, newer), update=update)
    if swapped := _swapped(older, newer):
        return Relation(NEW_VALUE, swapped, update=update)
    if former := replaced.replaced(older, newer):
        # "Uses npm for the frontend" / "Uses pnpm now instead of npm".
        return Relation(NEW_VALUE, f"{former} replaced", update=True)
    if again := replaced.former_said_again(older, newer):
        return Relation(NEW_VALUE, again)  # the older's former value, said as current
    if read_alike(only_a, only_b):
        return Relation(SAME)  # nothing else, or one name in two cases: "floor 2" / "Floor 2"
    if not only_a or not only_b:
        return Relation(REFINES, spelled(only_a or only_b))
    if (older.event or newer.event) and not update:
        return Relation(EVENTS, _both(only_a, older, only_b, newer))
    ages = any(r.predicate is not None and r.predicate.name == "age" for r in (older, newer))
    if not update and scoped_in_time(only_a) != scoped_in_time(only_b) and not ages:
        # "a backend developer" / "the on-call lead for January": a role for a time; not
        # an age ("turned 13 in March": its age since).
        return Relation(OTHER_VALUE, _both(only_a, older, only_b, newer))
    if update and slots.time_shifted(older, newer, only_a):
        # "The launch is on March 3" / "The launch slipped a week": the date moved.
        return Relation(NEW_VALUE, _both(only_a, older, only_b, newer), update=True)
    only_a, only_b = slots.without_lone_times(only_a, only_b)
    only_a = [t for t in only_a if not slots.manner(t, older)]
    only_b = [t for t in only_b if not slots.manner(t, newer)]
    if not only_a or not only_b:
        return Relation(REFINES, spelled(only_a or only_b))
    if not same_predicate(older, newer):
        return Relation(UNREAD)  # "prefers answers in English" / "wants replies in English"
    return _values_differ(older, newer, only_a, only_b, objects_a, shared, update)


def _values_differ(older, newer, only_a, only_b, objects_a, shared: int, update: bool):
    """One predicate, and a value on each side the other lacks: one slot's new value, a
    rewording, or two values of a slot that holds several (two facts)."""
    detail = _both(only_a, older, only_b, newer)
    if copulas(older, newer) and slots.role_words_only(older, newer, only_a, only_b):
        return Relation(UNREAD)  # "customer contact at Globex" / "our point of contact"
    if copulas(older, newer) and things.one_address(older, newer, only_a + only_b):
        return Relation(UNREAD)  # "main repo is acme/web" / "Primary repository: acme/web"
    if slots.purpose_beside_the_value(older, newer, only_a, only_b):
        return Relation(UNREAD)  # why it happened, reworded: for the similarity to judge
    if not update and slots.another_occasion(only_a, only_b):
        return Relation(UNREAD)  # "the 8:15 train" / "the 17:40 train home"
    # A verb done again ("written" / "rewritten") gives its one slot a new value.
    slot = "one" if done_again(older, newer) else slots.slot_of(older, newer, only_a, only_b)
    changes = any(c is not None and c.changes for c in (older.predicate, newer.predicate))
    thing = slots.attribute_of_a_thing(older, newer, only_a, only_b)
    if slot == "one" and (thing or _alike(older, newer, only_a, only_b, shared)):
        return Relation(NEW_VALUE, detail, update=update or changes)
    if slots.none_and_some(only_a, only_b):
        return Relation(NEW_VALUE, detail, update=update)  # "with two roommates" / "alone"
    if (
        slot != "one"
        and slots.shared_values(objects_a, only_a)
        and slots.reworded(older, newer, only_a, only_b)
    ):
        # Names and values kept, other words changed ("a trip to Japan in April" / "to
        # visit Japan in April"): rewording, for the similarity to judge.
        return Relation(UNREAD)
    if (
        update
        and (shared or slots.of_one_kind(only_a, only_b))
        and not replaced.old_value_elsewhere(older, newer)
    ):
        # "Search-api stages on Azure" / "... now stages on Fly.io", "Likes jazz" / "Now
        # likes techno": the newer says the value changed, where no reading above made
        # it one slot's new value. One replaced or one added: for the similarity and the
        # LLM to judge, not sure two facts. Not where something else changed ("Lives in
        # Denver" / "Switched from VS Code to Neovim").
        return Relation(UNREAD)
    return Relation(OTHER_VALUE, detail)


def _alike(older: Reading, newer: Reading, only_a, only_b, shared: int) -> bool:
    """Two values of one slot, not two attributes: of one kind, and said the same way
    ("is a nurse" / "is a doctor"; not "is vegetarian" / "is allergic to shellfish", nor
    "prefers concise answers" / "prefers dark mode", where nothing but the verb is
    shared and more than one word differs); or a change the newer names (below); or any
    two where one is said to be the only one ("Only drinks water" / "Drinks coffee")."""
    if slots.exclusive(older, newer):
        return True
    if newer.change and newer.predicate is not None and newer.predicate.sets:
        # "moved to", "switched to": the newer names its new value. Of the older's slot
        # when it sets the older's class ("lives in Graz" / "moved to Linz"); for a verb
        # that sets any ("switched", "rescheduled"), when both name the thing ("the
        # dentist is on the 14th" / "moved the dentist to the 21st") or the values are of
        # one kind ("Windows" / "a Mac"): "rescheduled the dentist to 10 June" sets
        # nothing of "drinks chai every afternoon".
        if older.predicate is not None and older.predicate.name in newer.predicate.sets:
            return True
        if replaced.old_value_elsewhere(older, newer):
            return False  # "lives in Denver" / "switched from VS Code to Neovim"
        return bool(shared) or slots.of_one_kind(only_a, only_b)
    if newer.change and shared:
        return True  # "wants a window seat" / "now prefers an aisle seat"
    if not slots.of_one_kind(only_a, only_b):
        return False
    if (
        not copulas(older, newer)
        and not shared
        and max(len(only_a), len(only_b)) > 1
        and not values_only(only_a + only_b)
    ):
        names = [t for t in only_a + only_b if t.kind != "word"]
        if len(names) < len(only_a + only_b) - 1:
            return False
    if copulas(older, newer):
        return slots.said_alike(older, newer, only_a, only_b)
    return True


def _subject_said_after(older: Reading, newer: Reading) -> bool:
    """One side has no subject and names the other's subject after its verb."""
    for with_subject, without in ((older, newer), (newer, older)):
        if with_subject.subject_words and not without.subject_words:
            objects = without.objects
            if all(any(same_word(t, o) for o in objects) for t in with_subject.subject_words):
                return True
    return False


def _swapped(older: Reading, newer: Reading) -> str:
    """ "Prefers tea over coffee" / "Prefers coffee over tea": one contrast reversed."""
    markers = words("markers", "contrast")
    for reading in (older, newer):
        if not any(t.kind == "marker" and t.text in markers for t in reading.tokens):
            return ""
    keys_a = [t.key for t in older.content]
    keys_b = [t.key for t in newer.content]
    if sorted(keys_a) == sorted(keys_b) and keys_a != keys_b:
        return "the same choice the other way round"
    return ""


def _sign_detail(older: Reading, newer: Reading) -> str:
    def said(reading: Reading) -> str:
        verb = reading.tokens[reading.predicate_at].text if reading.predicate_at >= 0 else ""
        return ("not " if reading.sign < 0 else "") + verb

    return f"{said(older)} / {said(newer)}".strip()


# --- Across languages -----------------------------------------------------------------------


def _compare_across(older: Reading, newer: Reading) -> Relation:
    """Two languages: the words cannot be aligned, but the predicate classes, stances and
    canonical values can. Whether the objects are one thing is the multilingual model's
    to say (the judgement's), so the relation only names what the classes are sure of."""
    class_a, class_b = older.predicate, newer.predicate
    one_statement = one_class(class_a, class_b) or (stance_class(class_a) and stance_class(class_b))
    values_a = {t.value for t in older.objects if t.value}
    values_b = {t.value for t in newer.objects if t.value}
    if older.sign != newer.sign and one_statement:
        other = changed_values(values_a, values_b, newer.text, older.text)
        other = other or nothing_shared_across(older, newer)
        if other:
            # "Tom loves Python" / "Tom n'aime pas Java": a stance on each of two
            # things, not one reversed.
            return Relation(OTHER_VALUE, other)
        return Relation(OPPOSITE, _sign_detail(older, newer), update=newer.change)
    if class_a is None or class_b is None:
        return Relation(UNREAD)
    if not one_statement:
        # The lexicon's classes hold in every language: a noun's attribute ("User's name
        # is Kenji") or content verbs of two classes ("mag kein Koriander" / "joue de la
        # basse") are two predicates; a copula or "have" says too little to tell.
        if slots.noun_named(older) or slots.noun_named(newer) or content_verbs(older, newer):
            return Relation(OTHER_PREDICATE, f"{class_a.name} / {class_b.name}")
        return Relation(UNREAD)
    changed = changed_values(values_a, values_b, newer.text, older.text) or other_word_across(
        older, newer
    )
    if changed:
        slot = class_a.slot or class_b.slot or ("one" if class_b.sets else "many")
        if slot == "one":
            return Relation(NEW_VALUE, changed, update=newer.change or class_a.changes)
        counts = values_a ^ values_b
        if counts and all(value.startswith("number:") for value in counts):
            return Relation(UNREAD)  # "deux chats" / "three cats": one count, or of two things
        return Relation(OTHER_VALUE, changed)
    if same_class(class_a, class_b) and same_objects_across(older, newer):
        return Relation(SAME)  # "Jonas lives in Hamburg" / "Jonas wohnt jetzt in Hamburg"
    return Relation(UNREAD)
