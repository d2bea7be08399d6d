from memadmin.review.roles import ADMIN, CURATOR, has_role

# The session key of the undo offered after a decision.
UNDO_OFFER = "undo_offer"


def roles(request) -> dict:
    """What the page chrome may offer the person looking at it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_admin": False, "is_curator": False}
    return {"is_admin": has_role(user, ADMIN), "is_curator": has_role(user, CURATOR)}


def undo_offer(request) -> dict:
    """The undo the last decision offers (answers.offer_undo), shown once, as a toast."""
    session = getattr(request, "session", None)
    return {"undo_offer": session.pop(UNDO_OFFER, None) if session is not None else None}
