"""The memory browser, a memory's page, pinning."""

import pytest

from memadmin.curation.models import Cluster, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, memory, near, person, unit

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
