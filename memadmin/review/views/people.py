"""People and their roles (admins): invite with a one-time link to set a password, set a
role, deactivate; and the no-access page, which names who can give a role."""

from django.contrib import messages
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.views.decorators.http import require_POST

from memadmin.review import roles
from memadmin.review.forms import Invite, PersonChange
from memadmin.review.presenters import admin as presenter
from memadmin.review.views.helpers import role_required


@role_required(roles.ADMIN)
def people(request: HttpRequest) -> HttpResponse:
    """Everyone with an account, their role and state; a form to invite someone."""
    invited = None
    if request.method == "POST":
        form = Invite(request.POST)
        if form.is_valid():
            user = roles.invite(form.cleaned_data["username"], form.cleaned_data["role"])
            invited = (user, request.build_absolute_uri(_set_password_link(user)))
        else:
            messages.error(request, f"Nobody invited: {form.problem()}.")
    return render(request, "review/people.html", presenter.people_page(invited))


def _set_password_link(user: User) -> str:
    """A link that sets the password once: Django's reset token, void once it is used (the
    password it signs changes) or after PASSWORD_RESET_TIMEOUT."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("password_reset_confirm", args=[uid, token])


@require_POST
@role_required(roles.ADMIN)
def change(request: HttpRequest, user_id: int) -> HttpResponse:
    """Set a role, deactivate or reactivate someone; never one's own account (an admin
    could lock everyone out)."""
    person = get_object_or_404(User, pk=user_id)
    if person == request.user:
        messages.error(request, "You cannot change your own account here: ask another admin.")
        return redirect("people")
    form = PersonChange(request.POST)
    if form.is_valid():
        messages.success(request, roles.change(person, form.cleaned_data["action"]))
    else:
        messages.error(request, "Nothing changed: choose a role, deactivate or reactivate.")
    return redirect("people")


def denied(request: HttpRequest, exception=None) -> HttpResponse:
    """The 403 page: why, and who the admins are (the people who can give a role)."""
    context = {"exception": str(exception or ""), "admins": presenter.admins()}
    return render(request, "403.html", context, status=403)
