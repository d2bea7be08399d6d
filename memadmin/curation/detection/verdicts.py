"""What a candidate pair can become, and the two tiers of what is proposed: the words
every stage of detection, the runs and the decisions share."""


class Verdict:
    EXACT = "exact"  # same normalised text: collapse into the representative
    AUTO_MERGE = "auto_merge"  # nothing differs, every guard passes: merge, undoable
    REVIEW = "review"  # a cluster for a curator
    CONFLICT = "conflict"  # same subject and slot, they disagree
    DISTINCT = "distinct"  # nothing to do


# Tiers of what is proposed: confident, or doubtful (ranked apart, never merged or
# accepted in bulk).
PROPOSED = "proposed"
POSSIBLE = "possible"
