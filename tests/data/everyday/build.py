"""Writes memories.jsonl and labels.json from the lists below (run once; both are kept)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))
from labelled_set import write_set

# (namespace, [(key, text)]) in the order they were stored; keys name the memories in
# the labels below. No tags, no category, no source: as Mem0, ChromaDB and Qdrant keep them.
STORES = {
    "sam": [
        ("name", "Name is Sam Okoro"),
        ("job", "Is a software engineer"),
        ("city", "Lives in Denver"),
        ("hike", "Loves hiking"),
        ("dog", "Has a dog named Max"),
        ("shellfish", "Allergic to shellfish"),
        ("concise", "Prefers concise answers"),
        ("veg", "Is vegetarian"),
        ("japan", "Planning a trip to Japan in April"),
        ("hike2", "Enjoys hiking on weekends"),
        ("coffee", "Drinks coffee every morning"),
        ("python", "Prefers Python for scripting"),
        ("max-camp", "Took Max camping at Lake Dillon"),
        ("guitar", "Plays guitar"),
        ("name2", "Name is Sam Okoro"),
        ("sister", "Has a sister named Ada"),
        ("ada-city", "Ada lives in Chicago"),
        ("pizza", "Loves cheese pizza"),
        ("concise2", "Wants short, to-the-point answers"),
        ("japan2", "Is planning to visit Japan in April"),
        ("bike", "Commutes to work by bike"),
        ("chess", "Plays chess"),
        ("chess2", "Plays chess with his father on Sundays"),
        ("vim", "Uses Vim"),
        ("jazz", "Likes jazz"),
        ("books", "Reads science fiction"),
        ("shellfish2", "Is allergic to shellfish"),
        ("title", "Works at Globex as a backend engineer"),
        ("tea", "Likes green tea"),
        ("docs", "Was recommended the documentary Free Solo"),
        ("marathon", "Is training for the Denver marathon"),
        ("coffee-no", "Doesn't drink coffee anymore"),
        ("pizza-no", "Dislikes cheese pizza"),
        ("vim-no", "No longer uses Vim; switched to VS Code"),
        ("city2", "Moved to Boulder in 2026"),
        ("title2", "Works at Globex as an engineering manager"),
        ("dark", "Prefers dark mode"),
        ("dark2", "Likes dark mode in every app"),
        ("jazz-no", "I don't like jazz"),
    ],
    "priya": [
        ("name", "My name is Priya"),
        ("job", "I work as a nurse at St. Mary's Hospital"),
        ("city", "I live in Leeds"),
        ("kids", "I have two kids"),
        ("son", "My son is 7"),
        ("daughter", "My daughter is 10"),
        ("yoga", "I do yoga on Tuesdays"),
        ("cilantro", "I love cilantro"),
        ("tea", "I drink chai every afternoon"),
        ("run", "I run 5 km every Saturday"),
        ("kids2", "I'm a mother of two"),
        ("night", "I work night shifts"),
        ("car", "I drive a Honda Civic"),
        ("book", "I'm reading Middlemarch"),
        ("garden", "I grow tomatoes in my garden"),
        ("garden2", "I grow basil in my garden"),
        ("spanish", "I'm learning Spanish"),
        ("spanish2", "I'm learning Spanish with an app"),
        ("pet", "I have a cat called Biscuit"),
        ("cilantro-no", "I can't stand cilantro"),
        ("yoga2", "My yoga class is on Tuesday evenings"),
        ("city-no", "We moved to York last month"),
        ("car2", "I sold the Civic and drive a Toyota Yaris now"),
        ("night2", "I only work day shifts now"),
        ("swim-mon", "Swam 1 km on Monday"),
        ("swim-fri", "Swam 2 km on Friday"),
        ("dentist", "My dentist appointment is on 3 June"),
        ("dentist2", "I rescheduled the dentist to 10 June"),
        ("parents", "My parents live in Manchester"),
        ("brother", "My brother lives in Bristol"),
        ("vegan", "I'm vegan"),
        ("vegan2", "Eats a plant-based diet"),
        ("biscuit-vet", "Took Biscuit to the vet yesterday"),
        ("podcast", "I listen to true crime podcasts"),
        ("spanish-tutor", "Someone suggested I try a Spanish tutor"),
    ],
    "kenji": [
        ("name", "User's name is Kenji"),
        ("lang", "User prefers answers in English"),
        ("job", "User is a data scientist at Rakuten"),
        ("city", "User lives in Osaka"),
        ("coffee", "User likes iced coffee"),
        ("cats", "User is allergic to cats"),
        ("rust", "User is learning Rust"),
        ("bass", "User plays bass in a band"),
        ("ramen", "User loves tonkotsu ramen"),
        ("cats2", "User has a cat allergy"),
        ("rust2", "User studies Rust in the evenings"),
        ("editor", "User's editor is Neovim"),
        ("deploy", "Deploy the side project to Fly.io"),
        ("db", "The side project's database is SQLite"),
        ("cache", "The side project uses Redis as its cache"),
        ("deploy2", "Deploy the side project to Render"),
        ("db2", "The side project's database is PostgreSQL"),
        ("trip", "As of 2026-02-01, user plans a trip to Hokkaido in July"),
        ("trip2", "As of 2026-03-10, user plans a trip to Hokkaido in July with his brother"),
        ("tom", "On 2026-03-02 the user said that Taro works at Sony"),
        ("yuki", "On 2026-03-02 the user said that Yuki lives in Kyoto"),
        ("bass2", "User plays the bass guitar in a band"),
        ("ramen2", "User enjoys ramen"),
        ("lang2", "User wants replies in English"),
        ("city2", "User lives in Kobe"),
        ("standup", "The team stand-up is at 9:30"),
        ("standup2", "The team stand-up moved to 10:00"),
        ("beer", "User doesn't drink alcohol"),
        ("beer2", "User drinks beer on weekends"),
        ("kyoto", "Visited Kyoto in 2023"),
        ("kyoto2", "Visited Kyoto in 2025"),
        ("chinese", "用户住在大阪。"),
        ("de", "Kenji mag kein Koriander"),
        ("coriander", "User hates coriander"),
        ("fr", "Kenji joue de la basse dans un groupe"),
    ],
}

# Keys within one namespace.
DUPLICATES = {
    "sam": [
        ["name", "name2"],
        ["hike", "hike2"],
        ["concise", "concise2"],
        ["japan", "japan2"],
        ["chess", "chess2"],
        ["shellfish", "shellfish2"],
        ["dark", "dark2"],
    ],
    "priya": [
        ["kids", "kids2"],
        ["spanish", "spanish2"],
        ["yoga", "yoga2"],
        ["vegan", "vegan2"],
    ],
    "kenji": [
        ["cats", "cats2"],
        ["rust", "rust2"],
        ["bass", "bass2", "fr"],
        ["ramen", "ramen2"],
        ["lang", "lang2"],
        ["trip", "trip2"],
        ["city", "chinese"],
        ["de", "coriander"],
    ],
}
# (older, newer, kind)
CONFLICTS = {
    "sam": [
        ["coffee", "coffee-no", "update"],
        ["pizza", "pizza-no", "contradiction"],
        ["vim", "vim-no", "update"],
        ["city", "city2", "update"],
        ["title", "title2", "update"],
        ["jazz", "jazz-no", "contradiction"],
    ],
    "priya": [
        ["cilantro", "cilantro-no", "contradiction"],
        ["city", "city-no", "update"],
        ["car", "car2", "update"],
        ["night", "night2", "update"],
        ["dentist", "dentist2", "update"],
    ],
    "kenji": [
        ["deploy", "deploy2", "update"],
        ["db", "db2", "update"],
        ["city", "city2", "update"],
        ["chinese", "city2", "update"],
        ["standup", "standup2", "update"],
        ["beer", "beer2", "contradiction"],
    ],
}
# Look-alikes that are two facts.
DISTINCT = {
    "sam": [
        ["dog", "max-camp"],
        ["hike", "docs"],
        ["sister", "ada-city"],
        ["jazz", "tea"],
        ["python", "vim"],
        ["guitar", "chess"],
    ],
    "priya": [
        ["son", "daughter"],
        ["garden", "garden2"],
        ["swim-mon", "swim-fri"],
        ["parents", "brother"],
        ["pet", "biscuit-vet"],
        ["spanish", "spanish-tutor"],
        ["tea", "cilantro"],
    ],
    "kenji": [
        ["tom", "yuki"],
        ["kyoto", "kyoto2"],
        ["deploy", "db"],
        ["db", "cache"],
        ["coffee", "ramen"],
    ],
}


def main() -> None:
    write_set(
        Path(__file__).parent,
        "everyday",
        {"STORES": STORES, "DUPLICATES": DUPLICATES, "CONFLICTS": CONFLICTS, "DISTINCT": DISTINCT},
        "Short everyday memories written for memadmin in the voices agents use "
        "(no subject, first person, 'User ...'), with no tags or categories.",
    )


if __name__ == "__main__":
    main()
