"""Logging in, and the dashboard."""

import pytest

from tests.factories import namespace, person

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer():
    return person("vera", "viewer", password="a-long-password")


def test_the_login_page_shows_a_form(client):
    response = client.get("/accounts/login/")

    assert response.status_code == 200
    assert b'name="username"' in response.content and b'name="password"' in response.content


def test_the_home_page_sends_anonymous_visitors_to_log_in(client):
    response = client.get("/")

    assert (response.status_code, response["Location"]) == (302, "/accounts/login/?next=/")


def test_the_home_page_lists_namespaces_with_their_counts(client, viewer):
    namespace("homelab")
    client.force_login(viewer)

    response = client.get("/")

    assert response.status_code == 200
    assert b"<td>homelab</td>" in response.content


def test_a_user_logs_in_with_a_password(client, viewer):
    response = client.post("/accounts/login/", {"username": "vera", "password": "a-long-password"})

    assert (response.status_code, response["Location"]) == (302, "/")


def test_the_dashboard_shows_counts_runs_and_charts(client, viewer, run_command, write_jsonl):
    from tests.factories import line, unit

    run_command(
        "import_memories",
        str(write_jsonl([line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1))])),
    )
    run_command("find_duplicates")
    client.force_login(viewer)

    content = client.get("/").content.decode()

    assert "<td>alice</td>" in content
    # Four charts of the whole store, and six of alice's last two weeks (a run there).
    assert content.count("<figure>") == 4 + 6 and "Open clusters by weakest link" in content
    assert content.count("No open clusters.") == 2  # the pair was folded automatically
    assert "50 %" in content  # the run's removal rate


def test_charts_name_their_axes_count_their_bars_and_say_when_empty(client, viewer):
    from tests.factories import cluster, line, store, unit

    memories = store(*(line(f"m{n}", f"Memory number {n}.", unit(n + 1)) for n in range(9)))
    cluster(*memories[:7], similarity=0.8)
    cluster(*memories[7:], similarity=0.9)
    client.force_login(viewer)

    content = client.get("/").content.decode()

    # Sizes: one cluster of two, one of seven (counted under "6+", not lost).
    assert 'aria-label="Open clusters by size: 2 1, 3 0, 4 0, 5 0, 6+ 1"' in content
    assert ">members</text>" in content and ">similarity of the weakest link</text>" in content
    assert ">clusters</text>" in content  # the count axis is named
    assert "No decisions in the last 14 days." in content  # nobody decided: said, not blank
    # The two cluster charts, and the namespace's open clusters over its two weeks.
    assert content.count("<svg") == 2 + 1


def test_an_empty_chart_says_so_instead_of_drawing_nothing():
    from memadmin.review.charts import bar_chart

    empty = bar_chart("t", [("a", 0), ("b", 0)], x_name="x", y_name="y", empty="Nothing yet.")
    full = bar_chart("t", [("a", 0), ("b", 4)], x_name="x", y_name="y", empty="Nothing yet.")

    assert empty.empty == "Nothing yet." and full.empty == ""
    assert full.top == 4 and full.bars[1].y == full.plot_top and full.bars[0].height == 0
    assert full.bars[1].y + full.bars[1].height == full.baseline


def test_decisions_per_day_count_every_decision_once_and_undos_apart(client, viewer):
    """One definition: merges, dismissals and settlements are decisions whatever became of
    them since (a merge undone still was one); the undo is counted apart."""
    from django.utils import timezone

    from memadmin.curation import decisions
    from memadmin.curation.reads import counts
    from tests.curation.decisions.test_overlaps import accept, conflict, kit
    from tests.factories import cluster

    carla, ada = person("carla", "curator"), person("ada", "admin")
    one, two, three, four = kit()
    merged_cluster = cluster(one, two)
    dismissed = cluster(three, four)
    settled = conflict(three, four)
    accept(merged_cluster, carla)
    decisions.dismiss_cluster(cluster=dismissed, user=carla)
    decisions.resolve_conflict(conflict=settled, resolution="keep_b", user=ada)
    decisions.unmerge(cluster=merged_cluster, actor="user:carla", user=carla)

    today = timezone.localdate()
    counted = counts.decisions_per_day(today)
    assert (counted["decisions"][today], counted["undos"][today]) == (3, 1)
    client.force_login(viewer)
    content = client.get("/").content.decode()
    assert "Decisions per day (14 days; undos apart)" in content
    assert "Undos per day (14 days)" in content


def test_a_decision_whose_events_straddle_a_seconds_turn_is_still_one(monkeypatch):
    """Each event of a decision is stamped when written: on a loaded machine a
    dismissal's events fall in two seconds, and each queue, the dashboard's chart and
    each namespace's series still count one decision (they counted one per second)."""
    from datetime import datetime, timedelta

    from django.utils import timezone

    from memadmin.curation import decisions
    from memadmin.curation.reads import counts
    from tests.curation.decisions.test_overlaps import conflict, kit
    from tests.factories import cluster

    carla, ada = person("carla", "curator"), person("ada", "admin")
    one, two, three, four = kit()
    dismissed, settled = cluster(one, two), conflict(three, four)
    today = timezone.localdate()
    # A clock 0.999 s later at each reading, from half past noon: each event of a
    # decision falls in the next second, less than a second after the one before.
    ticks = iter(range(500))
    noon = timezone.make_aware(datetime.combine(today, datetime.min.time())) + timedelta(hours=12)
    monkeypatch.setattr(
        timezone, "now", lambda: noon + timedelta(seconds=0.5 + 0.999 * next(ticks))
    )
    decisions.dismiss_cluster(cluster=dismissed, user=carla)  # an event per member
    decisions.resolve_conflict(conflict=settled, resolution="dismiss", user=ada)  # per side

    assert counts.decisions_per_day(today)["decisions"][today] == 2
    assert counts.decided_today("cluster", carla) == (1, 1)
    assert counts.decided_today("conflict", carla) == (1, 0)
    series = counts.namespace_series([today])[one.namespace_id]
    assert (series["decisions"], series["clusters_decided"]) == ([2], [1])


def test_a_decision_whose_events_straddle_midnight_counts_on_the_day_it_began(monkeypatch):
    """A settlement begun a moment before midnight writes its last event after it: the
    day it began counts it, and the new day's queues and chart do not count it again
    (the window read only the new day's events, so its later events made one there)."""
    from datetime import datetime, timedelta

    from django.db.models.signals import pre_save
    from django.utils import timezone

    from memadmin.curation import decisions
    from memadmin.curation.models import HistoryEvent
    from memadmin.curation.reads import counts
    from tests.curation.decisions.test_overlaps import conflict, kit

    ada = person("ada", "admin")
    one, _, three, _ = kit()
    settled = conflict(one, three)
    today = timezone.localdate()
    midnight = timezone.make_aware(datetime.combine(today, datetime.min.time()))
    # Begun 0.3 s before midnight, each event written 0.5 s after the one before: the
    # clock moves as each event is saved (its time is stamped after pre_save).
    written = iter(range(100))
    clock = [midnight]

    def tick(sender, **kwargs):
        clock[0] = midnight + timedelta(seconds=0.5 * next(written) - 0.3)

    monkeypatch.setattr(timezone, "now", lambda: clock[0])
    pre_save.connect(tick, sender=HistoryEvent)
    try:
        # An event per side.
        decisions.resolve_conflict(conflict=settled, resolution="dismiss", user=ada)
    finally:
        pre_save.disconnect(tick, sender=HistoryEvent)
    events = HistoryEvent.objects.filter(user=ada)
    days = {timezone.localtime(e.created_at).date() for e in events}
    assert len(days) == 2  # the case itself: events on both sides of midnight
    yesterday = today - timedelta(days=1)
    found = counts.decisions_per_day(yesterday)["decisions"]
    assert (found[yesterday], found[today]) == (1, 0)
    assert counts.decisions_per_day(today)["decisions"][today] == 0
    monkeypatch.setattr(timezone, "localdate", lambda: today)
    assert counts.decided_today("conflict", ada) == (0, 0)
    series = counts.namespace_series([yesterday, today])[one.namespace_id]
    assert series["decisions"] == [1, 0]
    assert counts.namespace_series([today]).get(one.namespace_id, {}).get("decisions", [0]) == [0]


def test_automatic_merges_and_partial_runs_read_the_same_everywhere(
    client, viewer, run_command, load
):
    from tests.factories import line, near, unit

    lines = []
    for group in range(3):
        lines += [
            line(f"g{group}-a", f"Fact number {group} is here.", unit(group)),
            line(f"g{group}-b", f"fact number {group} here", unit(group)),
        ]
    lines += [
        line("p-a", "Her cat Miso is an orange tabby cat.", unit(7)),
        line("p-b", "Her cat Miso is an orange tabby.", near(7, 0.99)),
    ]
    load(*lines)
    first = run_command("find_duplicates", "--max-ops", "2")
    client.force_login(viewer)

    content = client.get("/").content.decode()

    import re

    from memadmin.curation.models import Cluster, DedupRun

    merged = int(re.search(r"(\d+) auto-merged", first.stdout).group(1))
    deferred = int(re.search(r"(\d+) deferred by --max-ops", first.stdout).group(1))
    assert deferred > 0 and merged > 0
    run = DedupRun.objects.get()
    assert run.shown_status == f"partial: {deferred} left for the next run"
    assert f"partial: {deferred} left for the next run (--max-ops)" in run.alerts
    assert f"partial: {deferred} left for the next run" in content
    # "Merged automatically": one count for the dashboard and the queue's status filter
    # (the run's collapses of exact copies and its merges alike).
    automatic = Cluster.objects.filter(status="auto_merged").count()
    assert automatic >= merged and re.search(rf'<td class="num">{automatic}</td></tr>', content)
    queue = client.get("/clusters/", {"status": "auto_merged", "tier": ""}).content.decode()
    assert f"{automatic} proposed cluster" in queue or f"{automatic} cluster" in queue


def test_each_namespace_has_its_two_weeks_as_charts_and_as_numbers(client, viewer):
    """Open at each day's end (made before it, closed after it), decisions that day, the
    share of cluster decisions that were dismissals, and the runs' merges and leftovers."""
    from datetime import timedelta

    from django.utils import timezone

    from memadmin.curation import decisions
    from memadmin.curation.models import Cluster, Conflict, DedupRun
    from memadmin.curation.reads import counts
    from tests.curation.decisions.test_overlaps import accept, conflict, kit
    from tests.factories import cluster

    carla = person("carla", "curator")
    one, two, three, four = kit()
    merged, dismissed = cluster(one, two), cluster(three, four)
    still_open = conflict(one, three)
    now = timezone.now()
    Cluster.objects.update(created_at=now - timedelta(days=3))
    Conflict.objects.filter(pk=still_open.pk).update(created_at=now - timedelta(days=2))
    accept(merged, carla)
    decisions.dismiss_cluster(cluster=dismissed, user=carla)
    DedupRun.objects.create(
        namespace=one.namespace, counts={"auto_merged": 4, "deferred": 7}, status="done"
    )
    Cluster.objects.create(namespace=one.namespace, status="auto_merged", min_similarity=1.0)
    days = [(now - timedelta(days=back)).date() for back in range(4, -1, -1)]

    series = counts.namespace_series(days)[one.namespace_id]

    assert series["open_clusters"] == [0, 2, 2, 2, 0]  # both decided today
    assert series["decisions"] == [0, 0, 0, 0, 2]
    assert series["dismiss_rate"] == [0, 0, 0, 0, 50]
    # Merged automatically: the clusters a run merged (not what a run's counts say).
    assert (series["automatic_merges"][-1], series["deferred"][-1]) == (1, 7)
    # The merge overtook the conflict (a side is merged): closed today, carried on by a
    # conflict of the merged memory, open at the day's end.
    assert series["open_conflicts"] == [0, 0, 1, 1, 1]
    assert Conflict.objects.get(pk=still_open.pk).resolved_at.date() == days[-1]
    client.force_login(viewer)
    content = client.get("/").content.decode()
    assert "Each namespace, 14 days" in content and "The numbers of" in content
    assert '<th scope="row">clusters dismissed, % of those decided</th>' in content
    assert 'aria-label="open clusters (end of day): ' in content


def test_every_queue_says_how_many_were_decided_today_and_how_many_are_left(client):
    from memadmin.curation import decisions
    from tests.curation.decisions.test_overlaps import accept, conflict, kit
    from tests.factories import cluster

    carla, ada = person("carla", "curator"), person("ada", "admin")
    one, two, three, four = kit()
    accept(cluster(one, two), carla)
    left = cluster(three, four)
    decisions.resolve_conflict(conflict=conflict(three, four), resolution="dismiss", user=ada)

    client.force_login(carla)
    clusters = client.get(f"/clusters/?tier={left.tier}").content.decode()
    assert "1 decided today</strong> (you: 1), 1 left in this queue." in clusters
    conflicts = client.get("/conflicts/").content.decode()
    assert "1 decided today</strong> (you: 0), 0 left in this queue." in conflicts


def test_a_four_digit_count_is_never_cut_on_a_small_chart():
    from memadmin.review.charts import DIGIT, bar_chart

    days = [(f"{day:02d}", 0) for day in range(1, 14)] + [("14", 1453)]
    chart = bar_chart("merged automatically", days, x_name="day", y_name="count", empty="",
                      width=230, height=110)  # fmt: skip

    assert chart.left >= 4 * DIGIT + 3  # the scale's "1453" fits left of the plot
    last = chart.bars[-1]
    # Its count above it, or (too narrow a bar) in its title only: never cut at the edge.
    assert not last.show_value or last.middle + 2 * DIGIT <= chart.width


def test_a_dismiss_rate_of_nought_says_clusters_were_decided(client, viewer):
    """0 % dismissed is not "no cluster decided": the chart's empty state says which."""
    from tests.curation.decisions.test_overlaps import accept, kit
    from tests.factories import cluster

    one, two, _, _ = kit()
    accept(cluster(one, two), person("carla", "curator"))
    client.force_login(viewer)

    content = client.get("/").content.decode()

    assert "1 cluster decided in these days, none dismissed." in content
    assert "No cluster decided in these days." not in content
