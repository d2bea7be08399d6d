"""Where a cluster or conflict page stands in the queue it was opened from: "3 of 14",
its neighbours, and the way back to that queue as filtered (the queue's filters travel
in the page's `from`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from memadmin.review.forms import queue_query


@dataclass(frozen=True)
class Place:
    query: str
    number: int | None
    total: int
    previous: str | None
    following: str | None
    queue: str


def place_in(order: list[int], pk: int, *, url: Callable[[int], str], queue: str, query: str):
    """`pk`'s place among `order` (the queue's ids, in its order); `url(pk)` a page."""
    at = order.index(pk) if pk in order else None
    return Place(
        query=query,
        number=None if at is None else at + 1,
        total=len(order),
        previous=url(order[at - 1]) if at else None,
        following=url(order[at + 1]) if at is not None and at + 1 < len(order) else None,
        queue=queue,
    )


def queue_url(url: str, query: str) -> str:
    """A queue page (`url`) with the filters it had (`query`, its query string), parsed
    and encoded again so that nothing but parameters comes through."""
    filters = queue_query(query)
    return url + (f"?{filters.urlencode()}" if filters else "")


def page_url(name: str, pk: int, query: str) -> str:
    """A cluster's or conflict's page (`name`), opened from the queue `query` filters
    (none: the plain page)."""
    return reverse(name, args=[pk]) + (f"?{urlencode({'from': query})}" if query else "")


def next_in(before: list[int], now: list[int], pk: int, *, other: bool = True) -> int | None:
    """Where a decision on `pk` goes on to: the next of the queue's order before the
    decision (`before`) that is still in it (`now`), else the first one left (`other`:
    not `pk` itself)."""
    after = before[before.index(pk) + 1 :] if pk in before else []
    return next((p for p in after if p in now), None) or next(
        (p for p in now if not other or p != pk), None
    )
