"""One find_duplicates run, as a package: `options` (what a run is asked and reports),
`selection` (which namespaces, their locks), `planning` (what a pass would do in one
namespace), `llm_verdicts` (the LLM band), `applying` (plans into decisions), `counting`
(the counts kept between runs), `routes` (how a pass reads its vectors and rows), `batch`
(one batch of namespaces), `many` (batches side by side), `tasks` (the same batches as
jobs on the procrastinate queue), `worker` (how a queue worker process is set up).
Imports flow one way: options <- selection <- planning <- llm_verdicts <- applying <-
counting <- routes <- batch <- many <- tasks; worker imports none of them.

Most deployments are many small namespaces (one per agent or user), so the unit of work
is a batch of them. The names below are the run's public face (the command, benches and
tests use them)."""

from memadmin.curation.runs.batch import Outcome, changed_positions, run_batch
from memadmin.curation.runs.many import batches, run_many
from memadmin.curation.runs.options import ACTOR, NamespaceReport, Options
from memadmin.curation.runs.routes import index_candidates
from memadmin.curation.runs.selection import (
    close_interrupted,
    finished_runs,
    last_complete_starts,
    lock_key,
    namespaces_to_run,
    shard_of,
)

__all__ = [
    "ACTOR",
    "NamespaceReport",
    "Options",
    "Outcome",
    "batches",
    "changed_positions",
    "close_interrupted",
    "finished_runs",
    "index_candidates",
    "last_complete_starts",
    "lock_key",
    "namespaces_to_run",
    "run_batch",
    "run_many",
    "shard_of",
]
