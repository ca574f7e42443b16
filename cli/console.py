"""The terminal side of the command line: text that every console can print, and progress
for work that takes a while.

* `use_ascii_fallback`: a console whose encoding lacks the block characters (a Windows
  cp1252 console, ``PYTHONIOENCODING=ascii``) gets ASCII stand-ins (█ → #, ░ → :, → → ->)
  instead of a UnicodeEncodeError. UTF-8 consoles are untouched.
* `Progress`: after `DELAY` seconds, a line on stderr saying what runs and how far it is,
  redrawn in place; only when stderr is a terminal, so pipes and files stay clean. The one
  progress line of every command.
"""

from __future__ import annotations

import codecs
import contextlib
import math
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

from engine.base.text import duration_words, printable

ERRORS = "pipelab-ascii"
#: Stand-ins for the non-ASCII characters PipeLab prints (others become "?").
ASCII = {
    "█": "#",
    "░": ":",
    "▒": "%",
    "·": ".",
    "→": "->",
    "←": "<-",
    "×": "x",
    "÷": "/",
    "−": "-",
    "–": "-",
    "—": "-",
    "≈": "~",
    "≥": ">=",
    "≤": "<=",
    "µ": "u",
    "✓": "ok",
    "✗": "x",
    "…": "...",
    "±": "+/-",
    "²": "^2",
    "⁻": "-",
    "¹": "1",
}


def _to_ascii(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(ASCII.get(char, "?") for char in text), error.end


codecs.register_error(ERRORS, _to_ascii)


def ascii_text(text: str) -> str:
    """``text`` with every non-ASCII character replaced by its stand-in."""
    return text.encode("ascii", ERRORS).decode("ascii")


def use_ascii_fallback(stream: Any) -> None:
    """Make ``stream`` (sys.stdout, sys.stderr) print ASCII stand-ins for characters its
    encoding can't hold. Does nothing to UTF-8 streams or streams that can't be changed."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    if encoding in ("utf-8", "utf8", "utf-16", "utf-32", ""):
        return
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):  # detached or closed: leave it
            reconfigure(errors=ERRORS)


#: Work shorter than this shows no progress at all.
DELAY = 2.0
#: How often the progress line is redrawn.
INTERVAL = 0.5
#: The redrawing thread never wakes more often than this (an interval of 0 would spin).
_QUICKEST = 0.02


class Progress:
    """What a long command is doing, on stderr: "pipelab: writing JSON 45% (12 s)".

    The one progress line of the command line (simulate, warps, export and bench). Use as
    a context manager; call `phase` when the work changes and `advance` as it goes, or
    `update` with a fraction (bench's experiments report one). Once `DELAY` seconds have
    passed the line is drawn, redrawn in place every `INTERVAL` seconds by a daemon thread
    (so it also shows while one long numpy or Qt call runs) and at each phase or update,
    cut to the terminal's width, and erased at the end. Disabled (costless) unless
    ``stream`` is a terminal, so pipes, files and tests' captured output stay clean.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        delay: float | None = None,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        streaming_to_stdout: bool = False,
        width: int | None = None,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        # Output streamed to a terminal shares the screen: a progress line would cut into it.
        self.enabled = _isatty(self._stream) and not (streaming_to_stdout and _isatty(sys.stdout))
        self._delay = DELAY if delay is None else delay
        self._interval = INTERVAL if interval is None else interval
        self._clock = clock
        self._width = width if width is not None else _columns(self._stream)
        self._started = clock()
        self._drawn_at = -math.inf
        self._text = ""
        self._done = 0
        self._total: int | None = None
        self._fraction: float | None = None
        self._shown = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> Progress:
        if self.enabled:
            self._started = self._clock()
            self._thread = threading.Thread(target=self._run, name="pipelab-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            self._erase()

    def phase(self, text: str, total: int | None = None) -> None:
        """Now doing ``text``, with ``total`` steps to go (None: no percentage)."""
        with self._lock:
            self._text, self._total, self._done, self._fraction = text, total, 0, None
        self._draw_if_due(changed=True)  # a new step shows at once

    def update(self, text: str, fraction: float) -> None:
        """Now doing ``text``, ``fraction`` (0 to 1) of the whole work done (frequent
        reports are drawn at most every `INTERVAL` seconds)."""
        with self._lock:
            self._text, self._total, self._fraction = text, None, fraction
        self._draw_if_due()

    def advance(self, count: int = 1) -> None:
        self._done += count

    def line(self) -> str:
        """The progress line as it would be drawn now, at most the terminal's width."""
        elapsed = self._clock() - self._started
        text = f"pipelab: {printable(self._text)}"
        fraction = self._fraction
        if fraction is None and self._total:
            fraction = self._done / self._total
        if fraction is not None:
            text += f" {min(1.0, max(0.0, fraction)):.0%}"
        text = f"{text} ({duration_words(elapsed, about=False)})"
        return text[: max(10, self._width - 1)]  # a wrapped line could not be redrawn

    def _due(self, now: float, changed: bool = False) -> bool:
        return (
            bool(self._text)
            and now - self._started >= self._delay
            and (changed or now - self._drawn_at >= self._interval)
        )

    def _draw_if_due(self, changed: bool = False) -> None:
        if self.enabled and not self._stop.is_set():
            with self._lock:
                if self._due(self._clock(), changed):
                    self._draw(self.line())

    def _run(self) -> None:
        while not self._stop.wait(max(self._interval, _QUICKEST)):
            with self._lock:
                if self._due(self._clock()):
                    self._draw(self.line())

    def _draw(self, text: str) -> None:
        try:
            pad = " " * max(0, self._shown - len(text))
            self._stream.write("\r" + text + pad)
            self._stream.flush()
            self._shown = len(text)
            self._drawn_at = self._clock()
        except (OSError, ValueError):  # stderr closed under us: progress is optional
            self._stop.set()

    def _erase(self) -> None:
        if self._shown:
            try:
                self._stream.write("\r" + " " * self._shown + "\r")
                self._stream.flush()
            except (OSError, ValueError):
                pass
            self._shown = 0


def _columns(stream: Any) -> int:
    """The width of the terminal ``stream`` writes to (100 when it cannot say)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = 0
    return columns or shutil.get_terminal_size((100, 24)).columns  # 0: a size never set


def _isatty(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except (OSError, ValueError):
        return False


def counting_lines(write: Callable[[str], Any], progress: Progress) -> Callable[[str], Any]:
    """``write`` that advances ``progress`` by the lines it writes (one task per line in
    the JSON and trace writers)."""
    if not progress.enabled:
        return write

    def counted(text: str) -> Any:
        progress.advance(text.count("\n"))
        return write(text)

    return counted
