"""API tokens (admins): the list, creating one, revoking one."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from memadmin.api.models import ApiToken
from memadmin.review.forms import NewToken
from memadmin.review.presenters import admin as presenter
from memadmin.review.roles import ADMIN
from memadmin.review.views.helpers import role_required


@role_required(ADMIN)
def tokens(request: HttpRequest) -> HttpResponse:
    """API tokens (admins): the list, and a form to create one."""
    created = None
    if request.method == "POST":
        form = NewToken(request.POST)
        if not form.is_valid():
            messages.error(request, f"No token made: {form.problem()}.")
        else:
            try:
                _, created = ApiToken.issue_for(created_by=request.user, **form.cleaned_data)
            except ApiToken.NoNamespace as problem:
                messages.error(request, f"No token made: {problem}")
    return render(request, "review/tokens.html", presenter.tokens_page(created))


@require_POST
@role_required(ADMIN)
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=token_id, revoked_at__isnull=True)
    token.revoke()
    messages.success(request, f"Token {token.prefix}... revoked.")
    return redirect("tokens")
