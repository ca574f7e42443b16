"""No exception escapes a Qt slot: an excepthook turns a PipeLabError into its one-line
message and logs anything else (with its traceback, through `logging`) before showing a
short line. PySide hands an exception raised in a slot to ``sys.excepthook``, so one hook
covers every slot of every widget."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from types import TracebackType

from engine.errors import PipeLabError

log = logging.getLogger("pipelab")

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def one_line(error: BaseException) -> str:
    """What the user reads: a PipeLabError's own first line, else the kind of failure."""
    if isinstance(error, PipeLabError):
        text = str(error).strip()
        return text.splitlines()[0] if text else "the input was refused"
    if isinstance(error, RecursionError):
        return "the input is nested too deeply to read"
    if isinstance(error, MemoryError):
        return "out of memory: try a smaller scenario"
    lines = str(error).strip().splitlines()
    detail = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
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
