"""Every number detection's stages use, read from the settings once a run (calibrated on
labelled data for all-MiniLM-L6-v2 and multilingual-e5-small: docs/detection.md)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class Thresholds:
    """Every number a judgement uses; defaults from settings (calibrated on labelled data
    for all-MiniLM-L6-v2: see the README's calibration section)."""

    auto_merge: float  # cosine at or above which a clean pair may merge without review
    auto_merge_enabled: bool
    review: float  # combined similarity at or above which a pair is proposed
    candidate: float  # cosine floor of the vector layer
    conflict: float  # similarity from which a pair is "same subject" (for conflicts)
    conflict_slot: float  # overlap, values set aside, from which a difference is a conflict
    neighbours: int  # k of the vector layer: each memory's nearest by MiniLM
    multi_neighbours: int  # each memory's nearest by the multilingual model
    cjk_share: float  # from this share of CJK letters, a text is compared lexically
    # The multilingual model's own thresholds (its cosines sit in a compressed band).
    multi_candidate: float  # its floor for candidate pairs
    multi_review: float  # a same-language pair it proposes for review
    multi_cross: float  # a pair across languages it proposes for review
    multi_subject: float  # a pair across languages it calls one subject
    multi_conflict: float  # across languages, a stance and its opposite: one subject
    # Below align_until, a pair proposed by similarity must also pair up the words each
    # side adds (curation.detection.comparing.alignment) at align_floor or more.
    align_until: float
    align_floor: float
    # The tiers of the calibrated model (curation.detection.scoring), as probabilities:
    # proposed from propose_*, possible from possible_*; an automatic merge needs
    # P(one fact) >= auto_confidence as well as the rules' strict check.
    propose_one: float
    propose_conflict: float
    possible_one: float
    possible_conflict: float
    auto_confidence: float

    @classmethod
    def from_settings(cls) -> Thresholds:
        return cls(
            auto_merge=settings.DEDUP_AUTO_MERGE_THRESHOLD,
            auto_merge_enabled=settings.DEDUP_AUTO_MERGE,
            review=settings.DEDUP_REVIEW_THRESHOLD,
            candidate=settings.DEDUP_CANDIDATE_THRESHOLD,
            conflict=settings.DEDUP_CONFLICT_THRESHOLD,
            conflict_slot=settings.DEDUP_CONFLICT_SLOT,
            neighbours=settings.DEDUP_NEIGHBOURS,
            multi_neighbours=settings.DEDUP_MULTI_NEIGHBOURS,
            cjk_share=settings.DEDUP_CJK_SHARE,
            multi_candidate=settings.DEDUP_MULTI_CANDIDATE_THRESHOLD,
            multi_review=settings.DEDUP_MULTI_REVIEW_THRESHOLD,
            multi_cross=settings.DEDUP_MULTI_CROSS_THRESHOLD,
            multi_subject=settings.DEDUP_MULTI_SUBJECT_THRESHOLD,
            multi_conflict=settings.DEDUP_MULTI_CONFLICT_THRESHOLD,
            align_until=settings.DEDUP_ALIGN_UNTIL,
            align_floor=settings.DEDUP_ALIGN_FLOOR,
            propose_one=settings.DEDUP_PROPOSE_ONE,
            propose_conflict=settings.DEDUP_PROPOSE_CONFLICT,
            possible_one=settings.DEDUP_POSSIBLE_ONE,
            possible_conflict=settings.DEDUP_POSSIBLE_CONFLICT,
            auto_confidence=settings.DEDUP_AUTO_CONFIDENCE,
        )
