"""The find_duplicates command's own output: progress and summary."""

import pytest

from tests.factories import line, near, unit

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_shows_the_pairs_it_compares(run_command, load, capsys):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
    )

    run_command("find_duplicates", "--full")

    progress = capsys.readouterr().err
    assert "find_duplicates: 100%" in progress
    assert "comparing alice: 100%" in progress and "pairs" in progress
