"""Every input of the review pages, one form class each: the queues' filters, a decision
on a cluster or a conflict, the bulk actions, the people and token forms. Validation and
its messages live here, the same for an HTMX request and a plain one; a view reads
`cleaned_data`, never the request field by field.

Filters are forgiving (`Filters`): a value that is not one of the field's choices, or not
a number in range, is no filter, and the page says which it ignored; a decision's form
refuses what it cannot read.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import QueryDict

from memadmin.curation.models import (
    ClusterStatus,
    ConflictKind,
    ConflictStatus,
    Tier,
)
from memadmin.curation.reads.conflicts import CONFLICT_SORTS
from memadmin.review import roles
from memadmin.review.models import ReviewerSettings
from memadmin.store import validation
from memadmin.store.validation import unreadable

# The most rows one "selected" action takes; an id is a positive bigint.
MAX_SELECTED = 500
MAX_ROW_ID = 2**63 - 1
# "All N matching this filter": the most one bulk action takes (a preview lists each).
MAX_MATCHING = 2000
# The most pages a list goes to (a page number beyond is the last page).
MAX_PAGE = 1_000_000
MAX_CLUSTER_SIZE = 10_000  # members of a cluster, as a filter
MAX_WORDS = 200  # the longest search a queue takes


class Number(forms.Field):
    """A number read by a store.validation function (`parse`, within `limits`: finite, of
    a sane length), refused with `said`; empty is None."""

    def __init__(self, parse, said: str, **limits):
        super().__init__(required=False)
        self.parse, self.said, self.limits = parse, said, limits

    def to_python(self, value):
        if value in (None, ""):
            return None
        try:
            return self.parse(value, "value", **self.limits)
        except validation.Invalid as problem:
            raise ValidationError(self.said) from problem


class Filters(forms.Form):
    """A page's filters: every field optional, each value that cannot be read replaced by
    its default (DEFAULTS, else empty). `ignored` says, for the fields listed in NOTED,
    what was left out and why."""

    DEFAULTS: dict = {}
    NOTED: tuple[str, ...] = ()

    def __init__(self, data=None):
        super().__init__(data if data is not None else QueryDict())
        self.ignored: list[str] = []
        self.is_valid()
        for name, errors in list(self.errors.items()):
            if name in self.NOTED:
                raw = self.data.get(name, "")
                self.ignored.append(f"ignored {validation.shown(raw)}: {errors[0]}")
            self.cleaned_data[name] = None
        for name, default in self.DEFAULTS.items():
            if self.cleaned_data.get(name) in (None, ""):
                self.cleaned_data[name] = default


def _choice(values):
    """Text that must be one of `values` (or empty)."""
    return forms.CharField(required=False, validators=[lambda value: _one_of(value, values)])


def _one_of(value: str, values) -> None:
    if value and value not in values:
        raise ValidationError(f"one of {', '.join(values)}")


def _text():
    # Longer text is cut where it is used, not refused: a long search searches its start.
    return forms.CharField(required=False, strip=True)


class ClusterQueueFilters(Filters):
    """The cluster queue's filters (also carried in a cluster page's `from`)."""

    namespace = forms.CharField(required=False)
    status = _choice(ClusterStatus.values)
    tier = _choice(Tier.values)
    min_similarity = Number(
        validation.decimal, "weakest link from: a number from 0 to 1", low=0.0, high=1.0
    )
    max_similarity = Number(
        validation.decimal, "weakest link to: a number from 0 to 1", low=0.0, high=1.0
    )
    size = Number(
        validation.whole_number, "size: a whole number, 2 or more", low=2, high=MAX_CLUSTER_SIZE
    )
    category = forms.CharField(required=False)
    protected = _choice(("yes", "no"))
    method = forms.CharField(required=False)
    sort = forms.CharField(required=False)
    q = _text()

    DEFAULTS = {"status": ClusterStatus.OPEN, "tier": Tier.PROPOSED, "sort": "surest"}
    NOTED = ("min_similarity", "max_similarity", "size")

    def shown(self) -> dict:
        """The filters as the form on the page shows them (a number as it was typed)."""
        data = self.cleaned_data
        return {
            "namespace": data["namespace"],
            "status": data["status"],
            "min_similarity": self.data.get("min_similarity", ""),
            "max_similarity": self.data.get("max_similarity", ""),
            "size": self.data.get("size", ""),
            "category": data["category"],
            "protected": data["protected"],
            "method": data["method"],
            "sort": self.data.get("sort", "surest"),
            "tier": data["tier"],
            "q": data["q"][:MAX_WORDS],
        }

    def arguments(self) -> dict:
        """The filters as reads.clusters.cluster_queue takes them."""
        data = self.cleaned_data
        return {
            "namespace": data["namespace"] or None,
            "status": data["status"],
            "min_similarity": data["min_similarity"],
            "max_similarity": data["max_similarity"],
            "size": data["size"],
            "category": data["category"],
            "protected": {"yes": True, "no": False}.get(data["protected"]),
            "method": data["method"],
            "sort": self.data.get("sort", "surest"),
            "tier": data["tier"],
            "words": data["q"][:MAX_WORDS],
        }


class ConflictQueueFilters(Filters):
    """The conflict queue's filters (also carried in a conflict page's `from`)."""

    status = _choice(ConflictStatus.values)
    namespace = forms.CharField(required=False)
    kind = _choice(ConflictKind.values)
    tier = _choice(Tier.values)
    q = _text()
    sort = _choice(tuple(CONFLICT_SORTS))
    group = forms.CharField(required=False)

    DEFAULTS = {"status": ConflictStatus.OPEN, "tier": Tier.PROPOSED, "sort": "surest"}

    def arguments(self) -> dict:
        """The filters as reads.conflicts.conflict_queue takes them."""
        data = self.cleaned_data
        return {
            "status": data["status"],
            "namespace": data["namespace"],
            "kind": data["kind"] or "",
            "tier": data["tier"],
            "words": data["q"][:MAX_WORDS],
            "sort": data["sort"],
            "by_topic": data["group"] == "topic",
        }


class BatchFilters(Filters):
    """The batch screen's filters: namespace, tier and the least confidence shown."""

    namespace = forms.CharField(required=False)
    tier = _choice(Tier.values)
    min_confidence = Number(validation.decimal, "a number from 0 to 1", low=0.0, high=1.0)
    page = Number(validation.whole_number, "a page number", low=1, high=MAX_PAGE)

    DEFAULTS = {"tier": Tier.PROPOSED}

    def arguments(self) -> dict:
        data = self.cleaned_data
        return {
            "namespace": data["namespace"],
            "tier": data["tier"],
            "min_confidence": round(float(data["min_confidence"] or 0.0), 2),
        }

    def back(self) -> dict:
        """The filters and the page a decision on the screen goes back to."""
        page = self.cleaned_data["page"]
        return {**self.arguments(), **({"page": page} if page and page > 1 else {})}


class HistoryFilters(Filters):
    namespace = forms.CharField(required=False)
    action = forms.CharField(required=False)
    actor = forms.CharField(required=False)
    since = Number(validation.day, "a day as YYYY-MM-DD")
    until = Number(validation.day, "a day as YYYY-MM-DD")
    decisions = forms.CharField(required=False)

    def shown(self) -> dict:
        """The filters as typed (a day that is no day is shown, and ignored)."""
        names = ("namespace", "action", "actor", "since", "until", "decisions")
        return {name: self.data.get(name, "") for name in names}

    def arguments(self) -> dict:
        data = self.cleaned_data
        return {
            "decisions_only": data["decisions"] == "yes",
            "namespace": data["namespace"],
            "action": data["action"],
            "actor": data["actor"],
            "since": data["since"],
            "until": data["until"],
        }


class MemorySearch(Filters):
    namespace = forms.CharField(required=False)
    q = forms.CharField(required=False, strip=False)
    mode = forms.CharField(required=False)
    status = forms.CharField(required=False)
    category = forms.CharField(required=False)

    def shown(self) -> dict:
        names = ("namespace", "q", "mode", "status", "category")
        return {name: self.data.get(name, "") for name in names}


class PageNumber(Filters):
    """Which page of a list: a page number that is not one (or is huge) is page 1."""

    page = Number(validation.whole_number, "a page number", low=1, high=MAX_PAGE)

    @property
    def number(self) -> int:
        return self.cleaned_data["page"] or 1


class ClusterPageQuery(Filters):
    """A cluster page's query: the way differences are shown (kept with the reviewer's
    account), the member the others are compared with, and the queue it came from."""

    diff = _choice(ReviewerSettings.DiffView.values)
    against = Number(validation.whole_number, "a member's id", low=1, high=MAX_ROW_ID)
    from_ = forms.CharField(required=False, strip=False)

    def __init__(self, data=None):
        super().__init__(_renamed_from(data))


class ConflictPageQuery(Filters):
    from_ = forms.CharField(required=False, strip=False)

    def __init__(self, data=None):
        super().__init__(_renamed_from(data))


def _renamed_from(data):
    """`from` is a Python word: its field is `from_`."""
    if data is None:
        return None
    renamed = data.copy()
    if "from" in renamed:
        renamed.setlist("from_", renamed.getlist("from"))
    return renamed


class DecisionForm(forms.Form):
    """What every decision on one cluster or conflict sends besides its own fields: the
    version of the page it was taken on (refused when the thing changed since), what the
    page showed last (`seen`: to say what changed meanwhile), and the queue it was
    opened from (`from`: where the review goes on)."""

    version = forms.CharField(required=False, strip=False)
    seen = forms.CharField(required=False)
    from_ = forms.CharField(required=False, strip=False)

    def __init__(self, data):
        super().__init__(_renamed_from(data))
        self.is_valid()

    @property
    def query(self) -> str:
        return self.cleaned_data.get("from_", "")

    def seen_pair(self) -> tuple[int, int] | None:
        """A cluster page's `seen`: (the newest event, the proposal) it showed."""
        event, _, proposal = self.cleaned_data.get("seen", "").partition(":")
        return (int(event), int(proposal)) if event.isdigit() and proposal.isdigit() else None

    def seen_event(self) -> int | None:
        """A conflict page's `seen`: the newest event it showed."""
        seen = self.cleaned_data.get("seen", "")
        return int(seen) if seen.isdigit() else None


class ClusterDecision(DecisionForm):
    """A decision on one cluster; `text` the curator's text of the merge (None when the
    form had no box)."""

    text = forms.CharField(required=False, strip=False)

    @property
    def text_or_none(self) -> str | None:
        return self.cleaned_data["text"] if "text" in self.data else None


class ConflictDecision(DecisionForm):
    """How an admin settles a conflict: the resolution, a scope note, a rewritten text."""

    resolution = forms.CharField(required=False)
    scope_note = forms.CharField(required=False)
    text = forms.CharField(required=False, strip=False)

    def chosen(self) -> dict:
        data = self.cleaned_data
        return {
            "resolution": data["resolution"],
            "scope_note": data["scope_note"],
            "text": data["text"],
        }


def row_ids(values) -> list[int]:
    """The row ids ticked on a page, in order, without repeats: what is not a row id (a
    word, a 5,000-digit number) is ignored, as a stale box would be."""
    ids = []
    for value in values:
        try:
            found = validation.whole_number(value, "selected", low=1, high=MAX_ROW_ID)
        except validation.Invalid:
            continue
        if found not in ids:
            ids.append(found)
    return ids[:MAX_SELECTED]


class Selection(forms.Form):
    """A bulk action on rows of a queue: the action, the rows ticked (`selected`) or every
    row the queue's filter matches (`all`, the filter in `from`), and each row's version
    as the page showed it (`version-<id>`) and, on the batch screen, its text
    (`text-<id>`)."""

    action = forms.CharField(required=False)
    from_ = forms.CharField(required=False, strip=False)
    all = forms.CharField(required=False)
    namespace = forms.CharField(required=False)
    confirm = forms.CharField(required=False)

    def __init__(self, data, *, box: str = "selected"):
        super().__init__(_renamed_from(data))
        self.box = box
        self.is_valid()

    @property
    def query(self) -> str:
        return self.cleaned_data["from_"]

    def action_or(self, default: str) -> str:
        """The action chosen; `default` when the form sent none."""
        return self.cleaned_data["action"] if "action" in self.data else default

    def ticked(self) -> list[int]:
        return row_ids(self.data.getlist(self.box))

    def chosen(self, matching) -> tuple[list[int], int]:
        """(ids, how many matched): the rows ticked, or with `all` every row the queue's
        filter matches (`matching(query)` gives them in order), the first MAX_MATCHING."""
        if self.cleaned_data["all"]:
            found = matching(self.query)
            return found[:MAX_MATCHING], len(found)
        ids = self.ticked()
        return ids, len(ids)

    def version_of(self, pk: int) -> str:
        return self.data.get(f"version-{pk}", "")

    def text_of(self, pk: int) -> str:
        return self.data.get(f"text-{pk}", "")


class RowIds(forms.Form):
    """The rows a bulk undo takes back: ids joined by commas in `clusters` (or
    `conflicts`)."""

    clusters = forms.CharField(required=False)
    conflicts = forms.CharField(required=False)

    def __init__(self, data):
        super().__init__(data)
        self.is_valid()

    def ids(self, name: str = "clusters") -> list[int]:
        return row_ids(self.cleaned_data[name].split(","))


class Next(forms.Form):
    """Where an action goes after: `next`, when it is a page of this site (checked by the
    view, which knows the host)."""

    next = forms.CharField(required=False, strip=False)

    def __init__(self, data):
        super().__init__(data)
        self.is_valid()

    @property
    def target(self) -> str:
        return self.cleaned_data["next"]


class Invite(forms.Form):
    """Someone new: a user name Django accepts, and a role."""

    username = forms.RegexField(
        regex=r"^[\w.@+-]+\Z",
        max_length=150,
        error_messages={
            "invalid": "a user name is letters, digits and @ . + - _ (150 at most)",
            "required": "a user name is letters, digits and @ . + - _ (150 at most)",
            "max_length": "a user name is letters, digits and @ . + - _ (150 at most)",
        },
    )
    role = forms.ChoiceField(
        choices=[(role, role) for role in roles.ROLES],
        error_messages={"invalid_choice": f"the role must be one of {', '.join(roles.ROLES)}"},
    )

    def clean_username(self) -> str:
        name = self.cleaned_data["username"]
        if User.objects.filter(username=name).exists():
            raise ValidationError(f"{name!r} has an account already")
        return name

    def problem(self) -> str:
        return "; ".join(message for errors in self.errors.values() for message in errors)


class PersonChange(forms.Form):
    """A role to set, or deactivate / reactivate."""

    action = forms.ChoiceField(choices=[(a, a) for a in (*roles.ROLES, "deactivate", "reactivate")])


class NewToken(forms.Form):
    """An API token: the namespace it speaks for (a new one only when asked) and a name."""

    namespace = forms.CharField(required=False)
    name = forms.CharField(required=False)
    create_namespace = forms.BooleanField(required=False)

    def clean_namespace(self) -> str:
        try:
            return validation.namespace_name(self.cleaned_data["namespace"])
        except validation.Invalid as problem:
            raise ValidationError(str(problem)) from problem

    def clean_name(self) -> str:
        label = self.cleaned_data["name"] or "agent"
        try:
            return validation.short_text(label, "the token's name", 100)
        except validation.Invalid as problem:
            raise ValidationError(str(problem)) from problem

    def problem(self) -> str:
        return "; ".join(message for errors in self.errors.values() for message in errors)


def queue_query(query: str) -> QueryDict:
    """A queue's filters carried inside one value (a page's `from`), parsed: what the
    middleware refuses in a query string (a NUL, a lone surrogate) is no filter here."""
    parsed = QueryDict(mutable=True)
    for name, values in QueryDict(query).lists():
        if not unreadable(name):
            parsed.setlist(name, [value for value in values if not unreadable(value)])
    return parsed


class AuditAnswer(forms.Form):
    """An answer on the audit queue: what the two memories are, or unsure."""

    memory_a = forms.IntegerField(min_value=1, max_value=MAX_ROW_ID)
    memory_b = forms.IntegerField(min_value=1, max_value=MAX_ROW_ID)
    label = forms.ChoiceField(
        choices=[(v, v) for v in ("one_fact", "conflict", "two_facts", "unsure")]
    )

    def problem(self) -> str:
        return "; ".join(message for errors in self.errors.values() for message in errors)
