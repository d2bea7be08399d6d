from django.urls import path

from memadmin.review import views

urlpatterns = [
    path("", views.home, name="home"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke", views.revoke_token, name="revoke-token"),
]
