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


def sentences(count: int, *, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        template = rng.choice(TEMPLATES)
        out.append(
            template.format(
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
        )
    return out
