"""Writes memories.jsonl and labels.json: a hand-written store in a style none of the
fitted sets has, kept out of every fit (curation.learning.fitting.LABELLED_SETS does not
list it) and reported apart.

What it holds: facts an assistant kept from chats with five people and one team, in the
words each chat used, so one fact comes back in other words (no content word shared:
"lactose intolerant" / "dairy upsets her stomach"), in another language (German,
Spanish, Japanese), as a compound quantity ("1 h 15 min" / "75 minutes", "110 cm" /
"1.1 m"), as a role and its synonym ("her manager is" / "she reports to") or with its
subject moved ("Priya leads the platform team" / "the platform team's lead is Priya");
a value changed in other words ("retention is 60 days" / "artifacts are now purged
after 14 days"); and people or things told apart by a relation, an initial or a
modifier ("her brother Tom" / "her cousin Tom", "Daiki A." / "Daiki M.", "the staging
cluster" / "the production cluster"), each with a value of its own (two facts)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent.parent))
from labelled_set import write_set

STORES = {
    "mira": [
        ("job", "Mira works as a data scientist at a bank in Toronto."),
        ("job2", "Her job: analytics for a Toronto bank, on the data science team."),
        ("dairy", "Mira is lactose intolerant."),
        ("dairy2", "Dairy gives her stomach trouble, so she avoids milk."),
        ("commute", "Her commute takes 1 h 15 min each way."),
        ("commute2", "She spends about 75 minutes getting to work."),
        ("manager", "Mira's manager is Daniel Osei."),
        ("manager2", "She reports to Daniel Osei."),
        ("brother", "Her brother Tom lives in Vancouver."),
        ("cousin", "Her cousin Tom lives in Calgary."),
        ("lang", "Prefers Python for analysis work."),
        ("run", "Runs 10 km every Saturday morning."),
        ("swim", "Goes swimming on Wednesday evenings."),
        ("rent", "Her rent is 2,100 dollars a month."),
        ("cat", "Mira has a cat named Biscuit."),
        ("catage", "Biscuit, her cat, is eight years old."),
        ("coffee", "Mira never drinks coffee."),
        ("notes", "Wants meeting notes sent as a short bulleted list."),
        ("notes2", "Likes her meeting summaries in bullet points, kept brief."),
        ("laptop", "Her laptop is a ThinkPad X1 Carbon."),
        ("laptop2", "Uses a ThinkPad X1 Carbon as her computer."),
        ("lang2", "Has switched her analysis work from Python to Julia."),
        ("rent2", "The landlord raised her rent to 2,300 a month."),
        ("coffee2", "Mira starts every day with two espressos."),
    ],
    "jonas": [
        ("city", "Jonas lives in Hamburg."),
        ("city2", "Jonas wohnt in Hamburg."),
        ("reply", "Jonas prefers replies in German."),
        ("reply2", "Jonas möchte Antworten auf Deutsch."),
        ("handball", "Jonas spielt Handball im Verein."),
        ("bike", "He bikes to the office every day."),
        ("bike2", "Jonas fährt jeden Tag mit dem Fahrrad ins Büro."),
        ("daughter", "His daughter Lea is 6 years old."),
        ("niece", "His niece Lea is 9."),
        ("ci", "Jonas' Team nutzt GitLab für CI."),
        ("veg", "Jonas is vegetarian."),
        ("veg2", "Jonas isst kein Fleisch."),
        ("desk", "His standing desk is set to 110 cm."),
        ("desk2", "He keeps his standing desk at 1.1 m."),
        ("flight", "Jonas's flight to Lisbon leaves on May 3."),
        ("city3", "Jonas ist vor Kurzem nach München gezogen."),
        ("ci2", "Jonas's team runs its CI on GitHub Actions now."),
        ("flight2", "Jonas's flight to Lisbon was moved to May 5."),
    ],
    "ana": [
        ("job", "Ana es profesora de matemáticas en Sevilla."),
        ("job2", "Ana teaches math at a school in Seville."),
        ("nuts", "Ana is allergic to peanuts."),
        ("nuts2", "Ana tiene alergia a los cacahuetes."),
        ("sister", "Ana's sister Carmen is a nurse."),
        ("friend", "Ana's friend Carmen is a lawyer."),
        ("car", "Ana drives a 2015 Seat Ibiza."),
        ("sleep", "Ana duerme unas siete horas y media cada noche."),
        ("sleep2", "Ana usually sleeps 7 h 30 min a night."),
        ("contact", "Prefers to be contacted by WhatsApp."),
        ("german", "Ana is learning German."),
        ("guitar", "Ana is learning to play the guitar."),
        ("marathon", "Her marathon personal best is 3 h 45 min."),
        ("marathon2", "Ana ran her best marathon in 225 minutes."),
        ("rooms", "Ana's apartment has two bedrooms."),
        ("floor", "Ana's apartment is on the fourth floor."),
        ("car2", "Ana sold her Seat and now drives a Toyota Corolla."),
        ("contact2", "Prefiere que la contacten por correo electrónico, no por WhatsApp."),
    ],
    "kenta": [
        ("remote", "Kenta works remotely from Fukuoka."),
        ("remote2", "健太は福岡からリモートで働いている。"),
        ("editor", "Kenta's favourite editor is Vim."),
        ("kids", "Kenta has two kids, aged 4 and 7."),
        ("kids2", "Kenta's son is 7 and his daughter is 4."),
        ("tea", "Kenta drinks green tea, never coffee."),
        ("tea2", "Kenta doesn't drink coffee; he has green tea instead."),
        ("manager", "Kenta's manager is Yumi Sato."),
        ("manager2", "Kenta reports to Yumi Sato."),
        ("oncall", "Daiki A. handles on-call this week."),
        ("oncall2", "Daiki M. handles on-call next week."),
        ("books", "Kenta's monthly budget for books is 5,000 yen."),
        ("net", "Kenta's internet plan is 1 Gbps fiber."),
        ("phone", "Kenta's phone plan includes 20 GB of data."),
        ("editor2", "健太は最近エディタをVS Codeに乗り換えた。"),
        ("books2", "Kenta now allows himself 8,000 yen a month for books."),
    ],
    "ops": [
        ("retention", "Artifact retention on the CI server is 60 days."),
        ("kotlin", "The payments service is written in Kotlin."),
        ("kotlin2", "payments-svc is a Kotlin codebase."),
        ("deploys", "Deploys happen every Tuesday and Thursday."),
        ("deploys2", "We ship to production twice a week, on Tuesdays and Thursdays."),
        ("staging", "The staging cluster runs in eu-west-1."),
        ("production", "The production cluster runs in eu-central-1."),
        ("upload", "Max upload size for the API is 25 MB."),
        ("oncall", "On-call rotation is one week long."),
        ("oncall2", "Each on-call shift lasts 7 days."),
        ("lead", "Priya leads the platform team."),
        ("lead2", "The platform team's lead is Priya."),
        ("billing", "Priya K. owns the billing dashboard."),
        ("search", "Priya S. owns the search dashboard."),
        ("backups", "Database backups run nightly at 02:00 UTC."),
        ("backups2", "Backups of the database are taken every night at 2 am UTC."),
        ("retention2", "CI artifacts are now purged after 14 days to save disk."),
        ("upload2", "The API rejects uploads over 50 MB."),
        ("deploys3", "Deploys now happen daily."),
        ("backups3", "Backups now run every six hours."),
    ],
}

DUPLICATES = {
    "mira": [
        ["job", "job2"],
        ["dairy", "dairy2"],
        ["commute", "commute2"],
        ["manager", "manager2"],
        ["notes", "notes2"],
        ["laptop", "laptop2"],
    ],
    "jonas": [
        ["city", "city2"],
        ["reply", "reply2"],
        ["bike", "bike2"],
        ["veg", "veg2"],
        ["desk", "desk2"],
    ],
    "ana": [["job", "job2"], ["nuts", "nuts2"], ["sleep", "sleep2"], ["marathon", "marathon2"]],
    "kenta": [["remote", "remote2"], ["kids", "kids2"], ["tea", "tea2"], ["manager", "manager2"]],
    "ops": [
        ["kotlin", "kotlin2"],
        ["deploys", "deploys2"],
        ["oncall", "oncall2"],
        ["lead", "lead2"],
        ["backups", "backups2"],
    ],
}

CONFLICTS = {
    "mira": [
        ["lang", "lang2", "update"],
        ["rent", "rent2", "update"],
        ["coffee", "coffee2", "contradiction"],
    ],
    "jonas": [
        ["city", "city3", "update"],
        ["city2", "city3", "update"],
        ["ci", "ci2", "update"],
        ["flight", "flight2", "update"],
    ],
    "ana": [["car", "car2", "update"], ["contact", "contact2", "update"]],
    "kenta": [["editor", "editor2", "update"], ["books", "books2", "update"]],
    "ops": [
        ["retention", "retention2", "update"],
        ["upload", "upload2", "contradiction"],
        ["deploys", "deploys3", "update"],
        ["deploys2", "deploys3", "update"],
        ["backups", "backups3", "update"],
        ["backups2", "backups3", "update"],
    ],
}

DISTINCT = {
    "mira": [["brother", "cousin"], ["run", "swim"], ["cat", "catage"]],
    "jonas": [["daughter", "niece"], ["reply", "handball"], ["reply2", "handball"]],
    "ana": [["sister", "friend"], ["german", "guitar"], ["rooms", "floor"]],
    "kenta": [["oncall", "oncall2"], ["net", "phone"]],
    "ops": [["staging", "production"], ["billing", "search"]],
}


if __name__ == "__main__":
    write_set(
        Path(__file__).parent,
        "chat",
        {"STORES": STORES, "DUPLICATES": DUPLICATES, "CONFLICTS": CONFLICTS, "DISTINCT": DISTINCT},
        "Hand-written by build.py: facts kept from chats in the words each chat used (other "
        "words, other languages, compound quantities, roles and their synonyms), values "
        "changed in other words, people and things told apart by a relation, an initial or "
        "a modifier. Kept out of every fit; reported apart.",
    )
