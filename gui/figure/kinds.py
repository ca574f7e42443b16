"""What a run's figure calls its parts and how it fills them, by the kind of run.

A pipeline run (the default) has ops of read, compute and write on units of workers: a
bar is its op's colour with "op N" in it, and op colours label themselves. A warp run
(`engine.latency.warps`: one SM, W warps and its issue unit) has warps for ops, each on a row of
its own: a compute burst is the warp's colour, a load in flight is drawn in a neutral
fill, only the issue unit's bars say which warp they are ("warp 3": on a warp's own row
that is its label already), and the legend explains the warps' colours and the loads.
An imported profile (`gpu.profile`) has activities for ops on rows that are streams: a bar
is coloured by its name (one kernel, one colour) and says its name where it fits.
The model decides which a run is (`engine.latency.warp_idle.is_warp_schedule`,
`gpu.profile.lanes.is_profile_schedule`); views only read. A run with the pipeline's
stages is neither, and those modules load with the first run that may be one (the app
starts on a pipeline run and does not pay for them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.base.text import count_words, elided
from engine.model.naming import pool_words, slots_words
from engine.model.schedule import STAGES, Schedule
from gui.figure.rows import ROW_MODES

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class NeutralStage:
    """A stage drawn in the theme's ``fill`` (a `gui.colours.Theme` field) instead of the
    op's colour, with ``words`` in the legend."""

    stage: int
    fill: str
    words: str


@dataclass(frozen=True)
class RunKind:
    """How a figure draws and names one kind of run (see the module doc)."""

    name: str
    op_word: str = "op"
    neutral: tuple[NeutralStage, ...] = ()
    #: Units whose bars carry labels (None: every unit's).
    labelled_units: tuple[int, ...] | None = None
    rows: tuple[str, ...] = ROW_MODES
    #: Legend words for the op colours where bars do not label them ("": no entry).
    colour_words: str = ""
    #: Whether the legend's wait entries follow a title ("Idle:"); a warp run's words
    #: say what each is on their own.
    wait_title: bool = True
    noun: str = "pipeline run"
    #: Rows per worker stay this many rows' height in all, thinner beyond (None: every
    #: row is tall; a pipeline's worker rows are, as its size checks expect).
    worker_rows_tall: int | None = None
    own_rows: str = "its workers or its ops"
    #: What a run of this kind counts as its ops in its heading ("3 ops", "1,154
    #: activities"): singular and plural.
    op_nouns: tuple[str, str] = ("op", "ops")

    def title(self, schedule: Schedule, name: str = "") -> str:
        """The run's heading: "pipelined · 3 ops · 2 slots" (a simulated run says its
        slots, a shape's run its pools: two runs of one scenario differ by them; a measured
        run's label says its streams), "4 warps, C = 10, L = 40". ``name``: the run's
        words, else its label."""
        if self.name == "warps":
            return schedule.label or "warps"
        name = name or schedule.label or schedule.policy
        measured = " (measured)" if schedule.source == "measured" else ""
        words = [f"{name}{measured}", count_words(schedule.n_ops, *self.op_nouns)]
        if schedule.source == "simulated" and schedule.pool_grants is not None:
            words += [pool_words(schedule)] if schedule.pools else []  # (a shape's run)
        elif schedule.source == "simulated":
            words.append(slots_words(schedule.buffers))
        return " · ".join(words)

    def bar_words(self, schedule: Schedule, op: int) -> list[str]:
        """What a bar of op ``op`` may say, longest first: "op 12", "12"; an imported
        activity its name, whole or cut ("volta_sgemm_128x64_nn", "volta_sgemm…")."""
        if self.name == "profile":
            name = schedule.task_title(op) or ""  # (an imported run's ops are its tasks)
            return [name, *(elided(name, n) for n in (24, 12, 6) if n < len(name))]
        return [f"{self.op_word} {op + 1}", str(op + 1)]

    def colour_keys(self, schedule: Schedule, tasks: IntArray) -> IntArray:
        """What picks each task's colour: its op (an imported activity: its name)."""
        if self.name == "profile" and schedule.task_name is not None:
            return schedule.task_name[tasks]
        return schedule.op[tasks]

    def check_rows(self, rows: str) -> None:
        """PipeLabError when rows per ``rows`` do not apply to this kind of run."""
        if rows not in self.rows:
            raise PipeLabError(
                f"rows per {rows.removesuffix('s')} do not apply to a {self.noun}: "
                f"its rows are {self.own_rows}"
            )


PIPELINE = RunKind("pipeline")


@cache
def warps_kind() -> RunKind:
    """A warp run's kind (made with the first warp run: `engine.latency.warps` names its parts)."""
    from engine.latency.warps import ISSUE_UNIT, MEMORY

    return RunKind(
        "warps",
        op_word="warp",
        neutral=(NeutralStage(MEMORY, "memory", "waiting for memory (load in flight)"),),
        labelled_units=(ISSUE_UNIT,),
        rows=("workers",),
        colour_words="computing (each warp its colour)",
        wait_title=False,
        noun="warp run",
        worker_rows_tall=20,  # 64 warps: a page's height, a label every few rows
        own_rows="its warps and the issue unit already",
    )


PROFILE = RunKind(
    "profile",
    rows=("workers",),
    noun="profile",
    own_rows="its streams",
    op_nouns=("activity", "activities"),
)


def kind_of(schedule: Schedule) -> RunKind:
    """The kind of run ``schedule`` is."""
    if schedule.stage_names == STAGES:  # read, compute, write: a pipeline's (nothing to load)
        return PIPELINE
    from engine.latency.warp_idle import is_warp_schedule
    from gpu.profile.lanes import is_profile_schedule

    if is_warp_schedule(schedule):
        return warps_kind()
    return PROFILE if is_profile_schedule(schedule) else PIPELINE
