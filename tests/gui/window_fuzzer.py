"""Random actions on a real `MainWindow`, drawn from a seeded `random.Random`: keys sent to
whatever has focus, clock seeks, form values typed or emitted, ops-table edits and pastes,
presets, views, rows, tabs, themes, pins, exports, the GPU page (on a stand-in experiment),
File → Open and Save, resizes. `tests/gui/test_fuzz_window.py` drives it and checks, after
every action, that nothing went wrong; each action returns a line saying what it did, so a
failure can list the sequence that led to it.

Big runs go to the model's runner: a `ManualRunner` (tests/gui/conftest.py), finished by
the "land" action in any order, or a real thread waited for through the model's signals.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QItemSelection, QItemSelectionModel, QPoint, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QApplication, QMenu, QWidget

from engine.model.scenario import Scenario, preset_names
from engine.model.schedule import STAGES
from gui.duration_box import parse_duration

Key = Qt.Key
Mod = Qt.KeyboardModifier
NAN, INF = float("nan"), float("inf")

#: (key, modifiers): the transport keys, field keys, and the window's shortcuts that
#: neither quit nor open a real modal dialog (Ctrl+O/S/E open patched ones).
KEYS: tuple[tuple[Key, Mod], ...] = (
    *((k, Mod.NoModifier) for k in (Key.Key_Space, Key.Key_Left, Key.Key_Right, Key.Key_Up)),
    *((k, Mod.NoModifier) for k in (Key.Key_Down, Key.Key_Home, Key.Key_End, Key.Key_Plus)),
    *((k, Mod.NoModifier) for k in (Key.Key_Minus, Key.Key_Return, Key.Key_Enter)),
    *((k, Mod.NoModifier) for k in (Key.Key_Escape, Key.Key_Tab, Key.Key_PageUp)),
    *((k, Mod.NoModifier) for k in (Key.Key_PageDown, Key.Key_Backspace, Key.Key_Delete)),
    *((k, Mod.NoModifier) for k in (Key.Key_F1, Key.Key_1, Key.Key_0, Key.Key_E, Key.Key_Period)),
    (Key.Key_Tab, Mod.ShiftModifier),
    (Key.Key_Backtab, Mod.ShiftModifier),
    *((k, Mod.ControlModifier) for k in (Key.Key_1, Key.Key_2, Key.Key_3, Key.Key_0)),
    *((k, Mod.ControlModifier) for k in (Key.Key_C, Key.Key_V, Key.Key_O, Key.Key_S)),
    *((k, Mod.ControlModifier) for k in (Key.Key_E, Key.Key_Home, Key.Key_A)),
)
SEEKS: tuple[object, ...] = (
    NAN, INF, -INF, 1e308, -1e308, -1.0, 0.0, 1e-300, 5e-324, 1e20, 2.0**63, 10**400, "3",
    None, "end", "mid", "just past the end", "just before the end",
)  # fmt: skip
TYPED = {
    "ops": ["1", "3", "7", "50", "2001", "5000", "0", "-1", "1000001", "99999999", "abc", "",
            "1e3", "2,000"],
    "durations": ["0", "1e-6", "1e9", "1e-7", "2e9", "-1", "abc", "0.125", "1e308", "nan",
                  "inf", "1e-320", "", "2.5 s", "1_000", "5e-324", "0.1"],
    "buffers": ["0", "1", "2", "3", "-1", "10000001", "x", ""],
    "workers": ["1", "2", "1024", "1025", "0", "-3", "q", "7"],
}  # fmt: skip
EMITTED = {
    "ops": [0, -1, 1, 3, 2001, 5000, 10**7, 10**8, 1.5, "abc", None, NAN, True, 1e308],
    "durations": [0, 1e-6, 1e9, 1e-7, 2e9, -1, "text", NAN, INF, 1e-320, None, 0.5, 3],
    "buffers": [0, 1, 2, 3, -1, 10**9, 1.5, "2", None, NAN],
    "workers": [0, 1, 2, 3, 1024, 1025, -1, 2.5, "3", None],
}  # fmt: skip
CELLS = [0, 1e-6, 1e9, 1e-7, 2e9, -1, "text", "nan", "inf", "1e-320", 0.25, "3", 1e308, None]
BLOCKS = [
    "1\t2\t3\n4\t5\t6", "0.5", "1 s", "1e-6\n1e9", "a\tb", "", "\n\n", "1\t2\t3\t4", "nan",
    "inf", "-1", "1e-7", "2e9", "1\n" * 2100, "0\t0\t0", "3\t\t1", "1,5", " 2 s \r\n3 s\r\n",
]  # fmt: skip
PRESET_NAMES = [*preset_names(), "nope", "", "../book", "BOOK"]
VIEWS = ["both", "sequential", "pipelined", "bad"]
THEMES = ["light", "dark", "system"]
SIZES = [(50, 50), (1, 1), (120, 80), (300, 200), (640, 480), (1400, 900), (2000, 1300)]
EXPORT_NAMES = [
    "t.png", "t.svg", "t.pdf", "t.gif", "t.webp", "t.json", "t.PNG", "t.txt", "t", "missing/t.png",
    "sub/", "", ".png", "t.png/", "dir.png",
]  # fmt: skip
EXPORT_WIDTHS = [200, 201, 257, 320, 199, 0, -5, 10_001]
SCENARIO_FILES = {
    "good.toml": "[defaults]\ncount = 4\nread = 0.5\ncompute = 2\nwrite = 1\n",
    "tiny.toml": "[defaults]\ncount = 2\nread = 1e-6\ncompute = 0\nwrite = 1e-6\n",
    "huge.toml": "[defaults]\ncount = 3\nread = 1e9\ncompute = 1e9\nwrite = 1\n",
    "big.toml": "buffers = 2\n[defaults]\ncount = 3000\nread = 1\ncompute = 2\nwrite = 1\n",
    "ops.toml": "[[ops]]\nread = 1\ncompute = 0\nwrite = 0\n[[ops]]\nread = 0\ncompute = 0\n"
    "write = 0\n",
    "workers.toml": "[workers]\nload = 3\ncompute = 1024\nstore = 2\n[defaults]\ncount = 9\n",
    "bad.toml": "[defaults]\ncount = 3\nraed = 1\n",
    "overflow.toml": "[defaults]\ncount = 3\nread = 1e308\n",
    "subnormal.toml": "[defaults]\ncount = 3\nread = 1e-320\n",
    "deep.toml": "a = " + "[" * 3000 + "]" * 3000 + "\n",
    "too-many.toml": "[defaults]\ncount = 1000001\n",
    "junk.toml": "\xff\x00[defaults",
    "empty.toml": "",
}
OPEN_NAMES = [*SCENARIO_FILES, "missing.toml", ".", "folder"]
GOOD_FILES = {"good.toml", "tiny.toml", "huge.toml", "big.toml", "ops.toml", "workers.toml"}


class WindowFuzzer:
    """Draws and performs actions on ``window``. ``runners``: the model's two
    `ManualRunner`s, or None when it runs on real threads (then each action waits until
    the model is idle). ``folder``: where exports, saves and scenario files go."""

    def __init__(
        self,
        window: Any,
        qtbot: Any,
        rng: random.Random,
        folder: Path,
        runners: tuple[Any, Any] | None,
        gpu: StandInExperiment,
    ) -> None:
        self.window, self.qtbot, self.rng, self.folder = window, qtbot, rng, folder
        self.runners, self.gpu = runners, gpu
        self.exports = folder / "exports"
        self.exports.mkdir()
        (self.exports / "sub").mkdir()
        (self.exports / "dir.png").mkdir()
        self.files = folder / "files"
        self.files.mkdir()
        (self.files / "folder").mkdir()
        for name, text in SCENARIO_FILES.items():
            (self.files / name).write_text(text, encoding="utf-8", errors="surrogateescape")
        self.wrong: list[str] = []  # what an action found wrong (the test reports it)
        self.dialogs: list[str] = []  # the messages shown (the test's patched QMessageBox)
        self.open_path = ""  # what the patched file dialogs answer
        self.save_path = ""
        weights: dict[Callable[[], str], int] = {
            self.key: 30, self.seek: 10, self.play: 3, self.type_field: 10,
            self.emit_field: 6, self.edit_cell: 5, self.paste: 5, self.alike: 2,
            self.preset: 4, self.view: 3, self.rows: 2, self.tab: 6, self.theme: 2, self.pin: 4,
            self.unpin: 2, self.export: 4, self.export_dialog: 2, self.gpu_run: 2,
            self.gpu_cancel: 2, self.gpu_params: 2, self.animate: 1, self.open_file: 4,
            self.save_file: 1, self.resize: 4, self.land: 6, self.hover: 4, self.dock: 2,
            self.warps: 3, self.slider: 2, self.wait: 2, self.focus: 8, self.click: 5,
            self.menu: 5, self.zoom: 3, self.drag_cursor: 2, self.split: 2, self.paint: 3,
            self.clipboard: 2,
        }  # fmt: skip
        self._actions = list(weights)
        self._weights = list(weights.values())

    # -- the loop ------------------------------------------------------------------------------

    def step(self) -> str:
        """One random action, then the events it posted; returns what it did."""
        action = self.rng.choices(self._actions, self._weights)[0]
        done = action()
        QApplication.processEvents()
        self.settle()
        return done

    def settle(self) -> None:
        """With real threads: wait for the model's run; a GPU run started by a click waits
        to its end unless it blocks until cancelled (safety-net timeouts only)."""
        model = self.window.model
        if self.runners is None and model.busy:
            self.qtbot.waitUntil(lambda: not model.busy, timeout=120_000)
        panel = self.window.gpu_panel
        if panel is not None and panel.is_running() and self.gpu.mode != "block":
            self.qtbot.waitUntil(lambda: not panel.is_running(), timeout=120_000)
            QApplication.processEvents()

    def finish(self) -> None:
        """Land every pending run and stop the GPU page's run: the end of a sequence."""
        if self.runners is not None:
            for runner in self.runners:
                while runner.jobs:
                    runner.finish(min(runner.jobs))
        self.settle()
        panel = self.window.gpu_panel
        if panel is not None and panel.is_running():
            self._cancel_and_wait(panel)
        for tab in range(3):
            self.window.clock_of(tab).pause()

    def pick(self, values: list[Any] | tuple[Any, ...]) -> Any:
        return values[self.rng.randrange(len(values))]

    # -- keys and the clock ------------------------------------------------------------------

    def key(self) -> str:
        key, modifiers = self.pick(KEYS)
        target = QApplication.focusWidget() or self.window
        name = QKeySequence(key.value | modifiers.value).toString()
        self.qtbot.keyClick(target, key, modifiers)
        return f"key {name} to {type(target).__name__} {target.objectName()!r}"

    def seek(self) -> str:
        tab = self.rng.choice([self.window.tabs.currentIndex(), 0, 1, 2])
        clock = self.window.clock_of(tab)
        value = self.pick(SEEKS)
        end = clock.end
        value = {
            "end": end,
            "mid": end / 2,
            "just past the end": math.nextafter(end, INF),
            "just before the end": math.nextafter(end, -INF),
        }.get(value, value) if isinstance(value, str) else value  # fmt: skip
        clock.seek(value)
        return f"seek tab {tab} to {value!r:.40}"

    def play(self) -> str:
        clock = self.window.active_clock
        clock.play()
        wall = self.pick([0.0, 0.016, 0.5, 3.0, 1e6])
        clock.advance(wall)
        if self.rng.random() < 0.5:
            clock.pause()
        return f"play, advance {wall} s of wall time"

    def slider(self) -> str:
        slider = self.window.transport.slider
        value = self.rng.randint(slider.minimum() - 5, slider.maximum() + 5)
        slider.setValue(value)
        return f"slider to {value}"

    def wait(self) -> str:
        ms = self.pick([1, 20, 50])
        self.qtbot.wait(ms)
        return f"wait {ms} ms"

    # -- the form ------------------------------------------------------------------------------

    def _field(self) -> tuple[str, QAbstractSpinBox, str]:
        panel = self.window.scenario_panel
        fields: list[tuple[str, QAbstractSpinBox, str]] = [("ops", panel.ops, "ops")]
        fields += [(s, box, "durations") for s, box in panel.durations.items()]
        fields.append(("buffers", panel.buffers, "buffers"))
        fields += [(f"{u}_workers", box, "workers") for u, box in panel.workers.items()]
        return self.pick(fields)

    def type_field(self) -> str:
        """Type into a form field as a user does, then leave it (Enter, Tab, Escape, a
        click elsewhere) or not."""
        field, box, kind = self._field()
        text = self.pick(TYPED[kind])
        if not box.isVisible():
            return f"type into {field}: hidden"
        click_into(box)
        if QApplication.focusWidget() is not box:
            return f"type into {field}: it takes no focus"
        box.lineEdit().selectAll()
        self.qtbot.keyClicks(box, text)
        how = self.pick(["Return", "Tab", "Escape", "focus", "stay"])
        model = self.window.model
        before = model.scenario
        shown = box.lineEdit().text()  # what the box let through ("-1" shows "1")
        if how in ("Return", "Tab", "Escape"):
            self.qtbot.keyClick(QApplication.focusWidget() or box, getattr(Key, f"Key_{how}"))
        elif how == "focus":
            click_into(self.window.view.timeline)
        typed = parse_duration(shown.strip().removesuffix("s"))
        if kind == "durations" and how not in ("Escape", "stay") and typed is not None:
            # The number the field shows is taken, or refused with a message, or (beyond
            # the box's range) the nearest limit: never another number.
            value = float(getattr(model.scenario, field)[0])
            limit = min(max(typed, box.minimum()), box.maximum())
            unchanged = model.scenario is before
            if not (value in (typed, limit) or (unchanged and model.error)):
                self.wrong.append(f"typed {text!r} ({shown!r}) into {field}: it holds {value!r}")
        return f"type {text!r} into {field}, then {how}"

    def emit_field(self) -> str:
        field, _, kind = self._field()
        value = self.pick(EMITTED[kind])
        model = self.window.model
        before = model.scenario
        self.window.scenario_panel.edited.emit(field, value)
        if model.scenario is not before and not model.error:
            held = _field_value(model.scenario, field)
            if held != value:
                self.wrong.append(f"{field} = {value!r} accepted as {held!r}")
        elif model.scenario is before and not model.error and value != _field_value(before, field):
            self.wrong.append(f"{field} = {value!r} neither taken nor refused")
        return f"form says {field} = {value!r}"

    def edit_cell(self) -> str:
        table = self.window.scenario_panel.table
        rows = table.ops.rowCount()
        row = self.rng.randrange(max(1, min(rows, 50)))
        column = self.rng.randrange(3)
        value = self.pick(CELLS)
        table.ops.setData(table.ops.index(row, column), value)
        return f"cell ({row}, {column}) = {value!r}"

    def paste(self) -> str:
        table = self.window.scenario_panel.table
        rows = table.ops.rowCount()
        top, left = self.rng.randrange(max(1, min(rows, 40))), self.rng.randrange(3)
        bottom = min(rows - 1, top + self.rng.randrange(4))
        right = min(2, left + self.rng.randrange(3))
        selection = table.selectionModel()
        selection.clearSelection()
        if rows and self.rng.random() < 0.7:
            area = QItemSelection(table.ops.index(top, left), table.ops.index(bottom, right))
            selection.select(area, QItemSelectionModel.SelectionFlag.Select)
        block = self.pick(BLOCKS)
        table.paste_text(block)
        return f"paste {block[:30]!r} at ({top}, {left})-({bottom}, {right})"

    def alike(self) -> str:
        table = self.window.scenario_panel.table
        rows = table.ops.rowCount()
        if rows and self.rng.random() < 0.7:
            table.setCurrentIndex(table.ops.index(self.rng.randrange(min(rows, 50)), 0))
        else:
            table.setCurrentIndex(table.ops.index(-1, -1))
        self.window.scenario_panel.alike.click()
        return "make all alike"

    def preset(self) -> str:
        if self.rng.random() < 0.5:
            combo = self.window.scenario_panel.preset
            index = self.rng.randrange(combo.count())
            combo.setCurrentIndex(index)
            combo.activated.emit(index)
            return f"preset box: item {index}"
        name = self.pick(PRESET_NAMES)
        self.window.model.choose_preset(name)
        return f"choose preset {name!r}"

    def view(self) -> str:
        mode = self.pick(VIEWS)
        self.window.model.set_view_mode(mode)
        return f"view {mode}"

    def rows(self) -> str:
        mode = self.pick(["workers", "ops"])
        self.window.model.set_rows(mode)
        return f"rows {mode}"

    def tab(self) -> str:
        index = self.rng.randrange(3)
        self.window.tabs.setCurrentIndex(index)
        return f"tab {index}"

    def theme(self) -> str:
        choice = self.pick(THEMES)
        self.window.set_theme(choice)
        if self.rng.random() < 0.2:
            self.window._on_system_scheme()  # the desktop switched light/dark
        return f"theme {choice}"

    def pin(self) -> str:
        how = self.pick(["button", "menu", "model"])
        if how == "button":
            self.window.scenario_panel.pin.click()
        else:
            self.window.model.pin()
        return f"pin ({how})"

    def unpin(self) -> str:
        index = self.pick([None, 0, 1, 2, 5, -1])
        self.window.model.unpin(index)
        return f"unpin {index}"

    def land(self) -> str:
        """Finish one pending run (any, stale ones too) on the manual runners."""
        if self.runners is None:
            return "land: real threads"
        pending = [(r, t) for r in self.runners for t in r.jobs]
        if not pending:
            return "land: nothing pending"
        runner, token = self.pick(pending)
        runner.finish(token)
        return f"land job {token}"

    # -- files ---------------------------------------------------------------------------------

    def _export_path(self) -> str:
        name = self.pick(EXPORT_NAMES)
        return str(self.exports / name) + ("/" if name.endswith("/") else "") if name else ""

    def export(self) -> str:
        path = self._export_path()
        width = self.pick(EXPORT_WIDTHS)
        options: dict[str, object] = {}
        if self.rng.random() < 0.5:
            options["rows"] = self.pick(["workers", "ops"])
            options["theme"] = self.pick(["light", "dark"])
            options["time"] = self.pick([None, 0.0, 1.0, 1e308, self.window.clock.end])
            options["fps"] = self.pick([1, 2])
            options["caption"] = self.rng.random() < 0.5
        assembly = self.pick([None, True, False])
        shown = len(self.dialogs)
        written = self.window.export_to(path, width=width, with_assembly=assembly, **options)
        said = len(self.dialogs) - shown
        if written and not (said == 0 and Path(path).is_file() and Path(path).stat().st_size):
            self.wrong.append(f"export to {path!r} said it wrote the file: {said} messages")
        if not written and said != 1:
            self.wrong.append(f"export to {path!r} refused with {said} messages")
        return f"export {path!r} width {width} assembly {assembly} {options}"

    def export_dialog(self) -> str:
        """File → Export (Ctrl+E) with the dialog's options chosen at random (the dialog's
        exec is patched: see `ExportDialog.fuzz_exec`)."""
        self.window._export_dialog()
        return "export dialog"

    def fill_export_dialog(self, dialog: Any) -> None:
        """What the patched dialog does instead of waiting for a user."""
        for combo in (dialog.format, dialog.size_box, dialog.rows, dialog.theme):
            if combo.isEnabled() and self.rng.random() < 0.7:
                combo.setCurrentIndex(self.rng.randrange(combo.count()))
        if dialog.width_px.isEnabled():
            dialog.width_px.setValue(self.pick([200, 240, 300]))
        for check in (dialog.retina, dialog.cursor_box, dialog.caption, dialog.assembly):
            if check.isEnabled() and self.rng.random() < 0.3:
                check.toggle()
        if dialog.suffix in (".gif", ".webp") and self.rng.random() < 0.7:
            return  # animations are slow: chosen, previewed, not written
        name = self.pick(["fig" + dialog.suffix, "fig.png", "fig.nope", "missing/fig.svg"])
        dialog.write(self.exports / name)

    def open_file(self) -> str:
        name = self.pick(OPEN_NAMES)
        self.open_path = str(self.files / name) if name != "." else ""
        model, shown = self.window.model, len(self.dialogs)
        before = model.scenario
        self.window._open_dialog()
        said = len(self.dialogs) - shown
        if name in GOOD_FILES and (said or model.scenario is before):
            self.wrong.append(f"opening {name} showed {said} messages")
        elif name not in GOOD_FILES and name != "." and (said != 1 or model.scenario is not before):
            self.wrong.append(
                f"opening {name}: {said} messages, scenario kept: {model.scenario is before}"
            )
        return f"open {name!r}"

    def save_file(self) -> str:
        self.save_path = self.pick(
            [str(self.folder / "saved.toml"), str(self.folder / "no" / "x.toml"), "", "/"]
        )
        shown = len(self.dialogs)
        self.window._save_dialog()
        said = len(self.dialogs) - shown
        if self.save_path.endswith("saved.toml"):
            saved, scenario = Scenario.load(self.save_path), self.window.model.scenario
            same = (saved.buffers, saved.workers, saved.policy) == (
                scenario.buffers,
                scenario.workers,
                scenario.policy,
            ) and all(np.array_equal(getattr(saved, s), getattr(scenario, s)) for s in STAGES)
            if said or not same:
                self.wrong.append(f"the saved scenario reads back differently ({said} messages)")
        elif self.save_path and said != 1:
            self.wrong.append(f"saving to {self.save_path!r}: {said} messages")
        return f"save {self.save_path!r}"

    # -- the GPU page --------------------------------------------------------------------------

    def gpu_params(self) -> str:
        panel = self.window.show_gpu()
        if panel.is_running():
            return "GPU params: running"
        panel.backend_box.setCurrentText(self.pick(["cpu", "auto", "cupy"]))
        panel.size_box.setValue(self.pick([0.001, 0.01, 1.0, 65536.0]))
        panel.chunks_box.setValue(self.pick([1, 2, 4, 4096]))
        panel.streams_box.setValue(self.pick([1, 3, 64]))
        panel.intensity_box.setValue(self.pick([0, 1, 1_000_000]))
        panel.repeats_box.setValue(self.pick([1, 2]))
        return "GPU params " + ", ".join(
            str(b.value()) for b in (panel.size_box, panel.chunks_box, panel.streams_box)
        )

    def gpu_run(self) -> str:
        """Run (the stand-in experiment) and wait for it to end."""
        panel = self.window.show_gpu()
        if panel.is_running():
            self._cancel_and_wait(panel)
        self.gpu.mode = self.pick(["result", "result", "error", "crash"])
        self.gpu.scale = self.pick([1e-6, 1e-3, 1.0, 1e3, 1e6])
        self.gpu.rng = random.Random(self.rng.random())
        ended: list[object] = []
        panel.run_finished.connect(ended.append)
        panel.run_failed.connect(ended.append)
        try:
            panel.start_run()
            self.qtbot.waitUntil(lambda: bool(ended) and not panel.is_running(), timeout=120_000)
        finally:
            panel.run_finished.disconnect(ended.append)
            panel.run_failed.disconnect(ended.append)
        return f"GPU run: {self.gpu.mode} at scale {self.gpu.scale}"

    def gpu_cancel(self) -> str:
        """Start a run that blocks until cancelled and leave it running, or cancel one."""
        panel = self.window.show_gpu()
        if panel.is_running():
            self._cancel_and_wait(panel)
            return "GPU cancel"
        self.gpu.mode = "block"
        self.gpu.started.clear()
        panel.start_run()
        if panel.is_running():
            self.qtbot.waitUntil(self.gpu.started.is_set, timeout=120_000)
        return "GPU run started (blocks until cancelled)"

    def _cancel_and_wait(self, panel: Any) -> None:
        panel.cancel_button.click()
        self.qtbot.waitUntil(lambda: not panel.is_running(), timeout=120_000)
        QApplication.processEvents()

    def animate(self) -> str:
        panel = self.window.gpu_panel
        if panel is None or not panel.animate_button.isEnabled():
            return "animate: nothing measured"
        panel.animate_button.click()
        return "animate the measured run"

    # -- any widget, button or menu -------------------------------------------------------------

    def _visible(self, kind: type[QWidget]) -> list[QWidget]:
        found = [w for w in self.window.findChildren(kind) if w.isVisible() and w.isEnabled()]
        return sorted(
            found,
            key=lambda w: (
                type(w).__name__,
                w.objectName(),
                w.accessibleName(),
                w.mapTo(self.window, QPoint(0, 0)).toTuple(),
            ),
        )

    def focus(self) -> str:
        """Give the focus to any visible widget that takes it (keys then go there)."""
        widgets = [w for w in self._visible(QWidget) if w.focusPolicy() != Qt.FocusPolicy.NoFocus]
        if not widgets:
            return "focus: nothing takes it"
        widget = self.pick(widgets)
        widget.setFocus(Qt.FocusReason.TabFocusReason)
        return f"focus {type(widget).__name__} {widget.objectName() or widget.accessibleName()!r}"

    def click(self) -> str:
        """Click any visible, enabled button (every dialog it opens is patched)."""
        buttons = [b for b in self._visible(QAbstractButton) if b.text() != "Quit"]
        if not buttons:
            return "click: no button"
        button = self.pick(buttons)
        words = button.text() or button.accessibleName() or button.toolTip()[:30]
        if self.gpu.mode == "block" and button is getattr(self.window.gpu_panel, "run_button", 0):
            self.gpu.mode = "result"
        button.click()
        return f"click {type(button).__name__} {words!r}"

    def menu(self) -> str:
        """Trigger any menu action but Quit (dialogs are patched)."""
        actions = []
        for menu in self.window.menuBar().findChildren(QMenu):
            actions += [a for a in menu.actions() if not a.menu() and not a.isSeparator()]
        actions = [a for a in actions if a.isEnabled() and "Quit" not in a.text()]
        action = self.pick(sorted(actions, key=lambda a: a.text()))
        action.trigger()
        return f"menu {action.text()!r}"

    def clipboard(self) -> str:
        """Put a block (or the table's own selection) on the clipboard for Ctrl+V."""
        text = self.pick([*BLOCKS, self.window.scenario_panel.table.selected_text()])
        QGuiApplication.clipboard().setText(text)
        return f"clipboard {text[:30]!r}"

    def zoom(self) -> str:
        """Zoom and pan the Gantt (as the wheel and a drag do), to extremes too."""
        view = self.window.view.timeline.getPlotItem().getViewBox()
        factor = self.pick([1e-9, 1e-3, 0.5, 2.0, 1e3, 1e9])
        view.scaleBy((factor, self.pick([1.0, 0.1, 10.0])))
        span = self.window.clock.end or 1.0
        view.translateBy((self.pick([0.0, -span, span, 1e6 * span]), 0.0))
        return f"zoom x{factor}"

    def drag_cursor(self) -> str:
        """Drag the Gantt's time cursor (it seeks the clock)."""
        timeline = self.window.view.timeline
        end = self.window.clock.end
        value = self.pick([-end, 0.0, end / 3, end, 2 * end, 1e6 * (end or 1)])
        timeline.cursor.setValue(value)
        timeline.cursor.sigDragged.emit(timeline.cursor)
        return f"drag the cursor to {value!r}"

    def split(self) -> str:
        """Move the splitter between the assembly line and the Gantt, to either end too."""
        splitter = self.window.view.splitter
        total = sum(splitter.sizes())
        top = self.pick([0, 1, total // 2, total - 1, total])
        splitter.setSizes([top, total - top])
        return f"split at {top} of {total}"

    def paint(self) -> str:
        """Paint the whole window now (what the screen would show)."""
        image = self.window.grab().toImage()
        return f"paint {image.width()}x{image.height()}"

    # -- the window ----------------------------------------------------------------------------

    def resize(self) -> str:
        width, height = self.pick(SIZES)
        self.window.resize(width, height)
        return f"resize to {width}x{height}"

    def hover(self) -> str:
        timeline = self.window.view.timeline
        x = self.rng.randint(-5, max(1, timeline.width() + 5))
        y = self.rng.randint(-5, max(1, timeline.height() + 5))
        self.qtbot.mouseMove(timeline.viewport(), QPoint(x, y))
        # What the scene reports for that point (offscreen, no real pointer moves there).
        timeline._on_mouse_moved(timeline.mapToScene(QPoint(x, y)))
        if self.rng.random() < 0.3:
            timeline.describe_at(self.pick([NAN, INF, -1.0, 0.5, 1e308]), self.pick([0.0, NAN]))
        return f"hover ({x}, {y})"

    def dock(self) -> str:
        docks = self.window.pipeline_docks
        dock = self.pick(docks)
        action = dock.toggleViewAction()
        if action.isEnabled():
            action.trigger()
        if self.rng.random() < 0.2:
            self.window.arrange_docks()
        return f"toggle dock {dock.objectName()}"

    def warps(self) -> str:
        view = self.window.show_warps()
        box = self.pick([view.warps_box, view.latency_box, view.compute_box, view.cycles_box])
        value = self.rng.choice([box.minimum(), box.maximum() // 4, box.value() + 1, 7])
        box.setValue(value)
        return f"warps {box.suffix().strip()} box = {value}"


def click_into(widget: QWidget) -> None:
    """Give ``widget`` the focus as a mouse click does: its window becomes the active one
    first. Focus given in an inactive window leaves the active window's field as it is
    (typed, not yet left): the form may float in a window of its own."""
    widget.window().activateWindow()
    widget.setFocus(Qt.FocusReason.MouseFocusReason)
    QApplication.processEvents()


def _field_value(scenario: Any, field: str) -> object:
    """What ``scenario`` holds for form field ``field``."""
    if field == "ops":
        return scenario.n_ops
    if field == "buffers":
        return scenario.buffers
    if field.endswith("_workers"):
        return scenario.workers[("load", "compute", "store").index(field[: -len("_workers")])]
    values = getattr(scenario, field)
    return float(values[0]) if bool((values == values[0]).all()) else None


class StandInExperiment:
    """Experiment 1 replaced (as tests/gui/test_gpu_panel.py does): a measured result of
    random chunks at `scale` ms, an error, a crash, or a run that blocks until cancelled."""

    def __init__(self) -> None:
        self.mode = "result"
        self.scale = 1.0
        self.rng = random.Random(0)
        self.started = threading.Event()

    def __call__(self, backend: str, params: Any, cancel: threading.Event) -> Any:
        from gpu.errors import Cancelled
        from gpu.params import Progress

        mode, scale, rng = self.mode, self.scale, self.rng
        chunks = params.chunks

        def run() -> Any:
            yield Progress(0.25, "sequential: chunk 1")
            if mode == "block":
                self.started.set()
                cancel.wait(timeout=120)
                raise Cancelled()
            if mode == "error":
                from engine.base.errors import PipeLabError

                raise PipeLabError("the stand-in refused")
            if mode == "crash":
                raise ZeroDivisionError("a stand-in bug")
            return stand_in_result(chunks, scale, rng, params)

        return run()


def stand_in_result(chunks: int, scale: float, rng: random.Random, params: Any) -> Any:
    """A PipelineResult of ``chunks`` chunks whose stages take about ``scale`` ms (some 0)."""
    from gpu.measured import CPU_UNITS, PipelineResult, measured_schedule, predict

    chunks = min(chunks, 64)
    times = np.array(
        [[0.0 if rng.random() < 0.1 else scale * rng.uniform(0.1, 2) for _ in range(3)]
         for _ in range(chunks)]
    )  # fmt: skip
    runs = []
    for policy, together in (("sequential", False), ("pipelined", True)):
        starts, ends = np.zeros_like(times), np.zeros_like(times)
        clock = 0.0
        for c in range(chunks):
            for s in range(3):
                ready = ends[c, s - 1] if s else (ends[c - 1, 0] if together and c else clock)
                free = ends[c - 1, s] if c else 0.0
                starts[c, s] = max(ready, free)
                ends[c, s] = starts[c, s] + times[c, s]
            clock = ends[c, 2]
        runs.append(
            measured_schedule(
                starts,
                ends,
                policy=policy,
                buffers=1 if policy == "sequential" else 3,
                unit_names=CPU_UNITS,
                label=f"{policy} on stand-in threads",
            )
        )
    sequential, pipelined = runs
    spans = tuple(sequential.makespan * rng.uniform(0.9, 1.2) for _ in range(3))
    return PipelineResult(
        "cpu",
        "stand-in",
        params,
        1,
        sequential,
        pipelined,
        predict(sequential, 3),
        checked_values=3,
        sequential_makespans=spans,
        pipelined_makespans=(pipelined.makespan,) * 3,
    )
