from django.apps import AppConfig


class StoreConfig(AppConfig):
    name = "memadmin.store"
    label = "store"
    verbose_name = "Memory store"
