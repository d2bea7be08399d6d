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
