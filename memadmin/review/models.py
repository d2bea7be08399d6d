"""What a reviewer chose for themselves on the pages, kept with their account (any
browser they log in from)."""

from django.conf import settings
from django.db import models


class ReviewerSettings(models.Model):
    class DiffView(models.TextChoices):
        LINES = "lines"  # the member, then the proposal under it, as a code review shows
        WORDS = "words"  # both in one line, struck and marked words interleaved

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_settings"
    )
    diff_view = models.CharField(max_length=8, choices=DiffView.choices, default=DiffView.LINES)

    def __str__(self) -> str:
        return f"{self.user_id}: differences {self.diff_view}"
