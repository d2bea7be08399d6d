"""The member-against-proposal diff of the cluster page."""

from memadmin.review.diff import Span, word_diff


def kinds(spans: list[Span]) -> list[tuple[str, str]]:
    return [(span.kind, span.text) for span in spans]


def test_words_the_proposal_drops_and_adds_are_marked():
    assert kinds(word_diff("Her cat Miso is an orange tabby.", "Her cat Miso is a tabby.")) == [
        ("same", "Her cat Miso is "),
        ("removed", "an orange"),
        ("added", "a"),
        ("same", " tabby."),
    ]


def test_chinese_is_compared_character_by_character():
    spans = word_diff("他住在上海浦东。", "他住在上海徐汇。")

    assert kinds(spans) == [
        ("same", "他住在上海"),
        ("removed", "浦东"),
        ("added", "徐汇"),
        ("same", "。"),
    ]


def test_another_language_is_said_not_struck_out():
    spans = word_diff("Sie trinkt ihren Kaffee schwarz und ohne Zucker.", "她喝黑咖啡，不加糖。")

    assert kinds(spans) == [("other-language", "Sie trinkt ihren Kaffee schwarz und ohne Zucker.")]


def test_a_short_note_whose_language_is_a_guess_keeps_its_diff():
    # Words in common decide before the language guessed from three words does.
    assert kinds(word_diff("Liebt Sushi.", "Liebt Sushi und Ramen.")) == [
        ("same", "Liebt "),
        ("removed", "Sushi."),
        ("added", "Sushi und Ramen."),
    ]
