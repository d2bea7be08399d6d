"""Curation: everything that finds and decides duplicates and conflicts.

- finding: detect (candidate pairs and the rule judgement of a pair), guards (metadata
  guards, protected memories, key tokens), lexical, clustering, planning (what a pass
  proposes, in memory), llm / prompts / llm_verdicts / proposals (the LLM band and
  merged texts), representative (the one survivor rule), write_time (the API's policy);
- running: runs (due, shard, lock, DedupRun, workers) and applying (a plan, through
  decisions);
- deciding: decisions, the only package that writes memories, clusters, conflicts and
  history; models and queries (named reads), evaluation (scoring against labels).

May import: the store. Never api or review.
"""
