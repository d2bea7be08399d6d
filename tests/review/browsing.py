"""What the browser tests share: Debian's Chromium, a page in a fresh context (another
person's browser), logging in, and the people who review."""

from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group

from tests.factories import person

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(settings.BASE_DIR) / "test-results" / "screenshots"
# The README's three pictures, taken again by the browser tests on every run.
DOC_SHOTS = Path(settings.BASE_DIR) / "docs" / "images"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def new_page(browser, live_server, *, javascript=True, width=1280):
    """A page in a fresh browser context (its own cookies: another person's browser),
    recording console errors."""
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": width, "height": 900},
        java_script_enabled=javascript,
    )
    page = context.new_page()
    page.errors = []
    # A refused request (409) is logged by Chromium as a failed resource: that is the
    # refusal under test, not a script error.
    page.on(
        "console",
        lambda m: (
            m.type == "error" and "status of 409" not in m.text and page.errors.append(m.text)
        ),
    )
    return page


def make_people():
    """carla the curator and ada the admin, with passwords to log in."""
    for name, role in (("carla", "curator"), ("ada", "admin")):
        user = person(name, None, password=f"{name}-password-1")
        user.groups.add(Group.objects.get_or_create(name=role)[0])


def log_in(page, name):
    page.goto("/accounts/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-password-1")
    page.click("button[type=submit]")
    page.wait_for_url("**/")
