from django.contrib import admin

from memadmin.curation.models import (
    Cluster,
    Conflict,
    DedupRun,
    HistoryEvent,
    MergeProposal,
    PairVerdict,
)
from memadmin.store.admin import ReadOnlyAdmin


@admin.register(Cluster)
class ClusterAdmin(ReadOnlyAdmin):
    list_display = ["id", "namespace", "status", "min_similarity", "created_at"]
    list_filter = ["status", "namespace"]


@admin.register(MergeProposal)
class MergeProposalAdmin(ReadOnlyAdmin):
    list_display = ["id", "cluster", "author", "status", "created_at"]
    list_filter = ["status", "author"]


@admin.register(Conflict)
class ConflictAdmin(ReadOnlyAdmin):
    list_display = ["id", "namespace", "kind", "status", "resolution", "created_at"]
    list_filter = ["status", "kind", "namespace"]


@admin.register(PairVerdict)
class PairVerdictAdmin(ReadOnlyAdmin):
    list_display = ["id", "namespace", "verdict", "decided_by", "created_at"]
    list_filter = ["verdict", "decided_by"]


@admin.register(HistoryEvent)
class HistoryEventAdmin(ReadOnlyAdmin):
    list_display = ["id", "namespace", "action", "actor", "memory", "created_at"]
    list_filter = ["action", "namespace"]
    search_fields = ["actor", "reason"]


@admin.register(DedupRun)
class DedupRunAdmin(ReadOnlyAdmin):
    list_display = ["id", "namespace", "status", "dry_run", "removal_rate", "started_at"]
    list_filter = ["status", "dry_run", "namespace"]
