from django.apps import AppConfig
from django.db.backends.signals import connection_created


def configure_vector_search(sender, connection, **kwargs) -> None:
    """pgvector's search settings, once per database session rather than per query: the
    candidate list of HNSW scans, and iterative scans, which keep walking the index until
    enough rows pass the namespace filter (pgvector >= 0.8)."""
    from django.conf import settings

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('hnsw.ef_search', %s, false), "
            "set_config('hnsw.iterative_scan', 'relaxed_order', false)",
            [str(settings.HNSW_EF_SEARCH)],
        )


class StoreConfig(AppConfig):
    name = "memadmin.store"
    label = "store"
    verbose_name = "Memory store"

    def ready(self) -> None:
        connection_created.connect(configure_vector_search, dispatch_uid="memadmin-vector-search")
