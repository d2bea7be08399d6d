"""Canonical quantities: one value per unit, however a text writes it, in English,
German, French and Chinese."""

import pytest

from memadmin.curation.detection.comparing import contrast
from memadmin.curation.detection.reading import quantities, units


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("backups start at 3 am", "the backup job runs at 03:00"),
        ("a 90-minute meeting", "the meeting lasts 1.5 h"),
        ("roughly 2 m of cable", "about 200 cm of cable"),
        ("the parcel weighs 2 kg", "das Paket wiegt 2000 g"),
        ("Das Paket wiegt 2,5 kg.", "Das Paket hat 2500 Gramm."),
        ("Le colis pèse 2,5 kg.", "Le paquet fait 2500 grammes."),
        ("five replicas", "五个副本"),
        ("the disk is 80% full", "Die Platte ist zu 80 % voll"),
        ("keeps 1.5 TB of logs", "keeps 1500 GB of logs"),
        # Bytes counted by 1,024s, as memory sizes are written, or by 1,000s.
        ("Redis maxmemory is 2 GB.", "Redis maxmemory is 2048 MB."),
        ("The VM has 16 GB of RAM.", "The VM has 16384 MB of RAM."),
        ("The heap is 1.5 GB.", "The heap is 1536 MB."),
        ("The cache is 1 GB.", "The cache is 1000 MB."),
        ("la réunion quotidienne dure 1,5 heure", "the daily meeting lasts 90 minutes"),
        # A quantity of two units is their sum.
        ("Battery lasts about 6.5 hours.", "A full charge gives roughly 6 h 30 min of runtime."),
        ("The run took 1 hour and 30 minutes.", "The run took 90 min."),
        ("The flight is 2h 15m.", "The flight takes 2.25 hours."),
        ("The baby weighed 5 lb 3 oz.", "The baby weighed 83 oz."),
        ("The shelf is 2 m 50 cm wide.", "The shelf is 2.5 m wide."),
        # A half: after a number, after its unit, in one German word, and half an hour.
        ("Sleeps seven and a half hours.", "Sleeps 7.5 hours."),
        ("The workshop lasts an hour and a half.", "The workshop lasts 90 minutes."),
        ("Ana duerme unas siete horas y media cada noche.", "Ana sleeps 7 h 30 min a night."),
        ("Il dort sept heures et demie.", "He sleeps 7.5 hours."),
        ("Er schläft siebeneinhalb Stunden.", "He sleeps 7.5 hours."),
        ("The lease runs two and a half years.", "The lease runs 30 months."),
        ("It takes half an hour.", "It takes 30 minutes."),
        ("Le stand-up est à 10 h et demie.", "The stand-up is at 10:30."),
        # Minutes after hours without their unit, glued outside French; a quarter hour.
        ("The film runs 1h30.", "The film runs 90 minutes."),
        ("The film runs 1 h 30.", "The film runs 1.5 hours."),
        ("The call takes a quarter of an hour.", "The call takes 15 minutes."),
        ("The call takes three quarters of an hour.", "The call takes 45 min."),
        ("The sprint is a fortnight.", "The sprint is 14 days."),
        # A bare number after feet, metres, stone or pounds is in the unit below.
        ("Is 5 foot 6.", "Is 5 ft 6 in tall."),
        ("Is 5'6\" tall.", "Is 66 inches tall."),
        ("Is 5’6” tall.", "Is 5 feet 6 inches tall."),
        ("Mesure 1 m 80.", "Mesure 180 cm."),
        ("Weighs 11 stone 4.", "Weighs 158 lb."),
        ("The baby weighed 7 lb 8.", "The baby weighed 120 oz."),
        # A clock with its half of the day; after "in", or past 24, a time taken.
        ("Her flight lands at 6:40 pm on Friday.", "Her flight arrives Friday at 18:40."),
        ("Office hours end at 5:30 p.m.", "Office hours end at 17:30."),
        ("The night bus leaves at 12:15 am.", "The night bus leaves at 00:15."),
        ("Finished the marathon in 3:45.", "Finished the marathon in 3 h 45 min."),
        ("Ran the marathon in 3:45:10.", "Ran it in 13510 s."),
        ("Runs a kilometre in 4:30 min.", "Runs a kilometre in 270 s."),
        ("Her 10k best is 52:30.", "Her 10k best is 52 min 30 s."),
        # A share said as a fraction of something.
        ("Half of the budget goes to rent.", "50% of the budget goes to rent."),
        ("A quarter of her salary goes to savings.", "25% of her salary goes to savings."),
        ("La moitié du budget va au loyer.", "50 % du budget va au loyer."),
        # Volumes and areas.
        ("Drinks 2 litres of water.", "Drinks 2000 ml of water."),
        ("The farm is 1.5 hectares.", "La ferme fait 1,5 hectare."),
    ],
)
def test_one_value_written_two_ways_reads_the_same(a, b):
    assert quantities.keys(a) and quantities.keys(a) & quantities.keys(b)


@pytest.mark.parametrize(
    "text", ["Boxes of 5 kg and 3 kg.", "Boxes of 500 g and 2 kg.", "Sizes: 3 m, 2 m."]
)
def test_two_quantities_in_one_unit_or_rising_are_not_one(text):
    assert len(quantities.read(text)) == 2


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("backups start at 3 am", "backups start at 4 am"),
        ("a 90-minute meeting", "a 60-minute meeting"),
        ("the parcel weighs 2 kg", "the parcel weighs 2.5 kg"),
        ("retention is 30 days", "retention is 3 months"),
        ("the heap is 512 MB", "the heap is 0.5 GB"),
    ],
)
def test_another_value_of_the_same_unit_differs(a, b):
    assert quantities.keys(a) != quantities.keys(b)
    assert contrast.key_token_differences(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Is 5 foot 6.", "Is 168 cm tall."),
        ("Is 5'10\".", "Is 1.78 m tall."),
        ("Weighs 11 stone 4.", "Weighs about 72 kg."),
        ("Ran 26.2 miles.", "Ran 42.2 km."),
    ],
)
def test_a_value_converted_from_another_system_is_its_rounding(a, b):
    assert contrast.key_token_differences(a, b) == ()


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Is 5 foot 6.", "Is 172 cm tall."),  # 167.6 cm
        ("Weighs 72 kg.", "Weighs 72.5 kg."),  # one system: exact
        ("Is 1.70 m tall.", "Is 172 cm tall."),
        ("The loop is 10 miles.", "The loop is 10 km."),
    ],
)
def test_a_converted_value_further_than_its_rounding_differs(a, b):
    assert contrast.key_token_differences(a, b)


@pytest.mark.parametrize("text", ["Loved the 90's music.", "Is 6' tall? No.", "Room 5'B"])
def test_an_apostrophe_is_a_foot_only_between_two_numbers(text):
    assert all(v.measure != "length" for v in quantities.read(text))


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        # A bare number that counts something after it is no part of the quantity.
        ("Swims 400 m 3 times a week.", ("length", "400")),
        ("Runs 1 h 3 times a week.", ("duration", "3600")),
        # Centimetres after metres are two digits.
        ("Mesure 1 m 8.", ("length", "1")),
        ("Is 5 foot 6 and slim.", ("length", "1.6764")),
    ],
)
def test_a_bare_number_is_the_unit_below_only_where_it_ends_the_quantity(text, keys):
    assert keys in quantities.keys(text)


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        ("The standup is at 9:30.", "time"),  # no "in": a time of day
        ("Takes half an hour.", "duration"),  # no share
        ("Takes a quarter of an hour.", "duration"),
        ("Is a third-year student.", None),
        ("Came a third time.", None),
    ],
)
def test_a_clock_or_a_fraction_is_read_as_what_its_words_make_it(text, measure):
    assert [v.measure for v in quantities.read(text)] == ([measure] if measure else [])


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Said to be rounded, a conversion rounded to the digits written is one value.
        ("Drinks about 2 litres of water a day.", "Drinks roughly half a gallon a day."),
        ("Runs about 12 miles every Sunday.", "Runs roughly 19 km every Sunday."),
        ("Weighs around 150 lb.", "Weighs about 68 kg."),
        ("Drinks about a gallon of water a day.", "Drinks roughly 3.8 litres a day."),
        ("Owns about 3 acres.", "Owns roughly 1.2 hectares."),
    ],
)
def test_a_conversion_said_roughly_is_its_rounding(a, b):
    assert contrast.key_token_differences(a, b) == ()


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Runs 12 miles every Sunday.", "Runs 19 km every Sunday."),  # 1.6 %: no "about"
        ("Runs about 12 miles every Sunday.", "Runs about 18 km every Sunday."),  # 19 km
        ("Drives about 100 km a day.", "Drives about 70 miles a day."),  # 113 km: 13 % off
        ("Weighs about 80 kg.", "Weighs about 83 kg."),  # one system: exact
    ],
)
def test_a_conversion_not_said_roughly_or_too_far_differs(a, b):
    assert contrast.key_token_differences(a, b)


def test_a_calendar_span_matches_days_at_its_mean_length():
    assert (
        contrast.key_token_differences(
            "raw data is kept for 30 days", "raw data is kept for one month"
        )
        == ()
    )
    assert contrast.key_token_differences(
        "raw data is kept for 30 days", "raw data is kept for three months"
    )


def test_the_same_quantity_in_other_words_is_no_key_token_difference():
    assert (
        contrast.key_token_differences(
            "The UPS gives about 25 minutes of runtime.", "UPS runtime: roughly 1500 s."
        )
        == ()
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [("十二", 12), ("二十五", 25), ("一百零五", 105), ("两千", 2000), ("三万", 30000)],
)
def test_chinese_numerals(text, value):
    assert quantities.parse_chinese_number(text) == value


def test_an_identifier_with_digits_is_not_a_quantity():
    assert quantities.keys("pve2 runs on an m5.large with an i5-12500") == frozenset()


def test_a_number_too_long_to_be_a_value_is_ignored():
    assert quantities.keys("9" * 5000 + " ms") == frozenset()


def test_the_unit_table_is_kept_in_the_cache_folder_and_read_back(tmp_path, settings, monkeypatch):
    settings.DATA_DIR = tmp_path
    units.table.cache_clear()
    try:
        computed = units.table()
        kept = list((tmp_path / "cache").glob("units-*.json"))
        assert len(kept) == 1
        # Read back without pint: the same table, value for value.
        units.table.cache_clear()
        monkeypatch.setattr(units, "_registry", lambda: pytest.fail("pint was loaded"))
        assert units.table() == computed
        # A file cut short, or of another shape, is computed again, not trusted.
        monkeypatch.undo()
        for damaged in ('{"km": ["length"', '{"km": ["length", 1000.0]}', '{"km": 5}', "[]"):
            kept[0].write_text(damaged)
            units.table.cache_clear()
            assert units.table() == computed
        # Another base unit for a measure gives other factors: not the kept table's.
        monkeypatch.setitem(units.BASE_UNITS, "length", "kilometer")
        units.table.cache_clear()
        assert units.table()["km"] == ("length", 1.0)
        assert len(list((tmp_path / "cache").glob("units-*.json"))) == 2
    finally:
        units.table.cache_clear()


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # The article after "half" is no unit (an "an" is a French year, an "a" an ampere).
        ("It takes half an hour.", [("duration", "1800")]),
        ("Half a day is enough.", [("duration", "43200")]),
        # Spanish number words in Spanish only: "once" is eleven there, not in English.
        ("Trabaja ocho horas al día.", [("duration", "28800")]),
        ("The meeting is once a week.", [("rate", "0.14")]),
        # An article's plural is no one ("unas siete horas": about seven hours).
        ("Ana duerme unas siete horas cada noche.", [("duration", "25200"), ("rate", "1")]),
        # No hour has 99 minutes.
        ("The code is 1h99.", []),
    ],
)
def test_halves_articles_and_spanish_numbers(text, values):
    assert [v.key for v in quantities.read(text)] == values


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Backups run nightly.", "Backups run every night."),
        ("The team meets weekly.", "The team meets once a week."),
        ("Jogs twice a week.", "Jogs 2 times per week."),
        ("Runs 5 km three times a week.", "Goes for a 5 km run three times weekly."),
        ("Snapshots are taken every six hours.", "Snapshots are taken 4 times a day."),
        ("Backups run monthly.", "Backups run every 30 days."),
        ("Geht zweimal pro Woche schwimmen.", "Swims twice a week."),
        ("Va nager deux fois par semaine.", "Swims twice a week."),
        (
            "Die Messdaten werden alle zwei Wochen geprüft.",
            "The readings are checked every 2 weeks.",
        ),
        ("每天跑步。", "Runs daily."),
        ("每周跑步三次。", "Runs three times a week."),
        ("我每周去两次健身房。", "Goes to the gym twice a week."),
        # Days of each week: each of them once a week.
        ("Deploys happen every Tuesday and Thursday.", "We deploy twice a week."),
        ("Swims on Mondays, Wednesdays and Fridays.", "Swims three times a week."),
        ("Jonas trainiert montags und donnerstags.", "Jonas trains twice a week."),
        ("Ana nada los lunes y jueves.", "Ana swims twice a week."),
        ("Il court tous les mardis.", "He runs weekly."),
        ("王伟每周三晚上打羽毛球。", "Wei plays badminton weekly."),
        ("Standup is every other Friday.", "Standup is every two weeks."),
    ],
)
def test_how_often_reads_the_same_however_written(a, b):
    rates_a = {v.value for v in quantities.read(a) if v.measure == "rate"}
    assert rates_a and rates_a == {v.value for v in quantities.read(b) if v.measure == "rate"}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The team meets once a week.", "The team meets twice a week."),
        ("Backups run nightly.", "Backups now run every six hours."),
        ("Deploys happen weekly.", "Deploys now happen daily."),
        ("Deploys happen every Tuesday and Thursday.", "Deploys now happen daily."),
        ("The release train ships every Thursday.", "Releases go out twice a week."),
    ],
)
def test_another_rate_is_another_value(a, b):
    assert [d.kind for d in contrast.key_token_differences(a, b)] == ["quantity (rate)"]


def test_a_time_of_day_is_no_rate():
    # "every morning" says when, and "morgens" is no value: they must not differ by one.
    assert quantities.keys("Trinkt jeden Morgen zwei Tassen Tee.") == quantities.keys(
        "Trinkt morgens zwei Tassen Tee."
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A currency sign before the number is the currency, with a scale after it.
        ("The budget is $1,500.", "The budget is 1500 dollars."),
        ("The budget is €20.", "The budget is 20 euros."),
        ("The budget is $1.5k.", "The budget is 1500 dollars."),
        # A letter after the amount is no unit of it ("a" is no ampere here).
        ("Rent is €1,200 a month.", "Rent is 1200 euros a month."),
        ("Costs $20 USD.", "Costs 20 dollars."),
        ("They raised 1.2 million.", "They raised 1,200,000."),
        ("They raised 2 million euros.", "They raised 2000000 euros."),
        # The half of the day with its stops, noon and midnight.
        ("The stand-up is at 3 p.m.", "The stand-up is at 15:00."),
        ("The stand-up is at 9 a.m.", "The stand-up is at 09:00."),
        ("Lunch is at noon.", "Lunch is at 12:00."),
        ("The job runs at midnight.", "The job runs at 00:00."),
    ],
)
def test_money_scales_and_times_read_the_same_however_written(a, b):
    assert quantities.keys(a) and quantities.keys(a) == quantities.keys(b)


def test_a_k_is_a_thousand_only_glued_to_its_number():
    assert quantities.keys("Has 5k users.") == quantities.keys("Has 5000 users.")
    assert quantities.keys("Has 5 k users.") != quantities.keys("Has 5000 users.")
    assert quantities.keys("Has 5 million users.") == quantities.keys("Has 5000000 users.")


def test_the_afternoon_is_no_noon():
    assert not quantities.read("Il travaille l'après-midi.")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # 个 a classifier before 小时 or 半, 半 a half of the unit after it, or half past.
        ("每天通勤一个半小时。", "Commutes 90 minutes a day."),
        ("开会要两个小时。", "The meeting takes 2 hours."),
        ("等了半小时。", "Waited 30 minutes."),
        ("下午三点半开会。", "The meeting is at 15:30."),
    ],
)
def test_chinese_halves_and_classifiers(a, b):
    assert quantities.keys(a) and quantities.keys(a) & quantities.keys(b)


def test_a_chinese_half_without_a_unit_adds_nothing():
    assert quantities.keys("我吃了一半。") == {("number", "1")}
    assert quantities.keys("三个月") == {("calendar", "3")}


def test_a_chinese_weekday_is_no_number():
    # "每周三" is every Wednesday (once a week, not three); "周三" alone is one Wednesday.
    assert quantities.keys("王伟每周三晚上打羽毛球。") == {("rate", "0.14")}
    assert quantities.keys("周三开会，每周一次。") == {("rate", "0.14")}
    assert quantities.read("周三开会。") == ()


def test_one_weekday_is_a_date_not_a_rate():
    # "on Tuesday" is one Tuesday; "on Tuesdays", "every Tuesday", "dienstags" each one.
    assert quantities.read("The review is on Tuesday.") == ()
    for each in ("The review is on Tuesdays.", "The review is every Tuesday.", "Review dienstags."):
        assert quantities.keys(each) == {("rate", "0.14")}


@pytest.mark.parametrize(
    ("a", "b", "found"),
    [
        ("Her marathon best is 3 h 45 min.", "Ana ran her best marathon in 225 minutes.", True),
        ("His desk is set to 110 cm.", "He keeps his desk at 1.1 m.", True),
        ("Mia was born on 3 March 2019.", "Mia's birthday is March 3, 2019.", True),
        ("Die Fahrt dauert 1 h 15 min.", "Sie pendelt 75 Minuten.", True),
        # Written the same way: the words in common say it already.
        ("The hike took 6 h.", "Hiking the ridge took 6 h.", False),
        # Another value; a value many facts of one subject share ("nightly" / "daily").
        ("The review takes 1 h 30 min.", "Reviews now run for 60 minutes.", False),
        ("Backups run nightly.", "Reports are sent daily.", False),
        ("Prod DB: Postgres 16.", "cems-api runs 2 replicas in production.", False),
    ],
)
def test_one_value_in_other_words_is_found_in_a_pair(a, b, found):
    from memadmin.curation.detection.comparing.matching import value_in_other_words
    from memadmin.curation.detection.reading.clause import read

    assert value_in_other_words(read(a), read(b)) is found
    assert value_in_other_words(read(b), read(a)) is found


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The work phone number is 555-0199.", ("code", "555-0199")),
        ("Ticket 4521-883 is open.", ("code", "4521-883")),
        ("Kids aged 5-7.", ("code", "5-7")),
        # Not a date (the date reader's), nor digits with a unit after them.
        ("Budget is 10-20k.", ("number", "10")),
    ],
)
def test_digits_joined_by_hyphens_are_one_code(text, value):
    assert quantities.read(text)[0].key == value


def test_two_codes_that_share_their_first_digits_differ():
    older, newer = "The work phone number is 555-0199.", "New work phone number: 555-0142."
    assert [d.kind for d in contrast.key_token_differences(older, newer)] == ["quantity (code)"]
