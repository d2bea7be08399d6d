"""axe-core on every review page, at a desk's width and a phone's: no serious or critical
violation (axe-playwright-python ships axe-core; nothing is downloaded)."""

import pytest

from memadmin.curation.models import Cluster, Conflict
from memadmin.sources.models import Source
from memadmin.store.models import Memory
from tests.factories import hosting_change, line, near, unit
from tests.review.browsing import log_in, make_people

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def loaded(run_command, write_jsonl):
    lines = [
        line(
            "cat-old",
            "Her cat Miso is an orange tabby.",
            unit(1),
            created_at="2026-01-01T00:00:00Z",
        ),
        line("cat-new", "Has a cat called Miso.", near(1, 0.8), created_at="2026-02-01T00:00:00Z"),
        line("zh", "她每天早上喝一杯黑咖啡。", unit(7)),
        *hosting_change("host-old", "host-new", seed=2),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    assert run_command("propose_merges").error is None
    make_people()


@pytest.mark.parametrize("width", [1280, 400])
def test_no_page_has_a_serious_or_critical_violation(browser, live_server, loaded, width):
    from axe_playwright_python.sync_playwright import Axe

    cluster, conflict = Cluster.objects.filter(status="open").first(), Conflict.objects.get()
    source = Source.objects.create(name="notes", kind="jsonl", location="/srv/notes.jsonl")
    pages = [
        "/",
        "/clusters/",
        f"/clusters/{cluster.pk}/",
        "/clusters/accept-exact",
        "/clusters/batch/",
        "/clusters/?q=cat",
        f"/clusters/selected?action=accept&selected={cluster.pk}",
        "/conflicts/",
        "/conflicts/?group=topic",
        f"/conflicts/selected?action=b_supersedes_a&selected={conflict.pk}",
        f"/conflicts/{conflict.pk}/",
        "/memories/",
        f"/memories/{Memory.objects.first().pk}/",
        "/history/",
        "/history/?decisions=yes",
        "/tokens/",
        "/people/",
        "/sources/",
        f"/sources/{source.pk}/push",
        "/accounts/login/",
    ]
    # axe's script is evaluated into each page: the site's Content-Security-Policy is
    # for the site's own pages, not for the test's probe.
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, bypass_csp=True
    )
    page = context.new_page()
    log_in(page, "ada")
    axe, found = Axe(), {}
    for url in pages:
        page.goto(url)
        result = axe.run(page)
        serious = [
            f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}"
            for v in result.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        if serious:
            found[url] = serious
    context.close()

    assert found == {}
