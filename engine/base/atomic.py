"""Atomic file writes: the target appears complete or not at all.

The bytes go to a temporary file beside the target, which replaces it once written and
flushed. An error, or a signal (`abandon_writes`, called by cli.interrupt), removes the
temporary file and leaves an existing target as it was. A symlink is written through.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from engine.base.errors import PipeLabError, RunFailed
from engine.base.validation import path_text

#: Longest file name most file systems take (bytes), when the folder does not say.
DEFAULT_NAME_MAX = 255
#: Characters of random name mkstemp adds, plus the dots and ".part" around them.
_TEMP_EXTRA = len(".") + 8 + len("..part") + 4


def name_max(folder: str | Path) -> int:
    """The longest file name (in bytes) the file system of ``folder`` accepts."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return DEFAULT_NAME_MAX


#: Most symbolic links followed in a row, as Linux does (MAXSYMLINKS): through a longer
#: chain the OS would not open the file the write made.
MAX_LINKS = 40


def resolve_target(path: str | Path) -> Path:
    """The file a write to ``path`` should replace: ``path`` itself, or where its symlinks
    (even a dangling one) lead, so that the link survives the write. Links that go round
    in a loop (a → b → a) or more than `MAX_LINKS` in a row lead to no file: PipeLabError
    (writing would replace the link with a regular file)."""
    target = Path(path)
    link, seen = target, set[str]()
    try:
        while link.is_symlink():
            here = os.path.abspath(link)
            if here in seen or len(seen) >= MAX_LINKS:
                problem = (
                    "its symbolic links go round in a loop"
                    if here in seen
                    else f"more than {MAX_LINKS} symbolic links in a row"
                )
                raise PipeLabError(f"{path_text(target)}: {problem}, so there is no file to write")
            seen.add(here)
            link = link.parent / os.readlink(link)
    except OSError:  # a name too long to look at: the write will say so
        return target
    return target if link is target else Path(os.path.realpath(link))


def temp_prefix(name: str, limit: int) -> str:
    """A temporary name's prefix: ``.NAME.`` when that fits the file system's name limit
    beside mkstemp's random part, else a short ``.pipelab.``."""
    prefix = f".{name}."
    if len(prefix.encode("utf-8", "surrogateescape")) + _TEMP_EXTRA <= limit:
        return prefix
    return ".pipelab."


#: The temporary files of the writes under way (in any thread). A write adds and drops its
#: file under `_in_flight_lock`, which `abandon_writes` takes for good: no rename follows
#: an abandon. Re-entrant: a signal handler may interrupt its own thread's write.
_in_flight: set[str] = set()
_in_flight_lock = threading.RLock()
#: How long `abandon_writes` waits for a rename under way (a slow network file system);
#: then it removes anyway: removal and rename exclude each other, so the target ends old
#: or complete either way.
_ABANDON_WAIT = 5.0


def abandon_writes() -> None:
    """Remove the temporary file of every write under way (an existing target stays as it
    was), for a process about to end. Keeps the lock: call it only right before the
    process ends, from any thread."""
    _in_flight_lock.acquire(timeout=_ABANDON_WAIT)
    for name in list(_in_flight):
        with contextlib.suppress(OSError):
            os.unlink(name)


def write_atomic(path: str | Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write ``data`` (bytes, or a function that writes to a binary file) to ``path``.

    OS errors become a one-line `PipeLabError`. A device or a pipe (``/dev/null``,
    ``/dev/stdout``, a FIFO) is written directly: nothing can be put in its place, so a
    failed write may leave part of the data with the reader.
    """
    shown = Path(path)
    try:
        mode: int | None = os.stat(shown).st_mode  # (through its links)
    except (OSError, ValueError):
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise PipeLabError(f"{path_text(shown)}: is a folder, not a file")
    if mode is not None and not stat.S_ISREG(mode):
        # Opened by its own name: /dev/stdout is a link to /proc/self/fd/1, which names the
        # pipe or terminal only as "pipe:[1234]", a path that does not exist.
        try:
            with open(shown, "wb") as stream:
                _put(stream, data)
        except BrokenPipeError:
            raise  # the reader stopped reading (`| head`): its choice, for the caller to take
        except OSError as error:
            raise RunFailed(f"{path_text(shown)}: cannot write: {error.strerror}") from None
        return
    target = resolve_target(shown)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        folder_exists = folder.is_dir()
    except OSError as error:
        raise PipeLabError(f"{path_text(shown)}: cannot write here: {error.strerror}") from None
    if not folder_exists:
        raise PipeLabError(f"{path_text(shown)}: folder {path_text(folder)} does not exist")
    permissions = stat.S_IMODE(mode) if mode is not None else 0o644
    temp_name: str | None = None
    try:
        with _in_flight_lock:
            handle, temp_name = tempfile.mkstemp(
                prefix=temp_prefix(target.name, name_max(folder)), suffix=".part", dir=folder
            )
            _in_flight.add(temp_name)
        with os.fdopen(handle, "wb") as stream:
            _put(stream, data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp_name, permissions)
        with _in_flight_lock:
            os.replace(temp_name, target)
            _in_flight.discard(temp_name)
    except OSError as error:
        _drop(temp_name)
        if temp_name is None:  # no file could be made beside the target
            # (/proc says "No such file or directory" of a file that exists)
            problem = (
                "the folder takes no new files (a system folder such as /proc or /sys)"
                if error.errno == errno.ENOENT
                else str(error.strerror or error)
            )
            raise PipeLabError(
                f"{path_text(shown)}: cannot create a file in {path_text(folder)}: {problem}"
            ) from None
        raise RunFailed(f"{path_text(shown)}: cannot write: {error.strerror}") from None
    except BaseException:
        _drop(temp_name)
        raise


def _put(stream: BinaryIO, data: bytes | Callable[[BinaryIO], None]) -> None:
    if isinstance(data, bytes | bytearray):
        stream.write(data)
    else:
        data(stream)


def _drop(name: str | None) -> None:
    """Remove a failed write's temporary file and forget it."""
    if name is not None:
        with _in_flight_lock, contextlib.suppress(OSError):
            _in_flight.discard(name)
            os.unlink(name)


def write_text_atomic(path: str | Path, produce: Callable[[Callable[[str], Any]], None]) -> None:
    """Atomically write the UTF-8 text that ``produce`` hands, piece by piece, to the
    ``write`` function it is given (large outputs never sit in memory whole)."""

    def to_stream(stream: BinaryIO) -> None:
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
        produce(text.write)
        text.flush()
        text.detach()  # the caller still owns (and closes) the binary stream

    write_atomic(path, to_stream)
