"""Standard output, written the one way every command writes it.

A full disk (``> /dev/full``), a closed stdout (``>&-``, where Python's ``sys.stdout`` is
None) or any other OS error is one line, "pipelab: cannot write to standard output: No
space left on device", exit status 1 (a `RunFailed`), never a traceback. The text
is flushed before the command returns, so an error that the buffer would only meet at
interpreter exit is met here too.

A reader that stops early (``pipelab simulate … | head``) is no error: `BrokenPipeError`
passes through to `cli.main`, which calls `silence_stdout` and ends quietly.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from engine.base.errors import RunFailed

#: What every write to standard output is told when it fails.
PROBLEM = "cannot write to standard output"


@contextlib.contextmanager
def stdout_writer() -> Iterator[Callable[[str], Any]]:
    """A ``write`` for standard output; on leaving, the text is flushed. OS errors (other
    than a broken pipe) become a one-line RunFailed."""
    stream = sys.stdout
    if stream is None:
        raise RunFailed(f"{PROBLEM}: it is closed")
    try:
        yield stream.write
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        silence_stdout()
        raise RunFailed(f"{PROBLEM}: {error.strerror or error}") from None
    except ValueError as error:  # "I/O operation on closed file"
        raise RunFailed(f"{PROBLEM}: {error}") from None


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output and flush it (errors as in `stdout_writer`)."""
    with stdout_writer() as write:
        write(text)


def silence_stdout() -> None:
    """Standard output failed (the reader has gone, the disk is full): point it at the null
    device, so the interpreter's final flush of what is still buffered does not fail a
    second time ("Exception ignored … BrokenPipeError", exit status 120)."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError, AttributeError):  # not a real file (tests' StringIO)
        return
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, descriptor)
        os.close(null)
