"""What a reviewer's action on a page does: one domain call for each (accept a cluster,
split it, settle a conflict, accept many exact copies, undo what a bulk action did).
Each checks what the page showed against what is there now (its version: a decision
taken on a page that no longer shows the thing as it is, is refused) and calls the
decision functions of curation.decisions, which write, each in its transaction and with
its history. The words each action's outcome is said in are here too: the pages, the
bulk actions and the keys say them alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from textwrap import shorten

from django.db import transaction

from memadmin.curation import decisions, proposals
from memadmin.curation.decisions import overlaps
from memadmin.curation.decisions.history import actor_of, decided_in_words
from memadmin.curation.llm import client as llm
from memadmin.curation.llm import merges
from memadmin.curation.models import (
    Cluster,
    ClusterStatus,
    Conflict,
    ConflictStatus,
    HistoryEvent,
    MergeProposal,
)
from memadmin.curation.reads import history
from memadmin.curation.reads.clusters import (
    bulk_flags,
    cluster_members,
    cluster_version,
    exact_open_clusters,
    pending_proposal,
    split_parts,
    with_members_and_proposals,
)
from memadmin.store.models import Memory


@dataclass(frozen=True)
class Decided:
    """A decision on one cluster, taken or refused: what to say, the cluster the review
    goes on with (a split's first part), if any; or why it was refused (`error`: by the
    state of things; `invalid`: the curator's own text cannot be stored)."""

    message: str = ""
    then: int | None = None
    error: str = ""
    invalid: str = ""

    @property
    def refused(self) -> bool:
        return bool(self.error or self.invalid)


# --- One cluster ---------------------------------------------------------------------------


def decide_cluster(
    *,
    cluster_id: int,
    action: str,
    user,
    version: str = "",
    text: str | None = None,
    member_id: int | None = None,
) -> Decided:
    """A curator's decision on one cluster: `accept` (its proposal, or the curator's
    `text`), `dismiss`, `keep` (member `member_id`, the others fold into it), `exclude`
    (member `member_id`) or `split`. One at a time: a second click waits for the one in
    flight, then reads what it decided. Refused (StaleDecision, naming who decided)
    when the page showed another `version` of the cluster; InvalidText for a text that
    cannot be stored. Nothing changes when it is refused; Cluster.DoesNotExist for no
    such cluster."""
    with transaction.atomic():
        found = (
            Cluster.objects.select_for_update(of=("self",))
            .select_related("namespace", "decided_by")
            .get(pk=cluster_id)
        )
        if version and version != cluster_version(found):
            decisions.refuse_if_decided(found)
            raise decisions.StaleDecision(
                "this cluster changed since your page showed it: nothing was decided"
            )
        message, then = _CLUSTER_ACTIONS[action](found, user, text, member_id)
    return Decided(message, then)


def try_cluster_decision(**decision) -> Decided:
    """decide_cluster, its refusal said in the answer rather than raised."""
    try:
        return decide_cluster(**decision)
    except decisions.InvalidText as problem:
        return Decided(invalid=str(problem))  # the reviewer's own text, nobody else's doing
    except decisions.DecisionError as problem:
        return Decided(error=str(problem))


def _accept(found: Cluster, user, text, member_id) -> tuple[str, None]:
    merged = decisions.accept_proposal(proposal=proposal_to_decide(found), user=user, text=text)
    return f"Cluster #{found.pk} merged into {merged.external_id} (undo it from History).", None


def _dismiss(found: Cluster, user, text, member_id) -> tuple[str, None]:
    decisions.dismiss_cluster(cluster=found, user=user)
    return "Dismissed: these memories will not be proposed together again.", None


def _keep(found: Cluster, user, text, member_id) -> tuple[str, None]:
    decisions.keep_survivor(cluster=found, survivor_id=member_id, user=user)
    kept = Memory.objects.only("external_id").get(pk=member_id)
    return f"Kept {kept.external_id}; the others of cluster #{found.pk} fold into it.", None


def _exclude(found: Cluster, user, text, member_id) -> tuple[str, None]:
    decisions.exclude_member(cluster=found, memory_id=member_id, user=user)
    taken = Memory.objects.only("external_id").get(pk=member_id)
    return f"Member {taken.external_id} taken out of cluster #{found.pk}.", None


def _split(found: Cluster, user, text, member_id) -> tuple[str, int | None]:
    parts = decisions.split_cluster(cluster=found, user=user)
    for part in parts:  # each part gets its own proposal to review
        proposal_to_decide(part)
    # Where each member went, as the split left the cluster (closed, its parts open).
    went = where_members_went(Cluster.objects.get(pk=found.pk))
    return f"Cluster #{found.pk} split: {went}.", parts[0].pk if parts else None


_CLUSTER_ACTIONS: dict[str, Callable] = {
    "accept": _accept,
    "dismiss": _dismiss,
    "keep": _keep,
    "exclude": _exclude,
    "split": _split,
}


def where_members_went(found: Cluster) -> str:
    """Where a split cluster's members went, in their texts: '#6 holds "Ines A. lives in
    Lyon." and "Ines A. is based in Lyon."; "Ines D. lives in Lyon." is on its own'."""
    parts, alone = split_parts(found)
    said = [f"#{part.pk} holds {_texts(members)}" for part, members in parts]
    if len(alone) == 1:
        said.append(f"{_texts(alone)} is on its own")
    elif alone:
        said.append(f"{_texts(alone)} are each on their own")
    return "; ".join(said)


def _texts(members) -> str:
    quoted = [f"\u201c{shorten(m.content, 80)}\u201d" for m in members]
    return (
        " and ".join(quoted) if len(quoted) < 3 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    )


def proposal_to_decide(found: Cluster) -> MergeProposal:
    """The cluster's pending proposal, or one the rule writes now (the representative's
    text, checked for lost facts)."""
    proposal = pending_proposal(found)
    if proposal is not None:
        return proposal
    return write_rule_proposal(found)


def write_rule_proposal(found: Cluster, members: Sequence[Memory] | None = None) -> MergeProposal:
    """A rule proposal from the cluster's members (`members` when they were read), written
    now (at review)."""
    members = cluster_members(found) if members is None else members
    draft = proposals.check(proposals.rule_draft(members, "written at review"), members)
    return decisions.record_proposal(cluster=found, members=members, draft=draft)


def write_proposal_again(found: Cluster) -> MergeProposal:
    """A new proposal from the cluster's current members (the LLM's when one is
    configured, else the rule's): after the members changed under the old one. Refused
    when fewer than two active members are left."""
    members = cluster_members(found, active_only=True)
    if len(members) < 2:
        raise decisions.DecisionError(
            "Fewer than two active members are left: dismiss the cluster."
        )
    session = llm.Session(max_calls=1) if llm.configured() else None
    return decisions.record_proposal(
        cluster=found, members=members, draft=merges.draft_for(members, session)
    )


def open_cluster_by_hand(*, memory_ids: Sequence[int], user) -> Cluster:
    """Memories a curator ticked become a cluster to review, with a fresh rule proposal
    (a grown cluster's earlier one misses the new members)."""
    found = decisions.open_cluster_by_hand(memory_ids=memory_ids, user=user)
    write_rule_proposal(found)
    return found


# --- Many clusters ------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a bulk action did: the rows decided, each one left alone with why, and what
    an earlier row of the same action settled already (expected: said as information)."""

    done: list[int] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)


def checked_for_bulk(cluster: Cluster, action: str, seen: str | None) -> MergeProposal | None:
    """One cluster of a bulk action, checked: refused (DecisionError) if it changed since
    the page showed it (`seen`: its version then) or, for an accept, if it is flagged
    (decided on its own page, never in bulk: reads.clusters.bulk_flags; copies of one text
    from two sources pass, their preview said so). An accept's proposal is returned (the
    pending one, or the rule's written now)."""
    members = cluster_members(cluster)
    flags = bulk_flags(cluster, members=members) if action == "accept" else []
    if flags:  # said first: a flagged cluster is never decided here, changed or not
        raise decisions.DecisionError(f"flagged ({', '.join(flags)}): decide it on its own page")
    if seen != cluster_version(cluster, member_ids=[m.pk for m in members]):
        raise decisions.StaleDecision("it changed since the page showed it")
    if action != "accept":
        return None
    return pending_proposal(cluster) or write_rule_proposal(cluster, members)


def decide_many(
    ids: Sequence[int],
    action: str,
    user,
    *,
    version_of: Callable[[int], str],
    text_of: Callable[[int], str] = lambda pk: "",
    refused_as: str = "was left alone",
) -> Outcome:
    """The clusters ticked on a queue or the batch screen, accepted together
    (decisions.accept_many: a few statements whatever their number) or dismissed one by
    one; each refusal named, the others decided all the same."""
    ids = list(dict.fromkeys(ids))  # a row ticked twice is decided once
    found = {
        c.pk: c
        for c in with_members_and_proposals(
            Cluster.objects.select_related("namespace").filter(
                pk__in=ids, status=ClusterStatus.OPEN
            )
        )
    }
    refused: dict[int, str] = {}
    chosen = []
    # One change for the action, what it overtook followed once after the last decision.
    with transaction.atomic(), overlaps.once(actor=actor_of(user), user=user):
        for pk in ids:
            try:
                cluster = found.get(pk)
                if cluster is None:
                    raise decisions.StaleDecision(why_not_open(pk))
                proposal = checked_for_bulk(cluster, action, version_of(pk))
                if proposal is None:  # a dismissal, in a savepoint: a refusal changes nothing
                    decisions.dismiss_cluster(cluster=cluster, user=user)
                else:
                    chosen.append((proposal, text_of(pk) or None))
            except decisions.DecisionError as problem:
                refused[pk] = str(problem)
        _, not_merged = decisions.accept_many(chosen, user=user)
    refused.update((pk, str(problem)) for pk, problem in not_merged.items())
    return _outcome(ids, refused, refused_as)


def accept_exact_copies(
    namespace: str, ids: Sequence[int], user, *, version_of: Callable[[int], str]
) -> Outcome:
    """The ticked exact-copy clusters of a namespace (none: every namespace) accepted
    together, each refused by name when it is flagged, decided, no longer exact or changed
    since the preview."""
    ids = list(dict.fromkeys(ids))
    exact = {c.pk: c for c in exact_open_clusters(namespace or None, ids=ids)}
    refused: dict[int, str] = {}
    chosen = []
    with transaction.atomic(), overlaps.once(actor=actor_of(user), user=user):
        for pk in ids:
            try:
                if pk not in exact:
                    raise decisions.DecisionError(why_not_open(pk))
                chosen.append((checked_for_bulk(exact[pk], "accept", version_of(pk)), None))
            except decisions.DecisionError as problem:
                refused[pk] = str(problem)
        _, not_merged = decisions.accept_many(chosen, user=user)
    refused.update((pk, str(problem)) for pk, problem in not_merged.items())
    return _outcome(ids, refused, "was not accepted")


def _outcome(ids: Sequence[int], refused: dict[int, str], refused_as: str) -> Outcome:
    """What a bulk action did, in the order the rows were ticked."""
    outcome = Outcome()
    for pk in ids:
        if pk in refused:
            outcome.refused.append(f"#{pk} {refused_as}: {refused[pk]}.")
        else:
            outcome.done.append(pk)
    return outcome


def why_not_open(pk: int) -> str:
    """Why a ticked cluster is not among the open (exact) ones: decided (by whom, when),
    gone, or not exact copies."""
    found = Cluster.objects.select_related("decided_by").filter(pk=pk).first()
    if found is None:
        return "there is no such cluster"
    if found.status != ClusterStatus.OPEN:
        return decided_in_words(found)
    return "its members are not exact copies of one text (or not in this namespace)"


def undo_many(ids: Sequence[int], user) -> Outcome:
    """Undo what a bulk action took: its merges unmerged together (decisions.unmerge_many,
    a few statements whatever their number), each dismissal taken back; a refusal named by
    cluster, the others undone all the same."""
    outcome, actor = Outcome(), actor_of(user)
    refused: dict[int, str] = {}
    # One change, what the undos give back followed once after the last (as the action).
    with transaction.atomic(), overlaps.once(actor=actor, user=user):
        clusters = list(Cluster.objects.filter(pk__in=ids).order_by("id"))
        merged = [c.pk for c in clusters if c.status != ClusterStatus.DISMISSED]
        refused.update(decisions.unmerge_many(merged, actor=actor, user=user))
        for cluster in clusters:
            if cluster.status == ClusterStatus.DISMISSED:
                try:
                    _undo_dismissal(cluster, user)  # in a savepoint: a refusal changes nothing
                except decisions.DecisionError as problem:
                    refused[cluster.pk] = str(problem)
    for cluster in clusters:
        if cluster.pk in refused:
            outcome.refused.append(f"Cannot undo #{cluster.pk}: {refused[cluster.pk]}")
        else:
            outcome.done.append(cluster.pk)
    return outcome


def _undo_dismissal(cluster: Cluster, user) -> None:
    dismissal = history.last_cluster_decision(cluster, "dismiss")
    if dismissal is None:
        raise decisions.DecisionError("its dismissal is not in the history")
    decisions.undo_cluster_decision(decision=dismissal, user=user)


def undo_event(event: HistoryEvent, user) -> str:
    """Take back one dismissal, exclusion or split, or an agent's forget (the event that
    recorded it): what was undone, in words."""
    if event.action == HistoryEvent.Action.FORGET:
        memory = decisions.undo_forget(forgotten=event, user=user)
        return f"The forget of {memory.external_id} was undone: it is active again."
    cluster = decisions.undo_cluster_decision(decision=event, user=user)
    return f"The {event.action} of cluster #{cluster.pk} was undone: it is open again."


# --- Conflicts ------------------------------------------------------------------------------


def settle_conflict(*, conflict: Conflict, user, seen: int | None, **chosen) -> Conflict:
    """An admin settles a conflict as `chosen` says (decisions.resolve_conflict), refused
    when the page showed it before its newest event (`seen`)."""
    if seen is not None and seen != history.last_event_id(conflict=conflict):
        raise decisions.StaleDecision(
            "this conflict changed since your page showed it: nothing was settled"
        )
    return decisions.resolve_conflict(conflict=conflict, user=user, **chosen)


def settle_many(ids: Sequence[int], action: str, user) -> Outcome:
    """The conflicts ticked in the queue settled alike (not a conflict, or newer
    supersedes older), each refused by name if someone settled it since; one that a
    settlement above it in the same action took (a shared memory, a copy) is said as
    expected, not as a refusal."""
    outcome = Outcome()
    # The conflicts this action settled, with the copies each settled along with it (a
    # copy's settlement overtakes others as its own: "when conflict 14 was settled").
    settled_here: set[int] = set()
    for conflict in Conflict.objects.filter(pk__in=ids).order_by("id"):
        conflict.refresh_from_db()
        taken_here = _taken_by(conflict, outcome.done, settled_here)
        if taken_here:
            outcome.expected.append(f"#{conflict.pk}: {taken_here}")
            continue
        try:
            decisions.resolve_conflict(conflict=conflict, resolution=action, user=user)
            outcome.done.append(conflict.pk)
            settled_here |= {conflict.pk, *conflict.copies.values_list("pk", flat=True)}
        except decisions.DecisionError as problem:
            outcome.refused.append(f"#{conflict.pk} was left alone: {problem}.")
    return outcome


def _taken_by(conflict: Conflict, done: list[int], settled_here: set[int]) -> str:
    """How a settlement of this same action (`done`, and with them `settled_here`) already
    took `conflict`, or ""."""
    if conflict.copy_of_id in done and conflict.status != ConflictStatus.COPY:
        return f"settled with #{conflict.copy_of_id}, the same two texts"
    if conflict.status == ConflictStatus.OVERTAKEN and any(
        f"conflict {pk} was settled" in conflict.overtaken_note for pk in settled_here
    ):
        return f"already settled by the decision above ({conflict.overtaken_note})"
    return ""


def undo_settlements(ids: Sequence[int], user) -> Outcome:
    """Undo what a bulk settlement did, the last first (each with the copies settled with
    it); a refusal named by conflict, the others undone all the same."""
    outcome = Outcome()
    for conflict in Conflict.objects.filter(pk__in=ids).order_by("-id"):
        try:
            decisions.undo_resolution(conflict=conflict, user=user)
            outcome.done.append(conflict.pk)
        except decisions.DecisionError as problem:
            outcome.refused.append(f"Cannot undo #{conflict.pk}: {problem}")
    return outcome
