from django.contrib import admin

from memadmin.store.models import Memory, Namespace


class ReadOnlyAdmin(admin.ModelAdmin):
    """Read-mostly: the admin shows every row, but changes go through curation.decisions
    (atomic, with history), never through a raw admin form."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Namespace)
class NamespaceAdmin(ReadOnlyAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]


@admin.register(Memory)
class MemoryAdmin(ReadOnlyAdmin):
    list_display = ["external_id", "namespace", "short_content", "category", "status", "created_at"]
    list_filter = ["status", "namespace", "category", "pinned"]
    search_fields = ["external_id", "content"]
    list_select_related = ["namespace"]
    exclude = ["embedding"]

    @admin.display(description="content")
    def short_content(self, memory: Memory) -> str:
        return memory.content[:80]
