"""What every read of the review pages filters by: the conditions a form gave, and the memories
holding some words (the queues' and the memory browser's search).
"""

from __future__ import annotations

import re

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db.models import QuerySet

from memadmin.store.lexicon import CJK
from memadmin.store.models import Memory


def given(conditions: dict) -> dict:
    """The filter conditions whose value was given (a filter left empty is no filter)."""
    return {lookup: value for lookup, value in conditions.items() if value not in (None, "")}


def memories_with(words: str) -> QuerySet[Memory]:
    """Memories holding these words: PostgreSQL's full text in its 'simple' configuration
    (no stemming: memories come in many languages), each word also as the start of a
    longer one ("stag" finds "staging"), through the memory_content_words index. Chinese,
    Japanese and Korean are written without spaces (a whole run is one token): those
    words are found as written inside a memory."""
    if CJK.search(words):
        return Memory.objects.filter(content__icontains=words).values("pk")
    tokens = _WORD.findall(words.lower())
    if not tokens:
        return Memory.objects.none().values("pk")
    query = SearchQuery(
        " & ".join(f"{token}:*" for token in tokens), config="simple", search_type="raw"
    )
    return (
        Memory.objects.annotate(words=SearchVector("content", config="simple"))
        .filter(words=query)
        .values("pk")
    )


# A word of a search as tsquery reads it: letters and digits only (nothing it would parse).
_WORD = re.compile(r"[^\W_]+")
