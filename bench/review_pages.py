"""Server time of the review pages with 10,000 open clusters and 30,000 open conflicts.

    .venv/bin/python bench/review_pages.py [--clusters 10000] [--conflicts 30000] [--repeat 50]
    .venv/bin/python bench/review_pages.py --day-only


Times the whole Django request in-process (middleware, queries, template), the median of
`--repeat` requests each, for the queue page, a cluster page, the conflict queue and a
conflict page, searched, sorted and grouped queues, a memory's page and the dashboard. Uses
var/bench-review (a store of its own: the queues show every namespace) unless
DATABASE_URL is set. Then a curator's day (bench/decision_times.py): accepting one
cluster, a batch merge of 50 and its undo, the bulk previews, the exact copies accepted
in bulk, settling and undoing, on 5,000 short memories in the same store; with
--day-only, on those 5,000 alone (var/bench-day).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
DAY_ONLY = "--day-only" in sys.argv
os.environ.setdefault(
    "MEMADMIN_DATA_DIR", str(ROOT / "var" / ("bench-day" if DAY_ONLY else "bench-review"))
)
os.environ.setdefault("MEMADMIN_LOG_LEVEL", "WARNING")


def setup(clusters: int, conflicts: int) -> None:
    from django.db import transaction
    from django.utils import timezone

    from memadmin.curation.detection.reading.topics import topic_of
    from memadmin.curation.models import Cluster, ClusterMember, Conflict, MergeProposal
    from memadmin.store.models import Memory, Namespace
    from memadmin.store.text import content_hash

    rng = random.Random(3)
    subjects = ["staging target", "home city", "favourite editor", "team lead", "plan"]
    now = timezone.now()
    with transaction.atomic():
        namespace = Namespace.objects.create(name="bench-review")
        count = clusters * 2 + conflicts * 2
        memories = Memory.objects.bulk_create(
            Memory(
                namespace=namespace,
                external_id=f"r{i}",
                content=f"Fact number {i}: the {rng.choice(subjects)} is option "
                f"{rng.randint(1, 99)}.",
                content_hash=content_hash(f"fact {i}"),
                category="fact",
                tags=["bench"],
                created_at=now,
            )
            for i in range(count)
        )
        made = Cluster.objects.bulk_create(
            Cluster(
                namespace=namespace,
                status="open",
                edges=[
                    {
                        "a": memories[2 * i].pk,
                        "b": memories[2 * i + 1].pk,
                        "similarity": 0.7,
                        "method": "vector",
                    }
                ],
                min_similarity=round(rng.uniform(0.55, 0.95), 3),
                weakest_link=[memories[2 * i].pk, memories[2 * i + 1].pk],
            )
            for i in range(clusters)
        )
        ClusterMember.objects.bulk_create(
            ClusterMember(cluster=cluster, memory=memories[2 * i + side])
            for i, cluster in enumerate(made)
            for side in (0, 1)
        )
        MergeProposal.objects.bulk_create(
            MergeProposal(cluster=cluster, merged_text=memories[2 * i + 1].content, author="rule")
            for i, cluster in enumerate(made)
        )
        base = clusters * 2
        Conflict.objects.bulk_create(
            Conflict(
                namespace=namespace,
                memory_a=memories[base + 2 * i],
                memory_b=memories[base + 2 * i + 1],
                kind="contradiction",
                reason="number: 1 vs 2",
                topic=topic_of(memories[base + 2 * i].content, memories[base + 2 * i + 1].content),
            )
            for i in range(conflicts)
        )
    from django.db import connection

    with connection.cursor() as cursor:
        # What autovacuum does after a load like this: statistics, and the visibility map
        # that lets a count read an index alone.
        cursor.execute("VACUUM ANALYZE")
    print(f"setup: {clusters:,} open clusters, {conflicts:,} open conflicts")


def big_cluster():
    """A cluster of three members of about 5 KB each (a long note re-extracted with
    edits) and a proposal as long: the page that must stay fast when texts are long."""
    from django.utils import timezone

    from memadmin.curation.models import Cluster, ClusterMember, MergeProposal
    from memadmin.store.models import Memory, Namespace
    from memadmin.store.text import content_hash

    found = Cluster.objects.filter(namespace__name="bench-review-big").first()
    if found:
        return found
    rng = random.Random(5)
    words = "deploy backup restore staging production cluster node disk memory cache queue".split()
    base = [f"Step {i}: {' '.join(rng.choice(words) for _ in range(8))}." for i in range(100)]
    texts = []
    for variant in range(3):
        sentences = list(base)
        for _ in range(10):  # each copy edits a few sentences
            at = rng.randrange(len(sentences))
            sentences[at] = (
                f"Step {at}: {' '.join(rng.choice(words) for _ in range(8))} (v{variant})."
            )
        texts.append(" ".join(sentences)[:5000])
    namespace = Namespace.objects.create(name="bench-review-big")
    members = [
        Memory.objects.create(
            namespace=namespace,
            external_id=f"long-{i}",
            content=text,
            content_hash=content_hash(text),
            category="fact",
            created_at=timezone.now(),
        )
        for i, text in enumerate(texts)
    ]
    edges = [
        {"a": a.pk, "b": b.pk, "similarity": 0.9, "method": "vector"}
        for i, a in enumerate(members)
        for b in members[i + 1 :]
    ]
    cluster = Cluster.objects.create(
        namespace=namespace, status="open", edges=edges, min_similarity=0.9
    )
    ClusterMember.objects.bulk_create(ClusterMember(cluster=cluster, memory=m) for m in members)
    MergeProposal.objects.create(cluster=cluster, merged_text=texts[0], author="rule")
    return cluster


def median_ms(client, url: str, repeat: int) -> float:
    client.get(url)  # warm
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clusters", type=int, default=10_000)
    parser.add_argument("--conflicts", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=20, help="decisions timed one by one")
    parser.add_argument("--day-only", action="store_true", help="the 5,000 memories alone")
    args = parser.parse_args()

    import django

    django.setup()
    import decision_times
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from memadmin.curation.models import Cluster, Conflict
    from memadmin.store.models import Namespace

    call_command("migrate", verbosity=0)
    user, _ = User.objects.get_or_create(username="bench-admin", defaults={"is_superuser": True})
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    if args.day_only:
        decision_times.report(client, args.decisions)
        return
    if not Namespace.objects.filter(name="bench-review").exists():
        setup(args.clusters, args.conflicts)
    cluster = (
        Cluster.objects.filter(namespace__name="bench-review", status="open").order_by("?").first()
    )
    conflict = Conflict.objects.filter(namespace__name="bench-review").order_by("?").first()
    open_clusters = Cluster.objects.filter(status="open").count()
    open_conflicts = Conflict.objects.filter(status="open").count()
    print(f"{open_clusters:,} open clusters, {open_conflicts:,} open conflicts")
    big = big_cluster()
    long_page = median_ms(client, f"/clusters/{big.pk}/", args.repeat)
    normal_page = median_ms(client, f"/clusters/{cluster.pk}/", args.repeat)
    print(
        f"  cluster page, three 5 KB members: median {long_page:.1f} ms (target <= 50 ms); "
        f"a two-line cluster {normal_page:.1f} ms in the same run: {long_page / normal_page:.1f}x"
    )
    for name, url in (
        ("cluster queue", "/clusters/"),
        ("cluster queue, HTMX section", "/clusters/?page=7"),
        ("cluster page", f"/clusters/{cluster.pk}/"),
        # Its place among every open cluster of the filtered queue ("3 of 10,000").
        ("cluster page opened from the queue", f"/clusters/{cluster.pk}/?from=status%3Dopen"),
        ("the batch screen, 50 clusters", "/clusters/batch/"),
        ("cluster queue, words searched", "/clusters/?q=number+4242"),
        ("cluster queue, a common word searched", "/clusters/?q=staging"),
        ("conflict queue", "/conflicts/"),
        ("conflict queue, words searched", "/conflicts/?q=number+31337"),
        ("conflict queue, a common word searched", "/conflicts/?q=editor"),
        ("conflict queue, oldest first", "/conflicts/?sort=oldest"),
        ("conflict queue, grouped by topic", "/conflicts/?group=topic&page=40"),
        ("conflict page", f"/conflicts/{conflict.pk}/"),
        ("conflict page opened from the queue", f"/conflicts/{conflict.pk}/?from=status%3Dopen"),
        ("a memory's page", f"/memories/{conflict.memory_a_id}/"),
        ("history, decisions only", "/history/?decisions=yes"),
        ("people", "/people/"),
        ("dashboard", "/"),
    ):
        print(f"  {name}: median {median_ms(client, url, args.repeat):.1f} ms (target <= 50 ms)")
    decision_times.report(client, args.decisions)


if __name__ == "__main__":
    main()
