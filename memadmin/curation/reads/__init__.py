"""The read side: every named query the pages, the API, the exports and the commands read,
one module per page family (clusters, conflicts, memories, history, dashboard), with the
counts they share, what leaves memadmin (exports) and what a detection run reads of
earlier ones (runs). Nothing here writes."""
