"""External runs: a run the app shows that did not come from the form (a measured GPU run
now, an imported profile trace next), and what the form's runs were before it came.

The app model (`gui.app_model.AppModel.show_external` / `back_to_scenario`) holds one
`ExternalMode`; while it is active the form and the ops table are read-only, a banner
(`gui.external_banner.ExternalBanner`) says what is shown and offers the way back, and the
window's title names the shown run. Nothing here draws or computes.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.schedule import Schedule
from gui.runs import Run


@dataclass(frozen=True, eq=False)
class ExternalRun:
    """What an external run is: its Schedules, a short ``title`` (the heading and the
    window's title) and a ``description``, one sentence that says what is shown ("Showing
    the measured run: 16 chunks on CPU threads, pipelined in 12.3 ms")."""

    schedules: tuple[Schedule, ...]
    title: str
    description: str


class ExternalMode:
    """Whether an external run is shown, and the scenario's run to go back to.

    The first `enter` keeps the run the form's scenario gave; a second external run
    replaces the first without forgetting it; `leave` hands it back once."""

    def __init__(self) -> None:
        self._shown: ExternalRun | None = None
        self._scenario_run: Run | None = None

    @property
    def shown(self) -> ExternalRun | None:
        """The external run on screen, or None (the scenario's runs are)."""
        return self._shown

    @property
    def active(self) -> bool:
        return self._shown is not None

    def enter(self, external: ExternalRun, scenario_run: Run | None) -> None:
        """``external`` is shown now; ``scenario_run`` is what the form's scenario showed
        (kept only on the way in: a measured run is never the way back)."""
        if self._shown is None:
            self._scenario_run = scenario_run
        self._shown = external

    def leave(self) -> Run | None:
        """Back to the scenario: the run it showed before (None when there was none)."""
        run, self._shown, self._scenario_run = self._scenario_run, None, None
        return run
