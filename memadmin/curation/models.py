"""What curation finds and decides: clusters, merge proposals, conflicts, pair verdicts,
the append-only history, and the batch runs."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from memadmin.store.models import Memory, Namespace, index_where_set


class ClusterStatus(models.TextChoices):
    OPEN = "open"  # awaiting a curator
    # Merged by find_duplicates without review (undoable).
    AUTO_MERGED = "auto_merged", "Merged automatically"
    ACCEPTED = "accepted"  # a curator merged it
    DISMISSED = "dismissed"  # a curator said "not duplicates"
    SPLIT = "split"  # replaced by smaller clusters
    UNMERGED = "unmerged"  # its merge was undone
    # Another decision made all but one of its members inactive (decisions/overlaps.py);
    # open again if that decision is undone.
    OVERTAKEN = "overtaken"


class Tier(models.TextChoices):
    """How sure detection is of a cluster or conflict (curation.detection.scoring)."""

    PROPOSED = "proposed"
    POSSIBLE = "possible"


class Cluster(models.Model):
    """Memories of one namespace that look like one fact."""

    # Indexed by cluster_ns_status, which starts with it.
    namespace = models.ForeignKey(
        Namespace, on_delete=models.PROTECT, related_name="clusters", db_index=False
    )
    members = models.ManyToManyField(Memory, through="ClusterMember", related_name="clusters")
    status = models.CharField(max_length=12, choices=ClusterStatus.choices, default="open")
    # Every pairwise similarity: [{"a": memory id, "b": memory id, "similarity": f,
    # "method": "exact" | "lexical" | "vector" | "multilingual" | "llm" | "manual"}, ...].
    edges = models.JSONField(default=list, blank=True)
    min_similarity = models.FloatField(default=0.0)
    # The two members whose similarity is lowest: where a split would cut.
    weakest_link = models.JSONField(default=list, blank=True)
    # Why the cluster needs a person: "protected", "guard: ...", "exact", ...
    flags = models.JSONField(default=list, blank=True)
    # How sure detection is (curation.detection.scoring): the weakest P(one fact) of
    # any two members; "proposed" from the calibrated threshold, "possible" below it
    # (ranked apart, never merged or accepted in bulk).
    tier = models.CharField(max_length=8, choices=Tier.choices, default=Tier.PROPOSED)
    confidence = models.FloatField(default=1.0)
    # What the readers found, as a reviewer reads it ("different values: Azure / Fly.io").
    evidence = models.JSONField(default=list, blank=True)
    # How the pair model weighed it (scoring.judgement.explain): the page's waterfall.
    explanation = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Indexed where set (cluster_decided_by_set): a run's clusters have none.
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        db_index=False,
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["namespace", "status"], name="cluster_ns_status"),
            index_where_set("decided_by", "cluster_decided_by_set"),
        ]

    def __str__(self) -> str:
        return f"cluster {self.pk} ({self.status})"


class ClusterMember(models.Model):
    # Indexed by cluster_member_unique, which starts with it.
    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="memberships", db_index=False
    )
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="memberships")
    # A curator took this member out of the cluster ("uncheck a member").
    excluded = models.BooleanField(default=False)
    # Another decision made it inactive (decisions/overlaps.py): out of the cluster, said
    # how, back in if that decision is undone.
    taken_note = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["cluster", "memory"], name="cluster_member_unique")
        ]

    def __str__(self) -> str:
        return f"memory {self.memory_id} in cluster {self.cluster_id}"


class ProposalAuthor(models.TextChoices):
    LLM = "llm"
    RULE = "rule"  # fallback: the representative's text, no LLM involved


class ProposalStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"
    EDITED = "edited"  # accepted with a curator's text
    DISMISSED = "dismissed"
    DISCARDED = "discarded"  # empty merge or stale members


class MergeProposal(models.Model):
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="proposals")
    merged_text = models.TextField()
    author = models.CharField(max_length=8, choices=ProposalAuthor.choices)
    llm_model = models.CharField(max_length=100, blank=True, default="")
    prompt_version = models.CharField(max_length=40, blank=True, default="")
    rationale = models.TextField(blank=True, default="")
    # Numbers, names, dates... present in a member but missing from merged_text.
    dropped_facts = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    # Hash of the members' ids and contents when the proposal was written: a proposal
    # whose members changed since is refused.
    members_fingerprint = models.CharField(max_length=64, blank=True, default="")
    status = models.CharField(max_length=10, choices=ProposalStatus.choices, default="pending")
    # Indexed where set (proposal_reviewer_set): pending proposals have none.
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        db_index=False,
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [index_where_set("reviewer", "proposal_reviewer_set")]

    def __str__(self) -> str:
        return f"proposal {self.pk} ({self.author}, {self.status})"

    @staticmethod
    def fingerprint(memories: Iterable[Memory]) -> str:
        """What a proposal is written from: its members' ids and texts. A proposal whose
        members changed since no longer matches."""
        parts = sorted(f"{m.pk}:{m.content_hash}" for m in memories)
        return hashlib.sha256("|".join(parts).encode()).hexdigest()


class ConflictKind(models.TextChoices):
    CONTRADICTION = "contradiction"
    UPDATE = "update"


class ConflictStatus(models.TextChoices):
    OPEN = "open"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"
    # Another decision made a side inactive (decisions/overlaps.py): closed, its fact
    # carried on by a conflict that `follows` it where a memory carries it; open again if
    # that decision is undone.
    OVERTAKEN = "overtaken"
    # Copies of the same two texts as an open conflict (`copy_of`): one conflict in the
    # queue and in every count, settled (and undone) with it.
    COPY = "copy", "Copy of an open conflict"


class ConflictResolution(models.TextChoices):
    KEEP_A = "keep_a"
    KEEP_B = "keep_b"
    BOTH_VALID = "both_valid"
    B_SUPERSEDES_A = "b_supersedes_a"
    REWRITTEN = "rewritten"


# A settlement as toasts, messages and the history say it ("dismiss": not a conflict).
SETTLED_WORDS = {
    ConflictResolution.KEEP_A: "keep A",
    ConflictResolution.KEEP_B: "keep B",
    ConflictResolution.BOTH_VALID: "both valid",
    ConflictResolution.B_SUPERSEDES_A: "B supersedes A",
    ConflictResolution.REWRITTEN: "rewritten",
    "dismiss": "not a conflict",
    "": "not a conflict",
}


def settled_in_words(resolution: str) -> str:
    return SETTLED_WORDS.get(resolution, resolution)


class Conflict(models.Model):
    """Two memories on the same subject and slot that disagree. Its own table, so that a
    conflict is never mistaken for a memory, and its own lifecycle."""

    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="conflicts")
    memory_a = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="+")
    memory_b = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=14, choices=ConflictKind.choices)
    reason = models.TextField(blank=True, default="")
    detected_by = models.CharField(max_length=8, default="rule")  # rule | llm
    differing_tokens = models.JSONField(default=list, blank=True)
    # What the two disagree about, in their shared words (detection/topics.py): the
    # conflict queue groups by it.
    topic = models.CharField(max_length=200, blank=True, default="")
    # How sure detection is: P(conflict) of the pair, its tier, and what moved it.
    tier = models.CharField(max_length=8, choices=Tier.choices, default=Tier.PROPOSED)
    confidence = models.FloatField(default=1.0)
    evidence = models.JSONField(default=list, blank=True)
    # How the pair model weighed it (scoring.judgement.explain): the page's waterfall.
    explanation = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=ConflictStatus.choices, default="open")
    resolution = models.CharField(
        max_length=16, choices=ConflictResolution.choices, blank=True, default=""
    )
    scope_note = models.TextField(blank=True, default="")
    # Indexed where set (conflict_resolver_set): open conflicts have none.
    resolver = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        db_index=False,
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    # What overtook it, as a reader reads it ("kit-001 was merged into merged-8-3 by
    # carla at 2026-11-26 12:17"), and the conflict it re-points, when it carries one on.
    overtaken_note = models.TextField(blank=True, default="")
    follows = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="followed_by"
    )
    # The two texts (their content hashes, in order) as one key: copies of the same two
    # texts are one conflict to people (ConflictStatus.COPY), settled with the one open.
    texts_key = models.CharField(max_length=64, blank=True, default="")
    copy_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="copies"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["memory_a", "memory_b"], name="conflict_pair_unique"),
            models.CheckConstraint(condition=~Q(memory_a=F("memory_b")), name="conflict_two"),
        ]
        indexes = [
            models.Index(fields=["namespace", "status"], name="conflict_ns_status"),
            # The queue's orders, each walked in the index so a page reads 25 rows, not
            # every open conflict: surest first, by age (either way), grouped by topic.
            models.Index(
                fields=["status", "tier", "-confidence", "-created_at", "-id"],
                name="conflict_queue_surest",
            ),
            models.Index(fields=["status", "tier", "created_at", "id"], name="conflict_queue_age"),
            models.Index(
                fields=["status", "tier", "topic", "-confidence", "-created_at", "-id"],
                name="conflict_queue_topic",
            ),
            index_where_set("resolver", "conflict_resolver_set"),
            # The conflict standing for a pair of texts, found when another copy opens.
            models.Index(
                fields=["namespace", "texts_key"],
                name="conflict_texts_open",
                condition=Q(status__in=["open", "copy"]),
            ),
        ]

    def __str__(self) -> str:
        return f"conflict {self.pk} ({self.kind}, {self.status})"

    @staticmethod
    def key_of(a: Memory, b: Memory) -> str:
        """The key of a pair of texts, either way round."""
        low, high = sorted((a.content_hash, b.content_hash))
        return hashlib.sha256(f"{low}:{high}".encode()).hexdigest()


class PairVerdict(models.Model):
    """A judgement on a pair of texts, keyed by their two content hashes (low, high), so
    the same pair is never proposed (or sent to the LLM) again."""

    class Verdict(models.TextChoices):
        NOT_DUPLICATE = "not_duplicate"
        BOTH_VALID = "both_valid"
        DUPLICATE = "duplicate"
        CONFLICT = "conflict"
        RELATED_DISTINCT = "related_distinct"
        UNRELATED = "unrelated"

    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+")
    hash_low = models.CharField(max_length=64)
    hash_high = models.CharField(max_length=64)
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    conflict_kind = models.CharField(max_length=14, blank=True, default="")  # for conflicts
    decided_by = models.CharField(max_length=8, default="human")  # human | llm
    # The LLM prompt version the verdict came from; empty for people.
    prompt_version = models.CharField(max_length=40, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    # Indexed where set (pair_verdict_user_set): the LLM's verdicts have none.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        db_index=False,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [index_where_set("user", "pair_verdict_user_set")]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "hash_low", "hash_high", "decided_by", "prompt_version"],
                name="pair_verdict_unique",
            ),
            models.CheckConstraint(condition=Q(hash_low__lte=F("hash_high")), name="pair_sorted"),
        ]

    def __str__(self) -> str:
        return f"{self.verdict} by {self.decided_by}"


class PairLabel(models.Model):
    """What a labelled sample (`import_labels`) or a person on the audit queue says a pair
    of memories is: the store's error rate is measured against these and against its
    people's decisions (reads.measured). A decision's labels are read from the cluster or
    conflict it decided, so that an undo takes them back; these are kept until the pair
    is labelled again."""

    class Label(models.TextChoices):
        ONE_FACT = "one_fact"
        CONFLICT = "conflict"
        TWO_FACTS = "two_facts"
        # Asked on the audit queue, a person could not tell: not offered again, and
        # counted in no figure.
        UNSURE = "unsure"

    # The source of the audit queue's labels (a file's are named by the file).
    AUDIT_QUEUE = "audit"

    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+")
    # The pair in id order (memory_a < memory_b).
    memory_a = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="+")
    memory_b = models.ForeignKey(Memory, on_delete=models.PROTECT, related_name="+")
    label = models.CharField(max_length=10, choices=Label.choices)
    kind = models.CharField(max_length=14, blank=True, default="")  # a conflict's
    source = models.CharField(max_length=200)  # the file it came from, or "audit"
    actor = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory_a", "memory_b"], name="pair_label_unique"),
            models.CheckConstraint(condition=Q(memory_a__lt=F("memory_b")), name="label_sorted"),
        ]

    def __str__(self) -> str:
        return f"{self.label}: {self.memory_a_id} / {self.memory_b_id}"


class JudgeAudit(models.Model):
    """The LLM judge's answers on pairs drawn from every band of one detection pass over a
    namespace (curation.llm.audit): a measurement, never a verdict (reads.measured)."""

    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    strata = models.JSONField(default=list)  # each band: reads.audited.Stratum.as_json
    # Audited pairs read twice, and of those the ones the two readings disagree on.
    readings = models.PositiveIntegerField(default=0)
    disagreed = models.PositiveIntegerField(default=0)
    # Each audited pair: [memory id, memory id, band kind, band tier, [its answers], how
    # sure detection said it was (None where it proposed nothing)].
    pairs = models.JSONField(default=list)
    whole = models.BooleanField(default=True)  # every memory compared, or only the new

    class Meta:
        indexes = [models.Index(fields=["namespace", "-created_at"], name="judge_audit_newest")]

    def __str__(self) -> str:
        return f"audit of {self.namespace_id} at {self.created_at:%Y-%m-%d %H:%M}"


class LabelledMemory(models.Model):
    """A memory a complete labelled sample covers (`import_labels --complete`): every pair
    of two memories one sample covers is labelled, those it does not list two facts."""

    memory = models.OneToOneField(Memory, on_delete=models.PROTECT, related_name="+")
    source = models.CharField(max_length=200)  # the file that covers it
    actor = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"memory {self.memory_id} covered by {self.source}"


class HistoryEvent(models.Model):
    """Append-only audit log: every change to a memory, with its before and after.
    Unmerge reads it. Rows are never updated or deleted (see save/delete)."""

    class Action(models.TextChoices):
        IMPORT = "import"
        UPDATE = "update"
        EMBED = "embed"
        COLLAPSE = "collapse"  # exact duplicate folded into its representative
        MERGE = "merge"
        UNMERGE = "unmerge"
        SUPERSEDE = "supersede"
        RESOLVE = "resolve"
        DISMISS = "dismiss"
        EXCLUDE = "exclude"
        SPLIT = "split"
        PIN = "pin"
        DECAY = "decay"
        WRITE = "write"  # API write-time decision
        UNDO = "undo"  # a dismissal, exclusion or split taken back (undoes: which)
        OPEN = "open"  # a cluster opened by hand from memories a curator chose
        FORGET = "forget"  # an agent asked to forget a memory: retired, undoable
        # An open conflict or cluster followed another decision (decisions/overlaps.py).
        OVERTAKE = "overtake"

    # Indexed by history_ns_action, which starts with it.
    namespace = models.ForeignKey(
        Namespace, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.PROTECT, related_name="history"
    )
    action = models.CharField(max_length=12, choices=Action.choices)
    # "user:alice", "command:find_duplicates", "api:token-name": who or what did it.
    actor = models.CharField(max_length=200)
    # Indexed where set, as conflict and undoes below (history_*_set): a run's events have
    # none of the three.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        db_index=False,
    )
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True, default="")
    llm_model = models.CharField(max_length=100, blank=True, default="")
    prompt_version = models.CharField(max_length=40, blank=True, default="")
    # Memories the event concerns besides `memory` (merge sources, conflict sides...).
    related_memory_ids = models.JSONField(default=list, blank=True)
    cluster = models.ForeignKey(Cluster, null=True, blank=True, on_delete=models.PROTECT)
    conflict = models.ForeignKey(
        Conflict, null=True, blank=True, on_delete=models.PROTECT, db_index=False
    )
    # An unmerge event points at the merge event it undid.
    undoes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="undone_by",
        db_index=False,
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["namespace", "action"], name="history_ns_action"),
            index_where_set("user", "history_user_set"),
            index_where_set("conflict", "history_conflict_set"),
            index_where_set("undoes", "history_undoes_set"),
        ]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor} at {self.created_at:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("history events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("history events are append-only")


class DedupRun(models.Model):
    """One find_duplicates run over one namespace."""

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="runs")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_s = models.FloatField(null=True, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    # Counts per action: {"checked", "exact", "auto_merged", "clusters", "conflicts", ...}.
    counts = models.JSONField(default=dict, blank=True)
    removal_rate = models.FloatField(default=0.0)
    dry_run = models.BooleanField(default=False)
    alerts = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default="running")
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-started_at", "-id"]
        get_latest_by = "started_at"

    def __str__(self) -> str:
        return f"run {self.pk} of {self.namespace_id} ({self.status})"

    @property
    def shown_status(self) -> str:
        """The status as people read it: a run that left work for the next (--max-ops) is
        "partial: N left for the next run", not "done"."""
        deferred = (self.counts or {}).get("deferred", 0)
        if self.status == self.Status.DONE and deferred:
            return f"partial: {deferred} left for the next run"
        return self.status


class LlmAllowance(models.Model):
    """The LLM calls one queued run (find_duplicates --enqueue, or a scheduled run) may
    make in all. MEMADMIN_LLM_MAX_CALLS_PER_RUN caps a command run, and such a run's
    batches go to any number of workers at once: each call is taken from here first
    (runs.tasks.take_llm_calls), so that together they make no more than the cap. Deleted
    once every batch of its run has ended well (runs.tasks.forget_spent_allowances)."""

    max_calls = models.PositiveIntegerField()
    calls = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"LLM allowance {self.pk}: {self.calls} of {self.max_calls} calls"


class KeptCounts(models.Model):
    """What the last find_duplicates run read over a namespace's active memories
    (curation.detection.candidates.counts: the documents holding each term, the names
    memories give the user; the frames of its short memories), kept so that the next run
    reads only the memories that came, went or changed since (runs.counting). A cache:
    deleting it only costs a whole read."""

    namespace = models.OneToOneField(
        Namespace, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    version = models.CharField(max_length=16)  # runs.counting.rules_version()
    # The memories counted: store.queries.MEMORY_KEY of each, as sorted int64.
    memories = models.BinaryField()
    documents = models.PositiveIntegerField()
    # [terms, openings, told] as JSON text: a cache read and written whole, never queried
    # into (PostgreSQL parsing it as jsonb cost 8 times the writing: bench, scenario d).
    counted = models.TextField()
    # [[key, slots, things, ceased], ...] of the short memories
    # (curation.detection.candidates.neighbours.Frame).
    frames = models.TextField(default="[]")
    counted_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"counts of {self.namespace_id} ({self.documents} memories)"


class LlmBatch(models.Model):
    """One Message Batch of verdicts (find_duplicates --llm-batch): recorded before it is
    sent, so that a run killed at any point resumes it from here, and each answer is
    applied once (a verdict per pair of texts: decisions.record_verdict)."""

    class Status(models.TextChoices):
        SUBMITTING = "submitting"  # recorded; the provider may or may not have it
        SUBMITTED = "submitted"  # the provider's id is known; answers pending
        APPLIED = "applied"  # every answer recorded as a verdict
        FAILED = "failed"  # could not be sent or read: its pairs stay with the rules

    provider_id = models.CharField(max_length=200, blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SUBMITTING)
    # {custom id: {"namespace": id, "older": memory id, "newer": memory id, "hashes": [..],
    #  "form": how the pair is shown (curation.llm.asking.FORMS), "later": a later round's}}
    requests = models.JSONField(default=dict)
    # Answers by outcome once applied: {"verdicts": n, "failed": n}.
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"LLM batch {self.pk} ({self.status})"
