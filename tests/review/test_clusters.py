"""The cluster queue and a cluster's page, with and without HTMX, and every decision on it."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from memadmin.curation.models import Cluster, HistoryEvent, MergeProposal, PairVerdict
from memadmin.store.models import Memory
from tests import factories
from tests.factories import line, memory, near, person, unit

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def open_clusters(run_command, write_jsonl, count=1, start=0):
    lines = []
    for number in range(start, start + count):
        lines += [
            line(
                f"a{number}",
                f"Her cat Miso number {number} is an orange tabby.",
                unit(number),
                tags=["pets"],
                created_at="2026-01-01T00:00:00Z",
            ),
            line(
                f"b{number}",
                f"Her cat Miso number {number} is a tabby.",
                near(number, 0.92),
                tags=["pets"],
                created_at="2026-02-01T00:00:00Z",
            ),
        ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None
    assert Cluster.objects.filter(status="open").count() == start + count
    return Cluster.objects.order_by("id").first()


@pytest.fixture
def cluster(run_command, write_jsonl):
    return open_clusters(run_command, write_jsonl)


@pytest.mark.parametrize(
    ("role", "read", "decide"),
    [(None, 302, 302), ("viewer", 200, 403), ("curator", 200, 302), ("admin", 200, 302)],
)
def test_who_may_read_and_decide(client, cluster, role, read, decide):
    if role:
        client.force_login(person("p", role))

    assert client.get("/clusters/").status_code == read
    assert client.get(f"/clusters/{cluster.pk}/").status_code == read
    assert client.post(f"/clusters/{cluster.pk}/dismiss").status_code == decide


def test_the_queue_is_a_whole_page_and_its_section_for_htmx(client, cluster):
    client.force_login(person("v", "viewer"))

    page = client.get("/clusters/")
    section = client.get("/clusters/", **HX)

    assert b"<html" in page.content and b'id="queue"' in page.content
    assert b"<html" not in section.content and section.content.lstrip().startswith(
        b'<section id="queue"'
    )
    assert b"Her cat Miso number 0 is a tabby." in section.content


def test_the_queue_filters_by_namespace(client, cluster):
    client.force_login(person("v", "viewer"))

    assert b"1 proposed cluster;" in client.get("/clusters/", {"namespace": "alice"}, **HX).content
    assert (
        b"0 proposed clusters;" in client.get("/clusters/", {"namespace": "nobody"}, **HX).content
    )


def test_the_queue_runs_the_same_queries_for_1_and_20_clusters(client, run_command, write_jsonl):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(person("v", "viewer"))
    open_clusters(run_command, write_jsonl, count=1)
    with CaptureQueriesContext(connection) as one:
        client.get("/clusters/", **HX)

    open_clusters(run_command, write_jsonl, count=19, start=1)
    with CaptureQueriesContext(connection) as twenty:
        response = client.get("/clusters/", **HX)

    assert b"20 proposed clusters;" in response.content
    assert len(twenty.captured_queries) == len(one.captured_queries)


def test_the_cluster_page_shows_members_oldest_first_with_the_weakest_link(client, cluster):
    client.force_login(person("v", "viewer"))

    content = client.get(f"/clusters/{cluster.pk}/").content.decode()

    assert content.index("a0</dd>") < content.index("b0</dd>")
    assert "weakest link" in content
    assert '<span class="removed">' in content  # words of a member the proposal drops


def test_a_curator_accepts_without_javascript(client, cluster):
    client.force_login(person("carla", "curator"))

    response = client.post(
        f"/clusters/{cluster.pk}/accept", {"text": "Her cat Miso is an orange tabby."}
    )

    assert (response.status_code, response["Location"]) == (302, "/clusters/")
    merged = Memory.objects.get(status="active", content="Her cat Miso is an orange tabby.")
    assert merged.external_id.startswith("merged-")
    assert MergeProposal.objects.get().status == "edited"


def test_an_htmx_accept_sends_the_whole_page_on_with_the_message(client, cluster):
    client.force_login(person("carla", "curator"))

    response = client.post(f"/clusters/{cluster.pk}/accept", **HX)
    following = client.get(response["HX-Redirect"])

    # No other open cluster: on to the queue, which says what happened (no stale page).
    assert (response.status_code, response["HX-Redirect"]) == (200, "/clusters/")
    assert f"Cluster #{cluster.pk} merged into merged-".encode() in following.content
    assert Cluster.objects.get().status == "accepted"


def test_a_decision_from_a_page_showing_other_members_is_refused(client, trio):
    client.force_login(person("carla", "curator"))
    seen = client.get(f"/clusters/{trio.pk}/").context["version"]
    client.post(f"/clusters/{trio.pk}/exclude/{memory('c').pk}", {"version": seen})

    stale = client.post(f"/clusters/{trio.pk}/accept", {"version": seen}, **HX)

    assert stale.status_code == 409
    assert b"changed since your page showed it" in stale.content
    assert Cluster.objects.get(pk=trio.pk).status == "open"
    assert not Memory.objects.filter(status="superseded").exists()


def test_a_second_decision_is_refused_saying_who_decided(client, cluster):
    client.force_login(person("carla", "curator"))
    client.post(f"/clusters/{cluster.pk}/accept")
    client.force_login(person("olga", "curator"))

    htmx = client.post(f"/clusters/{cluster.pk}/dismiss", **HX)
    plain = client.post(f"/clusters/{cluster.pk}/dismiss", follow=True)

    assert htmx.status_code == 409
    assert b"carla accepted this cluster at" in htmx.content
    assert b"carla accepted this cluster at" in plain.content
    assert Cluster.objects.get().status == "accepted"


def test_dismissing_remembers_the_pair_and_it_is_never_proposed_again(client, cluster, run_command):
    client.force_login(person("carla", "curator"))

    client.post(f"/clusters/{cluster.pk}/dismiss")
    run_command("find_duplicates", "--full")

    assert PairVerdict.objects.get().verdict == "not_duplicate"
    assert list(Cluster.objects.values_list("status", flat=True)) == ["dismissed"]


def test_every_page_carries_a_strict_content_security_policy(client):
    policy = client.get("/accounts/login/")["Content-Security-Policy"]

    assert "script-src 'self'" in policy and "unsafe-inline" not in policy


def ids(cluster):
    return sorted(
        cluster.memberships.filter(excluded=False).values_list("memory__external_id", flat=True)
    )


def test_keeping_one_member_folds_the_others_into_it(client, trio):
    client.force_login(person("carla", "curator"))

    response = client.post(f"/clusters/{trio.pk}/keep/{memory('b').pk}")

    assert (response.status_code, response["Location"]) == (302, "/clusters/")
    said = client.get("/clusters/").content.decode()
    assert f"Kept b; the others of cluster #{trio.pk} fold into it." in said
    assert [memory(x).status for x in "abc"] == ["superseded", "active", "superseded"]
    assert memory("b").content == "Her cat Miso is a tabby."  # kept as it was
    assert Cluster.objects.get(pk=trio.pk).status == "accepted"


def test_excluding_a_member_keeps_the_rest_and_remembers_it_apart(client, trio):
    client.force_login(person("carla", "curator"))

    client.post(f"/clusters/{trio.pk}/exclude/{memory('c').pk}")

    trio.refresh_from_db()
    assert (trio.status, ids(trio)) == ("open", ["a", "b"])
    assert PairVerdict.objects.count() == 2  # c / a and c / b


def test_splitting_leaves_two_groups_never_the_same_members(client, trio):
    client.force_login(person("carla", "curator"))

    answer = client.post(f"/clusters/{trio.pk}/split")
    said = client.get(answer["Location"]).content.decode()

    assert Cluster.objects.get(pk=trio.pk).status == "split"
    part = Cluster.objects.get(status="open")
    assert answer["Location"] == f"/clusters/{part.pk}/"  # on to the part
    said = said.replace("&#x201c;", "\u201c").replace("&#x201d;", "\u201d")
    assert (
        f"Cluster #{trio.pk} split: #{part.pk} holds \u201cHer cat Miso is a tabby.\u201d and "
        "\u201cHer cat Miso is a tabby cat.\u201d; \u201cHer cat Miso is an orange tabby.\u201d "
        "is on its own."
    ) in said
    parts = [ids(c) for c in Cluster.objects.filter(status="open")]
    # The trio is a triangle: one cut leaves it whole, so the next weakest goes too.
    assert len(parts) == 1 and len(parts[0]) == 2
    assert MergeProposal.objects.filter(cluster__status="open", status="pending").count() == 1
    # Every pair cut across the two groups is remembered apart.
    assert PairVerdict.objects.count() == 2


def test_a_cluster_of_two_is_not_split(client, cluster):
    client.force_login(person("carla", "curator"))

    response = client.post(f"/clusters/{cluster.pk}/split", follow=True)

    assert b"A cluster of two cannot be split" in response.content
    assert Cluster.objects.get(pk=cluster.pk).status == "open"


def test_a_viewer_cannot_split_keep_or_exclude(client, trio):
    client.force_login(person("v", "viewer"))

    for url in (
        f"/clusters/{trio.pk}/split",
        f"/clusters/{trio.pk}/keep/{memory('a').pk}",
        f"/clusters/{trio.pk}/exclude/{memory('a').pk}",
    ):
        assert client.post(url).status_code == 403


def test_the_queue_filters_by_size_category_protection_and_method(client, trio):
    client.force_login(person("v", "viewer"))

    def count(**query):
        content = client.get("/clusters/", query, HTTP_HX_REQUEST="true").content
        return int(content.split(b'<p class="muted">')[1].split(b" ")[0])

    assert count(size="3") == 1 and count(size="2") == 0
    assert count(category="fact") == 1 and count(category="gotcha") == 0
    assert count(protected="no") == 1 and count(protected="yes") == 0
    assert count(method="vector") == 1 and count(method="exact") == 0
    assert count(sort="largest") == count(sort="newest") == 1
    # Words in any member: as written, or as full-text words in any language.
    assert count(q="tabby") == 1 and count(q="Miso") == 1 and count(q="Hetzner") == 0
    assert count(q="ORANGE") == 1


def exact_pair(
    run_command,
    write_jsonl,
    namespace="alice",
    seed=3,
    *,
    sources=("ingest",) * 2,
    categories=("fact",) * 2,
):
    """Two copies of one text, left open for review. With two sources (or categories) a
    run leaves them open itself, flagged by the guard; copies nothing keeps apart a run
    collapses, so those are opened here as an earlier run's (or a reopened merge's)
    cluster is."""
    lines = [
        line(
            f"x{n}",
            "Logs use structlog.",
            unit(seed),
            source_ref=source,
            category=category,
            namespace=namespace,
        )
        for n, source, category in zip((1, 2), sources, categories, strict=True)
    ]
    run_command("import_memories", str(write_jsonl(lines, name=f"{namespace}.jsonl")))
    if sources[0] != sources[1] or categories[0] != categories[1]:
        run_command("find_duplicates", "--namespace", namespace)
    else:
        factories.cluster(
            memory("x1", namespace), memory("x2", namespace), similarity=1.0, method="exact"
        )
    return Cluster.objects.get(namespace__name=namespace, status="open")


def bulk_form(preview, ticked) -> dict:
    """The preview's form as a browser sends it, with the boxes `ticked`."""
    groups = [rows for _, rows in preview.context["across"]]
    shown = [*preview.context["mergeable"], *(row for rows in groups for row in rows)]
    versions = {f"version-{c.pk}": version for c, _, _, version in shown}
    return {"namespace": preview.context["namespace"], "selected": ticked, **versions}


def test_a_bulk_accept_merges_the_ticked_clusters_and_never_a_flagged_one(
    client, run_command, write_jsonl
):
    exact_pair(run_command, write_jsonl, "alice")
    exact_pair(run_command, write_jsonl, "bob", seed=4, categories=("fact", "config"))
    exact_pair(run_command, write_jsonl, "carol", seed=5)
    pinned = Cluster.objects.get(namespace__name="carol")
    Memory.objects.filter(namespace__name="carol", external_id="x1").update(pinned=True)
    plain, guarded = (Cluster.objects.get(namespace__name=n) for n in ("alice", "bob"))
    client.force_login(person("carla", "curator"))

    preview = client.get("/clusters/accept-exact")
    assert [c.pk for c, *_ in preview.context["mergeable"]] == [plain.pk]
    assert [(c.pk, flags) for c, flags, *_ in preview.context["flagged"]] == [
        (guarded.pk, ["guard: different category (fact / config)"]),
        (pinned.pk, ["protected"]),
    ]
    assert f'href="/clusters/{guarded.pk}/">Review #{guarded.pk}</a>'.encode() in preview.content
    assert b"Logs use structlog." in preview.content  # the text each merge keeps
    # A hostile form ticks the flagged ones too: each is refused by name.
    form = bulk_form(preview, [plain.pk, guarded.pk, pinned.pk])
    response = client.post("/clusters/accept-exact", form, follow=True)

    statuses = dict(Cluster.objects.values_list("namespace__name", "status"))
    assert statuses == {"alice": "accepted", "bob": "open", "carol": "open"}
    said = response.content.decode()
    assert "Accepted 1 exact-duplicate cluster(s) in every namespace." in said
    assert (
        f"#{guarded.pk} was not accepted: flagged (guard: different category (fact / "
        "config)): decide it on its own page." in said.replace("&#x27;", "'")
    )
    assert f"#{pinned.pk} was not accepted: flagged (protected)" in said
    assert f"/history/unmerge-many?clusters={plain.pk}" in said  # the undo toast


def test_copies_from_two_sources_are_a_group_of_their_own_that_merges_in_bulk(
    client, run_command, write_jsonl
):
    """Copies of one text that differ only in source: the operator's guard kept them out
    of the automatic merge; the preview offers them as a group that says what differs,
    and the merged memory keeps both copies' provenance."""
    copies = exact_pair(run_command, write_jsonl, "bob", seed=4, sources=("chat", "agent"))
    assert copies.flags == ["guard: different source_ref (chat / agent)"]  # never automatic
    client.force_login(person("carla", "curator"))

    preview = client.get("/clusters/accept-exact")

    said = (
        "copies of one text written from agent and from chat: the merged memory keeps every "
        "copy's provenance"
    )
    groups = [(group, [c.pk for c, *_ in rows]) for group, rows in preview.context["across"]]
    assert groups == [(said, [copies.pk])]
    assert preview.context["flagged"] == [] and preview.context["mergeable"] == []
    assert "Copies of one text written from agent and from chat" in preview.content.decode()
    client.post("/clusters/accept-exact", bulk_form(preview, [copies.pk]))
    assert Cluster.objects.get(pk=copies.pk).status == "accepted"
    merged = Memory.objects.get(namespace__name="bob", status="active")
    assert {entry.get("source_ref") for entry in merged.provenance} == {"chat", "agent"}


def test_the_undo_toast_takes_a_bulk_accept_back(client, run_command, write_jsonl):
    exact_pair(run_command, write_jsonl, "alice")
    exact_pair(run_command, write_jsonl, "bob", seed=4)
    client.force_login(person("carla", "curator"))
    preview = client.get("/clusters/accept-exact")
    ids = [c.pk for c, *_ in preview.context["mergeable"]]
    client.post("/clusters/accept-exact", bulk_form(preview, ids))
    assert set(Cluster.objects.values_list("status", flat=True)) == {"accepted"}

    query = ",".join(map(str, ids))
    response = client.post(f"/history/unmerge-many?clusters={query}", {"next": "/clusters/"})

    assert response.url == "/clusters/"
    assert set(Cluster.objects.values_list("status", flat=True)) == {"open"}
    statuses = {(m.external_id[:6], m.status) for m in Memory.objects.all()}
    assert statuses == {("x1", "active"), ("x2", "active"), ("merged", "deleted")}


def test_an_unticked_row_stays_open(client, run_command, write_jsonl):
    exact_pair(run_command, write_jsonl, "alice")
    exact_pair(run_command, write_jsonl, "bob", seed=4)
    client.force_login(person("carla", "curator"))
    preview = client.get("/clusters/accept-exact")
    alice = Cluster.objects.get(namespace__name="alice")

    client.post("/clusters/accept-exact", bulk_form(preview, [alice.pk]))

    statuses = dict(Cluster.objects.values_list("namespace__name", "status"))
    assert statuses == {"alice": "accepted", "bob": "open"}


def test_a_bulk_accept_changes_only_the_namespace_the_queue_shows(client, run_command, write_jsonl):
    exact_pair(run_command, write_jsonl, "alice")
    exact_pair(run_command, write_jsonl, "bob", seed=4)
    alice = Cluster.objects.get(namespace__name="alice")
    client.force_login(person("carla", "curator"))

    queue = client.get("/clusters/", {"namespace": "bob"}, HTTP_HX_REQUEST="true")
    assert b"/clusters/accept-exact?namespace=bob" in queue.content
    preview = client.get("/clusters/accept-exact", {"namespace": "bob"})
    bob = [c.pk for c, *_ in preview.context["mergeable"]]
    response = client.post("/clusters/accept-exact", bulk_form(preview, [*bob, alice.pk]))

    assert response.url == "/clusters/?namespace=bob"  # back to the queue as filtered
    statuses = dict(Cluster.objects.values_list("namespace__name", "status"))
    assert statuses == {"alice": "open", "bob": "accepted"}


def test_a_cluster_decided_since_the_preview_is_named_with_who_decided_it(
    client, run_command, write_jsonl
):
    exact_pair(run_command, write_jsonl)
    found = Cluster.objects.get()
    client.force_login(person("carla", "curator"))
    preview = client.get("/clusters/accept-exact")
    ada = person("ada", "curator")
    from memadmin.curation import decisions

    decisions.dismiss_cluster(cluster=found, user=ada)

    response = client.post("/clusters/accept-exact", bulk_form(preview, [found.pk]), follow=True)

    assert f"#{found.pk} was not accepted: ada dismissed this cluster at" in (
        response.content.decode()
    )
    assert Cluster.objects.get().status == "dismissed"


def test_a_stale_proposal_can_be_written_again(client, trio, run_command, write_jsonl):
    run_command("propose_merges")
    run_command(
        "import_memories",
        str(
            write_jsonl(
                [
                    line(
                        "b",
                        "Her cat Miso is a grey tabby.",
                        near(1, 0.9),
                        tags=["pets"],
                        created_at="2026-02-01T00:00:00Z",
                    )
                ],
                name="changed.jsonl",
            )
        ),
    )
    client.force_login(person("carla", "curator"))
    refused = client.post(f"/clusters/{trio.pk}/accept", follow=True)
    assert b"refresh it" in refused.content and b"Write the proposal again" in refused.content

    client.post(f"/clusters/{trio.pk}/refresh")
    accepted = client.post(f"/clusters/{trio.pk}/accept", follow=True)

    assert b"merged into merged-" in accepted.content


def test_cluster_decisions_that_change_no_memory_are_logged_too(client, trio):
    client.force_login(person("carla", "curator"))

    client.post(f"/clusters/{trio.pk}/exclude/{memory('c').pk}")
    client.post(f"/clusters/{trio.pk}/dismiss")

    logged = list(
        HistoryEvent.objects.filter(cluster=trio).order_by("id").values_list("action", "actor")
    )
    assert logged == [("exclude", "user:carla"), ("dismiss", "user:carla")]


def test_undoing_keep_one_brings_the_same_cluster_back_to_the_queue(client, trio):
    client.force_login(person("carla", "curator"))
    client.post(f"/clusters/{trio.pk}/keep/{memory('a').pk}")
    assert Cluster.objects.get(pk=trio.pk).status == "accepted"
    # History and its undo button name the reviewed cluster, not a hidden one.
    assert set(HistoryEvent.objects.filter(action="merge").values_list("cluster", flat=True)) == {
        trio.pk
    }

    client.post(f"/history/unmerge/{trio.pk}")

    trio.refresh_from_db()
    assert (trio.status, trio.decided_by) == ("open", None)
    assert set(Memory.objects.values_list("status", flat=True)) == {"active"}
    assert Cluster.objects.count() == 1
    queue = client.get("/clusters/")
    assert f"#{trio.pk}".encode() in queue.content


def test_an_expired_session_sends_the_whole_page_to_the_login_and_back(client, cluster):
    response = client.post(
        f"/clusters/{cluster.pk}/accept",
        **HX,
        HTTP_HX_CURRENT_URL=f"http://testserver/clusters/{cluster.pk}/",
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/accounts/login/?next=/clusters/{cluster.pk}/"
    assert Cluster.objects.get().status == "open"


def test_the_decided_page_shows_the_saved_text_and_the_merged_memory(client, cluster):
    client.force_login(person("carla", "curator"))
    client.post(f"/clusters/{cluster.pk}/accept", {"text": "Her cat Miso, an orange tabby."})

    page = client.get(f"/clusters/{cluster.pk}/")

    merged = Memory.objects.get(status="active")
    assert b"Her cat Miso, an orange tabby." in page.content
    assert f'href="/memories/{merged.pk}/"'.encode() in page.content
    assert b"Keep this one" not in page.content and b"Accept merge" not in page.content


def test_queue_pages_keep_one_page_parameter(client, run_command, write_jsonl):
    open_clusters(run_command, write_jsonl, count=30)
    client.force_login(person("v", "viewer"))

    second = client.get("/clusters/", {"page": "2", "namespace": ""})

    assert b"page=2&amp;page" not in second.content
    assert b"page=1" in second.content


def test_excluding_one_of_two_members_is_refused_with_what_to_do(client, cluster):
    client.force_login(person("carla", "curator"))
    first = cluster.memberships.first().memory

    response = client.post(f"/clusters/{cluster.pk}/exclude/{first.pk}", follow=True)

    assert b"dismiss it instead" in response.content
    assert Cluster.objects.get(pk=cluster.pk).status == "open"


def test_a_pinned_member_flags_the_cluster_protected(client, cluster):
    member = cluster.memberships.first().memory
    Memory.objects.filter(pk=member.pk).update(pinned=True)
    client.force_login(person("carla", "curator"))

    page = client.get(f"/clusters/{cluster.pk}/").content.decode()

    assert "data-flagged>protected</span>" in page
    assert "Protected: a member is pinned" in page  # what the flag means, said on the page


@pytest.mark.parametrize("action", ["accept", "dismiss"])
def test_selected_clusters_are_decided_after_a_preview(client, run_command, write_jsonl, action):
    open_clusters(run_command, write_jsonl, count=3)
    first, second, third = Cluster.objects.order_by("id")
    client.force_login(person("carla", "curator"))
    queue = client.get("/clusters/").content.decode()
    assert f'name="selected" value="{first.pk}" form="selection"' in queue

    preview = client.get(
        "/clusters/selected", {"action": action, "selected": [first.pk, second.pk]}
    )
    assert b"2 selected clusters" in preview.content
    assert Cluster.objects.filter(status="open").count() == 3  # a preview changes nothing
    confirm = {
        "action": action,
        "selected": [first.pk, second.pk],
        **{f"version-{k}": v for k, v in preview.context["versions"].items()},
    }
    done = client.post("/clusters/selected", confirm, follow=True)

    decided = "accepted" if action == "accept" else "dismissed"
    assert f"{action.capitalize()}ed 2 of 2 selected".encode() in done.content
    statuses = dict(Cluster.objects.values_list("pk", "status"))
    assert statuses == {first.pk: decided, second.pk: decided, third.pk: "open"}


def test_all_clusters_matching_the_filter_are_previewed_and_dismissed(
    client, run_command, write_jsonl
):
    open_clusters(run_command, write_jsonl, count=3)
    everyone = set(Cluster.objects.values_list("pk", flat=True))
    client.force_login(person("carla", "curator"))
    assert "all 3 matching this filter" in client.get("/clusters/").content.decode()

    preview = client.get(
        "/clusters/selected", {"action": "dismiss", "all": "1", "from": "status=open"}
    )

    assert b"3 selected clusters" in preview.content
    confirm = {
        "action": "dismiss",
        "selected": sorted(everyone),
        **{f"version-{k}": v for k, v in preview.context["versions"].items()},
    }
    client.post("/clusters/selected", confirm)
    assert set(Cluster.objects.values_list("status", flat=True)) == {"dismissed"}


def test_a_selected_cluster_that_changed_since_the_preview_is_refused(
    client, run_command, write_jsonl
):
    open_clusters(run_command, write_jsonl, count=2)
    first, second = Cluster.objects.order_by("id")
    client.force_login(person("carla", "curator"))
    preview = client.get(
        "/clusters/selected", {"action": "dismiss", "selected": [first.pk, second.pk]}
    )
    client.post(f"/clusters/{first.pk}/refresh")  # a new proposal: another version

    done = client.post(
        "/clusters/selected",
        {
            "action": "dismiss",
            "selected": [first.pk, second.pk],
            **{f"version-{k}": v for k, v in preview.context["versions"].items()},
        },
        follow=True,
    )

    assert (
        f"#{first.pk} was left alone: it changed since the page showed it.".encode() in done.content
    )
    assert dict(Cluster.objects.values_list("pk", "status")) == {
        first.pk: "open",
        second.pk: "dismissed",
    }


def test_members_are_compared_with_one_member_not_only_the_proposal(client, trio):
    client.force_login(person("v", "viewer"))
    a = memory("a")

    to_proposal = client.get(f"/clusters/{trio.pk}/").content.decode()
    to_a = client.get(f"/clusters/{trio.pk}/", {"against": a.pk}).content.decode()
    ignored = client.get(f"/clusters/{trio.pk}/", {"against": "x"})

    assert f'href="?against={a.pk}"' in to_proposal and "not in the proposal" in to_proposal
    assert "The others are compared with this one." in to_a and "are not in a," in to_a
    # b ("Her cat Miso is a tabby.") against a, line by line: b with its "a" struck, then
    # a with its "an orange" marked; a itself, compared with itself, shows one line.
    b_card = to_a[to_a.index('data-member="b"') :]
    old_line = b_card[b_card.index('class="diff line-old"') : b_card.index("</p>")]
    assert '<span class="removed">a</span>' in old_line and "an orange" not in old_line
    new_line = b_card[b_card.index('class="diff line-new"') :]
    new_line = new_line[: new_line.index("</p>")]
    assert '<span class="added">an orange</span>' in new_line and 'class="removed"' not in new_line
    a_card = to_a[to_a.index('data-member="a"') :]
    assert '<span class="same">Her cat Miso is an orange tabby.</span>' in a_card
    assert "Same words as a." in a_card[: a_card.index("</article>")]
    # Within one line instead, chosen once and kept with the account: another browser
    # the same person logs in from shows it too.
    client.get(f"/clusters/{trio.pk}/", {"diff": "words"})
    elsewhere = Client()
    elsewhere.force_login(User.objects.get(username="v"))
    one_line = elsewhere.get(f"/clusters/{trio.pk}/", {"against": a.pk}).content.decode()
    assert '<span class="removed">a</span><span class="added">an orange</span>' in one_line
    assert "line-new" not in one_line and "<strong>within one line</strong>" in one_line
    assert ignored.status_code == 200 and "not in the proposal" in ignored.content.decode()


def _toast_action(page: str) -> str:
    """Where the undo toast's button posts to."""
    return re.search(r'<div class="toast".*?action="([^"]+)"', page, re.S).group(1)


@pytest.mark.parametrize("decision", ["accept", "dismiss", "split", "exclude", "keep"])
def test_every_decision_offers_its_undo_once_in_a_toast_and_it_works(client, trio, decision):
    client.force_login(person("carla", "curator"))
    a = memory("a")
    path = {"exclude": f"exclude/{a.pk}", "keep": f"keep/{a.pk}"}.get(decision, decision)

    page = client.post(f"/clusters/{trio.pk}/{path}", follow=True).content.decode()
    action = _toast_action(page)
    later = client.get("/clusters/").content.decode()
    client.post(action, {"next": f"/clusters/{trio.pk}/"})

    assert 'id="undo-toast"' not in later  # offered once, on the page after the decision
    trio.refresh_from_db()
    assert trio.status == "open" and trio.memberships.filter(excluded=False).count() == 3
    originals = Memory.objects.filter(external_id__in=["a", "b", "c"])
    assert set(originals.values_list("status", flat=True)) == {"active"}
    assert not Cluster.objects.filter(status="open").exclude(pk=trio.pk).exists()


def test_a_refused_decision_offers_no_undo(client, trio):
    client.force_login(person("carla", "curator"))

    page = client.post(f"/clusters/{trio.pk}/accept", {"text": " "}, follow=True)

    assert 'id="undo-toast"' not in page.content.decode()
    assert "Keys: <kbd>a</kbd> accept" in page.content.decode()  # the hint, shown with JS


INTERNAL_WORDS = re.compile(r"clause reading|hinge|weighed most|cosine|normalised|_x_|relation_")


def test_the_cluster_page_draws_how_sure_detection_is_and_why(client, cluster):
    """Its weakest pair's evidence as a waterfall: an SVG with the same figures in a
    table, every bar in plain words, the probability it comes to."""
    client.force_login(person("v", "viewer"))

    content = client.get(f"/clusters/{cluster.pk}/").content.decode()

    section = content[content.index('<section class="waterfall"') :]
    section = section[: section.index("</section>")]
    assert section.count("<svg") == 2 and section.count('<table class="grid wf-table">') == 2
    assert "The same subject and slot: <strong>" in section and "They disagree: <strong>" in section
    assert "where it starts" in section and "in all" in section
    visible = re.sub(r"<[^>]+>", " ", content)
    assert not INTERNAL_WORDS.search(visible), INTERNAL_WORDS.search(visible)
    assert '<ul class="evidence"' not in content  # the waterfall says it, not a list too


def test_a_possible_cluster_read_surer_than_its_tier_says_why(client, trio):
    """Its confidence is its least sure joining pair; its tier, every two members:
    the page names the doubtful pair by its texts."""
    members = list(trio.members.order_by("pk"))
    a, b, c = (m.pk for m in members)
    trio.tier, trio.confidence = "possible", 0.96
    trio.edges = [
        {"a": a, "b": b, "similarity": 0.9, "method": "vector", "confidence": 0.96},
        {"a": b, "b": c, "similarity": 0.9, "method": "vector", "confidence": 0.97},
        {"a": a, "b": c, "similarity": 0.5, "method": "vector", "confidence": 0.55},
    ]
    trio.save()
    client.force_login(person("v", "viewer"))

    content = client.get(f"/clusters/{trio.pk}/").content.decode()

    note = re.search(r'<p class="muted tier-note">([^<]*)</p>', content).group(1)
    assert "Possible although the pairs that join it read 0.96" in note
    assert members[0].content[:20] in note.replace("&#x27;", "'") and "(0.55)" in note
    # A proposed cluster at its tier's confidence says nothing more.
    trio.tier = "proposed"
    trio.save()
    assert "tier-note" not in client.get(f"/clusters/{trio.pk}/").content.decode()
