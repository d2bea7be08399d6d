"""API tokens (admins): the list, creating one, revoking one."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from memadmin.api.models import ApiToken
from memadmin.review.roles import ADMIN
from memadmin.review.views.answers import require_role
from memadmin.store.importing import NAMESPACE_PATTERN
from memadmin.store.models import Namespace


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    """API tokens (admins): the list, and a form to create one."""
    require_role(request, ADMIN)
    created = None
    if request.method == "POST":
        name = request.POST.get("namespace", "").strip()
        label = request.POST.get("name", "").strip() or "agent"
        if not NAMESPACE_PATTERN.match(name):
            messages.error(request, "A namespace is letters, digits, '-' or '_'.")
        else:
            namespace, _ = Namespace.objects.get_or_create(name=name)
            _, created = ApiToken.issue(
                namespace=namespace, name=label[:100], created_by=request.user
            )
    context = {
        "tokens": ApiToken.objects.select_related("namespace", "created_by"),
        "created": created,
        "namespaces": Namespace.objects.all(),
    }
    return render(request, "review/tokens.html", context)


@require_POST
@login_required
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    require_role(request, ADMIN)
    token = get_object_or_404(ApiToken, pk=token_id, revoked_at__isnull=True)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    messages.success(request, f"Token {token.prefix}... revoked.")
    return redirect("tokens")
