from django.apps import AppConfig


class SourcesConfig(AppConfig):
    name = "memadmin.sources"
    label = "sources"
    verbose_name = "Sources: the stores agents run"
    default_auto_field = "django.db.models.BigAutoField"
