"""A pipeline-shape scenario (`engine.model.shape_file`) as the app's current scenario: a shape
preset, File → Open of a shape file, ``pipelab --scenario shape.toml``. The shape editor
(`gui.shape_editor`) edits it; each accepted edit is simulated again here, under the view's
policies (sequential: one op in flight at a time; pipelined: the shape as given), on the
app model's worker for big runs, as the book's edits are.

No Qt here.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from engine.analysis.derived import Derived
from engine.analysis.metrics import speedup, steady_state
from engine.base.text import number_text, time_text
from engine.model.schedule import Schedule
from engine.model.shape_file import ShapedScenario, shape_words
from gui.runs import Run, compute_run


def shape_description(scenario: ShapedScenario, schedules: tuple[Schedule, ...]) -> str:
    """What is shown, in a sentence or two: the shape, and (when both policies are shown)
    what pipelining gains and what binds the pipelined run."""
    text = f"The pipeline shape, {scenario.n_ops:,} ops: {shape_words(scenario.shape)}."
    by_policy = {s.policy: s for s in schedules}
    pipelined = by_policy.get("pipelined")
    if pipelined is None:
        return text
    state = steady_state(Derived(pipelined))
    sequential = by_policy.get("sequential")
    if sequential is not None:
        gain = number_text(speedup(sequential, pipelined))
        text += (
            f" One op at a time {time_text(sequential.makespan)} → pipelined "
            f"{time_text(pipelined.makespan)}, {gain}× faster"
        )
    else:
        text += f" Pipelined {time_text(pipelined.makespan)}"
    return f"{text}; what binds: {state.why}."


def compute_shape_run(
    scenario: ShapedScenario, policies: tuple[str, ...], preset: str = ""
) -> Generator[str, None, Run]:
    """``scenario`` simulated under ``policies``, derived as any run is (`compute_run`);
    yields between steps (abort points for a stale edit)."""
    schedules = []
    for policy in policies:
        schedules.append(scenario.simulate(policy))
        yield "simulated"
    given = tuple(schedules)
    run = yield from compute_run(None, (), preset, title=scenario.name, given=given)
    return replace(run, description=shape_description(scenario, given))
