"""The dashboard: per namespace counts, the last runs, four charts."""

from datetime import timedelta

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from memadmin.curation import counts, queries
from memadmin.review import charts
from memadmin.review.roles import VIEWER
from memadmin.review.views.answers import role_required


@role_required(VIEWER)
def dashboard(request: HttpRequest) -> HttpResponse:
    """Per namespace: memories, open clusters and conflicts, automatic merges this week,
    the last runs with their removal rate and alerts; four small charts."""
    days = [(timezone.now() - timedelta(days=back)).date() for back in range(13, -1, -1)]
    sizes = queries.open_cluster_sizes()
    decided = counts.decisions_per_day(days[0])
    context = {
        "namespaces": queries.namespace_summaries(),
        "runs": queries.recent_runs(),
        "charts": [
            charts.bar_chart(
                "Open clusters by weakest link",
                queries.open_cluster_histogram(),
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
    }
    return render(request, "review/home.html", context)
