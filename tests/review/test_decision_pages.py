"""What a decision page answers when the page it came from is stale, what every settlement
writes to the history, and how pages behave around a decision (no stored copies, an
expired session on a plain form)."""

import re

import pytest
from django.test import Client

from memadmin.curation import decisions
from memadmin.curation.models import Cluster, Conflict, HistoryEvent
from tests.factories import hosting_change, line, memory, near, person, unit

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
LATER = "2026-05-01T00:00:00Z"


def form_of(page: str, action: str) -> dict:
    """The hidden fields of the form posting to `action` on `page`, as a browser sends
    them (the version and what the page was drawn after)."""
    form = re.search(rf'<form[^>]*action="{re.escape(action)}".*?</form>', page, re.S).group(0)
    return dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', form))


@pytest.fixture
def curators():
    return person("carla", "curator"), person("bruno", "curator")


def bruno_page(trio) -> tuple[Client, str]:
    bruno = Client()
    bruno.force_login(person("bruno2", "curator"))
    return bruno, bruno.get(f"/clusters/{trio.pk}/").content.decode()


def test_a_stale_accept_redraws_the_whole_cluster_and_says_who_changed_it(client, trio):
    bruno, page = bruno_page(trio)
    carla = person("carla", "curator")
    decisions.exclude_member(cluster=trio, memory_id=memory("c").pk, user=carla)
    fields = form_of(page, f"/clusters/{trio.pk}/accept")

    answer = bruno.post(
        f"/clusters/{trio.pk}/accept", {**fields, "text": "Bruno's own merged text."}, **HX
    )

    assert answer.status_code == 409
    html = answer.content.decode()
    assert html.strip().startswith('<div id="cluster">')  # the whole cluster, not the decision box
    assert "This cluster changed since your page showed it: nothing was decided" in html
    assert re.search(r"carla excluded c at \d\d:\d\d", html)
    assert 'data-member="c"' not in html and 'data-member="b"' in html
    # Bruno's text is set aside as his draft; the box holds the current proposal's text.
    assert "Your draft" in html and "Bruno&#x27;s own merged text." in html
    box = re.search(r"<textarea[^>]*>(.*?)</textarea>", html, re.S).group(1)
    assert "Bruno" not in box
    assert Cluster.objects.get(pk=trio.pk).status == "open"
    # The redrawn form carries the cluster as it is now: a new click decides on it.
    again = bruno.post(f"/clusters/{trio.pk}/accept", form_of(html, f"/clusters/{trio.pk}/accept"))
    assert again.status_code == 302
    assert Cluster.objects.get(pk=trio.pk).status == "accepted"


def test_a_merge_meanwhile_reads_as_who_merged_what_into_what(client, trio):
    from memadmin.curation.reads import history as history_queries
    from tests.curation.decisions.test_overlaps import accept

    since = history_queries.last_event_id(cluster=trio)
    merged = accept(trio, person("carla", "curator"))

    said = history_queries.what_changed(cluster=trio, since_event=since)

    assert any(
        re.fullmatch(rf"carla merged a, b, c into {merged.external_id} at \d\d:\d\d", line)
        for line in said
    ), said


def test_without_javascript_a_stale_decision_goes_back_with_the_changes_and_the_draft(client, trio):
    bruno, page = bruno_page(trio)
    decisions.exclude_member(
        cluster=trio, memory_id=memory("c").pk, user=person("carla", "curator")
    )

    answer = bruno.post(
        f"/clusters/{trio.pk}/dismiss", form_of(page, f"/clusters/{trio.pk}/dismiss"), follow=True
    )
    html = answer.content.decode()

    assert answer.redirect_chain == [(f"/clusters/{trio.pk}/", 302)]
    assert re.search(r"nothing was decided; carla excluded c at \d\d:\d\d", html)
    assert Cluster.objects.get(pk=trio.pk).status == "open"

    accepted = bruno.post(
        f"/clusters/{trio.pk}/accept",
        {**form_of(page, f"/clusters/{trio.pk}/accept"), "text": "Bruno's draft."},
        follow=True,
    ).content.decode()
    assert "Your draft" in accepted and "Bruno&#x27;s draft." in accepted
    # Shown once: opening the page again drops it.
    assert "Your draft" not in bruno.get(f"/clusters/{trio.pk}/").content.decode()


def test_a_decision_on_a_cluster_decided_meanwhile_names_who_and_links_the_decision(trio):
    bruno, page = bruno_page(trio)
    decisions.dismiss_cluster(cluster=trio, user=person("carla", "curator"))

    answer = bruno.post(
        f"/clusters/{trio.pk}/accept", form_of(page, f"/clusters/{trio.pk}/accept"), **HX
    )
    html = answer.content.decode()

    assert answer.status_code == 409
    assert "carla dismissed this cluster at" in html
    assert re.search(r"carla dismissed the cluster at \d\d:\d\d", html)
    assert f'<a href="/clusters/{trio.pk}/">See the decision</a>' in html
    assert "Accept merge" not in html  # nothing left to decide on this page


def test_a_proposal_written_again_since_the_page_is_said(trio):
    bruno, page = bruno_page(trio)
    carla = Client()
    carla.force_login(person("carla", "curator"))
    carla.post(f"/clusters/{trio.pk}/refresh")

    answer = bruno.post(
        f"/clusters/{trio.pk}/accept", form_of(page, f"/clusters/{trio.pk}/accept"), **HX
    )

    assert answer.status_code == 409
    assert re.search(r"a new proposal was written at \d\d:\d\d", answer.content.decode())


@pytest.fixture
def conflict(run_command, write_jsonl):
    assert run_command("import_memories", str(write_jsonl(hosting_change()))).error is None
    assert run_command("find_duplicates").error is None
    return Conflict.objects.get()


def test_a_stale_settlement_redraws_the_conflict_and_keeps_what_was_chosen(conflict):
    ada, bea = Client(), Client()
    ada.force_login(person("ada", "admin"))
    bea.force_login(person("bea", "admin"))
    page = bea.get(f"/conflicts/{conflict.pk}/").content.decode()
    ada.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "keep_b"})

    answer = bea.post(
        f"/conflicts/{conflict.pk}/resolve",
        {
            **form_of(page, f"/conflicts/{conflict.pk}/resolve"),
            "resolution": "both_valid",
            "scope_note": "staging / production",
        },
        **HX,
    )
    html = answer.content.decode()

    assert answer.status_code == 409
    assert html.strip().startswith('<div id="conflict">')
    assert "This conflict changed since your page showed it: nothing was settled" in html
    assert re.search(r"ada settled the conflict on old at \d\d:\d\d", html)
    assert "Resolved (Keep B) by ada" in html
    assert Conflict.objects.get().resolution == "keep_b"


def test_a_refused_settlement_keeps_the_chosen_resolution_and_note(client, conflict):
    client.force_login(person("ada", "admin"))

    html = client.post(
        f"/conflicts/{conflict.pk}/resolve",
        {"resolution": "both_valid", "scope_note": "   ", "text": "My rewrite."},
        **HX,
    ).content.decode()

    assert "Both valid needs a scope note" in html
    assert 'value="both_valid" required checked' in html
    assert ">My rewrite.</textarea>" in html


@pytest.mark.parametrize(
    ("resolution", "words"), [("both_valid", "both valid"), ("dismiss", "not a conflict")]
)
def test_a_settlement_that_changes_no_memory_is_in_the_history_and_undone_there(
    client, conflict, resolution, words
):
    client.force_login(person("ada", "admin"))

    client.post(
        f"/conflicts/{conflict.pk}/resolve", {"resolution": resolution, "scope_note": "here"}
    )
    toast = client.get("/conflicts/").content.decode()
    settled = list(HistoryEvent.objects.filter(conflict=conflict).order_by("id"))
    history = client.get("/history/").content.decode()
    client.post(f"/conflicts/{conflict.pk}/undo", {"next": "/history/"})
    undone = list(HistoryEvent.objects.filter(conflict=conflict, action="undo").order_by("id"))

    assert f"Undo: conflict {conflict.pk} settled as {words}" in toast
    assert [(e.action, e.memory.external_id, e.before == e.after) for e in settled] == [
        ("resolve", "old", True),
        ("resolve", "new", True),
    ]
    assert history.count(f"Undo the settlement of conflict #{conflict.pk}") == 1
    assert [(e.memory.external_id, e.undoes_id) for e in undone] == [
        ("old", settled[0].pk),
        ("new", settled[1].pk),
    ]
    assert Conflict.objects.get().status == "open"
    after = client.get("/history/").content.decode()
    assert after.count("undone by user:ada at") == 2


def test_the_bulk_not_a_conflict_writes_the_history_too(client, conflict):
    client.force_login(person("ada", "admin"))

    client.post("/conflicts/selected", {"selected": [conflict.pk]})

    assert list(HistoryEvent.objects.filter(conflict=conflict).values_list("action", "actor")) == [
        ("resolve", "user:ada"),
        ("resolve", "user:ada"),
    ]


def test_a_settlement_from_before_the_log_is_undone_with_events(conflict):
    ada = person("ada", "admin")
    # Settled as "not a conflict" used to be: the conflict's row changed, no event.
    Conflict.objects.filter(pk=conflict.pk).update(status="dismissed", resolver=ada)

    decisions.undo_resolution(conflict=conflict, user=ada)

    assert list(
        HistoryEvent.objects.filter(conflict=conflict)
        .order_by("id")
        .values_list("action", "memory__external_id")
    ) == [("undo", "old"), ("undo", "new")]


def test_settling_a_conflict_goes_on_to_the_next_open_one(client, run_command, write_jsonl):
    lines = [
        *hosting_change(),
        line("old2", "The search API is deployed on Hetzner.", unit(5)),
        line("new2", "The search API is deployed on Railway.", near(5, 0.97), created_at=LATER),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    first, second = Conflict.objects.order_by("id")
    client.force_login(person("ada", "admin"))

    answer = client.post(f"/conflicts/{first.pk}/resolve", {"resolution": "keep_b"}, **HX)

    assert answer["HX-Redirect"] == f"/conflicts/{second.pk}/"


def test_no_page_is_stored_by_the_browser(client, trio):
    client.force_login(person("carla", "curator"))

    for url in (f"/clusters/{trio.pk}/", "/clusters/", "/clusters/accept-exact", "/history/"):
        assert "no-store" in client.get(url)["Cache-Control"], url
    answer = client.post(f"/clusters/{trio.pk}/dismiss")
    assert "no-store" in answer["Cache-Control"]


@pytest.mark.parametrize("action", ["exclude", "keep", "split", "undo", "unmerge", "pin"])
def test_a_plain_form_after_the_session_expired_goes_to_the_login_and_back_to_its_page(
    client, trio, action
):
    target = {
        "exclude": f"/clusters/{trio.pk}/exclude/{memory('c').pk}",
        "keep": f"/clusters/{trio.pk}/keep/{memory('c').pk}",
        "split": f"/clusters/{trio.pk}/split",
        "undo": "/history/undo/1",
        "unmerge": f"/history/unmerge/{trio.pk}",
        "pin": f"/memories/{memory('c').pk}/pin",
    }[action]

    answer = client.post(target, HTTP_REFERER=f"http://testserver/clusters/{trio.pk}/")

    assert answer.url == f"/accounts/login/?next=/clusters/{trio.pk}/"
    assert Cluster.objects.get(pk=trio.pk).status == "open"
    assert not HistoryEvent.objects.filter(action__in=["exclude", "split", "merge"]).exists()


def test_a_plain_form_from_another_site_after_expiry_goes_to_the_dashboard(client, trio):
    answer = client.post(f"/clusters/{trio.pk}/split", HTTP_REFERER="https://evil.example/x")

    assert answer.url == "/accounts/login/?next=/"


def test_the_history_actor_filter_matches_whole_names(client, trio):
    carla, carla2 = person("curator", "curator"), person("curator2", "curator")
    decisions.exclude_member(cluster=trio, memory_id=memory("c").pk, user=carla2)
    decisions.dismiss_cluster(cluster=trio, user=carla)
    client.force_login(carla)

    page = client.get("/history/", {"actor": "curator"})

    assert [e.actor for e in page.context["page"]] == ["user:curator"]
    assert [
        e.actor for e in client.get("/history/", {"actor": "user:curator2"}).context["page"]
    ] == ["user:curator2"]


@pytest.fixture
def three_in_two_namespaces(run_command, write_jsonl):
    """Three open clusters: two in alice, one in bob."""
    lines = []
    for n, namespace in enumerate(["alice", "alice", "bob"]):
        lines += [
            line(f"a{n}", f"Project {n} deploys on Fridays.", unit(10 + n), namespace=namespace),
            line(
                f"b{n}",
                f"Project {n} deploys every Friday.",
                near(10 + n, 0.9),
                namespace=namespace,
            ),
        ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    return list(Cluster.objects.filter(status="open").order_by("id"))


def test_a_cluster_opened_from_a_filtered_queue_shows_its_place_and_neighbours(
    client, three_in_two_namespaces
):
    client.force_login(person("carla", "curator"))
    queue = client.get("/clusters/", {"namespace": "alice"}).content.decode()
    first_link = re.search(r'<a href="(/clusters/\d+/\?from=[^"]+)">#', queue).group(1)

    page = client.get(first_link.replace("&amp;", "&"))

    place = page.context["place"]
    # The queue's order (its default, "surest"): surest first, then closest, then by id.
    alice = [
        c.pk
        for c in sorted(
            three_in_two_namespaces, key=lambda c: (-c.confidence, -c.min_similarity, c.pk)
        )
        if c.namespace.name == "alice"
    ]
    assert (place.number, place.total, place.previous) == (1, 2, None)
    assert place.following == f"/clusters/{alice[1]}/?from=namespace%3Dalice"
    assert place.queue == "/clusters/?namespace=alice"
    assert "1 of 2" in page.content.decode()


def test_a_decision_goes_on_within_the_filtered_queue(client, three_in_two_namespaces):
    client.force_login(person("carla", "curator"))
    alice = [c for c in three_in_two_namespaces if c.namespace.name == "alice"]
    page = client.get(f"/clusters/{alice[1].pk}/", {"from": "namespace=alice"}).content.decode()
    fields = form_of(page, f"/clusters/{alice[1].pk}/dismiss")

    answer = client.post(f"/clusters/{alice[1].pk}/dismiss", fields, **HX)
    last = client.post(
        f"/clusters/{alice[0].pk}/dismiss",
        form_of(
            client.get(answer["HX-Redirect"]).content.decode(), f"/clusters/{alice[0].pk}/dismiss"
        ),
        **HX,
    )

    assert answer["HX-Redirect"] == f"/clusters/{alice[0].pk}/?from=namespace%3Dalice"
    assert last["HX-Redirect"] == "/clusters/?namespace=alice"  # bob's is not this queue


def test_selected_accept_leaves_flagged_clusters_and_names_decided_ones(
    client, three_in_two_namespaces
):
    first, second, third = three_in_two_namespaces
    Cluster.objects.filter(pk=second.pk).update(flags=["protected"])
    decisions.dismiss_cluster(cluster=third, user=person("ada", "curator"))
    client.force_login(person("carla", "curator"))
    picked = [first.pk, second.pk, third.pk]

    preview = client.get(
        "/clusters/selected", {"action": "accept", "selected": picked, "from": "namespace=alice"}
    )
    done = client.post(
        "/clusters/selected",
        {
            "action": "accept",
            "selected": picked,
            "from": "namespace=alice",
            **{f"version-{k}": v for k, v in preview.context["versions"].items()},
            f"version-{second.pk}": "",
        },
    )
    said = client.get(done.url).content.decode().replace("&#x27;", "'")

    assert [c.pk for c, *_ in preview.context["items"]] == [first.pk]
    assert [c.pk for c, *_ in preview.context["flagged"]] == [second.pk]
    assert preview.context["gone"][0].startswith(f"#{third.pk}: ada dismissed this cluster")
    assert done.url == "/clusters/?namespace=alice"
    assert f"#{second.pk} was left alone: " in said
    assert f"#{third.pk} was left alone: ada dismissed this cluster at" in said
    assert dict(Cluster.objects.values_list("pk", "status")) == {
        first.pk: "accepted",
        second.pk: "open",
        third.pk: "dismissed",
    }


def test_an_ignored_filter_value_is_said_beside_the_queue(client, trio):
    client.force_login(person("v", "viewer"))

    page = client.get("/clusters/", {"min_similarity": "high", "size": "1"}).content.decode()

    assert "ignored &#x27;high&#x27;: weakest link from: a number from 0 to 1" in page
    assert "ignored &#x27;1&#x27;: size: a whole number, 2 or more" in page


def test_hostile_values_in_the_new_forms_are_refused_or_ignored_never_a_500(client, trio):
    client.force_login(person("ada", "admin"))
    huge = "9" * 5000

    answers = [
        client.get(f"/clusters/{trio.pk}/", {"from": f"size={huge}&status=bogus&sort=x"}),
        client.get(f"/clusters/{trio.pk}/", {"from": "&&==%%" * 5100}),
        client.post(f"/clusters/{trio.pk}/dismiss", {"seen": "x:y", "from": "a=b" * 400}),
        client.post(f"/history/unmerge-many?clusters=abc,{huge},-1,0", {"next": "/history/"}),
        client.post("/clusters/accept-exact", {"selected": ["x", huge], "version-1": "z"}),
        client.post("/people/", {"username": "n" * 10_000, "role": "admin"}),
        client.post("/people/", {"username": "nina", "role": "root"}),
        client.post(f"/people/{huge}/change", {"action": "admin"}),
        client.get("/history/", {"actor": "(((" * 100, "decisions": "yes"}),
    ]

    # A `from` of more fields than any queue has is refused as Django refuses such a form.
    assert [a.status_code for a in answers] == [200, 400, 302, 302, 302, 200, 200, 404, 200]
    assert Cluster.objects.get(pk=trio.pk).status == "dismissed"  # a bad `seen` is no refusal
