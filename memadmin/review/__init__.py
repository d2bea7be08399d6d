"""Review: the HTMX pages people use (dashboard, cluster and conflict queues, memory
browser, history, API tokens). Thin views (review.views) over curation.decisions for every
change and curation.reads / store.queries for every read.

May import: curation and store (and api's token model, for the tokens page).
"""
