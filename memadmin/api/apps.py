from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "memadmin.api"
    label = "api"
    verbose_name = "Agent API"
