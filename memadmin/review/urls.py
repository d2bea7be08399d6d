from django.urls import path

from memadmin.review import views

urlpatterns = [
    path("", views.dashboard, name="home"),
    path("clusters/", views.clusters, name="clusters"),
    path("clusters/accept-exact", views.bulk_accept_exact, name="bulk-accept-exact"),
    path("clusters/<int:cluster_id>/refresh", views.refresh_proposal, name="refresh-proposal"),
    path("clusters/<int:cluster_id>/", views.cluster, name="cluster"),
    path("clusters/<int:cluster_id>/accept", views.accept_cluster, name="accept-cluster"),
    path("clusters/<int:cluster_id>/dismiss", views.dismiss_cluster, name="dismiss-cluster"),
    path("clusters/<int:cluster_id>/split", views.split_cluster, name="split-cluster"),
    path("clusters/<int:cluster_id>/keep/<int:memory_id>", views.keep_member, name="keep-member"),
    path(
        "clusters/<int:cluster_id>/exclude/<int:memory_id>",
        views.exclude_member,
        name="exclude-member",
    ),
    path("memories/<int:memory_id>/pin", views.pin_memory, name="pin-memory"),
    path("conflicts/", views.conflicts, name="conflicts"),
    path("conflicts/<int:conflict_id>/", views.conflict, name="conflict"),
    path("conflicts/<int:conflict_id>/resolve", views.resolve_conflict, name="resolve-conflict"),
    path("history/", views.history, name="history"),
    path("memories/", views.memories, name="memories"),
    path("memories/<int:memory_id>/", views.memory, name="memory"),
    path("history/unmerge/<int:cluster_id>", views.unmerge, name="unmerge"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke", views.revoke_token, name="revoke-token"),
]
