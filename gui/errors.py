"""No exception escapes a Qt slot: an excepthook turns a PipeLabError into its one-line
message and logs anything else (with its traceback, through `logging`) before showing a
short line. PySide hands an exception raised in a slot to ``sys.excepthook``, so one hook
covers every slot of every widget."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING

from engine.base.errors import PipeLabError
from engine.base.text import message_line

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

log = logging.getLogger("pipelab")

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def message_text(text: str) -> str:
    """``text`` as the app shows a message: as the terminal does (`message_line`), one
    line, control characters escaped, at most `engine.base.text.MESSAGE_CHARS` characters."""
    return message_line(text.strip())


def warn(parent: QWidget | None, title: str, message: str) -> None:
    """A warning dialog saying ``message`` (as `message_text` shows it)."""
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.warning(parent, title, message_text(message))


def one_line(error: BaseException) -> str:
    """What the user reads: a PipeLabError's message on one line, else the kind of failure."""
    if isinstance(error, PipeLabError):
        text = str(error).strip()
        return message_text(text) if text else "the input was refused"  # (\n escaped)
    if isinstance(error, RecursionError):
        return "the input is nested too deeply to read"
    if isinstance(error, MemoryError):
        return "out of memory: try a smaller scenario"
    lines = str(error).strip().splitlines()
    detail = f"{type(error).__name__}: {message_text(lines[0])}" if lines else type(error).__name__
    return f"something went wrong ({detail}); details are in the log"


def install_excepthook(report: Callable[[str], None]) -> ExceptHook:
    """Route uncaught exceptions (those raised in slots included) to ``report`` as one line;
    anything but a PipeLabError is logged with its traceback first. Returns the hook that
    was in place (Ctrl+C still goes to it)."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, error, trace)
            return
        if not isinstance(error, PipeLabError):
            log.error("uncaught exception in the app", exc_info=(kind, error, trace))
        try:
            report(one_line(error))
        except Exception:  # the window may be gone: the log has it
            log.exception("could not show an error")

    sys.excepthook = hook
    return previous
