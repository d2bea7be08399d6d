"""What the dashboard shows: per namespace counts, four charts, each namespace over the
last two weeks, the last runs."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memadmin.curation.reads import counts, measured
from memadmin.curation.reads.dashboard import (
    namespace_summaries,
    open_cluster_histogram,
    open_cluster_sizes,
    recent_runs,
)
from memadmin.review import charts
from memadmin.store.models import Namespace


def _namespace_series(days) -> list[dict]:
    """Each namespace with activity in these days: a small chart per series, and the
    same numbers as a table (for screen readers, and for reading exact values)."""
    found = counts.namespace_series(days)
    names = dict(Namespace.objects.filter(pk__in=found).values_list("pk", "name"))
    shown = []
    for namespace_id in sorted(found, key=lambda pk: names.get(pk, "")):
        values = found[namespace_id]
        shown.append(
            {
                "name": names.get(namespace_id, "?"),
                "charts": [
                    charts.bar_chart(
                        label,
                        [(d.strftime("%d"), values[key][i]) for i, d in enumerate(days)],
                        x_name="day",
                        y_name="%" if key == "dismiss_rate" else "count",
                        empty=_said_empty(key, empty, values),
                        width=230,
                        height=110,
                    )
                    for key, label, empty in counts.SERIES
                ],
                "rows": [(label, values[key]) for key, label, _ in counts.SERIES],
            }
        )
    return shown


def _said_empty(key: str, empty: str, values: dict) -> str:
    """A series' empty state: a dismiss rate of 0 where clusters were decided says so."""
    decided = sum(values["clusters_decided"])
    if key == "dismiss_rate" and decided:
        return (
            f"{decided} cluster{'s' if decided > 1 else ''} decided in these days, none dismissed."
        )
    return empty


def dashboard_page() -> dict:
    """Per namespace: memories, open clusters and conflicts, automatic merges this week,
    the last runs with their removal rate and alerts; four small charts."""
    days = [(timezone.now() - timedelta(days=back)).date() for back in range(13, -1, -1)]
    sizes = open_cluster_sizes()
    decided = counts.decisions_per_day(days[0])
    context = {
        "namespaces": namespace_summaries(),
        "days": days,
        "series": _namespace_series(days),
        "runs": recent_runs(),
        "charts": [
            charts.bar_chart(
                "Open clusters by weakest link",
                open_cluster_histogram(),
                x_name="similarity of the weakest link",
                y_name="clusters",
                empty="No open clusters.",
            ),
            charts.bar_chart(
                "Open clusters by size",
                [(str(n), sizes.get(n, 0)) for n in range(2, 6)]
                + [("6+", sum(count for size, count in sizes.items() if size >= 6))],
                x_name="members",
                y_name="clusters",
                empty="No open clusters.",
            ),
            charts.bar_chart(
                "Decisions per day (14 days; undos apart)",
                [(d.strftime("%d"), decided["decisions"].get(d, 0)) for d in days],
                x_name="day of the month",
                y_name="decisions",
                empty="No decisions in the last 14 days.",
            ),
            charts.bar_chart(
                "Undos per day (14 days)",
                [(d.strftime("%d"), decided["undos"].get(d, 0)) for d in days],
                x_name="day of the month",
                y_name="undos",
                empty="No undos in the last 14 days.",
            ),
        ],
        **_measured(),
    }
    return context


def _measured() -> dict:
    """The store's measured error rate (reads.measured), a row per kind and tier, and the
    reliability charts; nothing to show until a pair is labelled."""
    if not measured.anything_measured():
        return {"measured": [], "judge": None, "reliability": []}
    names = {"clusters": "Clusters (one fact)", "conflicts": "Conflicts"}
    found = measured.measured()
    rows = [
        {"kind": names[kind], "tier": tier, **figures}
        for kind in ("clusters", "conflicts")
        for tier, figures in found[kind].items()
    ]
    judge = found["judge"]
    points = measured.reliability(judge_error=judge["error"] if judge else None)
    return {
        "measured": rows,
        "judge": judge,
        "reliability": [
            charts.reliability_chart(
                f"{names[kind]}: said against measured",
                points[kind],
                empty="No labelled or audited pair detection proposed yet.",
            )
            for kind in ("clusters", "conflicts")
        ],
    }
