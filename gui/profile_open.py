"""A recorded GPU profile opened in the app (`pipelab --profile FILE`, File → Open, a file
dropped on the window): each device's lanes and, where the trace has copy-in → kernel →
copy-out chains, the engine's pipeline of them beside it, as an external run
(`gui.external_run`) with a banner that says what a pipeline of the same work would take.

No Qt here: reading a big trace runs on the app model's worker thread.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.base.text import count_words
from gui.external_run import ExternalRun

#: How each format is named on screen.
FORMAT_WORDS = {
    "kineto": "a PyTorch/Chrome trace",
    "nsys-sqlite": "an Nsight Systems export",
    "nsys-csv": "an Nsight Systems CSV",
    "pipelab-trace": "a PipeLab trace",
}


def profile_run(path: str | os.PathLike[str]) -> ExternalRun:
    """The profile at ``path`` as an external run (PipeLabError, one line, for a bad
    file)."""
    from gpu.profile import load_profile
    from gpu.profile.chains import what_if
    from gpu.profile.figures import device_figures
    from gpu.profile.report import what_if_line

    profile = load_profile(path)
    activities = sum(len(run.schedule) for run in profile.devices)
    devices = count_words(len(profile.devices), "device")
    title = f"{Path(path).name}: {activities:,} GPU activities on {devices}"
    sentences, schedules = [], []
    for run in profile.devices:
        figures = device_figures(run.schedule)
        found = what_if(run, figures)
        schedules += [run.schedule] if found.pipelined is None else [run.schedule, found.pipelined]
        line = what_if_line(found, figures, run.schedule.time_unit)
        sentences.append(f"device {run.device}: {line}")
    description = (
        f"Showing {FORMAT_WORDS.get(profile.format, profile.format)}, {title}. "
        + "; ".join(sentences)
        + "."
    )
    return ExternalRun(tuple(schedules), title, description)
