from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ReviewConfig(AppConfig):
    name = "memadmin.review"
    label = "review"
    verbose_name = "Review pages"

    def ready(self) -> None:
        from memadmin.review.roles import grant_admin_views

        # Permissions exist only after every app migrated (Django makes them then).
        post_migrate.connect(grant_admin_views, dispatch_uid="memadmin.review.admin_views")
