"""The main window: a list of Schedules shown on one clock, with the scenario form, the stats,
a short help, menus, and shortcuts. The Warps view is a second tab on the same clock; the GPU
panel is a dock built the first time it is shown (detection may import CuPy, which start-up
must not). Anything that has Schedules to show can call `show_schedules`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.errors import PipeLabError
from engine.scenario import Scenario, load_preset
from engine.schedule import Schedule
from engine.scheduler import simulate
from gui import theme as themes
from gui.about import about_text
from gui.clock import Clock
from gui.help import HELP_TEXT
from gui.icons import raw_icon
from gui.scenario_panel import ScenarioPanel
from gui.schedule_view import ScheduleView
from gui.settings import settings
from gui.stats_panel import StatsPanel
from gui.timeline import add_rows_menu
from gui.transport import TransportBar

if TYPE_CHECKING:
    from gui.gpu_panel import GpuPanel
    from gui.warps_view import WarpsView

#: The app refuses scenarios beyond this many ops (the command line takes any size): at
#: 200,000 ops (1.2 million tasks over both policies) an edit takes about a second here.
GUI_MAX_OPS = 200_000
#: From this many ops an edit shows the busy cursor while it simulates and redraws.
BUSY_CURSOR_OPS = 20_000
EXPORT_FILTERS = (
    "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf);;"
    "Animated GIF (*.gif);;Chrome trace JSON (*.json)"
)
WARPS_EXPORT_FILTERS = "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"
PIPELINE_TAB, WARPS_TAB = 0, 1


def _scroll(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # text wraps
    area.setWidget(widget)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


class MainWindow(QMainWindow):
    """PipeLab's window. ``clock`` may be injected (tests pass one with a fake timer)."""

    def __init__(
        self,
        scenario: Scenario | None = None,
        preset: str = "book",
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.setWindowIcon(raw_icon("app"))
        self.clock = clock if clock is not None else Clock(self)
        if self.clock.parent() is None:
            self.clock.setParent(self)
        self._theme_choice = "system"
        self.theme = themes.resolve("system")
        self.scenario = scenario if scenario is not None else load_preset(preset or "book")
        self.preset_name = preset if scenario is None else ""
        self.view_mode = "both"
        self._panels: list[QDockWidget] = []

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
        self.title = QLabel(pipeline)
        self.title.setObjectName("title")
        pipeline_layout.addWidget(self.title)
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

        self.scenario_panel = ScenarioPanel()
        self.scenario_panel.edited.connect(self.edit)
        self.scenario_panel.preset_chosen.connect(self.choose_preset)
        self.scenario_panel.view_chosen.connect(self.set_view_mode)
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
        self.resizeDocks([self.scenario_dock], [340], Qt.Orientation.Horizontal)
        self.resizeDocks([self.scenario_dock, self.stats_dock], [330, 420], Qt.Orientation.Vertical)
        self._build_menus()
        self.gpu_dock = self.add_panel(QLabel("Loading…"), "GPU: measure real pipelines")
        self.gpu_dock.setObjectName("panel-gpu")
        self.gpu_dock.visibilityChanged.connect(self._on_gpu_dock_visible)
        self.gpu_dock.hide()
        self._restore_settings()
        self.apply_scenario(self.scenario, self.preset_name)

    # -- public API ---------------------------------------------------------------------

    @property
    def schedules(self) -> list[Schedule]:
        return self.view.schedules

    def show_schedules(self, schedules: list[Schedule], title: str) -> None:
        """Show any Schedules (simulated or measured) on the clock, with ``title`` above.

        Switches to the Pipeline tab: only one view may drive the shared clock at a time."""
        if self.tabs.currentIndex() != PIPELINE_TAB:
            self.tabs.setCurrentIndex(PIPELINE_TAB)
        self.view.set_schedules(schedules)
        from_scenario = all(s.source == "simulated" for s in schedules)
        self.stats.set_schedules(schedules, self.scenario if from_scenario else None)
        self.transport.set_time_unit(schedules[0].time_unit if schedules else "s")
        self.title.setText(title)

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

    def apply_scenario(self, scenario: Scenario, preset: str = "") -> bool:
        """Simulate ``scenario`` for the current view and show it; on bad input show the
        message, keep everything as it was and return False."""
        if scenario.n_ops <= BUSY_CURSOR_OPS:
            return self._apply_scenario(scenario, preset)
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # big runs take a moment
        try:
            return self._apply_scenario(scenario, preset)
        finally:
            QApplication.restoreOverrideCursor()

    def _apply_scenario(self, scenario: Scenario, preset: str) -> bool:
        try:
            if scenario.n_ops > GUI_MAX_OPS:
                raise PipeLabError(
                    f"the app shows at most {GUI_MAX_OPS:,} ops, not {scenario.n_ops:,} "
                    "(the simulate command takes any size)"
                )
            policies = ["sequential", "pipelined"] if self.view_mode == "both" else [self.view_mode]
            schedules = [simulate(scenario, p) for p in policies]
        except PipeLabError as error:
            self.scenario_panel.show_message(str(error))
            self.scenario_panel.show_scenario(self.scenario, self.preset_name, self.view_mode)
            return False
        self.scenario, self.preset_name = scenario, preset
        self.scenario_panel.show_message("")
        self.scenario_panel.show_scenario(scenario, preset, self.view_mode)
        self.setWindowTitle(f"PipeLab — {scenario.name}")
        self.show_schedules(schedules, f"{scenario.name}")
        self.title.setToolTip(scenario.description)
        return True

    def edit(self, field: str, value: object) -> bool:
        """Apply one form edit (ops, read, compute, write, buffers, <unit>_workers)."""
        try:
            if field.endswith("_workers"):
                units = ("load", "compute", "store")
                workers = list(self.scenario.workers)
                workers[units.index(field.removesuffix("_workers"))] = value  # type: ignore[call-overload]
                changed = self.scenario.with_changes(workers=tuple(workers))
            elif field == "buffers":
                changed = self.scenario.with_changes(buffers=value)
            elif field == "ops":
                changed = self.scenario.with_changes(ops=value)  # type: ignore[arg-type]
            else:
                changed = self.scenario.with_changes(**{field: value})  # type: ignore[arg-type]
        except PipeLabError as error:
            self.scenario_panel.show_message(str(error))
            self.scenario_panel.show_scenario(self.scenario, self.preset_name, self.view_mode)
            return False
        return self.apply_scenario(changed, "")

    def choose_preset(self, name: str) -> bool:
        try:
            scenario = load_preset(name)
        except PipeLabError as error:
            self.scenario_panel.show_message(str(error))
            return False
        return self.apply_scenario(scenario, name)

    def set_view_mode(self, mode: str) -> None:
        self.view_mode = mode
        self.apply_scenario(self.scenario, self.preset_name)

    def open_scenario_file(self, path: str | Path) -> bool:
        """Load a scenario file; a bad one shows a message and keeps the current scenario."""
        try:
            scenario = Scenario.load(path)
        except PipeLabError as error:
            QMessageBox.warning(self, "Cannot open scenario", str(error))
            return False
        return self.apply_scenario(scenario, "")

    def save_scenario_file(self, path: str | Path) -> bool:
        try:
            self.scenario.save(path)
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
        """Export what is shown (format from the suffix; ``options``: see
        `gui.export.export`); errors show a dialog."""
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
                title=self.title.text(),
                **options,  # type: ignore[arg-type]
            )
        except PipeLabError as error:
            QMessageBox.warning(self, "Cannot export", str(error))
            return False
        return True

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

    # -- menus --------------------------------------------------------------------------

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
        self, text: str, slot: object, shortcut: str | QKeySequence | None = None
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(
            self._action("&Open scenario…", self._open_dialog, QKeySequence.StandardKey.Open)
        )
        file_menu.addAction(
            self._action("&Save scenario as…", self._save_dialog, QKeySequence.StandardKey.Save)
        )
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Export…", self._export_dialog, "Ctrl+E"))
        self._with_assembly = QAction("Include the assembly line in image exports", self)
        self._with_assembly.setCheckable(True)
        file_menu.addAction(self._with_assembly)
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

        self._view_menu = bar.addMenu("&View")
        theme_menu = self._view_menu.addMenu("&Theme")
        self._theme_actions = QActionGroup(self)
        for choice in themes.CHOICES:
            action = QAction(choice.capitalize(), self, checkable=True)
            action.setData(choice)
            action.triggered.connect(lambda _=False, c=choice: self.set_theme(c))
            self._theme_actions.addAction(action)
            theme_menu.addAction(action)
        self._view_menu.addAction(
            self._action("&Reset zoom", self.view.timeline.reset_view, "Ctrl+0")
        )
        add_rows_menu(self._view_menu, self.view.timeline)
        self._view_menu.addSeparator()
        for dock in (self.scenario_dock, self.stats_dock, self.help_dock):
            self._view_menu.addAction(dock.toggleViewAction())

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("&What am I looking at?", self._show_help, "F1"))
        help_menu.addAction(self._action("&About PipeLab", self._about))

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
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(self._on_system_scheme)

    def _on_system_scheme(self) -> None:
        if self._theme_choice == "system":
            self.set_theme("system")

    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open scenario", "", "Scenario (*.toml);;All files (*)"
        )
        if path:
            self.open_scenario_file(path)

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
        if index == WARPS_TAB:
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
            self.view.set_schedules(self.view.schedules)  # the clock plays these again
            schedules = self.view.schedules
            self.transport.set_time_unit(schedules[0].time_unit if schedules else "s")

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
        self.tabs.setCurrentIndex(PIPELINE_TAB)
        source = schedules[0].label or "hardware run"
        self.show_schedules(schedules, f"Measured: {source}, beside the model's prediction")

    def _animate_measured(self, schedule: Schedule) -> None:
        self.tabs.setCurrentIndex(PIPELINE_TAB)
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
        mode = str(store.value("view/mode", "both"))
        self.view_mode = mode if mode in ("both", "sequential", "pipelined") else "both"
        choice = str(store.value("view/theme", "system"))
        self.set_theme(choice if choice in themes.CHOICES else "system")

    def save_settings(self) -> None:
        store = settings()
        store.setValue("window/geometry", self.saveGeometry())
        store.setValue("window/state", self.saveState())
        store.setValue("window/splitter", self.view.splitter.saveState())
        store.setValue("view/theme", self._theme_choice)
        store.setValue("view/mode", self.view_mode)
        store.setValue(
            "export/with_assembly", "true" if self._with_assembly.isChecked() else "false"
        )
        store.setValue("scenario/toml", self.scenario.to_toml())
        store.setValue("scenario/preset", self.preset_name)
        store.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.clock.pause()
        if self.gpu_panel is not None:
            self.gpu_panel.shutdown()
        self.save_settings()
        super().closeEvent(event)
