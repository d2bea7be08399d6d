from functools import cache

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
    """The undo the last decision offers (helpers.offer_undo), shown once, as a toast."""
    session = getattr(request, "session", None)
    return {"undo_offer": session.pop(UNDO_OFFER, None) if session is not None else None}


def diff_view(request) -> dict:
    """How the reviewer reads differences (ReviewerSettings), read only by a page that
    shows them: the value is looked up when a template first uses it."""
    user = getattr(request, "user", None)

    @cache  # a template calls it once for each member: one query a page at most
    def chosen() -> str:
        from memadmin.review.models import ReviewerSettings

        if user is None or not user.is_authenticated:
            return ReviewerSettings.DiffView.LINES
        found = ReviewerSettings.objects.filter(user=user).values_list("diff_view", flat=True)
        return found.first() or ReviewerSettings.DiffView.LINES

    return {"diff_view": chosen}
