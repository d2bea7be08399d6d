"""The three roles, as Django groups. Each role includes the ones before it."""

VIEWER = "viewer"  # reads every page
CURATOR = "curator"  # also decides merges
ADMIN = "admin"  # also resolves conflicts, pins memories, manages API tokens, sees runs

ROLES = (VIEWER, CURATOR, ADMIN)


def has_role(user, role: str) -> bool:
    """Whether `user` holds `role` or a stronger one (superusers hold every role)."""
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    stronger_or_equal = ROLES[ROLES.index(role) :]
    return user.groups.filter(name__in=stronger_or_equal).exists()


# What the admin role may read in Django's admin (read-only: changes go through the
# review pages, which write history).
ADMIN_VIEWS = ("store", "curation", "api")


def grant_admin_views(**kwargs) -> None:
    """Give the admin group the view permission of every model of ADMIN_VIEWS (run after
    each migrate): an admin opening /admin/ sees the data, and can change nothing."""
    from django.contrib.auth.models import Group, Permission

    group = Group.objects.filter(name=ADMIN).first()
    if group is None:
        return
    views = Permission.objects.filter(
        content_type__app_label__in=ADMIN_VIEWS, codename__startswith="view_"
    )
    group.permissions.add(*views)


def set_role(user, role: str) -> None:
    """Give `user` exactly `role` (the others removed); an admin may open the read-only
    Django admin (is_staff)."""
    from django.contrib.auth.models import Group

    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    user.groups.add(Group.objects.get(name=role))
    user.is_staff = role == ADMIN
    user.save(update_fields=["is_staff"])


def role_of(user) -> str:
    """The strongest role `user` holds ("" for none)."""
    if user.is_superuser:
        return ADMIN
    held = {group.name for group in user.groups.all()}
    return next((role for role in reversed(ROLES) if role in held), "")


def invite(name: str, role: str):
    """A new account with `role` and no password until its owner sets one (the link that
    sets it: people's page)."""
    from django.contrib.auth.models import User

    user = User.objects.create_user(name)
    set_role(user, role)
    return user


def change(person, action: str) -> str:
    """Set `person`'s role, or deactivate / reactivate them: what changed, in words."""
    if action in ROLES:
        set_role(person, action)
        return f"{person.get_username()} is now {action}."
    person.is_active = action == "reactivate"
    person.save(update_fields=["is_active"])
    return f"{person.get_username()}: {action}d."
