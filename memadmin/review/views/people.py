"""People and their roles (admins): invite with a one-time link to set a password, set a
role, deactivate; and the no-access page, which names who can give a role."""

import re

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
from memadmin.review.views.answers import role_required
from memadmin.store import validation

# What Django's own user name check takes (UnicodeUsernameValidator).
USER_NAME = re.compile(r"[\w.@+-]+")


@role_required(roles.ADMIN)
def people(request: HttpRequest) -> HttpResponse:
    """Everyone with an account, their role and state; a form to invite someone."""
    invited = None
    if request.method == "POST":
        name = request.POST.get("username", "").strip()
        role = request.POST.get("role", "")
        try:
            validation.short_text(name, "the user name", 150)
            if not name or not USER_NAME.fullmatch(name):
                raise validation.Invalid(
                    "", "a user name is letters, digits and @ . + - _ (150 at most)"
                )
            if role not in roles.ROLES:
                raise validation.Invalid("the role", f"must be one of {', '.join(roles.ROLES)}")
            if User.objects.filter(username=name).exists():
                raise validation.Invalid("", f"{name!r} has an account already")
        except validation.Invalid as problem:
            messages.error(request, f"Nobody invited: {problem}.")
        else:
            user = User.objects.create_user(name)  # no password until they set one
            roles.set_role(user, role)
            invited = (user, request.build_absolute_uri(_set_password_link(user)))
    context = {
        "people": [
            (person, roles.role_of(person))
            for person in User.objects.prefetch_related("groups").order_by("username")
        ],
        "roles": roles.ROLES,
        "invited": invited,
    }
    return render(request, "review/people.html", context)


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
    action = request.POST.get("action", "")
    if action in roles.ROLES:
        roles.set_role(person, action)
        messages.success(request, f"{person.get_username()} is now {action}.")
    elif action in ("deactivate", "reactivate"):
        person.is_active = action == "reactivate"
        person.save(update_fields=["is_active"])
        messages.success(request, f"{person.get_username()}: {action}d.")
    else:
        messages.error(request, "Nothing changed: choose a role, deactivate or reactivate.")
    return redirect("people")


def denied(request: HttpRequest, exception=None) -> HttpResponse:
    """The 403 page: why, and who the admins are (the people who can give a role)."""
    admins = (
        User.objects.filter(is_active=True, groups__name=roles.ADMIN)
        .order_by("username")
        .values_list("username", flat=True)
    )
    context = {"exception": str(exception or ""), "admins": list(admins)}
    return render(request, "403.html", context, status=403)
