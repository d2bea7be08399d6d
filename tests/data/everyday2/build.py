"""Writes memories.jsonl and labels.json from the lists below (run once; both are kept).

A second set in the voices agents write, written after the detection rules of this round
and scored once before any change (bench/calibrate.py --data tests/data/everyday2): a
held-out check of tests/data/everyday's figures."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))
from labelled_set import write_set

# (namespace, [(key, text)]) in the order they were stored; keys name the memories in
# the labels below. No tags, no category, no source.
STORES = {
    "leo": [
        ("name", "Name is Leo Martins"),
        ("job", "Is a high school teacher"),
        ("city", "Lives in Lisbon"),
        ("football", "Likes to play football on Sundays"),
        ("kids", "Has two daughters"),
        ("movie", "Favourite movie is Inception"),
        ("peanut", "Allergic to peanuts"),
        ("morning", "Prefers morning meetings"),
        ("piano", "Wants to learn piano"),
        ("tea", "Drinks green tea"),
        ("contact", "Prefers email over phone calls"),
        ("spicy", "Loves spicy food"),
        ("landlord", "Meeting with the landlord is on Thursday"),
        ("wife", "His wife is named Clara"),
        ("paris", "Visited Paris in 2019"),
        ("movie2", "His favorite film is Inception"),
        ("peanut2", "Has a peanut allergy"),
        ("morning2", "Likes to have meetings in the morning"),
        ("piano2", "Would like to learn to play the piano"),
        ("kids2", "Is the father of two girls"),
        ("name2", "User's name is Leo Martins"),
        ("city2", "Relocated to Porto last month"),
        ("tea2", "Stopped drinking green tea"),
        ("contact2", "Prefers phone calls over email"),
        ("job2", "Now works as a school principal"),
        ("spicy2", "Can't handle spicy food"),
        ("landlord2", "The landlord meeting was moved to Friday"),
        ("football-tv", "Watches football on TV"),
        ("ana", "His daughter Ana is 8"),
        ("thai", "Loves Thai food"),
        ("rome", "Visited Rome in 2022"),
        ("clara", "Clara works as a dentist"),
    ],
    "maria": [
        ("veg", "I'm a vegetarian"),
        ("remote", "I work remotely"),
        ("birthday", "My birthday is on March 3"),
        ("bullets", "I prefer answers in bullet points"),
        ("os", "I use Windows"),
        ("single", "I'm single"),
        ("horror", "I like horror movies"),
        ("manager", "My manager is Tom"),
        ("deadline", "The project deadline is Friday"),
        ("gym-mon", "I went to the gym on Monday"),
        ("veg2", "I don't eat meat"),
        ("remote2", "I work from home"),
        ("birthday2", "I was born on 3 March"),
        ("bullets2", "Please format answers as bullet points"),
        ("os2", "I switched to a Mac"),
        ("single2", "I got married in June"),
        ("horror2", "I hate horror movies"),
        ("manager2", "My new manager is Priscilla"),
        ("deadline2", "The project deadline was pushed to next Wednesday"),
        ("comedy", "I like comedies"),
        ("tom-golf", "Tom likes golf"),
        ("gym-thu", "I went to the gym on Thursday"),
        ("sister", "My sister lives in Madrid"),
        ("brother", "My brother lives in Valencia"),
    ],
    "ops": [
        ("ci", "User deploys with GitHub Actions"),
        ("api", "User's API is written in Go"),
        ("tabs", "User prefers tabs over spaces"),
        ("db", "Production database is MySQL 8"),
        ("staging", "Staging runs on AWS"),
        ("tz", "User's timezone is CET"),
        ("release", "The release is scheduled for May 2"),
        ("react", "The frontend uses React"),
        ("login-bug", "Fixed the login bug on Monday"),
        ("ci2", "User's CI/CD runs on GitHub Actions"),
        ("api2", "The user wrote their API in Go"),
        ("tabs2", "User likes tabs more than spaces"),
        ("db2", "Production database migrated to PostgreSQL 16"),
        ("staging2", "Staging now runs on GCP"),
        ("tz2", "User's timezone is PST"),
        ("release2", "The release is scheduled for May 9"),
        ("s3", "Backups are stored on AWS S3"),
        ("dark", "User prefers dark mode"),
        ("vue", "The admin panel uses Vue"),
        ("pay-bug", "Fixed the payment bug on Tuesday"),
    ],
}

# Keys within one namespace.
DUPLICATES = {
    "leo": [
        ["movie", "movie2"],
        ["peanut", "peanut2"],
        ["morning", "morning2"],
        ["piano", "piano2"],
        ["kids", "kids2"],
        ["name", "name2"],
    ],
    "maria": [
        ["veg", "veg2"],
        ["remote", "remote2"],
        ["birthday", "birthday2"],
        ["bullets", "bullets2"],
    ],
    "ops": [
        ["ci", "ci2"],
        ["api", "api2"],
        ["tabs", "tabs2"],
    ],
}
# (older, newer, kind)
CONFLICTS = {
    "leo": [
        ["city", "city2", "update"],
        ["tea", "tea2", "update"],
        ["contact", "contact2", "contradiction"],
        ["job", "job2", "update"],
        ["spicy", "spicy2", "contradiction"],
        ["landlord", "landlord2", "update"],
    ],
    "maria": [
        ["os", "os2", "update"],
        ["single", "single2", "update"],
        ["horror", "horror2", "contradiction"],
        ["manager", "manager2", "update"],
        ["deadline", "deadline2", "update"],
    ],
    "ops": [
        ["db", "db2", "update"],
        ["staging", "staging2", "update"],
        ["tz", "tz2", "contradiction"],
        ["release", "release2", "contradiction"],
    ],
}
# Look-alikes that are two facts.
DISTINCT = {
    "leo": [
        ["football", "football-tv"],
        ["kids", "ana"],
        ["spicy", "thai"],
        ["paris", "rome"],
        ["wife", "clara"],
    ],
    "maria": [
        ["horror", "comedy"],
        ["manager", "tom-golf"],
        ["gym-mon", "gym-thu"],
        ["sister", "brother"],
    ],
    "ops": [
        ["staging", "s3"],
        ["tabs", "dark"],
        ["react", "vue"],
        ["login-bug", "pay-bug"],
    ],
}


def main() -> None:
    write_set(
        Path(__file__).parent,
        "everyday2",
        {"STORES": STORES, "DUPLICATES": DUPLICATES, "CONFLICTS": CONFLICTS, "DISTINCT": DISTINCT},
        "A second set of short everyday memories (no subject, first person, "
        "'User ...'; no tags), written after this round's rules and scored once first.",
    )


if __name__ == "__main__":
    main()
