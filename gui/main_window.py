"""The main window: it builds the views and docks, wires them to the app model
(`gui.app_model.AppModel`, which holds every piece of state) and keeps the menus.

Three tabs: Pipeline (the scenario's runs, with the Scenario, Stats and help docks), Warps
(latency hiding in one SM) and GPU (measured runs beside the model). The Warps view and the
GPU page are built when first opened (the GPU page's detection may import CuPy, which
start-up must not). Each tab owns its clock (its own "now", in its own unit: seconds,
cycles, milliseconds); the transport bar and the transport keys drive the open tab's, and
the docks are the Pipeline tab's own: other tabs hide them and give them back as they were.

The window opens at most at the available screen size (`gui.window_geometry`), keyboard
focus follows `gui.keys`, and anything that has Schedules to show can call
`show_schedules`. Menus and their actions live in one place: `_build_menus`.
"""

from __future__ import annotations

import itertools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QMimeData, Qt
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QStatusBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.derived import Derived
from engine.base.errors import PipeLabError
from engine.model.scenario import Scenario, load_preset
from engine.model.schedule import Schedule
from engine.model.shape_file import ShapedScenario
from gui import theme as themes
from gui.app_model import AppModel, ScenarioChange, ShapeChange
from gui.clock import Clock
from gui.elided_label import window_title
from gui.errors import one_line, warn
from gui.export_formats import WARPS_FORMATS, file_filters, format_of
from gui.external_banner import ExternalBanner
from gui.external_run import ExternalRun
from gui.help import MODEL_ACTION, HelpText, show_model
from gui.icons import raw_icon
from gui.keys import KeyRouter, transport_actions
from gui.run_heading import RunHeading, figure_title
from gui.runs import VIEW_MODES
from gui.scenario_edits import load_for_app
from gui.scenario_panel import ScenarioPanel
from gui.schedule_view import ScheduleView
from gui.settings import settings
from gui.shape_edits import ShapeEdit
from gui.stats_panel import StatsPanel
from gui.timeline import add_rows_menu, check_rows_action
from gui.transport import TransportBar
from gui.window_docks import DOCK_TITLE, STACKED_DOCKS_SPARE, arrange_docks, tabify_if_stacked
from gui.window_geometry import place, refit, sized_by_open_tab

if TYPE_CHECKING:
    from gui.export_dialog import ExportDialog
    from gui.gpu_panel import GpuPanel
    from gui.warps_view import WarpsView

__all__ = ["GPU_TAB", "PIPELINE_TAB", "WARPS_TAB", "MainWindow"]

log = logging.getLogger(__name__)

WARPS_EXPORT_FILTERS = file_filters(WARPS_FORMATS)
PIPELINE_TAB, WARPS_TAB, GPU_TAB = 0, 1, 2
#: Scenarios with per-op durations are remembered across sessions up to this many ops
#: (a million ops would be tens of MB of TOML in the settings file).
REMEMBERED_OPS = 10_000


def _scroll(widget: QWidget) -> QScrollArea:
    """``widget`` in a scroll area: its dock may then be shorter than the widget (it
    scrolls); text wraps to the dock's width."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a click on a button keeps the focus put
    area.setWidget(widget)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


class MainWindow(QMainWindow):
    """PipeLab's window. ``clock`` may be injected (tests pass one with a fake timer), and
    so may ``model`` (tests pass one whose worker they drive)."""

    def __init__(
        self,
        scenario: Scenario | None = None,
        preset: str = "book",
        clock: Clock | None = None,
        model: AppModel | None = None,
    ) -> None:
        super().__init__()
        self.setWindowIcon(raw_icon("app"))
        self.clock = clock if clock is not None else Clock(self)  # the Pipeline tab's
        if self.clock.parent() is None:
            self.clock.setParent(self)
        self.warps_clock = Clock(self)
        self.warps_clock.set_time_unit("cycles")
        self.gpu_clock = Clock(self)
        self.gpu_clock.set_time_unit("ms")
        self._tab = PIPELINE_TAB
        self._pipeline_state: QByteArray | None = None  # its docks, while another tab shows
        self._status: QStatusBar | None = None
        self._theme_choice = "system"
        self.theme = themes.resolve("system")
        if model is None:
            chosen = scenario if scenario is not None else load_preset(preset or "book")
            mode = str(settings().value("view/mode", "both"))
            model = AppModel(
                chosen,
                preset if scenario is None else "",
                view_mode=mode if mode in VIEW_MODES else "both",
            )
        if model.parent() is None:
            model.setParent(self)
        self.model = model
        self._panels: list[QDockWidget] = []
        self._build_central()
        self._build_docks()
        self._build_menus()
        self.keys = KeyRouter(self._focus_home, self)
        for root in (self.tabs.tabBar(), self.transport, self.scenario_panel):
            self.keys.watch(root)
        self._set_tab_order()
        self.view.timeline.setFocus()  # not the tab bar: its arrows would switch tabs
        self._wire()
        self._restore_settings()
        self.scenario_panel.show_scenario(model.scenario, model.preset, model.view_mode)
        self._on_scenario(ScenarioChange(model.scenario, model.preset, frozenset({"all"})))
        model.start()
        self._restore_docks()

    # -- building ---------------------------------------------------------------------------

    def _build_central(self) -> None:
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.tabs = QTabWidget(central)
        self.tabs.setDocumentMode(True)
        pipeline = QWidget(self.tabs)
        pipeline_layout = QVBoxLayout(pipeline)
        pipeline_layout.setContentsMargins(0, 0, 0, 0)
        pipeline_layout.setSpacing(0)
        self.heading = RunHeading(pipeline)
        pipeline_layout.addWidget(self.heading)
        # (the heading's labels, for tests and the export's title)
        self.title, self.busy = self.heading.title, self.heading.busy
        self.comparison = self.heading.comparison
        self.view = ScheduleView(self.clock, self.theme, pipeline)
        pipeline_layout.addWidget(self.view, 1)
        self.tabs.addTab(pipeline, "Pipeline")
        # The Warps view and the GPU page are built when their tab is first opened.
        self._warps_holder = QWidget(self.tabs)
        QVBoxLayout(self._warps_holder).setContentsMargins(0, 0, 0, 0)
        self.warps_view: WarpsView | None = None
        self.tabs.addTab(self._warps_holder, "Warps: latency hiding")
        self.tabs.setTabToolTip(
            WARPS_TAB, "How one SM hides memory latency by switching between warps (Ctrl+2)"
        )
        self._gpu_holder = QWidget(self.tabs)
        QVBoxLayout(self._gpu_holder).setContentsMargins(0, 0, 0, 0)
        self.gpu_panel: GpuPanel | None = None
        self.tabs.addTab(self._gpu_holder, "GPU: measure real pipelines")
        self.tabs.setTabToolTip(
            GPU_TAB,
            "Run the pipeline for real (CuPy on a GPU, or CPU threads) and draw the measured "
            "runs beside the model (Ctrl+3)",
        )
        self.tabs.setTabToolTip(PIPELINE_TAB, "The scenario's runs, animated (Ctrl+1)")
        self.tabs.currentChanged.connect(self._on_tab)
        sized_by_open_tab(self.tabs)  # the window shrinks to what the open tab needs
        layout.addWidget(self.tabs, 1)
        self.transport = TransportBar(self.clock, central)
        layout.addWidget(self.transport)
        self.setCentralWidget(central)
        self.view.timeline.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def _build_docks(self) -> None:
        self.scenario_panel = ScenarioPanel()
        self.stats = StatsPanel(self.theme)
        self.help_text = HelpText()
        form = _scroll(self.scenario_panel)
        # As wide as the form needs (a narrower dock would clip it), never much more.
        bar = form.verticalScrollBar().sizeHint().width()
        form.setMinimumWidth(self.scenario_panel.minimumSizeHint().width() + bar)
        # The banner sits above the form, outside its scroll area: always in view.
        self.external_banner = ExternalBanner()
        scenario_page = QWidget()
        scenario_layout = QVBoxLayout(scenario_page)
        scenario_layout.setContentsMargins(4, 4, 4, 0)
        scenario_layout.setSpacing(4)
        scenario_layout.addWidget(self.external_banner)
        scenario_layout.addWidget(form, 1)
        self.scenario_dock = self._dock("Scenario", scenario_page, "scenario")
        self.stats_dock = self._dock("Stats", _scroll(self.stats), "stats")
        self.help_dock = self._dock("What am I looking at?", _scroll(self.help_text), "help")
        self.help_dock.visibilityChanged.connect(self.help_text.fill)
        self.pipeline_docks: tuple[QDockWidget, ...] = (
            self.scenario_dock,
            self.stats_dock,
            self.help_dock,
        )
        for dock in self.pipeline_docks:
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)

    def arrange_docks(self, height: int | None = None) -> None:
        """The Pipeline tab's default docks for a window ``height`` pixels tall (the current
        height when None): see `gui.window_docks.arrange_docks`."""
        scenario, stats, help_ = self.pipeline_docks[:3]
        arrange_docks(
            self,
            (scenario, stats, help_),
            self.height() if height is None else height,
            self.form_height(),
            self.stacked_height(),
        )

    def form_height(self) -> int:
        """The height the Scenario dock takes to show its whole form (with its title)."""
        return self.scenario_panel.sizeHint().height() + DOCK_TITLE

    def stacked_height(self) -> int:
        """The least window height at which the whole form and the stats fit one above
        the other (with the menu bar and the docks' titles)."""
        stats = self.stats.sizeHint().height() + DOCK_TITLE
        return self.form_height() + stats + STACKED_DOCKS_SPARE

    def _wire(self) -> None:
        """Views report to the model; the model's signals update the views."""
        model, panel = self.model, self.scenario_panel
        panel.edited.connect(model.edit)
        panel.ops_edited.connect(model.set_durations)
        panel.alike_requested.connect(model.make_alike)
        panel.preset_chosen.connect(model.choose_preset)
        panel.view_chosen.connect(model.set_view_mode)
        panel.pin_requested.connect(model.pin)
        panel.unpin_requested.connect(model.unpin)
        panel.shape_edited.connect(model.edit_shape)
        model.shape_changed.connect(panel.show_shape)
        model.shape_changed.connect(self._on_shape)
        model.scenario_changed.connect(panel.show_change)
        model.scenario_changed.connect(self._on_scenario)
        model.view_mode_changed.connect(panel.show_view_mode)
        self.view.timeline.set_rows(model.rows)
        model.rows_changed.connect(self._on_rows)
        model.with_assembly_changed.connect(self._with_assembly.setChecked)
        self._with_assembly.toggled.connect(model.set_with_assembly)
        model.edit_rejected.connect(panel.restore_field)
        model.error_changed.connect(panel.show_message)
        model.pins_changed.connect(panel.show_pins)
        model.pins_changed.connect(lambda pins: self._unpin_action.setEnabled(bool(pins)))
        model.shown_changed.connect(self.view.show_run)
        model.shown_changed.connect(self.stats.show_run)
        model.shown_changed.connect(self.heading.show_run)
        model.busy_changed.connect(self.heading.set_busy)
        model.busy_changed.connect(self.view.set_busy)
        model.external_changed.connect(self._on_external)
        model.external_failed.connect(lambda message: warn(self, "Cannot open profile", message))
        self.setAcceptDrops(True)  # a scenario or a profile dropped on the window opens
        self.external_banner.back_requested.connect(lambda: self.model.back_to_scenario())

    # -- public API -------------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        return self.model.scenario

    @property
    def preset_name(self) -> str:
        return self.model.preset

    @property
    def view_mode(self) -> str:
        return self.model.view_mode

    @property
    def schedules(self) -> list[Schedule]:
        """The Schedules shown (the model's): pinned runs first, then the current run."""
        shown = self.model.shown
        return list(shown.schedules) if shown is not None else []

    @property
    def active_clock(self) -> Clock:
        """The open tab's clock: what the transport bar and the transport keys drive."""
        return self.clock_of(self.tabs.currentIndex())

    def clock_of(self, tab: int) -> Clock:
        """Tab ``tab``'s own clock (each tab keeps its own time, in its own unit)."""
        return (self.clock, self.warps_clock, self.gpu_clock)[tab]

    def show_schedules(self, schedules: list[Schedule], title: str, description: str = "") -> None:
        """Show any Schedules that did not come from the form (a measured run, an imported
        profile) on the Pipeline tab (opened), with ``title`` above and ``description``
        in the banner over the read-only form (`AppModel.show_external`)."""
        self.model.show_external(schedules, title, description)
        self.tabs.setCurrentIndex(PIPELINE_TAB)
        self.scenario_dock.show()  # its banner says what is shown and the way back
        self.scenario_dock.raise_()

    def add_panel(self, widget: QWidget, title: str) -> QDockWidget:
        """Dock ``widget`` at the bottom of the Pipeline tab (tabbed with other added
        panels) and return its dock."""
        dock = self._dock(title, widget, f"panel-{title.lower().replace(' ', '-')}")
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        if self._panels:
            self.tabifyDockWidget(self._panels[-1], dock)
        self._panels.append(dock)
        self.pipeline_docks = (*self.pipeline_docks, dock)
        self._view_menu.addAction(dock.toggleViewAction())
        dock.raise_()
        return dock

    # The methods below act at once, whatever the run's size (scripts and tests call them);
    # the form's edits go through the model's worker instead (see AppModel).

    def apply_scenario(self, scenario: Scenario, preset: str = "") -> bool:
        """Simulate ``scenario`` for the current view and show it; on bad input show the
        message, keep everything as it was and return False."""
        return self.model.set_scenario(scenario, preset, wait=True)

    def edit(self, field: str, value: object) -> bool:
        """Apply one form edit (ops, read, compute, write, buffers, <unit>_workers)."""
        return self.model.edit(field, value, wait=True)

    def edit_shape(self, edit: ShapeEdit) -> bool:
        """Apply one edit of the shape editor (a pipeline shape is the scenario)."""
        return self.model.edit_shape(edit, wait=True)

    def choose_preset(self, name: str) -> bool:
        return self.model.choose_preset(name, wait=True)

    def set_view_mode(self, mode: str) -> None:
        self.model.set_view_mode(mode, wait=True)

    def pin(self) -> bool:
        return self.model.pin(wait=True)

    def unpin(self) -> None:
        self.model.unpin()

    def open_file(self, path: str | Path, wait: bool = True) -> bool:
        """Open a scenario or a recorded profile, told by the file's content (File → Open,
        a dropped file); a bad file shows its one line and keeps what is shown."""
        from gpu.profile import looks_like_profile

        if looks_like_profile(path):
            return self.open_profile_file(path, wait)
        return self.open_scenario_file(path, wait)

    def open_profile_file(self, path: str | Path, wait: bool = True) -> bool:
        """Show a recorded GPU profile (`gui.profile_open`): read on the model's worker
        thread unless ``wait``; a bad file: a dialog with its one line. Returns False when
        ``wait`` and it could not be opened."""
        from gui.profile_open import profile_run

        self.model.open_external(lambda: profile_run(path), wait=wait)
        self.tabs.setCurrentIndex(PIPELINE_TAB)
        return not wait or self.model.external is not None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if _dropped_file(event.mimeData()) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        path = _dropped_file(event.mimeData())
        if path is not None:
            event.acceptProposedAction()
            self.open_file(path, wait=False)

    def open_scenario_file(self, path: str | Path, wait: bool = True) -> bool:
        """Load a scenario file; any bad file shows its one-line message in a dialog and
        keeps the current run."""
        try:
            scenario = load_for_app(path)
        except Exception as error:  # bad TOML, too deep, a folder, binary junk, no access…
            if not isinstance(error, PipeLabError | RecursionError | MemoryError | OSError):
                log.exception("opening %s failed", path)
            message = one_line(error)
            if isinstance(error, RecursionError):
                message = f"{path}: nested too deeply to be a scenario file"
            warn(self, "Cannot open scenario", message)
            return False
        if isinstance(scenario, ShapedScenario):
            opened = self.model.open_shape(scenario, wait=wait)
        else:
            opened = self.model.set_scenario(scenario, "", wait=wait)
        if not opened:
            warn(self, "Cannot open scenario", self.model.error)
        return opened

    def save_scenario_file(self, path: str | Path) -> bool:
        """Write the current scenario (book-shaped, or the pipeline shape being edited) as
        TOML; a failure says why in a dialog."""
        try:
            if self.model.shape is not None:
                from gui.shape_edits import save_shape

                save_shape(self.model.shape, path)
            else:
                self.model.scenario.save(path)
        except (PipeLabError, OSError) as error:
            warn(self, "Cannot save scenario", str(error))
            return False
        return True

    def export_to(
        self,
        path: str | Path,
        width: int = 1600,
        with_assembly: bool | None = None,
        **options: object,
    ) -> bool:
        """Export what is shown (the model's pinned and current runs, its rows and whether
        images include the assembly line, unless told; format from the suffix;
        ``options``: see `gui.export.export`); errors show a dialog."""
        from gui.export import export  # PIL, QtSvg generators, PDF: only when exporting

        if self.tabs.currentIndex() == WARPS_TAB and self.warps_view is not None:
            try:
                self.warps_view.export(path, width)
            except PipeLabError as error:
                warn(self, "Cannot export", str(error))
                return False
            return True
        if with_assembly is None:
            with_assembly = self.model.with_assembly
        schedules, title, run_titles, _, derived = self._exported()
        options.setdefault("rows", self._exported_rows())
        form = format_of(path)  # (None: `export` refuses the suffix)
        try:
            export(
                schedules,
                path,
                width=width if form is not None and form.raster else None,
                with_assembly=with_assembly and (form is None or form.assembly),
                title=title,
                run_titles=run_titles,
                derived=derived,
                **options,  # type: ignore[arg-type]
            )
        except PipeLabError as error:
            warn(self, "Cannot export", str(error))
            return False
        return True

    def _exported(
        self,
    ) -> tuple[list[Schedule], str, tuple[str, ...], float, list[Derived] | None]:
        """What an export of the open tab draws: its Schedules, title, runs' headings,
        time and each Schedule's `Derived` (the GPU tab's measured runs once there are
        some, with none: the export makes them; else the Pipeline tab's, its runs')."""
        panel = self.gpu_panel
        if self._exports_measured() and panel is not None:
            return panel.schedules, panel.title, (), self.gpu_clock.time, None
        shown = self.model.shown
        titles = shown.titles if shown is not None else ()
        derived = list(shown.derived) if shown is not None else None
        return self.schedules, self._figure_title(), titles, self.clock.time, derived

    def _exported_rows(self) -> str:
        """The rows an export draws unless told: the model's (the GPU tab's measured runs:
        one per worker)."""
        return "workers" if self._exports_measured() else self.model.rows

    def _exports_measured(self) -> bool:
        panel = self.gpu_panel
        return self.tabs.currentIndex() == GPU_TAB and panel is not None and bool(panel.schedules)

    def _figure_title(self) -> str:
        return figure_title(self.model.shown)

    def show_error(self, message: str) -> None:
        """Show a one-line message (the excepthook's target): under the form, and on other
        tabs (where the form is hidden) in the status bar too."""
        self.scenario_panel.show_message(message)
        if self.tabs.currentIndex() != PIPELINE_TAB:
            if self._status is None:  # made on first use: it takes a line of height
                self._status = self.statusBar()
                status = self._status
                status.messageChanged.connect(lambda text: status.setVisible(bool(text)))
            self._status.showMessage(message, 20_000)
            self._status.show()
        elif not self.scenario_dock.isVisible():
            self.scenario_dock.show()
            self.scenario_dock.raise_()

    def set_theme(self, choice: str) -> None:
        """ "light", "dark", or "system" (follows the desktop, also when it changes)."""
        self._theme_choice = choice
        self.theme = themes.resolve(choice)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            themes.apply(app, self.theme)
        self.view.set_theme(self.theme)
        self.stats.set_theme(self.theme)
        self.transport.set_icon_colour(self.theme.colour("text"))
        if self.warps_view is not None:
            self.warps_view.set_theme(self.theme)
        if self.gpu_panel is not None:
            self.gpu_panel.set_theme(self.theme)
        for action in self._theme_actions.actions():
            action.setChecked(action.data() == choice)

    # -- the model's news ---------------------------------------------------------------------

    def _on_scenario(self, change: ScenarioChange) -> None:
        if self.model.external is None:
            self.setWindowTitle(window_title(change.scenario.name))

    def _on_shape(self, change: ShapeChange) -> None:
        if self.model.external is None and change.shape is not None:
            self.setWindowTitle(window_title(change.shape.name))

    def _on_rows(self, rows: str) -> None:
        """The model's Gantt rows: the timeline draws them, the menu says them."""
        self.view.timeline.set_rows(rows)
        check_rows_action(self._rows_actions, rows)

    def _on_external(self, external: ExternalRun | None) -> None:
        """An external run shown: the form is read-only (disabled, not hidden: it still
        says what the way back leads to), the banner says what is shown, the title names
        it. None: the form's scenario again."""
        self.external_banner.show_external(external)
        self.scenario_panel.setEnabled(external is None)
        current = self.model.shape or self.model.scenario
        name = external.title if external is not None else current.name
        self.setWindowTitle(window_title(name))

    # -- menus ------------------------------------------------------------------------------

    def _dock(self, title: str, widget: QWidget, name: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        return dock

    def _action(
        self,
        text: str,
        slot: Any,
        shortcut: str | QKeySequence | QKeySequence.StandardKey | None = None,
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def _build_menus(self) -> None:
        """Every menu and window-wide shortcut, in menu-bar order."""
        bar = self.menuBar()
        self._build_file_menu(bar.addMenu("&File"))
        self._view_menu = bar.addMenu("&View")
        self._build_view_menu(self._view_menu)
        self._build_run_menu(bar.addMenu("&Run"))
        self._build_help_menu(bar.addMenu("&Help"))
        self._build_clock_shortcuts()
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)

    def _build_file_menu(self, menu: QMenu) -> None:
        menu.addAction(
            self._action(
                "&Open scenario or profile…", self._open_dialog, QKeySequence.StandardKey.Open
            )
        )
        menu.addAction(
            self._action("&Save scenario as…", self._save_dialog, QKeySequence.StandardKey.Save)
        )
        menu.addSeparator()
        menu.addAction(self._action("&Export…", self._export_dialog, "Ctrl+E"))
        self._with_assembly = QAction("Include the assembly line in image exports", self)
        self._with_assembly.setCheckable(True)
        self._with_assembly.setChecked(self.model.with_assembly)  # (then bound: `_wire`)
        menu.addAction(self._with_assembly)
        menu.addSeparator()
        quit_action = self._action("&Quit", self.close)
        keys = [*QKeySequence.keyBindings(QKeySequence.StandardKey.Quit), QKeySequence("Ctrl+Q")]
        quit_action.setShortcuts(list(dict.fromkeys(keys)))  # Ctrl+Q where the platform has none
        quit_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        menu.addAction(quit_action)

    def _build_view_menu(self, menu: QMenu) -> None:
        theme_menu = menu.addMenu("&Theme")
        self._theme_actions = QActionGroup(self)
        for choice in themes.CHOICES:
            action = QAction(choice.capitalize(), self, checkable=True)
            action.setData(choice)
            action.triggered.connect(lambda _=False, c=choice: self.set_theme(c))
            self._theme_actions.addAction(action)
            theme_menu.addAction(action)
        menu.addAction(self._action("&Reset zoom", self.view.timeline.reset_view, "Ctrl+0"))
        self._rows_actions = add_rows_menu(menu, self.model)
        menu.addSeparator()
        for index, name in ((PIPELINE_TAB, "&Pipeline"), (WARPS_TAB, "&Warps"), (GPU_TAB, "&GPU")):
            menu.addAction(
                self._action(
                    f"{name} tab",
                    lambda _=False, i=index: self.tabs.setCurrentIndex(i),
                    f"Ctrl+{index + 1}",
                )
            )
        menu.addSeparator()
        for dock in self.pipeline_docks:
            menu.addAction(dock.toggleViewAction())

    def _build_run_menu(self, menu: QMenu) -> None:
        menu.addAction(self._action("&Pin this run", lambda: self.model.pin()))
        self._unpin_action = self._action("&Unpin", lambda: self.model.unpin())
        self._unpin_action.setEnabled(False)
        menu.addAction(self._unpin_action)

    def _build_help_menu(self, menu: QMenu) -> None:
        menu.addAction(self._action("&What am I looking at?", self._show_help, "F1"))
        menu.addAction(self._action(MODEL_ACTION, lambda: show_model(self)))
        menu.addAction(self._action("&About PipeLab", self._about))

    def _build_clock_shortcuts(self) -> None:
        """The transport keys, application-wide, on the open tab's clock (`gui.keys`)."""
        transport_actions(self, lambda: self.active_clock)

    def _on_system_scheme(self) -> None:
        if self._theme_choice == "system":
            self.set_theme("system")

    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a scenario or a profile",
            "",
            "Scenarios and profiles (*.toml *.json *.gz *.sqlite *.csv);;Scenario (*.toml);;"
            "Profile (*.json *.json.gz *.sqlite *.sqlite.gz *.csv);;All files (*)",
        )
        if path:
            self.open_file(path, wait=False)

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save scenario", "scenario.toml", "Scenario (*.toml)"
        )
        if path:
            self.save_scenario_file(path)

    def export_dialog(self) -> ExportDialog:
        """File → Export's dialog for what the Pipeline or GPU tab shows (not yet open)."""
        from gui.export_dialog import ExportDialog

        schedules, title, run_titles, time, derived = self._exported()
        return ExportDialog(
            schedules,
            title,
            time,
            self._exported_rows(),
            self.model.with_assembly,
            self,
            run_titles=run_titles,
            derived=derived,
        )

    def _export_dialog(self) -> None:
        if self.tabs.currentIndex() != WARPS_TAB:
            self.export_dialog().exec()
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export", "warps.png", WARPS_EXPORT_FILTERS)
        if path and self.export_to(path):
            from gui.export_notice import confirm_written

            confirm_written(self, path)

    # -- the tabs ----------------------------------------------------------------------------

    def show_warps(self) -> WarpsView:
        """Switch to the Warps tab (building the view the first time) and return it."""
        self.tabs.setCurrentIndex(WARPS_TAB)
        assert self.warps_view is not None
        return self.warps_view

    def show_gpu(self) -> GpuPanel:
        """Switch to the GPU tab (building the page the first time) and return it."""
        self.tabs.setCurrentIndex(GPU_TAB)
        assert self.gpu_panel is not None
        return self.gpu_panel

    def _on_tab(self, index: int) -> None:
        """The open tab's clock gets the transport and the keys (the one left pauses and
        keeps its time); the Pipeline tab's docks show only on the Pipeline tab."""
        previous, self._tab = self._tab, index
        if previous == index:
            return
        self.clock_of(previous).pause()
        if previous == PIPELINE_TAB:
            self._pipeline_state = self.saveState()
        if index == WARPS_TAB and self.warps_view is None:
            self._build_warps()
        if index == GPU_TAB and self.gpu_panel is None:
            self._build_gpu()
        if index == PIPELINE_TAB:
            if self._pipeline_state is not None:
                self.restoreState(self._pipeline_state)
        else:
            for dock in self.pipeline_docks:
                dock.hide()
        for dock in self.pipeline_docks:
            dock.toggleViewAction().setEnabled(index == PIPELINE_TAB)
        self.transport.set_clock(self.clock_of(index))
        if QApplication.focusWidget() is not self.tabs.tabBar():  # (arrows there go on)
            self.keys.leave()  # the new tab's view gets the focus: the keys work at once

    def _build_warps(self) -> None:
        from gui.warps_view import WarpsView

        view = WarpsView(self.warps_clock, self._warps_holder)
        view.set_theme(self.theme)
        layout = self._warps_holder.layout()
        assert layout is not None
        layout.addWidget(view)
        view.activate()  # loads its run into its clock
        self.keys.watch(view)
        self.warps_view = view

    def _build_gpu(self) -> None:
        from gui.gpu_panel import GpuPanel

        panel = GpuPanel(parent=self._gpu_holder, clock=self.gpu_clock, theme=self.theme)
        panel.animate_requested.connect(self._animate_measured)
        panel.occupancy_ready.connect(lambda sweep: self.show_warps().show_measured(sweep))
        layout = self._gpu_holder.layout()
        assert layout is not None
        layout.addWidget(panel)
        self.keys.watch(panel)
        self.gpu_panel = panel

    def _focus_home(self) -> QWidget | None:
        """Where Enter or Escape in a field sends the focus: the open tab's main view."""
        index = self.tabs.currentIndex()
        if index == WARPS_TAB and self.warps_view is not None:
            return self.warps_view.lanes
        if index == GPU_TAB and self.gpu_panel is not None:
            return self.gpu_panel.results.home()
        return self.view.timeline

    def _set_tab_order(self) -> None:
        """Tab goes: the tabs, the Gantt, the transport, then the scenario form in order."""
        chain: list[QWidget] = [self.tabs.tabBar(), self.view.timeline]
        chain += [*self.transport.buttons.values(), self.transport.speed, self.transport.slider]
        chain += self.scenario_panel.tab_chain()
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    def _animate_measured(self, external: ExternalRun) -> None:
        """Measured runs in the assembly line, on the Pipeline tab, from the start."""
        self.show_schedules(list(external.schedules), external.title, external.description)
        self.clock.to_start()
        self.clock.play()

    def _show_help(self) -> None:
        """F1: the help dock, on any tab."""
        self.help_dock.toggleViewAction().setEnabled(True)
        self.help_dock.show()
        self.help_dock.raise_()

    def _about(self) -> None:
        from gui.about import about_text  # (PySide6's, numpy's… versions: when asked)

        QMessageBox.about(self, "About PipeLab", about_text())

    # -- settings -----------------------------------------------------------------------

    def _restore_settings(self) -> None:
        store = settings()
        place(self, store.value("window/geometry"))  # fitted to this screen
        splitter = store.value("window/splitter")
        if isinstance(splitter, QByteArray):
            self.view.restore_split(splitter)
        self.model.set_with_assembly(store.value("export/with_assembly", "false") == "true")
        choice = str(store.value("view/theme", "system"))
        self.set_theme(choice if choice in themes.CHOICES else "system")

    def _restore_docks(self) -> None:
        """The docks as saved, else as `arrange_docks` puts them for this height (called
        once the first run is shown: the stats' height is known then). Docks saved one
        above the other on a taller screen become tabs when this window is too short for
        that; the window is then fitted to the screen again (the Gantt's rows have raised
        its minimum size)."""
        state = settings().value("window/state")
        if not (isinstance(state, QByteArray) and self.restoreState(state)):
            self.arrange_docks(self.height())
        else:
            scenario, stats, help_ = self.pipeline_docks[:3]
            tabify_if_stacked(self, (scenario, stats, help_), self.height(), self.stacked_height())
        refit(self)

    def save_settings(self) -> None:
        store = settings()
        store.setValue("window/geometry", self.saveGeometry())
        state = self._pipeline_state  # the docks as the Pipeline tab shows them
        if self.tabs.currentIndex() == PIPELINE_TAB or state is None:
            state = self.saveState()
        store.setValue("window/state", state)
        store.setValue("window/splitter", self.view.splitter.saveState())
        store.setValue("view/theme", self._theme_choice)
        store.setValue("view/mode", self.model.view_mode)
        store.setValue("export/with_assembly", "true" if self.model.with_assembly else "false")
        scenario, shape = self.model.scenario, self.model.shape
        if scenario.uniform or scenario.n_ops <= REMEMBERED_OPS:
            store.setValue("scenario/toml", scenario.to_toml())
            # (the book-shaped scenario under a shape being edited: the app starts on it,
            # and the shape's preset name is not its)
            preset = self.model.preset if shape is None else ""
            store.setValue("scenario/preset", preset)
        else:
            store.remove("scenario/toml")  # too big to keep: the book example next time
            store.remove("scenario/preset")
        # A shape being edited: the next start opens it again (its preset's name with it).
        if shape is not None and shape.n_ops <= REMEMBERED_OPS:
            store.setValue("scenario/shape", shape.to_toml())
            store.setValue("scenario/shape_preset", self.model.preset)
        else:
            store.remove("scenario/shape")
            store.remove("scenario/shape_preset")
        store.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        for clock in (self.clock, self.warps_clock, self.gpu_clock):
            clock.pause()
        self.model.shutdown()
        if self.gpu_panel is not None:
            self.gpu_panel.shutdown()
        self.save_settings()
        super().closeEvent(event)


def _dropped_file(data: QMimeData) -> str | None:
    """The one local file a drag carries, else None (several files, a web page, text)."""
    urls = data.urls() if data.hasUrls() else []
    if len(urls) != 1 or not urls[0].isLocalFile():
        return None
    return urls[0].toLocalFile()
