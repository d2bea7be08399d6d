"""The language of a memory, told cheaply: which namespaces need the second model."""

import time

import pytest

from memadmin.store.lexicon import language_of
from memadmin.store.multilingual import needs_multilingual


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Ana works remotely from Lisbon.", "en"),
        ("Ana arbeitet remote aus Lissabon und mag die Stadt.", "de"),
        ("Ana travaille à distance depuis Lisbonne, dans le quartier de Graça.", "fr"),
        ("安娜在里斯本远程工作。", "zh"),
        ("pve1: 64 GB, ZFS mirror", "en"),  # a technical note: nothing says otherwise
        ("Die API läuft auf Hetzner.", "de"),
        ("", "en"),
    ],
)
def test_language_of(text, language):
    assert language_of(text) == language


def test_one_loan_word_does_not_make_english_german():
    assert language_of("The die casting line restarts at 6.") == "en"


def test_a_namespace_needs_the_second_model_only_with_two_languages():
    assert not needs_multilingual(["Prefers tea.", "Deploys on Fridays.", "Uses Python 3.12."])
    assert needs_multilingual(["Prefers tea.", "Trinkt lieber Tee und keinen Kaffee."])
    assert needs_multilingual(["Prefers tea.", "喜欢喝茶。"])


def test_telling_the_language_costs_microseconds():
    texts = ["Ana arbeitet remote aus Lissabon und mag die Stadt."] * 2000
    started = time.perf_counter()
    for text in texts:
        language_of(text)
    per_text = (time.perf_counter() - started) / len(texts)
    assert per_text < 200e-6  # measured about 10 µs (bench/embed.py)
