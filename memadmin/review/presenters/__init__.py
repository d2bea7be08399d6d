"""What each page family shows: one presenter module per family (clusters, conflicts,
history, memories, dashboard, admin), each building a page's context from the read side
(curation.reads) in one place, so a view parses its input, calls one domain function and
renders what its presenter gives; `places` says where a page stands in the queue it was
opened from."""
