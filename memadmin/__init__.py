"""memadmin: the review console for AI agents' long-term memory.

Five apps, each a layer that imports only the ones below it (DESIGN.md, Layout):

    api, review      the JSON API for agents and the HTMX pages for people (thin views)
        |
    sources          the stores agents run (ChromaDB, Qdrant, pgvector, records files):
        |            pulled in as memories, written back with the decisions
    curation         detection, clusters, proposals, conflicts, history, and every write
        |
    store            namespaces and memories, import parsing, embeddings, store queries
"""
