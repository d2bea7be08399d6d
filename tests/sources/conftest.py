# The review tests' Chromium, for the Sources page.
from tests.review.conftest import browser  # noqa: F401
