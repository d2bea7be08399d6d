"""The review pages, one module per page family: dashboard, clusters, conflicts, history,
memories, tokens; `answers` holds what they share (the role check, and the one answer to
a decision: the page's partial for HTMX, a message and a redirect without JavaScript).

Views are thin: every change goes through curation.decisions, every read through
curation.reads or store.queries.
"""
