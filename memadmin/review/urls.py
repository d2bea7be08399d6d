from django.urls import include, path

from memadmin.review.views import (
    audit,
    batch,
    clusters,
    conflicts,
    dashboard,
    history,
    many_clusters,
    memories,
    people,
    sources,
    tokens,
)

# One cluster's page and the decisions on it, under clusters/<id>/.
cluster_patterns = [
    path("", clusters.cluster, name="cluster"),
    path("accept", clusters.accept, name="accept-cluster"),
    path("dismiss", clusters.dismiss, name="dismiss-cluster"),
    path("split", clusters.split, name="split-cluster"),
    path("refresh", clusters.refresh_proposal, name="refresh-proposal"),
    path("keep/<int:memory_id>", clusters.keep_member, name="keep-member"),
    path("exclude/<int:memory_id>", clusters.exclude_member, name="exclude-member"),
]

urlpatterns = [
    path("", dashboard.dashboard, name="home"),
    path("clusters/", clusters.queue, name="clusters"),
    path("clusters/accept-exact", many_clusters.bulk_accept_exact, name="bulk-accept-exact"),
    path("clusters/selected", many_clusters.selected, name="selected-clusters"),
    path("clusters/batch/", batch.batch, name="batch-clusters"),
    path("clusters/batch/decide", batch.decide, name="batch-decide"),
    path("clusters/open", many_clusters.open_by_hand, name="open-cluster"),
    path("clusters/<int:cluster_id>/", include(cluster_patterns)),
    path("conflicts/", conflicts.queue, name="conflicts"),
    path("conflicts/selected", conflicts.selected, name="selected-conflicts"),
    path("conflicts/undo-many", conflicts.undo_many, name="undo-conflicts"),
    path("conflicts/<int:conflict_id>/", conflicts.conflict, name="conflict"),
    path("conflicts/<int:conflict_id>/resolve", conflicts.resolve, name="resolve-conflict"),
    path("conflicts/<int:conflict_id>/undo", conflicts.undo, name="undo-conflict"),
    path("audit/", audit.audit, name="audit"),
    path("audit/answer", audit.answer, name="audit-answer"),
    path("history/", history.history, name="history"),
    path("history/unmerge/<int:cluster_id>", history.unmerge, name="unmerge"),
    path("history/unmerge-many", history.unmerge_many, name="unmerge-many"),
    path("history/undo/<int:event_id>", history.undo, name="undo-decision"),
    path("memories/", memories.browser, name="memories"),
    path("memories/<int:memory_id>/", memories.memory, name="memory"),
    path("memories/<int:memory_id>/pin", memories.pin, name="pin-memory"),
    path("tokens/", tokens.tokens, name="tokens"),
    path("people/", people.people, name="people"),
    path("people/<int:user_id>/change", people.change, name="change-person"),
    path("tokens/<int:token_id>/revoke", tokens.revoke_token, name="revoke-token"),
    path("sources/", sources.sources, name="sources"),
    path("sources/<int:source_id>/push", sources.push, name="push-source"),
]
