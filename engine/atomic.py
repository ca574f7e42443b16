"""Atomic file writes: the target appears complete or not at all."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from engine.errors import PipeLabError


def write_atomic(path: str | Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write ``data`` (bytes, or a function that writes to a binary file) to ``path``.

    The bytes go to a temporary file beside the target, which replaces the target only once
    everything is written and flushed; on any failure the temporary file is removed and an
    existing target is left as it was. OS errors become a one-line `PipeLabError`.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise PipeLabError(f"{target}: folder {folder} does not exist")
    try:
        handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=folder)
    except OSError as error:
        raise PipeLabError(f"{target}: cannot write here: {error.strerror}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            if isinstance(data, bytes | bytearray):
                stream.write(data)
            else:
                data(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp_name, 0o644)
        os.replace(temp_name, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise PipeLabError(f"{target}: cannot write: {error.strerror}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


def write_text_atomic(path: str | Path, produce: Callable[[Callable[[str], Any]], None]) -> None:
    """Atomically write the UTF-8 text that ``produce`` hands, piece by piece, to the
    ``write`` function it is given (large outputs never sit in memory whole)."""

    def to_stream(stream: BinaryIO) -> None:
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
        produce(text.write)
        text.flush()
        text.detach()  # the caller still owns (and closes) the binary stream

    write_atomic(path, to_stream)
