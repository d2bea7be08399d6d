"""The clause reader: subject, predicate, sign, change and event, read from the text
alone, in the four languages of the lexicon."""

import pytest

from memadmin.curation.detection.reading import clause as reading
from memadmin.curation.detection.reading.bounds import clause_break


def read(text: str) -> reading.Reading:
    return reading.read(text)


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("Loves cheese pizza", "like"),
        ("I work at Initech", "work"),
        ("User lives in Porto", "live"),
        ("Moved to Lyon in 2024", "move"),
        ("Ich wohne in Berlin", "live"),
        ("Elle travaille chez Airbus", "work"),
        ("用户住在大阪", "live"),
        # A preposition the tokens count as a word ("near", "after") still licenses.
        ("Lives near Lyon.", "live"),
        ("Build artifacts are now deleted after 30 days.", "retain"),
        ("Artifact retention is 90 days.", "retain"),
        # The perfect's "has" gives way to its copula, and the copula to a verb after it.
        ("Has been vegetarian since 2019.", "be"),
        ("She has been living in Berlin since 2020.", "live"),
        ("Has been using Vim for years.", "use"),
        ("Has lived in Berlin since 2020.", "live"),
    ],
)
def test_the_predicate_is_found_with_or_without_a_subject(text, predicate):
    found = read(text)
    assert found.predicate is not None and found.predicate.name == predicate


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("Upload-worker is built on Buildkite.", "built"),
        ("The meetup was held in Berlin.", "held"),
        ("The service is written in Rust.", "written"),
        ("The docs are hosted on Netlify.", "hosted"),  # a regular one, as before
        # After a modal, its copula gives way in turn.
        ("Raw readings must be deleted after 5 years.", "deleted"),
    ],
)
def test_a_participle_after_a_copula_is_the_predicate_of_a_passive(text, verb):
    found = read(text)
    assert found.tokens[found.predicate_at].text == verb


@pytest.mark.parametrize(
    "text",
    [
        "Tom is older than Ana.",
        "The spare parts are tools for roofing.",
        "Upload-worker is a Rust service.",
    ],
)
def test_a_comparative_a_plural_or_a_noun_after_a_copula_is_no_participle(text):
    found = read(text)
    assert found.tokens[found.predicate_at].lemma == "be"


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        # An -ing word after a preposition names an activity: no predicate of its class.
        ("Battery lasts about 6.5 hours of mixed driving.", None),
        ("Is keen on hiking.", "like"),
        # ... where it follows a verb, it is the verb's object, as before.
        ("Loves hiking in the Alps.", "like"),
    ],
)
def test_an_activity_after_a_preposition_is_no_predicate(text, predicate):
    found = read(text).predicate
    assert (found and found.name) == predicate


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        # A first word capitalised as the first, a plural before a copula: one subject.
        ("Build artifacts are now deleted after 30 days.", ["build", "artifact"]),
        ("Raw readings are retained for 2 years.", ["raw", "reading"]),
        ("Tom works at Acme.", ["tom"]),  # a name and its verb, as before
        # ... and a plural before a verb in its plain form, past an adverb.
        ("Backups now run every six hours.", ["backup"]),
        ("Database backups run nightly at 02:00 UTC.", ["database", "backup"]),
        ("Plays chess every Sunday.", []),  # a verb first, as before
    ],
)
def test_a_plural_before_a_copula_or_a_verb_is_part_of_the_subject(text, subject):
    assert [t.lemma for t in read(text).subject_words] == subject


@pytest.mark.parametrize(
    "text",
    [
        "Loves cheese pizza",
        "I love cheese pizza",
        "User loves cheese pizza",
        "The user loves pizza",
    ],
)
def test_a_memory_with_no_subject_or_the_user_is_about_the_user(text):
    assert read(text).about_user


@pytest.mark.parametrize(
    ("text", "objects"),
    [
        ("Allergic to cats, prefers dogs", ["dog"]),
        ("Vegetarian, lives in Lyon.", ["lyon"]),
        ("Vegan since 2020, plays golf.", ["golf"]),
    ],
)
def test_a_fragment_with_no_verb_before_a_comma_is_no_subject(text, objects):
    """A comma never stands alone between a subject and its verb: what stands before it
    is a fragment of its own, and the verb's subject is the user."""
    found = read(text)
    assert found.about_user
    assert [t.lemma for t in found.objects] == objects


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Tom, my brother, lives in Lyon.", ["tom", "brother"]),  # an apposition closes
        ("My sister lives in Lyon.", ["sister"]),
    ],
)
def test_a_subject_before_an_apposition_is_still_the_subject(text, subject):
    assert [t.lemma for t in read(text).subject_words] == subject


def test_a_plural_after_a_preposition_is_a_noun_not_a_verb():
    found = read("Allergic to cats, prefers dogs")
    assert found.tokens[found.predicate_at].lemma == "prefer"


def test_a_named_subject_is_the_subject():
    found = read("Tom works at Siemens")
    assert [t.key for t in found.subject_words] == ["tom"]
    assert not found.about_user


@pytest.mark.parametrize(
    ("asserted", "denied"),
    [
        ("I like jazz", "I don't like jazz"),
        ("Uses Vim", "No longer uses Vim"),
        ("Drinks coffee", "Doesn't drink coffee anymore"),
        ("Ich trinke Kaffee", "Ich trinke keinen Kaffee mehr"),
        ("J'aime le jazz", "Je n'aime plus le jazz"),
        ("我喜欢咖啡", "我不喜欢咖啡"),
    ],
)
def test_a_negation_in_every_form_flips_the_sign(asserted, denied):
    assert read(asserted).sign == 1
    assert read(denied).sign == -1


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("Lin's team uses pnpm, not npm or yarn.", ["npm", "yarn"]),
        ("Prefers tea, not coffee.", ["coffee"]),
        ("Trinkt Tee, nicht Kaffee.", ["kaffee"]),
        ("Préfère le thé, pas le café.", ["café"]),
    ],
)
def test_a_negation_set_apart_after_the_clause_denies_only_what_follows_it(text, denied):
    # "uses pnpm, not npm": pnpm is asserted, npm denied; the statement stands.
    found = read(text)
    assert found.sign == 1
    assert [t.key for t in found.denied] == denied
    assert not {t.key for t in found.objects} & set(denied)


def test_a_negation_before_the_predicate_or_with_no_comma_still_denies():
    assert read("Does not use npm, only pnpm.").sign == -1
    assert read("Uses not npm but pnpm.").denied == ()


@pytest.mark.parametrize(
    "text",
    [
        "Keep summaries short: a bulleted list of no more than 5 items.",
        "Drinks no more than 2 coffees a day.",
        "Trinkt nicht mehr als 2 Kaffee am Tag.",
        "Ne boit pas plus de 2 cafés par jour.",
    ],
)
def test_a_bound_on_a_quantity_denies_nothing(text):
    found = read(text)
    assert found.sign == 1 and not found.ceased


def test_no_more_without_a_quantity_still_ends_what_it_names():
    assert read("Drinks no more coffee.").sign == -1


def test_a_negative_stance_word_is_a_sign_not_a_negation():
    assert read("Dislikes hiking").sign == -1
    assert read("Doesn't hate hiking").sign == 1  # two negatives


@pytest.mark.parametrize(
    "text",
    ["Actually I changed my mind about the light theme", "Quit the band last month"],
)
def test_a_withdrawal_is_read_as_ceased(text):
    assert read(text).ceased


@pytest.mark.parametrize(
    "text",
    [
        "Switched from npm to pnpm",
        "Now lives in Lyon",
        "Wohnt seit März in Köln",
        "Travaille désormais chez Airbus",
    ],
)
def test_a_change_cue_marks_a_change(text):
    assert read(text).change


@pytest.mark.parametrize(
    "text", ["Has lived in Munich since 2021.", "Wohnt seit März in Köln", "自从2020年住在上海"]
)
def test_a_state_said_to_have_begun_was_set_then(text):
    """The clause's reading keeps "since" (a value set then, against another value); the
    evidence's change cue does not (curation.detection.reading.polarity)."""
    assert read(text).change


def test_a_past_action_is_an_event_and_a_present_state_is_not():
    assert read("Ana swam 2 km on Monday").event
    assert not read("Ana lives in Porto").event


def test_a_reporting_preamble_is_set_aside_with_its_date():
    found = read("On 3 May 2026 the user said that Tom works at Siemens")
    assert found.body == "Tom works at Siemens"
    assert "2026" in found.said_when
    assert [t.key for t in found.subject_words] == ["tom"]


@pytest.mark.parametrize(
    ("text", "body"),
    [
        # A date with its year after a comma, and a time of day.
        (
            "On December 13, 2025 at 4:02 PM UTC, the user mentioned that Mission Terra is "
            "a French national.",
            "Mission Terra is a French national.",
        ),
        (
            "On December 22, 2025, the user claim that John works at Company X",
            "John works at Company X",
        ),
        # A note of when it was said after the fact, as Memobase writes every memory.
        ("Preparing for final exams [mentioned on 2025/06/01]", "Preparing for final exams"),
        ("Lives in Berlin (said in March 2025).", "Lives in Berlin"),
        ("Lives in Berlin (as of June 2025)", "Lives in Berlin"),
        ("User lives in Berlin, as mentioned on 2025-06-01", "User lives in Berlin"),
        # A time stamp before it.
        ("[2025-06-01] Lives in Berlin", "Lives in Berlin"),
        ("[v2] Uses Postgres 16", "[v2] Uses Postgres 16"),  # a label, no time
        ("2025-06-01 14:02 - Lives in Berlin", "Lives in Berlin"),
        # A record's number before it (a list, a label): no value of the fact.
        ("2. Lives in Berlin", "Lives in Berlin"),
        ("Fact #12: Lives in Berlin", "Lives in Berlin"),
        # The record's own fields after it: what the writer thought of it.
        ("Prefers Python (confidence: 0.9)", "Prefers Python"),
        ("Prefers Python. Source: session 12", "Prefers Python."),
    ],
)
def test_a_preamble_is_set_aside_whatever_its_date_looks_like(text, body):
    found = read(text)
    assert found.body == body
    assert not {"december", "pm", "utc"} & {t.key for t in found.subject_words}


def test_a_value_of_several_words_is_one_token():
    found = read("The flight leaves at 7 h 30 min")
    values = [t.value for t in found.tokens if t.kind == "value"]
    assert values == ["duration:27000"]


def test_a_recommendation_is_not_a_preference():
    assert read("Was recommended the documentaries Planet Earth and Cosmos").recommended
    assert not read("Enjoys documentaries like Planet Earth").recommended


def test_readings_are_the_same_whatever_the_case_of_a_repeated_call():
    assert read("Prefers dark mode") is read("Prefers dark mode")  # cached: read once a run


@pytest.mark.parametrize("text", ["Northmark Inc. renews in March.", "Hugo Ltd. renews in May."])
def test_a_company_form_ends_no_clause(text):
    found = read(text)
    assert found.predicate_at >= 0 and found.tokens[found.predicate_at].lemma == "renew"


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("Dr. Patel works in St. Ives. She likes it.", len("Dr. Patel works in St. Ives")),
        ("Uses e.g. MA2. Nothing else.", len("Uses e.g. MA2")),
        ("Works at Northmark Inc. in Leeds.", None),  # a form, then the sentence goes on
        ("Is a welder. Lives in Oslo.", len("Is a welder")),
        ("Likes the Bros. Grimm. And more.", len("Likes the Bros. Grimm")),
        ("Is an embros. Next", len("Is an embros")),  # "bros" inside a word: a stop
        ("The red bike is Mary's. Mine is blue.", len("The red bike is Mary's")),
        ("Met Yuki A. at the office.", None),
        # Brackets the clause goes on after are an aside in it; at the end they end it.
        ("Dr. Okafor (dermatology) sees patients on Mondays.", None),
        ("Uses Postgres (v15).", len("Uses Postgres ")),
        ("Moved (for work) to Berlin. Likes it.", len("Moved (for work) to Berlin")),
    ],
)
def test_an_abbreviation_is_read_where_its_stop_stands(text, end):
    # Only the characters before each stop are read (a stop in a long text used to search
    # the whole text before it), the word's start included.
    assert clause_break(text) == end
    assert clause_break("x " * 5000 + text) == (None if end is None else 10000 + end)


@pytest.mark.parametrize(
    "text",
    ["Standup is at 9 am.", "Walks the dog at 7 am.", "Flight leaves at 9 p.m.", "Um 15 Uhr."],
)
def test_a_time_of_day_is_one_token_with_its_am_pm_or_uhr(text):
    # "am" in "9 am" is no verb (it read as "be"), "pm" no word of its own.
    tokens = read(text).tokens
    assert not any(t.text in ("am", "pm", "p", "m", "uhr") for t in tokens)
    assert [t.value for t in tokens if t.value.startswith("time:")]


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("Is 34 years old.", "calendar:408"),
        ("Is thirty-four years old.", "calendar:408"),
        ("Is 34.", "calendar:408"),  # a person said to be a number: years
        ("Her son is ten.", "calendar:120"),
        ("Ist vierunddreißig Jahre alt.", "calendar:408"),
        ("Il a 34 ans.", "calendar:408"),  # French says an age with "avoir"
        ("她的女儿8岁。", "calendar:96"),
    ],
)
def test_an_age_reads_as_one_value_however_it_is_written(text, age):
    found = read(text)
    assert found.predicate.name == "age"
    assert [t.value for t in found.objects if t.kind == "value"] == [age]


@pytest.mark.parametrize(
    "text",
    [
        "The build is 8.",
        "The build is 8 minutes.",
        "Port is 8080.",
        "Il a 3 ans d'expérience en Python.",
        "Has a 5-year-old car.",
    ],
)
def test_a_thing_said_to_be_a_number_is_no_age(text):
    found = read(text)
    assert found.predicate is None or found.predicate.name != "age"


@pytest.mark.parametrize(
    ("text", "body", "subject"),
    [
        ("Since May, Ben manages the Berlin office.", "Ben manages the Berlin office since May.",
         ["ben"]),
        ("Since May, lives in Hamburg.", "lives in Hamburg since May.", []),
        ("Since 2023, Ben works at Google.", "Ben works at Google since 2023.", ["ben"]),
        # A phrase that tells an event stays where it is.
        ("After the table was moved, the bolt bin sits at x=0.45.",
         "After the table was moved, the bolt bin sits at x=0.45.", None),
        # No comma sets the phrase off: its end is not known, the text stays as written.
        ("After ~40 min of cycling the warning fires.",
         "After ~40 min of cycling the warning fires.", None),
    ],
)  # fmt: skip
def test_an_opening_time_is_read_at_the_clause_end(text, body, subject):
    # "Anna lives in Berlin." / "Since May, Ben lives in Berlin.": with the opening read
    # first, no subject was read, and the two people were one fact at 0.81.
    found = read(text)
    assert found.body == body
    assert subject is None or [t.text for t in found.subject_words] == subject


@pytest.mark.parametrize(
    ("text", "verb", "subject"),
    [
        # A word after an article is a noun or its modifier, never the verb.
        ("The older daughter plays violin.", "plays", ["older", "daughter"]),
        # A beginning or a going on before its gerund is its auxiliary.
        ("Started eating pork again.", "eating", []),
        ("Keeps forgetting the keys.", "forgetting", []),
        ("Started a new job at Bosch.", "started", []),  # no gerund: the verb, as before
        # "Back" first, before a preposition, is a return.
        ("Back to working five days a week.", "working", []),
    ],
)
def test_an_article_an_aspect_or_a_return_is_not_the_predicate(text, verb, subject):
    found = read(text)
    assert found.tokens[found.predicate_at].text == verb
    assert [t.text for t in found.subject_words] == subject


def test_back_before_a_noun_is_a_word():
    assert "back" in [t.text for t in read("Has back pain.").objects]


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("Is 5 foot 6.", "height"),  # a person's length, with no "tall": a height
        ("Her son is 1.20 m.", "height"),
        ("Is 6 feet tall.", "height"),
        ("The shelf is 2 m wide.", "width"),
        ("The desk is 1.6 m.", "be"),  # a thing's length: no dimension said
    ],
)
def test_a_length_after_a_copula_says_its_dimension(text, predicate):
    assert read(text).predicate.name == predicate
