"""Every write to memories, and every decision about them. Each function is atomic and
writes its history event; views, commands and the API call these and nothing else to
change a memory, a cluster or a conflict.

One module per concept: `history` (what all share: errors, locks, events), `memories`
(import, vectors, decay, pin, an agent's write or forget), `clusters` (open, propose,
dismiss, exclude, split), `merges` (fold, accept one or many, keep one), `unmerges` (any
fold undone, one or many), `conflicts` (open, resolve), `verdicts` (pair judgements),
`labels` (a labelled sample of the store's pairs).
Today's names stay importable from here.

May import: curation.models, curation.reads, curation.detection.scoring.clustering,
curation.detection.scoring.representative and the store. Never the detection or LLM modules: those
decide *what* to do, and call in.
"""

from memadmin.curation.decisions.clusters import UNDOABLE as UNDOABLE_ACTIONS
from memadmin.curation.decisions.clusters import (
    ProposedCluster,
    close,
    dismiss_cluster,
    exclude_member,
    open_cluster,
    open_cluster_by_hand,
    open_clusters,
    record_proposal,
    split_cluster,
    undo_cluster_decision,
)
from memadmin.curation.decisions.conflicts import (
    open_conflict,
    open_conflicts,
    resolve_conflict,
    undo_resolution,
)
from memadmin.curation.decisions.history import (
    DecisionError,
    InvalidText,
    StaleDecision,
    refuse_if_decided,
    snapshot,
    update_rows,
)
from memadmin.curation.decisions.labels import import_labels, label_pair, record_audit
from memadmin.curation.decisions.memories import (
    ImportResult,
    decay_confidence,
    embed_multilingual,
    forget_memory,
    import_records,
    insert_written,
    new_memory,
    note_languages,
    pin_memory,
    record_repeat,
    return_from_source,
    store_embeddings,
    undo_forget,
)
from memadmin.curation.decisions.merges import (
    Fold,
    accept_many,
    accept_proposal,
    fold_many,
    fold_memories,
    keep_survivor,
)
from memadmin.curation.decisions.unmerges import unmerge, unmerge_many
from memadmin.curation.decisions.verdicts import record_verdict, remember_apart

__all__ = [
    "UNDOABLE_ACTIONS",
    "DecisionError",
    "Fold",
    "ImportResult",
    "InvalidText",
    "ProposedCluster",
    "StaleDecision",
    "accept_many",
    "accept_proposal",
    "close",
    "decay_confidence",
    "dismiss_cluster",
    "embed_multilingual",
    "exclude_member",
    "fold_many",
    "fold_memories",
    "forget_memory",
    "import_labels",
    "import_records",
    "insert_written",
    "keep_survivor",
    "label_pair",
    "new_memory",
    "note_languages",
    "open_cluster",
    "open_cluster_by_hand",
    "open_clusters",
    "open_conflict",
    "open_conflicts",
    "pin_memory",
    "record_audit",
    "record_proposal",
    "record_repeat",
    "record_verdict",
    "refuse_if_decided",
    "remember_apart",
    "resolve_conflict",
    "return_from_source",
    "snapshot",
    "split_cluster",
    "store_embeddings",
    "undo_cluster_decision",
    "undo_forget",
    "undo_resolution",
    "unmerge",
    "unmerge_many",
    "update_rows",
]
