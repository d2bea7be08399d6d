"""What several review page tests start from."""

import os

import pytest

from memadmin.curation.models import Cluster
from tests.factories import close_to, line, near, unit
from tests.review.browsing import CHROMIUM, FLAGS, SHOTS, log_in, make_people, new_page


@pytest.fixture
def trio(run_command, write_jsonl):
    """An open cluster of three: a and b close, c close to b but weaker to a (the
    weakest link, a pair the model only finds possible: neither's nearest)."""
    b_vector = near(1, 0.93)
    lines = [
        line(
            "a",
            "Her cat Miso is an orange tabby.",
            unit(1),
            tags=["pets"],
            created_at="2026-01-01T00:00:00Z",
        ),
        line(
            "b",
            "Her cat Miso is a tabby.",
            b_vector,
            tags=["pets"],
            created_at="2026-02-01T00:00:00Z",
        ),
        line(
            "c",
            "Her cat Miso is a tabby cat.",
            close_to(b_vector, 0.93),
            tags=["pets"],
            created_at="2026-03-01T00:00:00Z",
        ),
    ]
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    assert run_command("find_duplicates").error is None
    cluster = Cluster.objects.get(status="open")
    assert cluster.memberships.count() == 3
    return cluster


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests
    # make between browser steps are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def javascript(request):
    return request.param


@pytest.fixture
def two_reviewers(browser, live_server, trio, javascript):
    """carla (JavaScript on) and ada (on or off), both logged in."""
    make_people()
    carla = new_page(browser, live_server)
    ada = new_page(browser, live_server, javascript=javascript)
    log_in(carla, "carla")
    log_in(ada, "ada")
    yield carla, ada
    for one in (carla, ada):
        assert one.errors == []
        one.context.close()
