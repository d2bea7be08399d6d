from django.urls import path

from memadmin.api import views

urlpatterns = [
    path("openapi.json", views.openapi_document, name="api-openapi"),
    path("namespaces/<slug:namespace>/memories", views.memories, name="api-memories"),
    path("namespaces/<slug:namespace>/profile", views.profile, name="api-profile"),
]
