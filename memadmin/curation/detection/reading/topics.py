"""What two conflicting memories disagree about, in their own shared words ("staging
target", "born", "user lives"): the key the conflict queue groups by, so that an admin
settles every conflict of one subject and slot together. Any language: the words both
texts share, in the older text's order, without the stop words the lexicon knows."""

from __future__ import annotations

from memadmin.curation.detection.reading.keytokens import words_of
from memadmin.store.lexicon import stop_words

TOPIC_WORDS = 4  # a queue's group header, not a sentence
NO_TOPIC = ""  # nothing shared: its own group, last


def topic_of(older: str, newer: str) -> str:
    stop = stop_words()
    theirs = {word.lower for word in words_of(newer)}
    shared: list[str] = []
    for word in words_of(older):
        said = word.lower
        # A one-letter unit ("12 N") says little of what the two are about.
        telling = len(said) > 1 or not said.isascii()
        if telling and said in theirs and said not in stop and said not in shared:
            shared.append(said)
    return " ".join(shared[:TOPIC_WORDS])[:200]
