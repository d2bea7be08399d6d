from django.contrib import admin

from memadmin.api.models import ApiToken
from memadmin.store.admin import ReadOnlyAdmin


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    list_display = ["name", "namespace", "prefix", "created_at", "last_used_at", "revoked_at"]
    exclude = ["token_hash"]
