"""API tokens (admins): the list, creating one, revoking one."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from memadmin.api.models import ApiToken
from memadmin.review.roles import ADMIN
from memadmin.review.views.answers import role_required
from memadmin.store import validation
from memadmin.store.models import Namespace


@role_required(ADMIN)
def tokens(request: HttpRequest) -> HttpResponse:
    """API tokens (admins): the list, and a form to create one."""
    created = None
    if request.method == "POST":
        name = request.POST.get("namespace", "").strip()
        label = request.POST.get("name", "").strip() or "agent"
        try:
            validation.namespace_name(name)
            validation.short_text(label, "the token's name", 100)
        except validation.Invalid as problem:
            messages.error(request, f"No token made: {problem}.")
        else:
            namespace = Namespace.objects.filter(name=name).first()
            if namespace is None and request.POST.get("create_namespace"):
                namespace = Namespace.objects.create(name=name)
            if namespace is None:
                # A mistyped name must not quietly become a new, empty namespace.
                messages.error(
                    request,
                    f"No token made: there is no namespace {name!r}. Pick one of the list, "
                    "or tick 'a new namespace' to start one.",
                )
            else:
                _, created = ApiToken.issue(
                    namespace=namespace, name=label, created_by=request.user
                )
    context = {
        "tokens": ApiToken.objects.select_related("namespace", "created_by"),
        "created": created,
        "namespaces": Namespace.objects.all(),
    }
    return render(request, "review/tokens.html", context)


@require_POST
@role_required(ADMIN)
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=token_id, revoked_at__isnull=True)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    messages.success(request, f"Token {token.prefix}... revoked.")
    return redirect("tokens")
