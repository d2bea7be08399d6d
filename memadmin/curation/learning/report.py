"""Every labelled set judged, the pair model fit without each in turn and scored on the
one left out, and what that says: the thresholds chosen on the held-out figures, each
set's figures, the held-out log-loss and the LLM band's temperature. `bench/calibrate.py
--loso` prints it; `manage.py fit_pair_model` prints it and writes the model fit on every
set (curation/detection/scoring/pair_model.json), the figures beside the weights."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.learning import calibration, fitting, held_out


@dataclass(frozen=True)
class HeldOutReport:
    lines: tuple[str, ...]  # what a person reads, line by line
    stored: dict  # the model fit on every set, in pair_model.json's form


def leave_one_set_out(
    *,
    c_related: float = 1.0,
    c_disagree: float = 1.0,
    committee: bool = True,
    command: str = "manage.py fit_pair_model",
    on_progress: Callable[[str], None] = lambda said: None,
) -> HeldOutReport:
    """Judge every labelled set present (fitting.available), fit and score each held out,
    and fit on them all (with `committee`, the default, each model doubting with the fits that leave
    one set out each: fitting.fits_leaving_out). `command` is what the stored model says
    wrote it."""
    thresholds = Thresholds.from_settings()
    vectors = calibration.Vectors()
    tables = []
    if missing():
        on_progress(f"not on this machine, left out of every fit: {', '.join(missing())}")
    for name in fitting.available():
        started = time.perf_counter()
        table = fitting.table_of(name, thresholds, vectors)
        tables.append(table)
        on_progress(
            f"{name}: {len(table.rows)} memories, {len(table.classes)} candidate pairs "
            f"({time.perf_counter() - started:.1f} s)"
        )
    found = fitting.leave_one_set_out(
        tables,
        thresholds,
        c_related=c_related,
        c_disagree=c_disagree,
        committee=committee,
        on_progress=lambda what: on_progress(f"trying {what}"),
    )
    temperature = held_out.band_temperature(tables, found.models)
    stored = fitting.stored_form(
        tables,
        found,
        c_related=c_related,
        c_disagree=c_disagree,
        command=command,
        llm_temperature=temperature,
    )
    return HeldOutReport(tuple(_lines(tables, found, temperature)), stored)


def _lines(tables, found, temperature: float) -> list[str]:
    lines = [
        f"readings of two facts held back by {found.apart_temperature} (the least under which "
        f"a pair read two facts at {held_out.SURE} or more is wrong at most one time in five "
        "on every set held out, one more wrong included)",
        f"thresholds chosen on the held-out figures: {found.thresholds}",
    ]
    lines += [f"{name} (held out): {figures.line()}" for name, figures in found.figures.items()]
    lines.append(f"pooled, every set held out once: {found.pooled.line()}")
    lines.append("held-out log-loss by stage (knowing only the set's own shares in brackets):")
    for name, stages in held_out.held_out_log_loss(tables, found.models).items():
        said = (f"{stage} {loss:.3f} ({base:.3f})" for stage, (loss, base) in stages.items())
        lines.append(f"  {name}: " + "; ".join(said))
    errors = {t.name: held_out.confident_errors(t, found.models[t.name]) for t in tables}
    lines.append(
        f"confident errors (a candidate pair read at {held_out.SURE} or more as what its label "
        "says it is not), each set held out: "
        + "; ".join(f"{name} {count} of {pairs}" for name, (count, pairs) in errors.items())
    )
    lines.append(
        f"the LLM band's temperature (the worst held-out set read best): {temperature}; "
        "that set's log-loss under it:"
    )
    for name, stages in held_out.held_out_log_loss(tables, found.models, temperature).items():
        said = (f"{stage} {loss:.3f}" for stage, (loss, _) in stages.items())
        lines.append(f"  {name}: " + "; ".join(said))
    chosen_on = [n for n in fitting.CHOOSING_SETS if n in found.figures]
    lines.append(
        f"pooled over the sets the thresholds were chosen on ({', '.join(chosen_on)}): "
        f"{found.pooled_over(chosen_on).line()}"
    )
    return lines


def missing() -> list[str]:
    """The labelled sets not on this machine (fitting.LABELLED_SETS): a fit or a figure
    without them is not the one the docs report, so the commands and benches say so."""
    return [name for name in fitting.LABELLED_SETS if name not in fitting.available()]
