"""The app's help: the short "what am I looking at" text shown in its own dock (F1), and
Help → The model, the model in words (docs/model.md, shipped as package data) in a window
of its own, so the page every ``--help`` cites is there in an installed app too."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDialog, QLabel, QTextBrowser, QVBoxLayout, QWidget

from engine.base.resources import model_doc

#: The menu entry, and the object name of its window (found again, never made twice).
MODEL_ACTION = "The &model"
MODEL_WINDOW = "model-help"
#: The model window's size where the screen has room, and the share of the screen's free
#: area it takes at most (the rest leaves room for a title bar: no line under the frame).
MODEL_SIZE = QSize(720, 640)
SCREEN_SHARE = 0.85
#: Pixels between the page's text and the viewer's frame (Qt's 4 let lines touch it).
PAGE_MARGIN = 12

HELP_TEXT = """
<p><b>An assembly line for data.</b> Every op is read from global memory by the
<b>load unit</b>, computed by the <b>compute unit</b> and written back by the
<b>store unit</b>. Each op is a numbered <b>chip</b> in its own colour; the chip sits where
its op is: on the input shelf, at the worker running one of its steps, in its shared-memory
slot between steps, on the output shelf. A busy worker takes its op's colour and its bar
shows how far the step is; a grey worker is idle, and its label counts the idle time.</p>
<p><b>Shared memory</b> has B numbered <b>slots</b> (the buffers), each saying what it
holds: <i>free</i>; <i>reserved</i> (granted to the next op, its read has not started);
<i>loading</i> (the read fills it); <i>held</i> (read, waiting for or in compute);
<i>writing</i> (the write drains it). An op holds its slot from the start of its read to
the end of its write, and slots go to the ops in order. With one slot nothing overlaps:
that is the <i>sequential</i> run. With more slots the units work on different ops at
once: the <i>pipelined</i> run.</p>
<p>The <b>narration</b> under the line says what happened at the last event and why
anyone waits. A worker waits for one of three reasons: <i>input</i> (the step before has
not ended: the op it needs is still being read or computed), <i>slot</i> (the load unit
has nothing to read into: every slot is held) or <i>done</i> (no work left).</p>
<p>The <b>timeline</b> below draws the same runs: one row per worker (View → Gantt rows:
one per op), one bar per step, idle time pale and hatched by its reason (/ input,
crossed slot, plain done), a dashed line at each run's end (its makespan). Drag the red
cursor to scrub; wheel to zoom, drag to pan; hover a bar for its times.</p>
<p><b>Stats</b> (right): each run's makespan and speedup; the <b>bottleneck</b> line names
what sets the pipelined run's pace — the slowest unit, or the slots when (read + compute +
write) / B is longer — and the <b>formula</b> line gives the textbook closed form,
(r + c + w) + (N − 1) · max(r, c, w) for identical ops with one worker per unit and enough
slots, or else the least makespan any schedule could reach. Hover any number for how it
was obtained.</p>
<p><b>Keys:</b> Space play/pause · ← → previous/next event · Home/End · + − speed ·
Ctrl+0 reset zoom · Ctrl+1/2/3 the tabs · Ctrl+Q quit. In a field, Enter or Escape
leaves it (Escape puts its value back), and the keys drive the clock again.</p>
<p><b>Try:</b> set Buffers to 1, then 2, then unlimited and watch the makespan in Stats;
add a second load worker in the memory-bound preset.</p>
<p><b>Warps</b> (second tab): the same idea inside one SM. While a warp waits for memory
the SM issues another warp's instructions; with enough warps, W ≥ (C + L) / C, the issue
unit never rests.</p>
<p><b>GPU</b> (third tab): runs the pipeline for real, with CuPy on your GPU or with CPU
threads without one, and draws the measured sequential and pipelined runs beside the
model's prediction, with the spread over the repeats and why the measurement differs
from the model.</p>
<p>Each tab keeps its own time: seconds on Pipeline, cycles on Warps, milliseconds on
GPU.</p>
"""


class HelpText(QLabel):
    """`HELP_TEXT`, wrapped to its dock's width, set when its dock is first in view
    (`fill`): the dock opens tabbed behind the Scenario, and laying the text out cost
    8 ms of the first window."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setContentsMargins(10, 8, 10, 8)
        self.setAlignment(Qt.AlignmentFlag.AlignTop)

    def fill(self, in_view: bool = True) -> None:
        """Set the text if it is not yet and ``in_view`` (a dock's visibilityChanged:
        a tabbed dock's widget is "visible" behind another tab too)."""
        if in_view and not self.text():
            self.setText(HELP_TEXT)


def model_window(parent: QWidget) -> QDialog:
    """The model page in a non-modal window over ``parent``: made on first use, then shown
    again as it was left (scrolled where the reader was)."""
    found = parent.findChild(QDialog, MODEL_WINDOW)
    if found is not None:
        return found
    dialog = QDialog(parent)
    dialog.setObjectName(MODEL_WINDOW)
    dialog.setWindowTitle("The model behind PipeLab")
    browser = QTextBrowser(dialog)
    browser.setOpenExternalLinks(True)
    browser.document().setDocumentMargin(PAGE_MARGIN)
    browser.setMarkdown(model_doc().read_text(encoding="utf-8"))
    layout = QVBoxLayout(dialog)
    layout.addWidget(browser)
    dialog.resize(_fitting_size(parent))
    return dialog


def _fitting_size(parent: QWidget) -> QSize:
    """`MODEL_SIZE`, or less on a screen whose free area it would overflow."""
    free = parent.screen().availableGeometry().size() * SCREEN_SHARE
    return MODEL_SIZE.boundedTo(free)


def show_model(parent: QWidget) -> QDialog:
    """Help → The model: show the model page and bring it to the front."""
    dialog = model_window(parent)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
