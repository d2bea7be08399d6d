from django.urls import path

from memadmin.review import views

urlpatterns = [
    path("", views.home, name="home"),
    path("clusters/", views.clusters, name="clusters"),
    path("clusters/<int:cluster_id>/", views.cluster, name="cluster"),
    path("clusters/<int:cluster_id>/accept", views.accept_cluster, name="accept-cluster"),
    path("clusters/<int:cluster_id>/dismiss", views.dismiss_cluster, name="dismiss-cluster"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke", views.revoke_token, name="revoke-token"),
]
