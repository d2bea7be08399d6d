"""Stores of short memories about many subjects, with the truth known: customers, services,
objects and companies, one namespace each. Each subject gets a few facts (slots); some
are said again in other words or repeated, some change value later ("moved to", "now"),
some are contradicted; many subjects share a value (two customers in Turin) or a first
name (Lea K. / Lea M.), and some facts name two subjects in swapped roles ("Nina is our
champion at Hugo Ltd." / "Hugo is our champion at Nina Ltd."). What is one fact, what
conflicts and what is two facts follows from how each memory was made.

    .venv/bin/python bench/many_subjects.py generate --memories 400 --seed 1 --out DIR
    .venv/bin/python bench/many_subjects.py run [--memories 5000] [--seed 7]

`generate` writes a labelled set (memories.jsonl, labels.json: the dev set's format).
Two of them are labelled sets the pair model is fit on, each the other's held-out
domain: tests/data/many_people is `generate --memories 400 --seed 1 --domains
customers,companies`, tests/data/many_things `generate --memories 400 --seed 2 --domains
services,objects`. `run` uses all four domains and another seed. `run` generates a store,
imports it into the embedded PostgreSQL (its own database folder under var/), runs
find_duplicates with no LLM and prints its time, the candidate pairs per memory, the
automatic merges that are not one fact, and the duplicate and conflict figures by tier.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Slot:
    """A kind of fact about a subject: `one` value at a time (a conflict when two
    differ) or several (two values are two facts); ways of saying it, and of saying it
    changed."""

    name: str
    one: bool
    values: tuple[str, ...]
    said: tuple[str, ...]
    changed: tuple[str, ...] = ()


CITIES = (
    "Turin", "Lyon", "Lille", "Porto", "Madrid", "Leeds", "York", "Vienna", "Zurich", "Ghent",
    "Bilbao", "Krakow", "Oslo", "Dublin", "Bremen", "Nantes",
)  # fmt: skip
FIRST = (
    "Lea", "Nina", "Hugo", "Mia", "Leo", "Ada", "Tom", "Ines", "Omar", "Sara", "Jan", "Eva",
    "Luca", "Noor", "Ravi", "Zoe", "Paul", "Yuki", "Ana", "Finn",
)  # fmt: skip
INITIALS = "KMSTBRPLDHWG"

CUSTOMER_SLOTS = (
    Slot("city", True, CITIES,
         ("{s} lives in {v}.", "{s} is based in {v}.", "{s}'s home is in {v}."),
         ("{s} moved to {v}.", "{s} now lives in {v}.", "{s} relocated to {v}.")),
    Slot("plan", True, ("Team", "Business", "Starter", "Enterprise"),
         ("{s} is on the {v} plan.", "{s} has a {v} subscription.", "{s} pays for the {v} plan."),
         ("{s} switched to the {v} plan.", "{s} upgraded to the {v} plan.")),
    Slot("timezone", True, ("Europe/Paris", "Europe/London", "America/New_York", "Asia/Tokyo"),
         ("{s}'s timezone is {v}.", "{s} works in the {v} time zone."),
         ("{s} is now in the {v} time zone.",)),
    Slot("diet", True, ("vegetarian", "vegan", "pescatarian"),
         ("{s} is {v}.", "{s} eats a {v} diet."), ("{s} has gone {v}.",)),
    Slot("health", False, ("asthma", "a peanut allergy", "migraines", "a bad knee"),
         ("{s} has {v}.", "{s} suffers from {v}.")),
    Slot("channel", True, ("SMS", "email", "phone calls", "Slack"),
         ("{s} prefers {v} for replies.", "{s} wants replies by {v}.",
          "{s} likes to be reached by {v}."),
         ("{s} now prefers {v} for replies.",)),
    Slot("language", False, ("German", "French", "Spanish", "Italian", "Japanese"),
         ("{s} speaks {v}.", "{s} is fluent in {v}.")),
    Slot("birthplace", True, CITIES, ("{s} was born in {v}.", "{s} is a native of {v}.")),
)  # fmt: skip
SERVICES = tuple(
    f"{a}-{b}"
    for a, b in itertools.product(
        (
            "auth", "billing", "search", "ingest", "report", "notify", "media", "quota",
            "ledger", "export", "import", "geo", "pricing", "cart", "invoice", "audit",
            "session", "profile", "feed", "upload", "thumb", "mailer", "sync", "webhook",
        ),
        ("svc", "api", "worker"),
    )
)  # fmt: skip
SERVICE_SLOTS = (
    Slot("staging", True, ("Azure", "Fly.io", "AWS", "GCP", "Hetzner"),
         ("The staging target of {s} is {v}.", "{s} stages on {v}.",
          "{s} deploys to {v} for staging."),
         ("{s} moved its staging to {v}.", "{s} now stages on {v}.")),
    Slot("ci", True, ("Buildkite", "CircleCI", "GitHub Actions", "Jenkins"),
         ("Builds of {s} run on {v}.", "{s} is built on {v}.", "{s} uses {v} for CI."),
         ("{s} switched its builds to {v}.",)),
    Slot("port", True, ("8080", "9100", "3000", "5000", "8443"),
         ("{s} listens on port {v}.", "{s} serves on port {v}."),
         ("{s} now listens on port {v}.",)),
    Slot("postgres", True, ("Postgres 14", "Postgres 15", "Postgres 16"),
         ("{s} runs on {v}.", "{s} uses {v}."), ("{s} was upgraded to {v}.",)),
    Slot("owner", True, tuple(f"{f} {i}." for f in FIRST[:10] for i in "KM"),
         ("{s} is owned by {v}.", "The owner of {s} is {v}."),
         ("{s} is now owned by {v}.",)),
    Slot("language", True, ("Go", "Rust", "Python", "Kotlin"),
         ("{s} is written in {v}.", "{s} is a {v} service."), ("{s} was rewritten in {v}.",)),
    Slot("alert", False, ("high latency", "disk usage", "error rate", "queue depth"),
         ("{s} pages on {v}.", "{s} alerts on {v}.")),
)  # fmt: skip
OBJECTS = tuple(
    f"the {a} {b}"
    for a, b in itertools.product(
        ("red", "blue", "12V", "ceramic", "steel", "glass", "spare", "small", "large",
         "green", "old", "new"),
        ("controller plugin", "battery pack", "mug", "bracket", "sensor", "gripper pad",
         "camera", "cable", "motor", "valve", "tray", "fixture"),
    )
)  # fmt: skip
OBJECT_SLOTS = (
    Slot("weight", True, ("120 g", "250 g", "400 g", "1.2 kg"),
         ("{S} weighs {v}.", "The weight of {s} is {v}."), ("{S} now weighs {v}.",)),
    Slot("grip", True, ("8 N", "12.5 N", "15 N", "20 N"),
         ("Grip force for {s} is {v}.", "Use {v} of grip force on {s}."),
         ("Grip force for {s} was changed to {v}.",)),
    Slot("shelf", True, ("shelf A2", "shelf B4", "bin 7", "drawer 3"),
         ("{S} is stored on {v}.", "{S} lives in {v}.", "{S} is kept in {v}."),
         ("{S} moved to {v}.",)),
    Slot("stock", True, ("3 units", "5 units", "12 units", "20 units"),
         ("We have {v} of {s} in stock.", "Stock of {s}: {v}."), ("Stock of {s} is now {v}.",)),
    Slot("use", False, ("the demo rig", "the pick-and-place cell", "field tests", "the lab arm"),
         ("{S} is used on {v}.", "{S} is for {v}.")),
)  # fmt: skip
# Each firm once, its name made of two parts: "Acme GmbH" and "Acme Ltd." would be one
# firm to most readers.
COMPANIES = tuple(
    f"{a}{b} {suffix}"
    for (a, b), suffix in zip(
        itertools.product(
            ("North", "Bright", "Stone", "River", "Silver", "Blue", "Iron", "Green", "Sun",
             "Oak", "Star", "Cloud", "Maple", "Falcon", "Harbor"),
            ("wave", "peak", "field", "works", "gate", "line", "forge", "stack", "path",
             "point", "bridge", "craft", "mark", "port", "light", "stone", "grid"),
        ),
        itertools.cycle(("Ltd.", "GmbH", "Inc.", "AG", "LLC")),
    )
)  # fmt: skip
COMPANY_SLOTS = (
    Slot("hq", True, CITIES, ("{s} is headquartered in {v}.", "{s} has its head office in {v}."),
         ("{s} moved its headquarters to {v}.",)),
    Slot("size", True, ("50 employees", "120 employees", "400 employees", "2000 employees"),
         ("{s} has {v}.", "{s} employs {v}."), ("{s} now has {v}.",)),
    Slot("crm", True, ("Salesforce", "HubSpot", "Pipedrive", "Zoho"),
         ("{s} uses {v} as its CRM.", "{s} keeps its customers in {v}."),
         ("{s} switched its CRM to {v}.",)),
    Slot("renewal", True, ("March", "June", "September", "December"),
         ("{s} renews in {v}.", "The renewal of {s} is due in {v}."),
         ("The renewal of {s} moved to {v}.",)),
    Slot("product", False, ("the analytics add-on", "SSO", "the API tier", "premium support"),
         ("{s} bought {v}.", "{s} has a licence for {v}.")),
)  # fmt: skip


def people(rng: random.Random, count: int) -> list[str]:
    """Subjects by first name and initial: many share a first name (Lea K. / Lea M.)."""
    names = [f"{first} {initial}." for first in FIRST for initial in INITIALS]
    return rng.sample(names, min(count, len(names)))


DOMAINS = {
    "customers": (CUSTOMER_SLOTS, people),
    "services": (SERVICE_SLOTS, lambda rng, n: rng.sample(SERVICES, min(n, len(SERVICES)))),
    "objects": (OBJECT_SLOTS, lambda rng, n: rng.sample(OBJECTS, min(n, len(OBJECTS)))),
    "companies": (COMPANY_SLOTS, lambda rng, n: rng.sample(COMPANIES, min(n, len(COMPANIES)))),
}


@dataclass
class Made:
    """A memory and how it was made: whose fact, which slot, which value, in what
    words (a change cue or not)."""

    id: str
    text: str
    subject: str
    slot: str
    value: str
    one: bool
    changed: bool
    at: datetime


def _say(template: str, subject: str, value: str) -> str:
    text = template.format(s=subject, S=subject[:1].upper() + subject[1:], v=value)
    # A value or subject that ends with its own full stop ("Hugo M.") ends the sentence.
    text = text.replace("..", ".")
    return text[:1].upper() + text[1:]


def namespace(
    domain: str, size: int, rng: random.Random, prefix: str, *, champions: bool = True
) -> list[Made]:
    """About `size` memories of one domain."""
    slots, subjects_of = DOMAINS[domain]
    start = datetime(2025, 3, 1, 9, 0)
    made: list[Made] = []
    # About five memories a subject, as agents' stores of many people or things hold.
    subjects = subjects_of(rng, max(4, size // 5))
    while len(made) < size:
        subject = rng.choice(subjects)
        slot = rng.choice(slots)
        if any(m.subject == subject and m.slot == slot.name for m in made[-200:]) and slot.one:
            continue
        value = rng.choice(slot.values)
        at = start + timedelta(hours=rng.randrange(0, 24 * 200))
        facts = [(rng.choice(slot.said), value, False, at)]
        roll = rng.random()
        if roll < 0.25:  # said again, in other words or the same ones
            again = rng.choice(slot.said) if rng.random() < 0.75 else facts[0][0]
            facts.append((again, value, False, at + timedelta(days=rng.randrange(1, 60))))
        elif roll < 0.40 and slot.one and len(slot.values) > 1:  # a new value later
            other = rng.choice([v for v in slot.values if v != value])
            cue = bool(slot.changed) and rng.random() < 0.7
            words = rng.choice(slot.changed) if cue else rng.choice(slot.said)
            facts.append((words, other, cue, at + timedelta(days=rng.randrange(1, 90))))
        elif roll < 0.50 and not slot.one:  # a second value of a slot that holds several
            other = rng.choice([v for v in slot.values if v != value])
            facts.append((rng.choice(slot.said), other, False, at + timedelta(days=3)))
        for template, said_value, cue, when in facts:
            made.append(
                Made(
                    f"{prefix}-{len(made) + 1:05d}",
                    _say(template, subject, said_value),
                    subject,
                    slot.name,
                    said_value,
                    slot.one,
                    cue,
                    when,
                )
            )
    if domain == "customers" and champions:
        made.extend(_champions(rng, prefix, len(made), start))
    made.sort(key=lambda m: (m.at, m.id))
    return made[: size + 12]


def _champions(rng: random.Random, prefix: str, count: int, start: datetime) -> list[Made]:
    """Pairs of facts naming two people in swapped roles: two facts, never one."""
    made = []
    for index in range(3):
        a, b = rng.sample(FIRST, 2)
        for person, firm in ((a, b), (b, a)):
            made.append(
                Made(
                    f"{prefix}-{count + len(made) + 1:05d}",
                    f"{person} is our champion at {firm} Ltd.",
                    person,
                    f"champion-{index}-{person}",
                    firm,
                    True,
                    False,
                    start + timedelta(days=10 * index + len(made)),
                )
            )
    return made


def labels_of(memories: list[Made]) -> dict:
    """The truth: one fact where subject, slot and value are the same; a conflict where
    subject and a one-value slot are the same and the values differ (an update when the
    newer says it changed); everything else two facts. Hard negatives: the same slot and
    value of two subjects that share a first name, and the swapped roles."""
    by_fact: dict[tuple, list[str]] = {}
    by_slot: dict[tuple, list[Made]] = {}
    for memory in memories:
        by_fact.setdefault((memory.subject, memory.slot, memory.value), []).append(memory.id)
        if memory.one:
            by_slot.setdefault((memory.subject, memory.slot), []).append(memory)
    conflicts = []
    for found in by_slot.values():
        for older, newer in itertools.combinations(sorted(found, key=lambda m: m.at), 2):
            if older.value != newer.value:
                kind = "update" if newer.changed else "contradiction"
                conflicts.append({"a": older.id, "b": newer.id, "kind": kind, "newer": newer.id})
    hard = []
    for (subject, slot, value), ids in by_fact.items():
        first = subject.split()[0]
        for (other, other_slot, other_value), other_ids in by_fact.items():
            if (
                other > subject
                and other.split()[0] == first
                and (other_slot, other_value)
                == (
                    slot,
                    value,
                )
            ):
                hard.append([ids[0], other_ids[0]])
    champions = [m for m in memories if m.slot.startswith("champion")]
    for a, b in itertools.combinations(champions, 2):
        if a.slot.split("-")[1] == b.slot.split("-")[1]:
            hard.append([a.id, b.id])
    return {
        "duplicate_groups": [ids for ids in by_fact.values() if len(ids) > 1],
        "conflicts": conflicts,
        "hard_negatives": hard,
        "protected_ids": [],
        "guarded_pairs": [],
        "notes": "Generated by bench/many_subjects.py: the labels follow from how each "
        "memory was made (subject, slot, value, change cue).",
    }


def generate(
    total: int, seed: int, domains: tuple[str, ...] = tuple(DOMAINS)
) -> tuple[list[dict], dict]:
    """A store of about `total` memories, a namespace per domain, and its labels."""
    rng = random.Random(seed)
    rows, made = [], []
    for domain in domains:
        prefix = f"{domain[:4]}{seed}"
        found = namespace(domain, total // len(domains), rng, prefix)
        made.extend(found)
        rows.extend(
            {
                "id": m.id,
                "namespace": f"many-{domain}",
                "content": m.text,
                "created_at": m.at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            for m in found
        )
    return rows, labels_of(made)


def write(folder: Path, rows: list[dict], labels: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "memories.jsonl", "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    (folder / "labels.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")


def run(total: int, seed: int) -> None:
    """Import a generated store into a database of its own, run find_duplicates (no
    LLM), and score what it stored."""
    python = sys.executable
    env = {
        **os.environ,
        "MEMADMIN_DATA_DIR": str(ROOT / "var" / "bench-many-subjects"),
        "ANTHROPIC_API_KEY": "",
    }

    def manage(*arguments: str) -> str:
        done = subprocess.run(
            [python, str(ROOT / "manage.py"), *arguments],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"manage.py {arguments[0]} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    with tempfile.TemporaryDirectory() as folder:
        rows, labels = generate(total, seed)
        write(Path(folder), rows, labels)
        print(
            f"{len(rows)} memories in {len({r['namespace'] for r in rows})} namespaces; "
            f"{sum(len(g) * (len(g) - 1) // 2 for g in labels['duplicate_groups'])} "
            f"duplicate pairs, {len(labels['conflicts'])} conflicts labelled",
            flush=True,
        )
        manage("flush", "--no-input")
        manage("migrate", "--no-input")
        manage("import_memories", str(Path(folder) / "memories.jsonl"))
        started = time.perf_counter()
        out = manage("find_duplicates", "--no-llm", "--max-ops", "100000")
        seconds = time.perf_counter() - started
        print(out.strip().splitlines()[-1] if out.strip() else "")
        print(f"find_duplicates: {seconds:.1f} s")
        print(manage("evaluate_detection", str(Path(folder) / "labels.json"), "--quiet"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("what", choices=["generate", "run"])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--domains", default=",".join(DOMAINS), help=f"some of {', '.join(DOMAINS)}"
    )
    args = parser.parse_args()
    domains = tuple(args.domains.split(","))
    if not set(domains) <= set(DOMAINS):
        parser.error(f"--domains: choose among {', '.join(DOMAINS)}")
    if args.what == "generate":
        if args.out is None:
            parser.error("generate needs --out")
        rows, labels = generate(args.memories, args.seed, domains)
        write(args.out, rows, labels)
        print(f"{len(rows)} memories and their labels written to {args.out}")
    else:
        run(args.memories, args.seed)


if __name__ == "__main__":
    main()
