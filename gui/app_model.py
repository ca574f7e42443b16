"""The app's state in one evented model (napari's ViewerModel is the pattern): the
scenario and its preset, the view mode, the current run, the pins, what is shown (each
Schedule with its `Derived`: `Shown`), the Gantt's rows (one per worker or one per op),
whether image exports include the assembly line, whether a run is being computed, and the
last error. Views subscribe to its signals; the main window only wires them up. Nothing
here draws.

A pipeline shape (`engine.model.shape_file.ShapedScenario`: a shape preset or file) may be the
current scenario instead of a book-shaped one (``shape``): the form's shape editor edits
it (`edit_shape`; the op count, the ops table and "make all alike" too), and its runs are
computed as the book's are (`gui.shape_open.compute_shape_run`). ``shape_changed`` says
so (None: back to the book's form, whose scenario is ``scenario`` again).

Every change of state emits its signal once. An accepted edit emits ``scenario_changed``
at once and, when its run is ready, ``run_changed`` and ``shown_changed``. Small runs are
computed on the spot; bigger ones on a worker (`gui.run_worker`), the latest edit winning:
a stale result is dropped, and the previous run stays shown (``busy`` is true meanwhile).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, cast

from PySide6.QtCore import QObject, QTimer, Signal

from engine.base.errors import PipeLabError
from engine.model.naming import renamed_if_changed
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.shape_file import ShapedScenario, load_any_preset
from gui import scenario_edits as edits
from gui import shape_edits
from gui.external_run import ExternalMode, ExternalRun
from gui.figure.rows import ROW_MODES
from gui.memory import release_freed_memory
from gui.run_worker import Runner, ThreadRunner, failure_message, run_job
from gui.runs import (
    MAX_PINS,
    VIEW_MODES,
    Run,
    Shown,
    compose,
    compute_run,
    pinned,
    policies_of,
    warm_caches,
)
from gui.shape_edits import ShapeEdit

log = logging.getLogger(__name__)

#: After a run lands (or pins go) and no other follows for this long, freed memory goes
#: back to the system (`gui.memory.release_freed_memory`); until then it is kept for the next
#: run (`gui.memory.hold_freed_memory`, set at start-up).
RELEASE_AFTER_MS = 1500
#: Runs of up to this many ops are computed on the spot (a few ms: a thread hop and a busy
#: indication would only add flicker); bigger ones go to the worker.
INLINE_OPS = 2_000


@dataclass(frozen=True)
class ScenarioChange:
    """What ``scenario_changed`` carries: the scenario, its preset name ("" when custom)
    and which form fields changed ("all" for a new scenario)."""

    scenario: Scenario
    preset: str
    fields: frozenset[str]


ALL = frozenset({"all"})


@dataclass(frozen=True)
class ShapeChange:
    """What ``shape_changed`` carries: the pipeline shape now edited (None: the book's
    form again), its preset name ("" when none or edited) and what changed ("all" for a
    new shape, else the edit's kind: "ops", "durations", "stage_name"…)."""

    shape: ShapedScenario | None
    preset: str
    fields: frozenset[str]


class AppModel(QObject):
    """The state of one PipeLab window. ``runner`` runs big jobs (a `ThreadRunner` unless
    given); runs of at most ``inline_ops`` ops are computed on the calling thread."""

    scenario_changed = Signal(object)  # ScenarioChange
    view_mode_changed = Signal(str)
    rows_changed = Signal(str)  # "workers" or "ops"
    with_assembly_changed = Signal(bool)
    run_changed = Signal(object)  # Run
    pins_changed = Signal(object)  # tuple[Run, ...]
    shown_changed = Signal(object)  # Shown
    busy_changed = Signal(bool)
    error_changed = Signal(str)  # "" when cleared
    edit_rejected = Signal(str, str)  # field, message
    shape_changed = Signal(object)  # ShapeChange
    #: An external run is shown (`gui.external_run.ExternalRun`), or None: back to the
    #: scenario. Emitted before the `shown_changed` that draws it.
    external_changed = Signal(object)
    #: An external run that could not be opened (`open_external`): the one-line reason.
    external_failed = Signal(str)

    def __init__(
        self,
        scenario: Scenario,
        preset: str = "",
        view_mode: str = "both",
        runner: Runner | None = None,
        pin_runner: Runner | None = None,
        inline_ops: int = INLINE_OPS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._scenario = edits.check_app_size(scenario)
        self._preset = preset
        # The scenario as opened (a preset, a file): edits are named for how they differ
        # from it, as the command line names its overrides; and that of the run on screen.
        self._origin = self._run_origin = scenario
        self._view_mode = view_mode if view_mode in VIEW_MODES else "both"
        self._rows = "workers"
        self._with_assembly = False
        self._run: Run | None = None
        self._pins: tuple[Run, ...] = ()
        self._shown: Shown | None = None
        self._busy = False
        self._error = ""
        self._inline_ops = inline_ops
        self._token = 0
        self._pin_token = 0
        self._pin_sources: tuple[Run, ...] = ()  # the run each pin was made from
        self._editing = False  # a run is computing on the worker
        self._pinning = False  # a pin is being made on the worker
        self._frees = 0  # runs landed, pins dropped, runs failed (the latest frees when idle)
        self._external = ExternalMode()
        # The pipeline shape edited, if one is (then the runs are its), the shape as
        # opened (edits are named for how they differ from it) and that of the run on screen.
        self._shape: ShapedScenario | None = None
        self._shape_origin: ShapedScenario | None = None
        self._run_shape: ShapedScenario | None = None
        self._runner = runner if runner is not None else ThreadRunner(self)
        self._external_token = -1  # the job that opens an external run, if one does
        self._runner.landed.connect(self._on_landed)
        self._runner.failed.connect(self._on_failed)
        self._pin_runner = pin_runner if pin_runner is not None else ThreadRunner(self, "pin")
        self._pin_runner.landed.connect(self._on_pinned)
        self._pin_runner.failed.connect(self._on_failed_pin)

    # -- state -------------------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        """The scenario last accepted (its run may still be computing)."""
        return self._scenario

    @property
    def preset(self) -> str:
        return self._preset

    @property
    def shape(self) -> ShapedScenario | None:
        """The pipeline shape that is the current scenario (its edits accepted last), or
        None: the book-shaped `scenario` is."""
        return self._shape

    @property
    def view_mode(self) -> str:
        return self._view_mode

    @property
    def rows(self) -> str:
        """The Gantt's rows: "workers" (one per worker) or "ops" (one per op); what the
        timeline draws and what an export draws unless told."""
        return self._rows

    @property
    def with_assembly(self) -> bool:
        """Whether image exports include the assembly line (unless told)."""
        return self._with_assembly

    @property
    def run(self) -> Run | None:
        """The current run (what the form's scenario gave, once computed)."""
        return self._run

    @property
    def pins(self) -> tuple[Run, ...]:
        return self._pins

    @property
    def shown(self) -> Shown | None:
        return self._shown

    @property
    def external(self) -> ExternalRun | None:
        """The external run shown instead of the scenario's (see `show_external`), or None."""
        return self._external.shown

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def error(self) -> str:
        return self._error

    # -- edits -------------------------------------------------------------------------------

    def start(self) -> None:
        """Compute the first run (on the spot, whatever its size: the window waits for it)."""
        self._launch(wait=True)

    def edit(self, field: str, value: Any, wait: bool = False) -> bool:
        """One form field (see `gui.scenario_edits.FIELDS`; a shape's: "ops" only); False
        if refused."""
        if self._shape is not None:
            if field != "ops":
                return self._refuse(field, f"a pipeline shape has no {field!r} field")
            return self._change_shape(
                field, lambda s: shape_edits.set_ops(s, value, edits.GUI_MAX_OPS), wait
            )
        return self._change(
            field, lambda s: edits.edit_field(s, field, value, edits.GUI_MAX_OPS), wait
        )

    def set_durations(
        self, first_op: int, first_stage: int, block: list[list[float]], wait: bool = False
    ) -> bool:
        """A block of per-op durations (a table cell, a pasted range)."""
        if self._shape is not None:
            return self._change_shape(
                "durations",
                lambda s: shape_edits.set_times(s, first_op, first_stage, block, edits.GUI_MAX_OPS),
                wait,
            )
        return self._change(
            "durations",
            lambda s: edits.set_durations(s, first_op, first_stage, block, edits.GUI_MAX_OPS),
            wait,
        )

    def make_alike(self, op: int = 0, wait: bool = False) -> bool:
        """Every op takes op ``op``'s durations."""
        if self._shape is not None:
            return self._change_shape("durations", lambda s: shape_edits.make_alike(s, op), wait)
        return self._change("durations", lambda s: edits.make_alike(s, op), wait)

    def set_scenario(self, scenario: Scenario, preset: str = "", wait: bool = False) -> bool:
        """A whole new scenario (a file, a preset); False with a message if too big."""
        try:
            edits.check_app_size(scenario)
        except PipeLabError as error:
            self._set_error(str(error))
            return False
        self._origin = scenario
        self._leave_shape()
        self._accept(scenario, preset, ALL)
        self._launch(wait)
        return True

    def choose_preset(self, name: str, wait: bool = False) -> bool:
        """The shipped preset ``name``, book-shaped or a pipeline shape (`open_shape`), as
        the current scenario."""
        try:
            scenario = load_any_preset(name)
        except PipeLabError as error:
            self._set_error(str(error))
            return False
        if isinstance(scenario, ShapedScenario):
            return self.open_shape(scenario, wait, name)
        return self.set_scenario(scenario, name, wait)

    def open_shape(self, scenario: ShapedScenario, wait: bool = False, preset: str = "") -> bool:
        """Make a pipeline shape the current scenario (``preset``: its preset's name), for
        the form's shape editor to edit; False with a message if too big for the app."""
        try:
            edits.check_app_size(scenario)
        except PipeLabError as error:
            self._set_error(str(error))
            return False
        self._shape_origin = scenario
        self._accept_shape(scenario, preset, ALL)
        self._launch(wait)
        return True

    def edit_shape(self, edit: ShapeEdit, wait: bool = False) -> bool:
        """One edit of the shape editor (`gui.shape_edits.ShapeEdit`); False, with the
        engine's one line in `error` and `edit_rejected`, if refused."""
        return self._change_shape(edit.what, lambda s: shape_edits.apply_edit(s, edit), wait)

    def _change_shape(
        self, field: str, change: Callable[[ShapedScenario], ShapedScenario], wait: bool
    ) -> bool:
        shape, origin = self._shape, self._shape_origin
        if shape is None or origin is None:
            return self._refuse(field, "no pipeline shape is open")
        try:
            changed = shape_edits.renamed_if_changed(origin, change(shape))
            edits.check_app_size(changed)
        except PipeLabError as error:
            return self._refuse(field, str(error))
        preset = self._preset if shape_edits.same_shape(origin, changed) else ""
        self._accept_shape(changed, preset, frozenset({field}))
        self._launch(wait)
        return True

    def _refuse(self, field: str, message: str) -> bool:
        self._set_error(message)
        self.edit_rejected.emit(field, message)
        return False

    def _accept_shape(self, shape: ShapedScenario, preset: str, fields: frozenset[str]) -> None:
        self._leave_for_edit()
        self._shape, self._preset = shape, preset
        self._set_error("")
        self.shape_changed.emit(ShapeChange(shape, preset, fields))

    def _leave_shape(self) -> None:
        """A book-shaped scenario is current again: the form shows the book's fields."""
        if self._shape is not None:
            self._shape = self._shape_origin = None
            self.shape_changed.emit(ShapeChange(None, "", ALL))

    def set_view_mode(self, mode: str, wait: bool = False) -> None:
        if mode not in VIEW_MODES:
            self._set_error(f"unknown view {mode!r} (expected one of {', '.join(VIEW_MODES)})")
            return
        if mode == self._view_mode:
            return
        self._view_mode = mode
        self.view_mode_changed.emit(mode)
        if not self._external.active:  # (else the way back shows this view)
            self._launch(wait)

    def set_rows(self, rows: str) -> None:
        """One Gantt row per worker (``workers``) or per op (``ops``); nothing is run again."""
        if rows not in ROW_MODES:
            self._set_error(f"unknown rows {rows!r} (expected one of {', '.join(ROW_MODES)})")
            return
        if rows != self._rows:
            self._rows = rows
            self.rows_changed.emit(rows)

    def set_with_assembly(self, on: bool) -> None:
        """Whether image exports include the assembly line."""
        if on != self._with_assembly:
            self._with_assembly = on
            self.with_assembly_changed.emit(on)

    # -- external runs ---------------------------------------------------------------------

    def show_external(self, schedules: list[Schedule], title: str, description: str = "") -> None:
        """Show Schedules that did not come from the form (a measured run, an imported
        profile) instead of the scenario's, computed on the spot (they are small); a
        pending edit is dropped. ``title`` names the run (heading, window title);
        ``description`` says in a sentence what is shown (the banner). Until
        `back_to_scenario` (or a new scenario or edit) the form describes nothing shown:
        the views make it read-only. Pins stay, drawn beside it when on its time unit."""
        external = ExternalRun(tuple(schedules), title, description or title)
        self.open_external(lambda: external, wait=True)

    def open_external(self, load: Callable[[], ExternalRun], wait: bool = False) -> None:
        """Show the external run ``load`` gives (reading a recorded profile: seconds at
        10^6 events), on the worker thread unless ``wait``; the form stays as it is until
        it lands. A failure (a bad file: `PipeLabError`) keeps everything as it was and
        says why in `external_failed` (and the error line)."""
        self._token += 1
        token = self._token
        pins = self._pins

        def job() -> Any:
            external = load()
            yield "loaded"
            run = yield from compute_run(None, (), title=external.title, given=external.schedules)
            run = replace(run, description=external.description)
            shown = compose(run, pins)
            yield "composed"
            return run, shown, external

        self._external_token = token
        self._start(token, job, inline=wait)

    def back_to_scenario(self, wait: bool = False) -> None:
        """Leave the external run: the scenario's runs as they were (recomputed only when
        the view mode changed meanwhile), with the pins there are now."""
        if not self._external.active:
            return
        run = self._external.leave()
        self.external_changed.emit(None)
        if (
            run is not None
            and run.scenario is self._scenario
            and run.policies == policies_of(self._view_mode)
        ):
            self._land(run, compose(run, self._pins))
        else:
            self._launch(wait)

    def _leave_for_edit(self) -> None:
        """A new scenario or an edit while an external run is shown: its run replaces it."""
        if self._external.active:
            self._run = self._external.leave()  # (what an edit's run may reuse)
            self.external_changed.emit(None)

    def _change(self, field: str, change: Callable[[Scenario], Scenario], wait: bool) -> bool:
        try:
            scenario = renamed_if_changed(self._origin, change(self._scenario))
            edits.check_app_size(scenario)
        except PipeLabError as error:
            self._set_error(str(error))
            self.edit_rejected.emit(field, str(error))
            return False
        self._accept(scenario, "", frozenset({field}))
        self._launch(wait)
        return True

    def _accept(self, scenario: Scenario, preset: str, fields: frozenset[str]) -> None:
        self._leave_for_edit()
        self._scenario, self._preset = scenario, preset
        self._set_error("")
        self.scenario_changed.emit(ScenarioChange(scenario, preset, fields))

    # -- runs --------------------------------------------------------------------------------

    def _launch(self, wait: bool) -> None:
        """Compute the run of the scenario and view mode now in the model."""
        self._token += 1
        token = self._token
        scenario, preset, pins = self._scenario, self._preset, self._pins
        reuse = self._run
        policies = policies_of(self._view_mode)
        shape = self._shape
        if shape is not None:
            from gui.shape_open import compute_shape_run

            def shape_job() -> Any:
                run = yield from compute_shape_run(shape, policies, preset)
                shown = compose(run, pins)
                yield "composed"
                return run, shown, shape

            # (as many tasks as the book's inline runs have, at most)
            tasks = shape.n_ops * len(shape.shape.stages)
            self._start(token, shape_job, inline=wait or tasks <= 3 * self._inline_ops)
            return

        def job() -> Any:
            run = yield from compute_run(scenario, policies, preset, reuse=reuse)
            shown = compose(run, pins)
            yield "composed"
            return run, shown

        self._start(token, job, inline=wait or scenario.n_ops <= self._inline_ops)

    def _start(self, token: int, job: Callable[[], Any], inline: bool) -> None:
        """Run ``job`` here and now (``inline``) or on the worker; either way it lands in
        `_on_landed`, or `_on_failed` with its one line (a PipeLabError, a full memory, an
        unreadable file; anything else is a bug, logged with its traceback)."""
        if not inline:
            self._editing = True
            self._set_busy(True)
            self._runner.submit(token, job)
            return
        self._runner.cancel()
        self._editing = False
        try:
            result = _finish(job())
        except Exception as error:  # reported, state kept
            if not isinstance(error, PipeLabError | MemoryError | OSError):
                log.exception("a run failed")
            self._on_failed(token, failure_message(error))
            return
        self._on_landed(token, result)

    def _on_landed(self, token: int, result: object) -> None:
        if token != self._token:
            return  # an older edit's run: a newer one is on its way or shown
        found = cast(tuple[object, ...], result)
        if len(found) == 3 and isinstance(found[2], ExternalRun):  # (`open_external`)
            run, shown, external = cast(tuple[Run, Shown, ExternalRun], result)
            self._external.enter(external, self._run)
            self.external_changed.emit(external)
        else:  # the scenario's run, or a shape's (its third item: the shape it ran)
            run, shown = cast(tuple[Run, Shown], found[:2])
            self._run_shape = cast(ShapedScenario, found[2]) if len(found) == 3 else None
        if shown.pins != self._pins:
            shown = compose(run, self._pins)  # pinned or unpinned while it ran
        self._land(run, shown)

    def _land(self, run: Run, shown: Shown) -> None:
        self._run, self._shown = run, shown
        if run.scenario is not None:
            self._run_origin = self._origin
        self._editing = False
        self._set_busy(self._pinning)
        self.run_changed.emit(run)
        self.shown_changed.emit(shown)
        self._release_when_idle()

    def _release_when_idle(self) -> None:
        """The views hold the new run (or fewer pins): once nothing has landed for
        `RELEASE_AFTER_MS`, the memory the old runs freed goes back to the system. Not at
        once: while edits follow one another the next run reuses that memory, and memory
        the system gets back costs page faults to take again (seconds, at 10^6 ops, on
        some machines)."""
        self._frees += 1
        this = self._frees

        def release() -> None:
            if this == self._frees and not self._editing:
                release_freed_memory()

        QTimer.singleShot(RELEASE_AFTER_MS, self, release)

    def _on_failed(self, token: int, message: str) -> None:
        if token != self._token:
            return
        self._editing = False
        self._set_busy(self._pinning)
        self._set_error(message)
        if token == self._external_token:
            self.external_failed.emit(message)
        self._release_when_idle()  # what the failed run had made (a MemoryError: much)
        if self._shape is not None and self._shape is not self._run_shape:
            self._shape_back()
            return
        last = self._run
        if last is not None and last.scenario is not None and last.scenario is not self._scenario:
            # The form goes back to the scenario of the run still on screen.
            self._scenario, self._preset = last.scenario, last.preset
            self._origin = self._run_origin
            self.scenario_changed.emit(ScenarioChange(last.scenario, last.preset, ALL))

    def _shape_back(self) -> None:
        """A shape's run failed: the form goes back to what the run on screen shows (the
        shape it ran, else the book's scenario)."""
        last = self._run_shape
        if last is not None:
            self._shape = last
            self.shape_changed.emit(ShapeChange(last, "", ALL))
        else:
            self._leave_shape()

    # -- pins --------------------------------------------------------------------------------

    def pin(self, wait: bool = False) -> bool:
        """Keep the current run as a reference shown beside the later ones; False when
        there is nothing to pin (no run yet, or this run is pinned already). Measured runs
        pin too: they are compared with later runs on the same time unit."""
        run = self._run
        if run is None or not run.schedules or any(run is s for s in self._pin_sources):
            return False
        self._pin_token += 1
        token = self._pin_token

        def job() -> Any:
            pin = pinned(run)  # relabelled copies: their indexes are built again below
            yield "relabelled"
            for derived in pin.derived:
                warm_caches(derived)
                yield "warmed"
            return run, pin

        if wait or max(s.n_ops for s in run.schedules) <= self._inline_ops:
            self._pin_runner.cancel()
            self._on_pinned(token, _finish(job()))
        else:
            self._pinning = True
            self._set_busy(True)
            self._pin_runner.submit(token, job)
        return True

    def unpin(self, index: int | None = None) -> None:
        """Remove pin ``index`` (every pin when None); a pin still being made is dropped."""
        self._pin_token += 1
        self._pin_runner.cancel()
        self._pinning = False
        self._set_busy(self._editing)
        keep = [i for i in range(len(self._pins)) if index is not None and i != index]
        self._set_pins(
            tuple(self._pins[i] for i in keep), tuple(self._pin_sources[i] for i in keep)
        )

    def _on_pinned(self, token: int, result: object) -> None:
        if token != self._pin_token:
            return
        source, pin = cast(tuple[Run, Run], result)
        self._pinning = False
        self._set_busy(self._editing)
        self._set_pins((*self._pins, pin)[-MAX_PINS:], (*self._pin_sources, source)[-MAX_PINS:])

    def _on_failed_pin(self, token: int, message: str) -> None:
        if token == self._pin_token:
            self._pinning = False
            self._set_busy(self._editing)
            self._set_error(message)

    def _set_pins(self, pins: tuple[Run, ...], sources: tuple[Run, ...]) -> None:
        if pins == self._pins:
            return
        dropped = any(all(pin is not kept for kept in pins) for pin in self._pins)
        self._pins, self._pin_sources = pins, sources
        self.pins_changed.emit(pins)
        if self._run is not None:
            self._shown = compose(self._run, pins)
            self.shown_changed.emit(self._shown)
        if dropped:
            self._release_when_idle()

    # -- little helpers ---------------------------------------------------------------------

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    def _set_error(self, message: str) -> None:
        if message != self._error:
            self._error = message
            self.error_changed.emit(message)

    def shutdown(self) -> None:
        """Drop every pending job and accept no more (no thread is joined)."""
        self._token += 1
        self._pin_token += 1
        self._runner.shutdown()
        self._pin_runner.shutdown()


def _finish(job: Any) -> Any:
    """Run a job generator to its end on this thread."""
    finished, value = run_job(lambda: job, lambda: False)
    assert finished
    return value
