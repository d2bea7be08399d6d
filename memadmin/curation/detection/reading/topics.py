"""What two conflicting memories disagree about, in their own shared words ("staging
target", "born", "ines a. lives"): the key the conflict queue groups by, so that an admin
settles every conflict of one subject and slot together. Any language: the words both
texts share, in the older text's order, without the stop words the lexicon knows. Two
people told apart by an initial are two subjects: an initial ("A." of "Ines A.") is a
word of the topic, and the topic is long enough to hold a subject's modifier ("the
welder from Lima")."""

from __future__ import annotations

from memadmin.curation.detection.reading.keytokens import words_of
from memadmin.store.lexicon import stop_words

TOPIC_WORDS = 6  # a queue's group header, not a sentence
NO_TOPIC = ""  # nothing shared: its own group, last


def topic_of(older: str, newer: str) -> str:
    stop = stop_words()
    theirs = set(_topic_words(newer))
    shared: list[str] = []
    for said in _topic_words(older):
        # A one-letter unit ("12 N") says little of what the two are about; an initial
        # ("A.") says whose it is.
        telling = len(said) > 1 or not said.isascii()
        if telling and said in theirs and said not in stop and said not in shared:
            shared.append(said)
    return " ".join(shared[:TOPIC_WORDS])[:200]


def _topic_words(text: str) -> list[str]:
    """A text's words as a topic holds them: folded; a capital letter with a full stop
    after it, after a name ("Ines A."), is an initial, kept with its stop ("a.")."""
    found, words = [], words_of(text)
    for index, word in enumerate(words):
        initial = (
            len(word.raw) == 1
            and word.raw.isupper()
            and text[word.end : word.end + 1] == "."
            and index > 0
            and words[index - 1].raw[:1].isupper()
        )
        found.append(f"{word.lower}." if initial else word.lower)
    return found
