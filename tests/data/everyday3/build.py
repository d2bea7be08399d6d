"""Writes memories.jsonl and labels.json from the lists below (run once; both are kept).

A third set in the voices agents write ("User ...", first person, no subject; one store
in German), written at the end of issue 26's work and scored once before any change
(bench/calibrate.py --data tests/data/everyday3): a held-out check of the other two."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))
from labelled_set import write_set

# (namespace, [(key, text)]) in the order they were stored; keys name the memories in
# the labels below. No tags, no category, no source.
STORES = {
    "noah": [
        ("name", "User's name is Noah"),
        ("city", "User lives in Denver"),
        ("job", "User works at a bike shop"),
        ("coffee", "User drinks two cups of coffee a day"),
        ("dog", "User has a beagle named Biscuit"),
        ("climb", "User goes climbing on Saturdays"),
        ("editor", "User codes in VS Code"),
        ("sister", "User's sister lives in Austin"),
        ("sushi", "User loves sushi"),
        ("run", "User ran a half marathon in October"),
        ("lang", "User is learning Japanese"),
        ("dentist", "User's dentist appointment is on the 14th"),
        ("dog2", "User owns a beagle called Biscuit"),
        ("climb2", "User climbs every Saturday"),
        ("editor2", "User switched from VS Code to Neovim"),
        ("coffee2", "User cut back to one coffee a day"),
        ("lang2", "User is studying Japanese"),
        ("sushi2", "User doesn't like sushi anymore"),
        ("dentist2", "User's dentist appointment moved to the 21st"),
        ("run2", "User ran a 10k in March"),
        ("job2", "User works at a bicycle shop"),
        ("city2", "User lives in Denver, Colorado"),
        ("biscuit-vet", "User took Biscuit to the vet last week"),
        ("ramen", "User loves ramen"),
        ("sister2", "User's sister moved to Seattle"),
    ],
    "sofia": [
        ("diet", "I'm lactose intolerant"),
        ("commute", "I commute by train"),
        ("lang", "I speak Spanish and English"),
        ("kid", "My son is 6"),
        ("music", "I listen to a lot of jazz"),
        ("tool", "I use Notion for my notes"),
        ("wake", "I usually wake up at 6"),
        ("car", "I drive a Honda Civic"),
        ("meeting", "My weekly team meeting is on Mondays"),
        ("trip", "I'm planning a trip to Japan in April"),
        ("yoga", "I do yoga twice a week"),
        ("allergy", "I'm allergic to cats"),
        ("diet2", "I can't have dairy"),
        ("commute2", "I take the train to work"),
        ("music2", "Jazz is my favorite music"),
        ("tool2", "I moved my notes from Notion to Obsidian"),
        ("wake2", "I get up at 7 these days"),
        ("car2", "I sold my Civic and now drive a Tesla"),
        ("meeting2", "My weekly team meeting is now on Wednesdays"),
        ("trip2", "I'm planning a trip to Japan in April with my sister"),
        ("kid2", "My son just turned 7"),
        ("yoga-class", "I went to a yoga class on Tuesday"),
        ("dog-allergy", "I'm allergic to dogs"),
        ("podcast", "I listen to history podcasts"),
    ],
    "jonas": [
        ("wohnort", "Wohnt in Hamburg"),
        ("beruf", "Arbeitet als Krankenpfleger"),
        ("tee", "Trinkt gern schwarzen Tee"),
        ("rad", "Fährt mit dem Rad zur Arbeit"),
        ("frau", "Seine Frau heißt Miriam"),
        ("fleisch", "Isst kein Fleisch"),
        ("schach", "Spielt gern Schach"),
        ("urlaub", "Urlaub in Dänemark im Juli"),
        ("sprache", "Antworten bitte auf Deutsch"),
        ("laufen", "Läuft dreimal pro Woche"),
        ("wohnort2", "Lebt in Hamburg"),
        ("tee2", "Mag schwarzen Tee"),
        ("rad2", "Fährt jetzt mit der Bahn zur Arbeit"),
        ("schach2", "Spielt nicht mehr Schach"),
        ("urlaub2", "Der Urlaub in Dänemark wurde auf August verschoben"),
        ("sprache2", "Bitte immer auf Deutsch antworten"),
        ("laufen2", "Geht dreimal in der Woche joggen"),
        ("beruf2", "Ist Krankenpfleger von Beruf"),
        ("kaffee", "Trinkt gern Kaffee"),
        ("miriam-job", "Miriam arbeitet als Lehrerin"),
        ("schwimmen", "Schwimmt gern im Sommer"),
    ],
}

DUPLICATES = {
    "noah": [
        ["dog", "dog2"],
        ["climb", "climb2"],
        ["lang", "lang2"],
        ["job", "job2"],
        ["city", "city2"],
    ],
    "sofia": [
        ["diet", "diet2"],
        ["commute", "commute2"],
        ["music", "music2"],
        ["trip", "trip2"],
    ],
    "jonas": [
        ["wohnort", "wohnort2"],
        ["tee", "tee2"],
        ["sprache", "sprache2"],
        ["laufen", "laufen2"],
        ["beruf", "beruf2"],
    ],
}

CONFLICTS = {
    "noah": [
        ["editor", "editor2", "update"],
        ["coffee", "coffee2", "update"],
        ["sushi", "sushi2", "update"],
        ["dentist", "dentist2", "update"],
        ["sister", "sister2", "update"],
    ],
    "sofia": [
        ["tool", "tool2", "update"],
        ["wake", "wake2", "update"],
        ["car", "car2", "update"],
        ["meeting", "meeting2", "update"],
        ["kid", "kid2", "update"],
    ],
    "jonas": [
        ["rad", "rad2", "update"],
        ["schach", "schach2", "update"],
        ["urlaub", "urlaub2", "update"],
    ],
}

DISTINCT = {
    "noah": [
        ["run", "run2"],
        ["sushi", "ramen"],
        ["dog", "biscuit-vet"],
        ["city", "sister"],
    ],
    "sofia": [
        ["yoga", "yoga-class"],
        ["allergy", "dog-allergy"],
        ["music", "podcast"],
        ["commute", "car"],
    ],
    "jonas": [
        ["tee", "kaffee"],
        ["beruf", "miriam-job"],
        ["laufen", "schwimmen"],
        ["frau", "miriam-job"],
    ],
}


def main() -> None:
    write_set(
        Path(__file__).parent,
        "everyday3",
        {"STORES": STORES, "DUPLICATES": DUPLICATES, "CONFLICTS": CONFLICTS, "DISTINCT": DISTINCT},
        "A third set of short everyday memories ('User ...', first person, no subject, "
        "one store in German; no tags), written at the end of issue 26 and scored once first.",
    )


if __name__ == "__main__":
    main()
