"""A pipeline-shape scenario (`engine.shape_file`) opened in the app: a shape preset, File
→ Open of a shape file, ``pipelab --scenario shape.toml``. The form edits book-shaped
scenarios only, so a shape is shown as an external run (`gui.external_run`): its
sequential and pipelined runs on the same clock, read-only, with a banner that says what
binds it and how much pipelining gains.

No Qt here.
"""

from __future__ import annotations

from engine.derived import Derived
from engine.metrics import speedup, steady_state
from engine.shape_file import ShapedScenario, shape_words
from engine.text import number_text, time_text
from gui.external_run import ExternalRun


def shape_run(scenario: ShapedScenario) -> ExternalRun:
    """``scenario`` simulated sequentially and pipelined, as an external run."""
    sequential, pipelined = scenario.simulate("sequential"), scenario.simulate("pipelined")
    state = steady_state(Derived(pipelined))
    gain = (
        f"one op at a time {time_text(sequential.makespan)} → pipelined "
        f"{time_text(pipelined.makespan)}, {number_text(speedup(sequential, pipelined))}× faster"
    )
    description = (
        f"Showing the pipeline shape {scenario.n_ops:,} ops: {shape_words(scenario.shape)}. "
        f"{gain}; what binds: {state.why}. The form edits book-shaped scenarios: change "
        "this one in its file."
    )
    return ExternalRun((sequential, pipelined), scenario.name, description)
