"""Key tokens: the values a paraphrase keeps and a changed fact changes, polarity,
negation and change cues."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memadmin.curation.detection.comparing import contrast, things
from memadmin.curation.detection.reading import keytokens, polarity


def kinds(text_a, text_b):
    return sorted(d.kind for d in contrast.key_token_differences(text_a, text_b))


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        (
            "The billing API is deployed on Hetzner.",
            "The billing API is deployed on Railway.",
            "name",
        ),
        ("Local Python is 3.11.", "Local Python is 3.13.", "number"),
        ("Sprint review is on Tuesday.", "Sprint review is on Thursday.", "weekday"),
        ("Backups run at 02:00.", "Backups run at 03:30.", "time"),
        ("Freeze starts on 2025-12-19.", "Freeze starts on 2025-12-15.", "date"),
        ("Router is at 192.168.10.1.", "Router is at 192.168.1.1.", "ip"),
        ("Dashboards live at grafana.example.org.", "Dashboards live at dash.example.org.", "host"),
        ("The blocker is ticket R-118.", "The blocker is ticket R-121.", "name"),
        ("The service runs in staging.", "The service runs in production.", "env"),
        # A label after a word names one of several things: the word alone keeps neither.
        (
            "The gripper sits on Joint 4 of the arm.",
            "The gripper sits on Joint 5 of the arm.",
            "name",
        ),
        ("Works as an engineer at Company A", "Works as a developer at Company B", "name"),
        ("Runs on Postgres 16.", "Runs on Postgres 14.", "name"),
        ("Works at UCL.", "Works at Imperial College London.", "name"),  # spells out no UCL
        ("Grip force is 12.5 N.", "Use 15 N grip force; at 12.5 N it slipped.", "quantity (force)"),
    ],
)
def test_a_changed_value_is_a_key_token_difference(a, b, kind):
    assert kind in kinds(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Alice lives in Lyon.", "Her home is in Lyon, France, up on the Croix-Rousse hill."),
        ("Postmortem 2025-11-04: ingest lost data.", "Incident on 4 Nov 2025: ingest lost data."),
        ("Joint 4 overheats after 40 minutes.", "After ~40 min the joint 4 warning fires."),
        (
            "Prod DB: Postgres 16 + Timescale.",
            "Production database is PostgreSQL 16 with TimescaleDB.",
        ),
        ("NOx readings use mg/Nm³ at 6% O2.", "Emission values for NOx use mg/Nm3 at 6 % oxygen."),
        # An acronym and the words that spell it out: one name.
        ("Works at UCL.", "Works at University College London."),
        (
            "Billing runs through the AWS console.",
            "Billing runs through the Amazon Web Services console.",
        ),
        ("Arbeitet an der TU München.", "Arbeitet an der Technischen Universität München."),
    ],
)
def test_added_detail_and_other_spellings_are_no_difference(a, b):
    assert kinds(a, b) == []


def test_opposite_polarity_is_found():
    assert contrast.polarity_difference("Likes cilantro in tacos.", "Hates cilantro.") is not None
    assert contrast.polarity_difference("Likes cilantro.", "Really likes cilantro.") is None


def test_a_newer_text_can_announce_a_change():
    assert polarity.announces_change("The ingest service now listens on port 9100.")
    assert not polarity.announces_change("The ingest service listens on port 9100.")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tom can't stand jazz.", "Tom loves jazz."),
        ("Anna mag keine Oliven.", "Anna mag Oliven sehr."),
        ("Paul n'aime pas le fromage.", "Paul adore le fromage."),
        ("小李不喜欢咖啡。", "小李很喜欢咖啡。"),
        ("Dark mode is enabled in the editor.", "Dark mode is disabled in the editor."),
        ("User's manager approved the budget.", "User's manager rejected the budget."),
        ("Der Antrag wurde genehmigt.", "Der Antrag wurde abgelehnt."),
        (
            "Ursula geht nie ohne Schirm aus dem Haus.",
            "Ursula geht immer ohne Schirm aus dem Haus.",
        ),
    ],
)
def test_opposite_stances_in_four_languages(a, b):
    assert contrast.polarity_difference(a, b) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tom loves jazz.", "Tom hates cilantro."),  # two things
        ("Anna mag Oliven.", "Anna mag Oliven auf Pizza."),
        ("Paul adore le fromage.", "Paul aime le fromage."),
        ("The manager approved the budget.", "The manager approved the hiring plan."),
    ],
)
def test_stances_on_different_things_or_the_same_side_do_not_clash(a, b):
    assert contrast.polarity_difference(a, b) is None


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        # Across languages a close spelling is one name, its accents aside.
        ("münchen", "munich", True),
        ("genève", "geneva", True),
        ("lissabon", "lisbon", True),
        ("münchen", "hamburg", False),
        ("münster", "munich", False),
    ],
)
def test_a_name_across_languages_is_read_without_its_accents(a, b, same):
    assert contrast.same_name(a, b, across=True) is same
    assert contrast.same_name("marta", "marte", across=True)
    assert not contrast.same_name("marta", "marte")  # in one language, two names


def test_a_negated_name_clashes_with_the_same_name_asserted():
    assert contrast.polarity_difference(
        "The build does not use Docker; it uses Podman.", "The build uses Docker."
    ) == ("docker, said by one and denied by the other")


def test_a_name_a_clause_ends_is_not_asserted_against_its_negation():
    # "Stopped using Jira" says what "No longer uses Jira" says: no clash between them.
    assert contrast.polarity_difference("No longer uses Jira.", "Stopped using Jira.") is None
    assert contrast.polarity_difference("Uses Jira.", "Does not use Jira.") is not None


@pytest.mark.parametrize(
    "text",
    [
        "The team switched from Jenkins to GitHub Actions.",
        "Das Team ist von Jenkins auf GitHub Actions umgestiegen.",
        "L'équipe est passée de Jenkins à GitHub Actions.",
        "团队已从 Jenkins 改用 GitHub Actions。",
        "Lena wohnt inzwischen in Graz.",
        "Marc habite désormais à Nantes.",
    ],
)
def test_a_change_is_announced_in_four_languages(text):
    assert polarity.announces_change(text)


@pytest.mark.parametrize(
    "text",
    ["CI runs on Jenkins.", "Lena wohnt in Graz.", "Marc habite à Nantes.", "团队使用 Jenkins。"],
)
def test_a_plain_statement_announces_no_change(text):
    assert not polarity.announces_change(text)


@pytest.mark.parametrize(
    "text",
    [
        "Has been vegetarian since 2019.",
        "Has played the violin since childhood.",
        "Ist seit 2019 Vegetarierin.",
        "Joue du violon depuis l'enfance.",
        "She has been at Quarry Labs for a year.",
    ],
)
def test_a_state_that_goes_on_announces_no_change(text):
    """ "since" says when a lasting state began, not that an earlier value changed:
    against the same value it is one fact ("Is vegetarian." / "Has been vegetarian since
    2019." was a conflict at 0.44)."""
    assert not polarity.announces_change(text)


@pytest.mark.parametrize(
    "text", ["The standup has been moved to 10:00.", "The offsite has been cancelled."]
)
def test_something_done_to_it_announces_a_change(text):
    assert polarity.announces_change(text)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("auth-svc runs 3 replicas", "billing-svc runs 3 replicas"),
        ("The worker runs on an m5.large.", "The worker runs on an m5.xlarge."),
        ("Builds use the debian-12 image.", "Builds use the debian-11 image."),
        ("The exporter listens on :8080.", "The exporter listens on 9090."),
    ],
)
def test_identifiers_that_differ_in_one_part_are_a_difference(a, b):
    assert contrast.key_token_differences(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Grip force for the plastic water bottle is 8 N.",
            "Grip force for the glass bottle is 20 N.",
        ),
        ("Jana hat am 12. April Geburtstag.", "Felix hat am 21. April Geburtstag."),
        ("pve1 has 64 GB RAM.", "pve2 has 32 GB RAM."),
        # A name after the noun tells two things apart when a value differs too.
        (
            "Emil owes 529 euros to the welder from Lima.",
            "Emil now owes 569 euros to the welder from Oslo.",
        ),
        ("The flight to Paris leaves at 9:00.", "The flight to Rome leaves at 10:30."),
        (
            "Ines owes 721 euros to the plumber from Dakar.",
            "Ines owes 972 euros to the landlord from Dakar.",
        ),
        ("Yuki A. lives in Osaka.", "Yuki R. lives in Munich."),
        # One word between a determiner and the noun both share, when a value is said of
        # them (the same value or two).
        (
            "Use 20 N of grip force on the large sensor.",
            "Use 15 N of grip force on the blue sensor.",
        ),
        ("The spare mug weighs 250 g.", "The new mug weighs 120 g."),
        (
            "We have 5 units of the green mug in stock.",
            "We have 5 units of the large mug in stock.",
        ),
        # Another noun, or a value for a modifier, and a value outside that differs.
        (
            "Use 20 N of grip force on the ceramic bracket.",
            "Use 12.5 N of grip force on the ceramic battery pack.",
        ),
        ("Use 15 N of grip force on the large motor.", "Use 8 N of grip force on the 12V motor."),
        ("The 12V gripper pad weighs 1.2 kg.", "The new gripper pad weighs 120 g."),
        # The phrase that differs opens the sentence: its subject, the same value.
        ("The spare camera weighs 120 g.", "The green battery pack weighs 120 g."),
        (
            "Use 15 N of grip force on the 12V controller plugin.",
            "Use 8 N of grip force on the 12V motor.",
        ),
        # One noun, a modifier of its own on each side, the sentences built otherwise.
        ("The steel gripper pad weighs 400 g.", "The weight of the new gripper pad is 400 g."),
        ("Stock of the steel tray: 5 units.", "We have 5 units of the small tray in stock."),
    ],
)
def test_parallel_sentences_about_two_things_are_told_apart(a, b):
    assert contrast.different_things(a, b) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Home Assistant runs as a HAOS VM on pve2.", "Home Assistant runs on a Raspberry Pi 4."),
        ("Raw readings must be kept for 5 years.", "Raw readings are retained for 2 years."),
        ("Calibration checkerboard squares are 25 mm.", "The checkerboard squares measure 24 mm."),
        # Only the name after the noun differs: one slot, two values.
        ("Deploys the blog to GitHub Pages.", "Deploys the blog to Netlify."),
        ("Owes money to the welder from Lima.", "Owes money to the welder from Oslo."),
        # A memory that opens on its verb has left its subject out: the rest is its object.
        ("Uses Docker for local development.", "Uses Podman for local development."),
        ("Adores musicals.", "Loathes musicals."),
        ("Is Swiss.", "Is Swedish."),
        # The word that differs is no modifier of a noun both share.
        ("Alice likes 2 cats.", "Alice hates 3 cats."),
        ("The red gripper pad weighs 250 g.", "The weight of the red gripper pad is 120 g."),
        # The object differs, the value said of the subject is the same: the slot's two
        # values ("is for"), not two things.
        (
            "The 12V battery pack is for the pick-and-place cell.",
            "The 12V battery pack is for the demo rig.",
        ),
        # A short form of the other word names the same thing.
        ("The prod cluster has 5 nodes.", "The production cluster has 8 nodes."),
    ],
)
def test_one_slot_filled_two_ways_is_not_two_things(a, b):
    assert contrast.different_things(a, b) is None


def test_a_modifier_is_the_value_where_no_other_value_is_said():
    assert things.otherwise_modified("Prefers the dark theme.", "Prefers the light theme.") is None
    assert things.otherwise_modified("Has 2 of the dark mugs.", "Has 2 of the light mugs.")
    assert (
        things.otherwise_modified("Likes the dark theme.", "The light theme is her pick.") is None
    )
    # Two values for the modifier: one thing's value, not two things.
    assert things.otherwise_modified("Has the 12V motor.", "The 24V motor is what he has.") is None


def test_the_verb_after_a_subject_is_no_noun_its_subject_modifies():
    # "the hike | took", "the ridge | took": two subjects' words before one verb.
    assert (
        things.otherwise_modified("The hike took six hours.", "Hiking the ridge took 6 h.") is None
    )
    assert things.otherwise_modified(
        "The steel gripper pad weighs 400 g.", "The weight of the new gripper pad is 400 g."
    )


@given(st.text(alphabet=st.sampled_from("ab1 .!?:;。)\"'-#%\t\u00a0\n"), max_size=40))
def test_a_word_starts_a_sentence_when_first_or_after_a_mark_that_ends_one(text):
    sentence_ends = ".!?。！？:;"
    for index, word in enumerate(keytokens.words_of.__wrapped__(text)):
        before = text[: word.start].rstrip()
        assert word.at_start == (index == 0 or before[-1:] in tuple(sentence_ends)), word


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Yuki A. lives in Berlin.", "yuki a."),
        ("Nora A. is on the Pro plan.", "nora a."),  # an initial, never the article
        ("Yuki A.'s subscription is the Pro plan.", "yuki a."),
        ("J. Smith leads the ledger team.", "j. smith"),
        ("Anna K. wohnt in Bremen.", "anna k."),
        ("Our contact there is Lea M. since May.", "lea m."),
    ],
)
def test_a_name_with_an_initial_is_one_name(text, name):
    assert name in {token.value for token in keytokens.key_tokens(text) if token.kind == "name"}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Works at Company A", "company a"),  # a label, never the article
        ("Moved to Building C last week.", "building c"),
        ("Plan B is the fallback.", "plan b"),
        ("Sensor 12 reads high.", "sensor 12"),
    ],
)
def test_a_letter_or_a_small_number_after_a_word_is_a_label(text, name):
    assert name in {token.value for token in keytokens.key_tokens(text) if token.kind == "name"}


@pytest.mark.parametrize("text", ["Yesterday I moved to Lyon.", "The best of the A team."])
def test_a_pronoun_or_a_word_after_an_article_is_no_label(text):
    names = {token.value for token in keytokens.key_tokens(text) if token.kind == "name"}
    assert not any(" " in name for name in names), names


def test_an_initial_does_not_end_a_sentence():
    words = keytokens.words_of("Yuki A. Tanaka moved. Then she left.")

    assert [word.raw for word in words if word.at_start] == ["Yuki", "Then"]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Her supervisor is Dr. Marguerite Lavoie.", {"marguerite", "lavoie"}),
        ("Prof. Okafor chairs the committee.", {"okafor"}),
        ("Mme Dubois enseigne le piano.", {"dubois"}),
        # A word in capitals after a possessive is a role, as "her supervisor" is...
        ("Her PI is Dr. Marguerite Lavoie.", {"marguerite", "lavoie"}),
        ("Unser CTO heißt Jana.", {"jana"}),
        # ... and elsewhere still a name.
        ("She studies at UCL.", {"ucl"}),
    ],
)
def test_a_title_is_no_name_and_its_stop_ends_no_sentence(text, names):
    found = {token.value for token in keytokens.key_tokens(text) if token.kind == "name"}
    assert found == names


def test_one_person_with_and_without_a_title_differs_in_nothing():
    assert kinds("Her PI is Dr. Marguerite Lavoie.", "Her PI is Marguerite Lavoie.") == []
    assert kinds("Her PI is Dr. Lavoie.", "Her PI is Dr. Okafor.") == ["name"]


def test_a_unit_written_like_a_title_is_no_title():
    # "ms" the unit, "MS" the illness: a title is capitalised and the rest in lower case.
    words = keytokens.words_of("Latency is 200 ms. Backups run at 3 am. She has MS.")
    assert [word.raw for word in words if word.at_start] == ["Latency", "Backups", "She"]
    assert keytokens.titles_in("Latency is 200 ms. She has MS.") == frozenset()


def test_two_titles_before_one_name_are_two_people():
    assert kinds("Our contact at the bank is Mr. Weber.", "Our contact is Mrs. Weber.") == ["name"]
    assert kinds("Mme Dubois enseigne le piano.", "Mlle Dubois enseigne le piano.") == ["name"]


@pytest.mark.parametrize(
    ("a", "b", "subjects"),
    [
        ("Yuki A. lives in Berlin.", "Yuki R. lives in Munich.", ("yuki a.", "yuki r.")),
        ("Nora B. is on the Pro plan.", "Nora A. is on the Pro plan.", ("nora b.", "nora a.")),
        ("Yuki A. is on the Pro plan.", "Yuki A.'s subscription is the Pro plan.", None),
    ],
)
def test_people_told_apart_by_an_initial_are_two_subjects(a, b, subjects):
    assert contrast.different_subjects(a, b) == subjects


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Uses Docker for local development.", None),
        ("Wears a Garmin watch.", None),
        ("Mag Jazz.", None),
        ("Experiment E-041 tested the new gripper.", "e-041"),
        ("Alice's birthday is May 3.", "alice"),
    ],
)
def test_a_memory_that_opens_on_its_verb_names_no_subject(text, subject):
    assert keytokens.subject(text) == subject


@pytest.mark.parametrize(
    ("written", "form"),
    [("inc", "incorporated"), ("ltd", "limited"), ("corp", "corporation"), ("gmbh", "gmbh")],
)
def test_a_legal_form_is_read_as_the_form_it_abbreviates(written, form):
    # cleanco's table of legal terms; "plc" is no abbreviation of "pllc" (one letter more).
    assert keytokens.legal_forms()[written] == form
    assert keytokens.legal_forms()["plc"] == "plc"


def test_one_company_written_with_its_form_two_ways_differs_in_nothing():
    assert (
        kinds("Marco is our champion at Tom Inc.", "Marco is our champion at Tom Incorporated.")
        == []
    )
    assert kinds("Marco is our champion at Tom Inc.", "Marco is our champion at Tom Ltd.") == [
        "name"
    ]


def test_a_form_is_read_only_after_a_name():
    assert {t.value for t in keytokens.key_tokens("Tom works at Oakport Ltd.")} == {
        "oakport",
        "limited",
    }
    assert {t.value for t in keytokens.key_tokens("It ships as Ltd quickly.")} == {"ltd"}


def test_a_form_written_two_ways_is_one_only_where_both_are_written_as_forms():
    assert things.one_form_two_ways("inc", "incorporated", "At Tom Inc.", "At Tom Incorporated.")
    assert not things.one_form_two_ways("ltd", "limited", "On a ltd plan.", "On a limited plan.")
    assert not things.one_form_two_ways("inc", "ltd", "At Tom Inc.", "At Tom Ltd.")


def test_two_forms_of_one_name_are_two_companies_only_where_both_are_written_as_forms():
    assert things.companies_of_one_name("Marco is at Tom Inc.", "Marco is at Tom Ltd.")
    assert things.companies_of_one_name("Apex Inc. renews in March.", "Apex GmbH renews in March.")
    # Whatever else differs, as a modifier parts two things where a value differs too
    # ("the welder from Lima" / "from Oslo", each owed their own sum).
    assert things.companies_of_one_name("Apex Inc. renews in March.", "Apex GmbH renews in May.")
    assert things.companies_of_one_name(
        "Our contact at Acme GmbH is Jana.", "Our contact at Acme AG is Petra."
    )
    assert not things.companies_of_one_name("Acme GmbH renews in May.", "Apex AG renews in May.")
    assert not things.companies_of_one_name("At Tom Inc.", "At Tom Incorporated.")
    assert not things.companies_of_one_name("On a ltd plan.", "On an inc plan.")
    assert not things.companies_of_one_name("At Tom Inc.", "At Oakport Ltd.")  # two words each


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Jonas' team uses GitLab for CI.", "jonas"),
        ("Jonas's team uses GitLab for CI.", "jonas"),
        ("Jonas’ team uses GitLab for CI.", "jonas"),
        ("Jonas' Team nutzt GitLab für CI.", "jonas"),  # German: "Team" is a noun, no name
        ("The Joneses' dog barks at night.", "joneses"),
    ],
)
def test_an_owner_written_with_an_apostrophe_alone_is_the_subject(text, subject):
    assert keytokens.subject(text) == subject
    assert "team" not in {t.value for t in keytokens.key_tokens(text)}


def test_an_owner_is_one_however_its_apostrophe_is_written():
    # "Jonas' team" and "Jonas's team" name one owner: nothing differs but the value.
    assert kinds("Jonas' team uses GitLab for CI.", "Jonas's team uses GitLab for CI.") == []
    assert (
        contrast.different_subjects(
            "Jonas' Team nutzt GitLab für CI.", "Jonas's team runs its CI on GitHub Actions now."
        )
        is None
    )


def test_a_word_in_quotes_owns_nothing():
    assert keytokens.subject("We call it 'Atlas' now.") is None
    assert "atlas" in {t.value for t in keytokens.key_tokens("We call it 'Atlas' now.")}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("王伟用Python写脚本。", {"python"}),
        ("健太は最近エディタをVS Codeに乗り換えた。", {"vs", "code"}),
        ("服务器pve2有64GB内存。", {"pve2"}),
    ],
)
def test_a_latin_name_glued_to_chinese_or_japanese_is_a_name(text, names):
    assert {t.value for t in keytokens.key_tokens(text) if t.kind == "name"} == names


def test_one_tool_named_in_chinese_and_another_is_a_difference():
    assert kinds("王伟用Python写脚本。", "王伟用Go写脚本。") == ["name"]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Born on the 3rd of March.", "-03-03"),
        ("Nació el 3 de marzo de 1990.", "1990-03-03"),
        ("Born on March 3rd.", "-03-03"),
    ],
)
def test_a_day_of_a_month_in_more_ways(text, date):
    assert {t.value for t in keytokens.key_tokens(text) if t.kind == "date"} == {date}


def test_a_half_of_the_day_with_its_stops_is_no_host():
    assert {(t.kind, t.value) for t in keytokens.key_tokens("Meets at 3 p.m.")} == {
        ("time", "15:00")
    }


def test_a_number_grouped_by_thousands_is_no_label():
    assert {(t.kind, t.value) for t in keytokens.key_tokens("Raised 1,200,000.")} == {
        ("number", "1200000")
    }


@pytest.mark.parametrize(
    ("text", "weekdays"),
    [
        ("王伟每周三晚上打羽毛球。", {"wednesday"}),
        ("每星期五跑步。", {"friday"}),
        ("周三开会，每周一次。", {"wednesday"}),  # "每周一次": once a week, no Monday
    ],
)
def test_a_weekday_inside_chinese_text(text, weekdays):
    assert {t.value for t in keytokens.key_tokens(text) if t.kind == "weekday"} == weekdays


@pytest.mark.parametrize(
    ("text", "weekdays"),
    [
        ("Runs every day, sun or rain.", set()),
        ("She sat on the board for years.", set()),
        ("Standup moved to Wed.", {"wednesday"}),
        ("Closed on Sun and Mon.", {"sunday", "monday"}),
        ("Pickup every sunday.", {"sunday"}),
    ],
)
def test_a_short_weekday_counts_only_written_as_one(text, weekdays):
    # "sun", "sat" and "wed" are words too: as with months ("may", "mar"), the short form
    # is a weekday where it is written as a name.
    assert {t.value for t in keytokens.key_tokens(text) if t.kind == "weekday"} == weekdays


def names(text):
    return {t.value for t in keytokens.key_tokens(text) if t.kind == "name"}


@pytest.mark.parametrize(
    ("text", "nouns", "kept"),
    [
        # German capitalises every noun: a bare one, with no article before it, is no name.
        ("Jonas möchte Antworten auf Deutsch.", {"antworten", "deutsch"}, set()),
        ("Lukas trinkt morgens Kaffee.", {"kaffee"}, set()),
        ("Mag Katzen.", {"katzen"}, set()),
        ("Jonas ist vor Kurzem nach München gezogen.", {"kurzem"}, {"münchen"}),
        # Names stay names, though a dictionary knows them ("Hamburg", "Siemens").
        ("Anna arbeitet bei Siemens in Hamburg.", set(), {"siemens", "hamburg"}),
        # A word no German dictionary knows stays a name, whatever the tagger guesses.
        ("Das Backend läuft auf Azure.", set(), {"azure"}),
        ("Als Datenbank nutzen wir SQLite.", {"datenbank"}, {"sqlite"}),
        # Capitals throughout stay a name.
        ("Die TU München ist gut.", set(), {"tu", "münchen"}),
    ],
)
def test_a_german_noun_is_no_name_and_a_german_name_is_one(text, nouns, kept):
    found = names(text)
    assert not nouns & found
    assert kept <= found


def test_a_german_noun_is_no_different_name_from_its_english_counterpart():
    # "Deutsch" read as a name made the two a sure "different values".
    assert "name" not in kinds(
        "Jonas prefers replies in German.", "Jonas möchte Antworten auf Deutsch."
    )


def test_the_german_tagger_takes_any_words_it_is_given():
    from memadmin.curation.detection.reading import german

    # An empty word, a NUL byte, an emoji: no error, and no name taken for a noun.
    assert german.no_names(("", "Jonas", "trinkt", "Kaffee", "\x00", "🙂")) == {2, 3}
    assert german.no_names(()) == frozenset()


def test_the_german_tagger_is_given_no_word_longer_than_it_can_analyse(monkeypatch):
    # It analyses a word in time that grows with the cube of its length: 8 KB of
    # "Tue/Tue/..." (read as German) took minutes.
    from memadmin.curation.detection.reading import german

    tagged = []

    class Tagger:
        def tag_sent(self, words, taglevel):
            tagged.extend(words)
            return ["NN"] * len(words)

    monkeypatch.setattr(german, "_tagger", Tagger)
    long_word = "Aufbewahrungsfrist/" * 100
    german.no_names(("Die", long_word, "gilt"))
    assert tagged[0] == "Die" and tagged[2] == "gilt"
    assert max(len(word) for word in tagged) <= german.LONGEST_WORD
