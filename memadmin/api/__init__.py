"""The agent API (/api/v1, JSON): write-time dedup (curation.write_time), the profile with
open conflicts, semantic search; per-namespace bearer tokens (models, auth), field-by-field
validation and the OpenAPI description.

May import: curation and store. Never review.
"""
