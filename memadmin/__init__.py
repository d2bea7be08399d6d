"""memadmin: the review console for AI agents' long-term memory.

Four apps, each a layer that imports only the ones below it (DESIGN.md, Layout):

    api, review      the JSON API for agents and the HTMX pages for people (thin views)
        |
    curation         detection, clusters, proposals, conflicts, history, and every write
        |
    store            namespaces and memories, import parsing, embeddings, store queries
"""
