"""Writes memories.jsonl and labels.json: a store in a style none of the fitted sets has,
as Mem0 writes one from templates (one user per namespace, many short facts about the
people and things in that user's life, values and modifiers), kept out of every fit
(curation.learning.fitting.LABELLED_SETS does not list it) and reported apart.

What it holds, by construction: subjects told apart only by a modifier ("the welder from
Lima" / "the welder from Oslo"), an initial ("Yuki A." / "Yuki R.") or a company's form
("Tom Inc." / "Tom Ltd."), each with its own value of one slot (two facts); the same
subject's value changed later (a conflict, an update); the same fact again in other
words (one fact). Run once (seeded); both files are kept."""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent.parent))
from labelled_set import write_set

USERS = ["emil", "yuki", "nora", "marco", "ines", "priya"]
ROLES = ["welder", "plumber", "dentist", "tutor", "landlord", "mechanic", "baker"]
PLACES = ["Lima", "Oslo", "Porto", "Quito", "Dakar", "Riga", "Hanoi", "Perth"]
INITIALS = "ABDKLMRST"
GIVEN = ["Yuki", "Nora", "Jonas", "Lena", "Omar", "Mei"]
CITIES = ["Berlin", "Munich", "Lyon", "Osaka", "Leeds", "Austin", "Turin"]
FORMS = ["Inc.", "Ltd.", "GmbH", "LLC"]
FIRMS = ["Tom", "Apex", "Nordic", "Blue"]
PLANS = ["Free", "Pro", "Team", "Enterprise"]

# (slot, how it is said first, how it is said again in other words, how a change is said)
OWES = (
    "{who} owes {n} euros to the {role} from {place}.",
    "{who} has a debt of {n} euros with the {role} from {place}.",
    "{who} now owes {n} euros to the {role} from {place}.",
)
LIVES = (
    "{person} lives in {city}.",
    "{person} is based in {city}.",
    "{person} has moved to {city}.",
)
PLAN = (
    "{person} is on the {plan} plan.",
    "{person}'s subscription is the {plan} plan.",
    "{person} switched to the {plan} plan.",
)
CHAMPION = (
    "{person} is our champion at {firm} {form}",
    "Our contact who champions us at {firm} {form} is {person}.",
    "{person} is no longer our champion at {firm} {form}; it is now {other}.",
)


def build(seed: int = 11) -> dict:
    rng = random.Random(seed)
    stores, duplicates, conflicts, distinct = {}, {}, {}, {}
    for user in USERS:
        memories, dup, con, apart = [], [], [], []
        owner = user.capitalize()

        def add(key, text, memories=memories):
            memories.append((key, text if text.endswith(".") else text + "."))
            return key

        # Several people told apart by an initial, one slot each: two facts each pair.
        given = rng.choice(GIVEN)
        people = [f"{given} {letter}." for letter in rng.sample(INITIALS, 3)]
        for slot, template, values, field in (
            ("lives", LIVES, CITIES, "city"),
            ("plan", PLAN, PLANS, "plan"),
        ):
            keys = []
            for index, person in enumerate(people):
                value = rng.choice(values)
                first = template[0].format(person=person, **{field: value})
                keys.append(add(f"{slot}{index}", first))
                if index == 0:  # said again in other words: one fact
                    again = template[1].format(person=person, **{field: value})
                    dup.append([keys[-1], add(f"{slot}{index}-again", again)])
                if index == 1:  # changed later: an update
                    other = rng.choice([v for v in values if v != value])
                    later = template[2].format(person=person, **{field: other})
                    con.append([keys[-1], add(f"{slot}{index}-later", later), "update"])
            apart += [[a, b] for i, a in enumerate(keys) for b in keys[i + 1 :]]
        # People and things told apart by a modifier after the noun: two facts each pair.
        keys = []
        for index, (role, place) in enumerate(
            zip(rng.sample(ROLES, 3), rng.sample(PLACES, 3), strict=True)
        ):
            for other_place in [place, rng.choice([p for p in PLACES if p != place])]:
                amount = rng.randrange(120, 990)
                text = OWES[0].format(who=owner, n=amount, role=role, place=other_place)
                keys.append(add(f"owes{index}-{other_place}", text))
            if index == 0:
                again = OWES[1].format(who=owner, n=amount, role=role, place=other_place)
                dup.append([keys[-1], add(f"owes{index}-again", again)])
            if index == 1:
                later = OWES[2].format(who=owner, n=amount + 40, role=role, place=other_place)
                con.append([keys[-1], add(f"owes{index}-later", later), "update"])
        apart += [[a, b] for i, a in enumerate(keys) for b in keys[i + 1 :]]
        # Companies told apart by their form: two facts.
        firm = rng.choice(FIRMS)
        forms = rng.sample(FORMS, 2)
        champions = rng.sample(["Marco", "Sara", "Ivo", "Lea"], 3)
        keys = [
            add(f"champion-{form}", CHAMPION[0].format(person=person, firm=firm, form=form))
            for person, form in zip(champions, forms, strict=False)
        ]
        apart.append(keys)
        again = CHAMPION[1].format(person=champions[0], firm=firm, form=forms[0])
        dup.append([keys[0], add("champion-again", again)])
        later = CHAMPION[2].format(
            person=champions[1], firm=firm, form=forms[1], other=champions[2]
        )
        con.append([keys[1], add("champion-later", later), "update"])
        stores[user], duplicates[user], conflicts[user], distinct[user] = memories, dup, con, apart
    return {
        "STORES": stores,
        "DUPLICATES": duplicates,
        "CONFLICTS": conflicts,
        "DISTINCT": distinct,
    }


if __name__ == "__main__":
    write_set(
        Path(__file__).parent,
        "tmpl",
        build(),
        "Generated by build.py: a Mem0-style store (one user a namespace, templated facts "
        "about people and things told apart by a modifier, an initial or a company's form). "
        "Kept out of every fit; reported apart.",
    )
