"""Deterministic synthetic agent memories for benchmarks: memory-length sentences built
from templates, so that sizes can grow without shipping data."""

from __future__ import annotations

import random

SUBJECTS = ["The user", "Maya", "The billing API", "Staging", "The robot arm", "The team", "Jonas"]
TEMPLATES = [
    "{s} prefers {a} over {b} for {c}.",
    "{s} is deployed on {a} since {m} {y}.",
    "{s} runs {a} version {n}.{k} in {c}.",
    "{s} meets with {b} every {d} at {h}:00.",
    "Grip force {n}.{k} N works for {a} cups in {c}.",
    "{s} moved the {a} backups to {b} on {m} {k}.",
    "{s} said {a} should never be used for {c}.",
    "The {c} job for {s} takes about {n} minutes on {a}.",
]
WORDS = [
    "Python",
    "Rust",
    "Hetzner",
    "Railway",
    "Postgres",
    "Redis",
    "Grafana",
    "ceramic",
    "glass",
    "production",
    "staging",
    "nightly exports",
    "data scripts",
    "the kitchen",
    "the lab",
    "Kubernetes",
    "GitHub Actions",
    "Loki",
    "invoices",
    "search",
    "reports",
]
MONTHS = ["January", "March", "April", "June", "September", "November"]
DAYS = ["Monday", "Tuesday", "Thursday", "Friday"]


def fill(template: str, rng: random.Random) -> str:
    return template.format(
        s=rng.choice(SUBJECTS),
        a=rng.choice(WORDS),
        b=rng.choice(WORDS),
        c=rng.choice(WORDS),
        d=rng.choice(DAYS),
        m=rng.choice(MONTHS),
        y=rng.randint(2024, 2026),
        n=rng.randint(2, 40),
        k=rng.randint(0, 9),
        h=rng.randint(8, 18),
    )


def sentences(count: int, *, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [fill(rng.choice(TEMPLATES), rng) for _ in range(count)]


# The same kinds of facts in German, French and Chinese, for multilingual namespaces.
FOREIGN_TEMPLATES = [
    "{s} bevorzugt {a} statt {b} für {c}.",
    "{s} läuft seit {m} {y} auf {a}.",
    "Das Team trifft sich jeden {d} um {h} Uhr mit {b}.",
    "{s} préfère {a} à {b} pour {c}.",
    "{s} est déployé sur {a} depuis {m} {y}.",
    "La tâche {c} prend environ {n} minutes sur {a}.",
    "{s}更喜欢用{a}而不是{b}来处理{c}。",
    "{s}从{y}年起部署在{a}上。",
    "{c}任务在{a}上大约需要{n}分钟。",
]


def mixed_sentences(count: int, *, seed: int = 7, foreign_share: float = 0.3) -> list[str]:
    """Memory-length sentences, `foreign_share` of them in German, French or Chinese."""
    rng = random.Random(seed)
    english = sentences(count, seed=seed)
    out = []
    for index in range(count):
        if rng.random() >= foreign_share:
            out.append(english[index])
            continue
        out.append(fill(rng.choice(FOREIGN_TEMPLATES), rng))
    return out
