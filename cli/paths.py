"""The one policy for paths the command line writes (``--out`` of every command) and the
names it reads (``--preset``, ``--scenario``): checked before any work starts, each failure
a one-line `PipeLabError`.

An output path must name a file: not empty, not ending in a slash, not an existing folder,
in a folder that exists, with a name the file system can hold. A symlink is fine (its
target gets the content, see `engine.base.atomic`); so is a device such as /dev/null.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path

from engine.base.atomic import DEFAULT_NAME_MAX, name_max, resolve_target
from engine.base.errors import PipeLabError
from engine.base.validation import path_text, shown
from engine.model.scenario import STDIN


def nonempty(text: str) -> str:
    """argparse type for names and paths, the one check for an empty one: ``--out ''``
    would otherwise mean "no file" or the current folder, silently; every command says
    "argument --out: must not be empty"."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def text_output(path: str | None) -> Path | None:
    """Where a command that prints text writes: None (standard output) without ``--out``
    or with ``--out -``, as in every Unix tool; else the checked file."""
    if path is None or path == STDIN:
        return None
    return check_output_path(path)


def check_output_path(path: str, suffixes: Iterable[str] | None = None) -> Path:
    """``path`` as a file the command may write, or a one-line PipeLabError that says why
    not. With ``suffixes`` (".png", ".json", …), the file's suffix must be one of them."""
    shown_path = path_text(path)  # escaped and cut to a line: a file name is hostile text
    if path == STDIN:
        raise PipeLabError(
            "--out -: this command writes a file, not standard output; give the file's name "
            "(its suffix chooses the format)"
        )
    if "\0" in path:
        raise PipeLabError(f"{shown_path}: a file name cannot hold a NUL character")
    separators = (os.sep, os.altsep) if os.altsep else (os.sep,)
    if path.endswith(separators):
        raise PipeLabError(
            f"{shown_path}: ends with a slash, so it names a folder; give a file name"
        )
    target = Path(path)
    if target.name in ("", ".", ".."):
        raise PipeLabError(f"{shown_path}: names a folder; give a file name")
    _check_name_length(path, target)
    try:
        if target.is_dir():
            raise PipeLabError(f"{shown_path}: is a folder; give a file name")
        if suffixes is not None:
            _check_suffix(path, target, tuple(suffixes))
        real = resolve_target(target)
        folder = real.parent if str(real.parent) else Path(".")
        if not folder.is_dir():
            where = "the folder it names" if real == target else "the folder its link points to"
            if _exists(folder):
                raise PipeLabError(f"{shown_path}: {path_text(folder)} is not a folder ({where})")
            raise PipeLabError(f"{shown_path}: folder {path_text(folder)} does not exist")
        _check_name_length(path, real)
    except OSError as error:  # a path too long for the system, a loop of links, …
        raise PipeLabError(f"{shown_path}: cannot write there: {error.strerror}") from None
    return target


def _check_suffix(path: str, target: Path, allowed: tuple[str, ...]) -> None:
    suffix = target.suffix.lower()
    if suffix not in allowed:
        given = shown(suffix) if suffix else "(no suffix)"
        raise PipeLabError(
            f"{path_text(path)}: unknown export format {given} (use one of {', '.join(allowed)})"
        )


def _check_name_length(path: str, target: Path) -> None:
    """The file name (the last part) must fit the file system's limit, checked before any
    stat() (which would fail with "File name too long")."""
    folder = target.parent if str(target.parent) else Path(".")
    try:
        limit = name_max(folder) if folder.is_dir() else DEFAULT_NAME_MAX
    except OSError:
        limit = DEFAULT_NAME_MAX
    length = len(target.name.encode("utf-8", "surrogateescape"))
    if length > limit:
        raise PipeLabError(
            f"{path_text(path)}: the file name is {length:,} bytes, longer than the file system "
            f"allows ({limit})"
        )


def _exists(path: Path) -> bool:
    """Whether something is at ``path``; OSErrors other than "not there" (a loop of links,
    no permission) propagate, to be said as they are."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True
