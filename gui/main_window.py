"""The main window: it builds the views and docks, wires them to the app model
(`gui.app_model.AppModel`, which holds every piece of state) and keeps the menus. The Warps
view is a second tab on the same clock; the GPU panel is a dock built the first time it is
shown (detection may import CuPy, which start-up must not). Anything that has Schedules to
show can call `show_schedules`.

Menus and their actions live in one place: `_build_menus`, one method per menu.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.errors import PipeLabError
from engine.scenario import Scenario, load_preset
from engine.schedule import Schedule
from gui import theme as themes
from gui.about import about_text
from gui.app_model import GUI_MAX_OPS, AppModel, ScenarioChange
from gui.clock import Clock
from gui.errors import one_line
from gui.help import HELP_TEXT
from gui.icons import raw_icon
from gui.runs import VIEW_MODES, Shown
from gui.scenario_panel import ScenarioPanel
from gui.schedule_view import ScheduleView
from gui.settings import settings
from gui.stats_panel import StatsPanel
from gui.timeline import add_rows_menu
from gui.transport import TransportBar

if TYPE_CHECKING:
    from gui.gpu_panel import GpuPanel
    from gui.warps_view import WarpsView

__all__ = ["GUI_MAX_OPS", "PIPELINE_TAB", "WARPS_TAB", "MainWindow"]

log = logging.getLogger(__name__)

EXPORT_FILTERS = (
    "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf);;"
    "Animated GIF (*.gif);;Chrome trace JSON (*.json)"
)
WARPS_EXPORT_FILTERS = "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"
PIPELINE_TAB, WARPS_TAB = 0, 1
#: Scenarios with per-op durations are remembered across sessions up to this many ops
#: (a million ops would be tens of MB of TOML in the settings file).
REMEMBERED_OPS = 10_000


def _scroll(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # text wraps
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
        self.clock = clock if clock is not None else Clock(self)
        if self.clock.parent() is None:
            self.clock.setParent(self)
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
        self.gpu_dock = self.add_panel(QLabel("Loading…"), "GPU: measure real pipelines")
        self.gpu_dock.setObjectName("panel-gpu")
        self.gpu_dock.visibilityChanged.connect(self._on_gpu_dock_visible)
        self.gpu_dock.hide()
        self._wire()
        self._restore_settings()
        self.scenario_panel.show_scenario(model.scenario, model.preset, model.view_mode)
        self._on_scenario(ScenarioChange(model.scenario, model.preset, frozenset({"all"})))
        model.start()

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
        heading = QHBoxLayout()
        heading.setContentsMargins(0, 0, 12, 0)
        self.title = QLabel(pipeline)
        self.title.setObjectName("title")
        heading.addWidget(self.title, 1)
        self.busy = QLabel("updating…", pipeline)
        self.busy.setObjectName("description")
        self.busy.setToolTip("The new run is being computed; the last one stays shown")
        self.busy.hide()
        heading.addWidget(self.busy)
        pipeline_layout.addLayout(heading)
        self.comparison = QLabel(pipeline)
        self.comparison.setObjectName("description")
        self.comparison.setContentsMargins(12, 0, 12, 4)
        self.comparison.setWordWrap(True)
        self.comparison.hide()
        pipeline_layout.addWidget(self.comparison)
        self.view = ScheduleView(self.clock, self.theme, pipeline)
        pipeline_layout.addWidget(self.view, 1)
        self.tabs.addTab(pipeline, "Pipeline")
        # The Warps view is built when its tab is first opened (it keeps start-up light).
        self._warps_holder = QWidget(self.tabs)
        QVBoxLayout(self._warps_holder).setContentsMargins(0, 0, 0, 0)
        self.warps_view: WarpsView | None = None
        self.tabs.addTab(self._warps_holder, "Warps: latency hiding")
        self.tabs.setTabToolTip(
            WARPS_TAB, "How one SM hides memory latency by switching between warps"
        )
        self.tabs.currentChanged.connect(self._on_tab)
        layout.addWidget(self.tabs, 1)
        self.transport = TransportBar(self.clock, central)
        layout.addWidget(self.transport)
        self.setCentralWidget(central)
        self.gpu_panel: GpuPanel | None = None

    def _build_docks(self) -> None:
        self.scenario_panel = ScenarioPanel()
        self.stats = StatsPanel(self.theme)
        help_label = QLabel(HELP_TEXT)
        help_label.setWordWrap(True)
        help_label.setTextFormat(Qt.TextFormat.RichText)
        help_label.setContentsMargins(10, 8, 10, 8)
        help_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.scenario_dock = self._dock("Scenario", self.scenario_panel, "scenario")
        self.stats_dock = self._dock("Stats", _scroll(self.stats), "stats")
        self.help_dock = self._dock("What am I looking at?", _scroll(help_label), "help")
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.scenario_dock)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.stats_dock)
        self.tabifyDockWidget(self.stats_dock, self.help_dock)
        self.stats_dock.raise_()
        self.resizeDocks([self.scenario_dock], [360], Qt.Orientation.Horizontal)
        self.resizeDocks([self.scenario_dock, self.stats_dock], [560, 340], Qt.Orientation.Vertical)

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
        model.scenario_changed.connect(panel.show_change)
        model.scenario_changed.connect(self._on_scenario)
        model.view_mode_changed.connect(panel.show_view_mode)
        model.edit_rejected.connect(panel.restore_field)
        model.error_changed.connect(panel.show_message)
        model.pins_changed.connect(panel.show_pins)
        model.pins_changed.connect(lambda pins: self._unpin_action.setEnabled(bool(pins)))
        model.shown_changed.connect(self._show)
        model.busy_changed.connect(self._on_busy)

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
        """The Schedules shown: pinned runs first, then the current run."""
        return self.view.schedules

    def show_schedules(self, schedules: list[Schedule], title: str) -> None:
        """Show any Schedules (simulated or measured) on the clock, with ``title`` above."""
        self.model.show_external(schedules, title)

    def add_panel(self, widget: QWidget, title: str) -> QDockWidget:
        """Dock ``widget`` at the bottom (tabbed with other added panels) and return its dock."""
        dock = self._dock(title, widget, f"panel-{title.lower().replace(' ', '-')}")
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        if self._panels:
            self.tabifyDockWidget(self._panels[-1], dock)
        self._panels.append(dock)
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

    def choose_preset(self, name: str) -> bool:
        return self.model.choose_preset(name, wait=True)

    def set_view_mode(self, mode: str) -> None:
        self.model.set_view_mode(mode, wait=True)

    def pin(self) -> bool:
        return self.model.pin(wait=True)

    def unpin(self) -> None:
        self.model.unpin()

    def open_scenario_file(self, path: str | Path, wait: bool = True) -> bool:
        """Load a scenario file; any bad file shows its one-line message in a dialog and
        keeps the current run."""
        try:
            scenario = Scenario.load(path)
        except Exception as error:  # bad TOML, too deep, a folder, binary junk, no access…
            if not isinstance(error, PipeLabError | RecursionError | MemoryError | OSError):
                log.exception("opening %s failed", path)
            message = one_line(error)
            if isinstance(error, RecursionError):
                message = f"{path}: nested too deeply to be a scenario file"
            QMessageBox.warning(self, "Cannot open scenario", message)
            return False
        if not self.model.set_scenario(scenario, "", wait=wait):
            QMessageBox.warning(self, "Cannot open scenario", self.model.error)
            return False
        return True

    def save_scenario_file(self, path: str | Path) -> bool:
        try:
            self.model.scenario.save(path)
        except PipeLabError as error:
            QMessageBox.warning(self, "Cannot save scenario", str(error))
            return False
        return True

    def export_to(
        self,
        path: str | Path,
        width: int = 1600,
        with_assembly: bool | None = None,
        **options: object,
    ) -> bool:
        """Export what is shown (pinned and current runs; format from the suffix;
        ``options``: see `gui.export.export`); errors show a dialog."""
        from gui.export import export  # PIL, QtSvg generators, PDF: only when exporting

        if self.tabs.currentIndex() == WARPS_TAB and self.warps_view is not None:
            try:
                self.warps_view.export(path, width)
            except PipeLabError as error:
                QMessageBox.warning(self, "Cannot export", str(error))
                return False
            return True
        if with_assembly is None:
            with_assembly = self._with_assembly.isChecked()
        try:
            export(
                self.schedules,
                path,
                width=width if Path(path).suffix.lower() in (".png", ".gif", ".webp") else None,
                with_assembly=with_assembly and Path(path).suffix.lower() != ".svg",
                title=self._figure_title(),
                **options,  # type: ignore[arg-type]
            )
        except PipeLabError as error:
            QMessageBox.warning(self, "Cannot export", str(error))
            return False
        return True

    def _figure_title(self) -> str:
        """The heading, and with pins the comparison: a figure says what it compares."""
        shown = self.model.shown
        if shown is None or not shown.comparisons:
            return self.title.text()
        return f"{self.title.text()} · " + " · ".join(shown.comparisons)

    def show_error(self, message: str) -> None:
        """Show a one-line message (the excepthook's target): under the form."""
        self.scenario_panel.show_message(message)
        if not self.scenario_dock.isVisible():
            self.scenario_dock.show()

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
        for action in self._theme_actions.actions():
            action.setChecked(action.data() == choice)

    # -- the model's news ---------------------------------------------------------------------

    def _on_scenario(self, change: ScenarioChange) -> None:
        self.setWindowTitle(f"PipeLab — {change.scenario.name}")

    def _show(self, shown: Shown) -> None:
        """Show pinned + current runs: the Pipeline tab takes the clock if it had not."""
        on_pipeline = self.tabs.currentIndex() == PIPELINE_TAB
        self.view.set_schedules(
            list(shown.schedules), shown.events, shown.end, list(shown.animated)
        )
        self.stats.set_stats(shown.headlines, shown.stats)
        self.title.setText(shown.title)
        scenario = shown.current.scenario
        self.title.setToolTip(scenario.description if scenario is not None else "")
        self.comparison.setText("<br>".join(shown.comparisons))
        self.comparison.setVisible(bool(shown.comparisons))
        if on_pipeline:
            self.transport.set_time_unit(shown.time_unit)
        else:
            self.tabs.setCurrentIndex(PIPELINE_TAB)  # activates the view (see `_on_tab`)

    def _on_busy(self, busy: bool) -> None:
        """A light indication: a word beside the title and the busy (not wait) cursor over
        the run, which stays shown and usable."""
        self.busy.setVisible(busy)
        if busy:
            self.view.setCursor(Qt.CursorShape.BusyCursor)
        else:
            self.view.unsetCursor()

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

    def _action(self, text: str, slot: Any, shortcut: str | QKeySequence | None = None) -> QAction:
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
            self._action("&Open scenario…", self._open_dialog, QKeySequence.StandardKey.Open)
        )
        menu.addAction(
            self._action("&Save scenario as…", self._save_dialog, QKeySequence.StandardKey.Save)
        )
        menu.addSeparator()
        menu.addAction(self._action("&Export…", self._export_dialog, "Ctrl+E"))
        self._with_assembly = QAction("Include the assembly line in image exports", self)
        self._with_assembly.setCheckable(True)
        menu.addAction(self._with_assembly)
        menu.addSeparator()
        menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

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
        add_rows_menu(menu, self.view.timeline)
        menu.addSeparator()
        for dock in (self.scenario_dock, self.stats_dock, self.help_dock):
            menu.addAction(dock.toggleViewAction())

    def _build_run_menu(self, menu: QMenu) -> None:
        menu.addAction(self._action("&Pin this run", lambda: self.model.pin()))
        self._unpin_action = self._action("&Unpin", lambda: self.model.unpin())
        self._unpin_action.setEnabled(False)
        menu.addAction(self._unpin_action)

    def _build_help_menu(self, menu: QMenu) -> None:
        menu.addAction(self._action("&What am I looking at?", self._show_help, "F1"))
        menu.addAction(self._action("&About PipeLab", self._about))

    def _build_clock_shortcuts(self) -> None:
        clock = self.clock
        for keys, slot in (
            (("Space",), clock.toggle),
            (("Right",), clock.step_forward),
            (("Left",), clock.step_back),
            (("Home",), clock.to_start),
            (("End",), clock.to_end),
            (("+", "="), clock.faster),
            (("-",), clock.slower),
        ):
            action = QAction(self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    def _on_system_scheme(self) -> None:
        if self._theme_choice == "system":
            self.set_theme("system")

    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open scenario", "", "Scenario (*.toml);;All files (*)"
        )
        if path:
            self.open_scenario_file(path, wait=False)

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save scenario", "scenario.toml", "Scenario (*.toml)"
        )
        if path:
            self.save_scenario_file(path)

    def _export_dialog(self) -> None:
        warps = self.tabs.currentIndex() == WARPS_TAB
        if not warps:
            from gui.export_dialog import ExportDialog

            ExportDialog(
                self.schedules,
                self.title.text(),
                self.clock.time,
                self.view.timeline.rows,
                self._with_assembly.isChecked(),
                self,
            ).exec()
            return
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export",
            "warps.png" if warps else "timeline.png",
            WARPS_EXPORT_FILTERS if warps else EXPORT_FILTERS,
        )
        if path:
            self.export_to(path)

    # -- the Warps tab and the GPU panel -------------------------------------------------

    def show_warps(self) -> WarpsView:
        """Switch to the Warps tab (building the view the first time) and return it."""
        self.tabs.setCurrentIndex(WARPS_TAB)
        assert self.warps_view is not None
        return self.warps_view

    def _on_tab(self, index: int) -> None:
        """One view drives the shared clock at a time: the one on the open tab."""
        if index == WARPS_TAB:
            self.view.set_active(False)
            if self.warps_view is None:
                from gui.warps_view import WarpsView

                self.warps_view = WarpsView(self.clock, self._warps_holder)
                layout = self._warps_holder.layout()
                assert layout is not None
                layout.addWidget(self.warps_view)
            self.warps_view.activate()  # loads its run into the shared clock
            self.transport.set_time_unit("cycles")
        else:
            if self.warps_view is not None:
                self.warps_view.deactivate()
            self.view.set_active(True)  # the clock plays the pipeline's runs again
            shown = self.model.shown
            self.transport.set_time_unit(shown.time_unit if shown is not None else "s")

    def _on_gpu_dock_visible(self, visible: bool) -> None:
        if not visible or self.gpu_panel is not None:
            return
        from gui.gpu_panel import GpuPanel

        panel = GpuPanel(parent=self.gpu_dock)
        panel.schedules_ready.connect(self._show_measured)
        panel.animate_requested.connect(self._animate_measured)
        panel.occupancy_ready.connect(lambda sweep: self.show_warps().show_measured(sweep))
        self.gpu_dock.setWidget(panel)
        self.gpu_panel = panel

    def _show_measured(self, schedules: list[Schedule]) -> None:
        """A measured run and the model's prediction, as two row groups on one scale."""
        source = schedules[0].label or "hardware run"
        self.show_schedules(schedules, f"Measured: {source}, beside the model's prediction")

    def _animate_measured(self, schedule: Schedule) -> None:
        self.show_schedules([schedule], f"Measured: {schedule.label or 'hardware run'}")
        self.clock.to_start()
        self.clock.play()

    def _show_help(self) -> None:
        self.help_dock.show()
        self.help_dock.raise_()

    def _about(self) -> None:
        QMessageBox.about(self, "About PipeLab", about_text())

    # -- settings -----------------------------------------------------------------------

    def _restore_settings(self) -> None:
        store = settings()
        geometry = store.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1600, 1000)
        state = store.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        splitter = store.value("window/splitter")
        if isinstance(splitter, QByteArray):
            self.view.splitter.restoreState(splitter)
        self._with_assembly.setChecked(store.value("export/with_assembly", "false") == "true")
        choice = str(store.value("view/theme", "system"))
        self.set_theme(choice if choice in themes.CHOICES else "system")

    def save_settings(self) -> None:
        store = settings()
        store.setValue("window/geometry", self.saveGeometry())
        store.setValue("window/state", self.saveState())
        store.setValue("window/splitter", self.view.splitter.saveState())
        store.setValue("view/theme", self._theme_choice)
        store.setValue("view/mode", self.model.view_mode)
        store.setValue(
            "export/with_assembly", "true" if self._with_assembly.isChecked() else "false"
        )
        scenario = self.model.scenario
        if scenario.uniform or scenario.n_ops <= REMEMBERED_OPS:
            store.setValue("scenario/toml", scenario.to_toml())
            store.setValue("scenario/preset", self.model.preset)
        else:
            store.remove("scenario/toml")  # too big to keep: the book example next time
            store.remove("scenario/preset")
        store.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.clock.pause()
        self.model.shutdown()
        if self.gpu_panel is not None:
            self.gpu_panel.shutdown()
        self.save_settings()
        super().closeEvent(event)
