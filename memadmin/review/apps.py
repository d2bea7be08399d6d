from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "memadmin.review"
    label = "review"
    verbose_name = "Review pages"
