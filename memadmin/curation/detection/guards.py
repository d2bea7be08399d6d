"""What must stop an automatic merge besides the text: metadata guards (a different
category, source or session) and protected memories. What the text itself says against a
merge is curation.detection.reading.keytokens.

Pure functions over anything shaped like a Memory (content, category, source_ref, tags,
importance, confidence, pinned), so detection, the API and the calibration share them.
"""

from __future__ import annotations

from django.conf import settings

# --- Metadata guards ---------------------------------------------------------------------

SESSION_TAG_PREFIX = "session:"


def session_tags(memory) -> set[str]:
    return {tag for tag in memory.tags if tag.startswith(SESSION_TAG_PREFIX)}


def metadata_guard(a, b) -> str | None:
    """Why two memories must never be merged automatically nor proposed as duplicates
    (None when their metadata allows it)."""
    if a.category != b.category:
        return f"different category ({a.category or '-'} / {b.category or '-'})"
    if a.source_ref != b.source_ref:
        return f"different source_ref ({a.source_ref or '-'} / {b.source_ref or '-'})"
    if session_tags(a) != session_tags(b):
        return "different session tags"
    return None


def is_protected(memory) -> bool:
    """Never merged automatically: protected categories, pinned, or importance or
    confidence at the protected level."""
    return bool(
        memory.pinned
        or memory.category in settings.PROTECTED_CATEGORIES
        or memory.importance >= settings.PROTECTED_LEVEL
        or memory.confidence >= settings.PROTECTED_LEVEL
    )
