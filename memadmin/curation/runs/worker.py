"""How a queue worker process is set up: as run_many sets up its own forked workers.
Apart from the tasks module: procrastinate imports PROCRASTINATE_ON_APP_READY while it
builds its app, before the tasks may be declared."""

from __future__ import annotations

import os
import sys

from django.db import DEFAULT_DB_ALIAS, connections

from memadmin.curation.detection.candidates import neighbours as detect
from memadmin.curation.detection.reading import clause as reading

_PREPARED: list[bool] = []


def prepare() -> None:
    """One BLAS thread (two workers with two spinning OpenBLAS threads each on two cores
    ran no faster than one), the readers' dictionaries loaded (0.9 s), and connections
    kept between batches; once."""
    if _PREPARED:
        return
    if "MEMADMIN_CONN_MAX_AGE" not in os.environ:
        # procrastinate closes a job's connection unless CONN_MAX_AGE keeps it; a worker's
        # jobs run in pool threads that live as long as it does, so each keeps one (a new
        # connection and a cold server process per batch cost about 25 ms of 350: bench,
        # scenario d through the queue).
        connections.settings[DEFAULT_DB_ALIAS]["CONN_MAX_AGE"] = None
    detect.one_blas_thread()
    reading.warm_up()
    _PREPARED.append(True)


def on_app_ready(app) -> None:
    """PROCRASTINATE_ON_APP_READY, in every process that loads Django: a worker started
    with `manage.py procrastinate worker` prepares as it starts, so that its first batch
    takes as long as the others; any other process (the web app, commands) loads
    nothing here."""
    if sys.argv[1:3] == ["procrastinate", "worker"]:
        prepare()
