from memadmin.review.roles import ADMIN, CURATOR, has_role


def roles(request) -> dict:
    """What the page chrome may offer the person looking at it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_admin": False, "is_curator": False}
    return {"is_admin": has_role(user, ADMIN), "is_curator": has_role(user, CURATOR)}
