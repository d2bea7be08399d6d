"""The memory browser, a memory's page, pinning."""

import pytest

from memadmin.curation.models import Cluster, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import cluster, line, memory, near, person, store, unit

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def stored(run_command, write_jsonl):
    lines = [
        line("hike", "Alice likes hiking in the Alps."),
        line("api", "The billing API is deployed on Hetzner."),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None


def test_words_find_memories_and_htmx_gets_the_results_only(client, stored):
    client.force_login(person("v", "viewer"))

    page = client.get("/memories/", {"q": "hiking"})
    section = client.get("/memories/", {"q": "hiking"}, **HX)

    assert b"<html" in page.content
    assert section.content.lstrip().startswith(b'<section id="results">')
    assert b"Alice likes hiking" in section.content and b"billing" not in section.content


def test_words_are_found_as_the_start_of_a_word_in_any_language(client, run_command, write_jsonl):
    """Full text in the 'simple' configuration, each word a prefix ("hik" finds "hiking");
    Chinese, Japanese and Korean (no spaces between words) as written inside a memory;
    tsquery's own syntax in a search is only words."""
    lines = [
        line("hike", "Alice likes hiking in the Alps."),
        line("zh", "用户住在上海浦东新区。"),
        line("de", "Der Nutzer wohnt in München."),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    client.force_login(person("v", "viewer"))

    def found(words: str) -> str:
        return client.get("/memories/", {"q": words}, **HX).content.decode()

    assert "Alice likes hiking" in found("hik") and "Alice likes hiking" in found("ALPS alice")
    assert "上海浦东" in found("浦东") and "München" in found("münch")
    assert "Nothing found" in found("& | !:* (")  # no words: nothing, never an error
    assert "Alice" not in found("alice münchen")  # every word must be there


def test_meaning_finds_the_nearest_memory_within_a_namespace(client, stored):
    client.force_login(person("v", "viewer"))

    content = client.get(
        "/memories/", {"q": "mountain walks", "mode": "semantic", "namespace": "alice"}, **HX
    ).content.decode()

    assert content.index("Alice likes hiking") < content.index("billing API")


def test_meaning_needs_a_namespace(client, stored):
    client.force_login(person("v", "viewer"))

    assert b"needs a namespace" in client.get("/memories/", {"q": "x", "mode": "semantic"}).content


def test_a_memory_page_shows_its_whole_history(client, stored, run_command, write_jsonl):
    run_command(
        "import_memories",
        str(
            write_jsonl(
                [line("hike", "Alice likes hiking in the Dolomites.")], name="changed.jsonl"
            )
        ),
    )
    client.force_login(person("v", "viewer"))
    memory = Memory.objects.get(external_id="hike")

    content = client.get(f"/memories/{memory.pk}/").content.decode()

    assert content.index(">update<") < content.index(">import<")  # newest first
    assert "Alice likes hiking in the Alps." in content  # the text before the update


def test_an_admin_pins_a_member(client, trio):
    client.force_login(person("ada", "admin"))

    client.post(f"/memories/{memory('a').pk}/pin", {"next": f"/clusters/{trio.pk}/"})

    assert memory("a").pinned
    assert HistoryEvent.objects.filter(action="pin").count() == 1


@pytest.mark.parametrize(("role", "code"), [("viewer", 403), ("curator", 403)])
def test_only_admins_pin(client, trio, role, code):
    client.force_login(person("p", role))

    assert client.post(f"/memories/{memory('a').pk}/pin").status_code == code


def test_the_memory_page_lists_its_open_cluster_and_conflict_and_pins(
    client, run_command, write_jsonl
):
    lines = [
        line("cat-old", "Her cat Miso is an orange tabby.", unit(1), tags=["pets"]),
        line("cat-new", "Has a cat called Miso.", near(1, 0.8), tags=["pets"]),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    cluster = Cluster.objects.get()
    found = Memory.objects.get(external_id="cat-old")
    client.force_login(person("ada", "admin"))

    page = client.get(f"/memories/{found.pk}/").content.decode()
    client.post(f"/memories/{found.pk}/pin", {"next": f"/memories/{found.pk}/"})

    assert f'href="/clusters/{cluster.pk}/"' in page and "Pin</button>" in page
    assert Memory.objects.get(pk=found.pk).pinned


def test_a_curator_opens_a_cluster_from_memories_the_engine_missed(client):
    first, second, _ = store(
        line("tea-1", "Drinks green tea every morning.", unit(3)),
        line("tea-2", "Starts each day with a cup of green tea.", near(3, 0.6)),
        line("other", "Works from Lisbon.", unit(4)),
    )
    client.force_login(person("cu", "curator"))

    browser = client.get("/memories/").content.decode()
    answer = client.post("/clusters/open", {"selected": [first.pk, second.pk]})

    assert 'form="hand-picked"' in browser and "Open a cluster from the selected" in browser
    opened = Cluster.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/clusters/{opened.pk}/"
    assert set(opened.memberships.values_list("memory_id", flat=True)) == {first.pk, second.pk}
    assert opened.edges[0]["method"] == "manual" and opened.edges[0]["similarity"] == 0.6
    assert opened.flags == ["opened by hand by cu"]
    assert opened.proposals.get(status="pending").author == "rule"
    assert HistoryEvent.objects.get(action="open").cluster == opened
    # Then the same review path as any cluster: accepting it merges the two.
    client.post(f"/clusters/{opened.pk}/accept", {"text": "Drinks green tea every morning."})
    assert Memory.objects.get(pk=first.pk).status == "superseded"


def test_a_hand_picked_memory_of_an_open_cluster_grows_that_cluster(client, trio):
    extra = store(line("d", "Miso the cat is a tabby.", near(1, 0.7, other_seed=9)))[0]
    client.force_login(person("cu", "curator"))

    client.post("/clusters/open", {"selected": [memory("a").pk, extra.pk]})

    trio.refresh_from_db()
    assert Cluster.objects.count() == 1 and trio.memberships.count() == 4
    proposal = trio.proposals.get(status="pending")
    assert proposal.members_fingerprint  # written for the four, so Accept is not refused
    assert client.post(f"/clusters/{trio.pk}/accept").status_code == 302
    assert Memory.objects.get(pk=extra.pk).status == "superseded"


@pytest.mark.parametrize(
    "case", ["one memory", "two namespaces", "a retired memory", "two open clusters"]
)
def test_a_hand_picked_cluster_is_refused_with_a_reason_and_opens_nothing(client, case):
    memories = store(
        line("p", "Prefers Python.", unit(5)),
        line("q", "Likes Python best.", near(5, 0.9)),
        line("r", "Prefers Python.", unit(5), namespace="other"),
        line("s", "Lives in Porto.", unit(6)),
        line("t", "Lives in Oporto.", near(6, 0.9)),
    )
    p, q, r, s, _ = (m.pk for m in memories)
    if case == "a retired memory":
        Memory.objects.filter(pk=q).update(status="superseded")
    if case == "two open clusters":
        first, second = cluster(memories[0], memories[1]), cluster(memories[3], memories[4])
    chosen = {
        "one memory": [p],
        "two namespaces": [p, r],
        "a retired memory": [p, q],
        "two open clusters": [p, s],
    }[case]
    before = Cluster.objects.count()
    client.force_login(person("cu", "curator"))

    answer = client.post(
        "/clusters/open", {"selected": chosen, "next": "/memories/?q=Python"}, follow=True
    )

    assert answer.redirect_chain[0][0] == "/memories/?q=Python"
    assert "No cluster opened:" in answer.content.decode()
    assert Cluster.objects.count() == before
    assert not HistoryEvent.objects.filter(action="open").exists()
    if case == "two open clusters":
        assert f"#{first.pk}, #{second.pk}" in answer.content.decode()


def test_only_curators_open_clusters_by_hand(client):
    p, q = store(line("p", "Prefers Python.", unit(5)), line("q", "Likes Python.", near(5, 0.9)))
    client.force_login(person("v", "viewer"))

    assert client.post("/clusters/open", {"selected": [p.pk, q.pk]}).status_code == 403
    assert 'form="hand-picked"' not in client.get("/memories/").content.decode()
    assert not Cluster.objects.exists()


@pytest.mark.parametrize("path", ["/clusters/open", "/clusters/selected", "/conflicts/selected"])
def test_selected_ids_that_are_no_row_ids_are_ignored_not_a_500(client, path):
    client.force_login(person("ada", "admin"))

    answer = client.post(
        path, {"selected": ["9" * 5000, "9" * 19, "-1", "x", "0"], "action": "dismiss"}
    )

    assert answer.status_code in (200, 302)
    assert not Cluster.objects.exists()


def test_a_merged_memory_lists_its_originals_and_each_original_its_decided_cluster(client, trio):
    client.force_login(person("cu", "curator"))
    accepted = client.post(f"/clusters/{trio.pk}/accept", {"text": "Her cat Miso is a tabby."})
    assert accepted.status_code == 302
    merged = Memory.objects.get(status="active", content="Her cat Miso is a tabby.")
    merged = Memory.objects.exclude(external_id__in="abc").get(pk=merged.pk)

    page = client.get(f"/memories/{merged.pk}/").content.decode()
    original = client.get(f"/memories/{memory('a').pk}/").content.decode()

    made_from = page[page.index("Made from") : page.index("Clusters and conflicts")]
    for name in "abc":
        assert f'href="/memories/{memory(name).pk}/"' in made_from
    assert f'href="/clusters/{trio.pk}/"' in original and "accepted" in original
    assert "waiting for a decision" not in original
