from django.urls import path

from memadmin.review import views

urlpatterns = [
    path("", views.home, name="home"),
]
