"""The store: namespaces and memories (models), reading and validating memory files
(importing), text normalisation and the content hash (text), sentence embeddings
(embeddings), and the named queries over memories, the pgvector nearest-neighbour search
among them (queries).

The bottom layer: it imports Django, numpy and the embedding engine, never
memadmin.curation, api or review. It writes nothing either: every change to a memory is
a curation decision with a history event (curation.decisions), which is why the commands
that write memories (import_memories, embed_memories) live in curation; the store keeps
the read-only export_memories.
"""
