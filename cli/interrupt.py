"""Ctrl-C, SIGTERM and SIGHUP end a command at once and cleanly, whatever it is doing.

Python's own Ctrl-C raises KeyboardInterrupt wherever the main thread happens to be: in an
import (PySide then aborts: "libshiboken/signature: could not initialize part 2"), in a
paint method Qt calls (PySide swallows it and the export runs on), or between a QPainter's
begin and end (unwinding destroys the image under the painter: a segfault). So no
exception is raised at all. A signal only wakes a watching thread, which removes the
temporary file of every atomic write under way (`engine.base.atomic.abandon_writes`) and ends
the process on the spot with `os._exit`: no Qt destructor, no flush, no finally block runs.
Ctrl-C exits with status 130; SIGTERM and SIGHUP end the process as they would have
(killed by the signal), as the shell and a service manager expect.

The watcher wakes through `signal.set_wakeup_fd`, written by the C-level handler the moment
the signal arrives, so it acts even while the main thread sits in a long call that lets
go of the GIL (numpy, the scheduler's C loops, Pillow's encoders, most of Qt). The
Python-level handler only forwards the signal to the watcher (and acts itself should the
watcher be gone). A target already renamed into place stays: it is the complete new file,
and the status is still 130 (the command was interrupted before it ended).

Only signals whose action was to end the process are taken: a Ctrl-C ignored by the shell
(a background job) or a SIGHUP ignored by nohup stays ignored.

Standard library only: this loads before anything else of the command line, numpy and
PySide included, so that a Ctrl-C during their imports is handled too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

#: Exit status after Ctrl-C, as shells report it (128 + SIGINT).
INTERRUPTED = 130
#: Signals that end a command; SIGINT is Ctrl-C.
SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
#: The byte that tells the watcher to stop (no signal has number 0).
_STOP = 0

Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


class _Watch:
    """One installation: the signals taken, what they had before, the pipe and its thread."""

    def __init__(self) -> None:
        self.previous: dict[int, Handler] = {}
        self.previous_wakeup = -1
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.write_fd, False)  # a full pipe already holds a wake-up
        self.thread = threading.Thread(target=self._watch, name="pipelab-signals", daemon=True)

    def _watch(self) -> None:
        while True:
            try:
                data = os.read(self.read_fd, 64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if signum == _STOP:
                    return
                if signum in self.previous:
                    end_now(signum)

    def forward(self, signum: int, frame: FrameType | None) -> None:
        """The Python-level handler (main thread): wake the watcher; act if it is gone."""
        if not self.thread.is_alive():
            end_now(signum)
        with contextlib.suppress(OSError):  # full: the watcher has a wake-up waiting
            os.write(self.write_fd, bytes((signum,)))


_watch: _Watch | None = None


def _takes(signum: int, handler: Handler) -> bool:
    """Whether ``signum`` with ``handler`` would end the process (so it is ours to take)."""
    if handler == signal.SIG_DFL:
        return True
    return signum == signal.SIGINT and handler is signal.default_int_handler


@contextlib.contextmanager
def ending_on_signals(keep: bool = False) -> Iterator[None]:
    """While inside, a signal in `SIGNALS` ends the process at once (see the module doc).

    ``keep``: leave it so until the process ends (the command line of a process of its own:
    a Ctrl-C between the command's end and the interpreter's is taken too); otherwise the
    signals' handlers, the wake-up descriptor and the thread are put back or stopped on
    leaving (a caller in a longer process, such as a test). Does nothing outside the main
    thread, or when already inside.
    """
    global _watch
    if _watch is not None or threading.current_thread() is not threading.main_thread():
        yield
        return
    watch = _Watch()
    try:
        # Handlers first: a signal before the watcher runs is handled on this thread.
        for signum in SIGNALS:
            previous = signal.getsignal(signum)
            if _takes(signum, previous):
                watch.previous[signum] = previous
                signal.signal(signum, watch.forward)
        # The C handler writes the signal's number here the moment it arrives. Windows
        # takes only a socket: there the Python-level handler alone wakes the watcher.
        with contextlib.suppress(ValueError, OSError):
            watch.previous_wakeup = signal.set_wakeup_fd(watch.write_fd, warn_on_full_buffer=False)
        watch.thread.start()
        _watch = watch
        yield
    finally:
        if not keep:
            _undo(watch)
            _watch = None


def _undo(watch: _Watch) -> None:
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(watch.previous_wakeup)
    for signum, previous in watch.previous.items():
        signal.signal(signum, previous)
    if watch.thread.is_alive():
        os.write(watch.write_fd, bytes((_STOP,)))
        watch.thread.join()
    os.close(watch.read_fd)
    os.close(watch.write_fd)


def end_now(signum: int) -> None:
    """Remove the temporary files of writes under way and end the process as ``signum``
    should: status 130 for Ctrl-C, else killed by the signal itself. Never returns."""
    try:
        # Loaded only when something writes a file; not loaded, nothing is being written.
        atomic = sys.modules.get("engine.base.atomic")
        abandon = getattr(atomic, "abandon_writes", None)
        if abandon is not None:
            abandon()
        if signum == signal.SIGINT and os.isatty(2):  # the prompt on a line of its own
            os.write(2, b"\n")
    except BaseException:  # nothing may stop the ending
        pass
    finally:
        if signum == signal.SIGINT:
            os._exit(INTERRUPTED)
        _die_by(signum)


def _die_by(signum: int) -> None:
    """End the process killed by ``signum``, from any thread (Python's signal.signal works
    only in the main thread, so the default action is restored through libc)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
        libc.signal.restype = ctypes.c_void_p
        libc.signal(signum, None)  # SIG_DFL is 0
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (signum,))
        os.kill(os.getpid(), signum)
    finally:
        os._exit(128 + signum)
