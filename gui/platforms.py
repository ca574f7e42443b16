"""Which Qt platform plugins this Qt has, read before Qt starts: a ``QT_QPA_PLATFORM`` that
names none of them makes Qt abort the process after five lines about plugins, so the app
says it in one line naming the platform and the ones there are.

The names are the plugins' own keys ("wayland", "wayland-egl" from one libqwayland.so),
read from the metadata Qt embeds near the start of each plugin file (a CBOR map with a
"Keys" array); a file whose metadata cannot be read counts by its name (libqxcb.so: xcb).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QLibraryInfo

from engine.base.validation import shown

#: Qt writes the metadata in a note section in the first kilobytes of the file.
_HEAD_BYTES = 64 * 1024
#: CBOR: the text string "Keys" (major type 3, length 4).
_KEYS = b"\x64Keys"


def plugin_folders(environ: Mapping[str, str]) -> list[Path]:
    """Where Qt looks for platform plugins: ``QT_QPA_PLATFORM_PLUGIN_PATH``, each
    ``QT_PLUGIN_PATH`` folder's platforms/, and Qt's own plugins/platforms."""
    folders = [Path(p) for p in environ.get("QT_QPA_PLATFORM_PLUGIN_PATH", "").split(os.pathsep)]
    folders += [Path(p) / "platforms" for p in environ.get("QT_PLUGIN_PATH", "").split(os.pathsep)]
    plugins = QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)
    folders.append(Path(plugins) / "platforms")
    return [folder for folder in folders if str(folder) not in ("", ".", "platforms")]


def available_platforms(environ: Mapping[str, str] | None = None) -> list[str]:
    """The platform names the plugins in `plugin_folders` answer to, sorted, lower case."""
    environ = os.environ if environ is None else environ
    names: set[str] = set()
    for folder in plugin_folders(environ):
        try:
            files = [f for f in folder.iterdir() if f.suffix in (".so", ".dylib", ".dll")]
        except OSError:
            continue
        for file in files:
            names.update(key.lower() for key in plugin_keys(file))
    return sorted(names)


def plugin_keys(file: Path) -> list[str]:
    """The keys in a platform plugin's metadata, or its name without "libq"/"q" and suffix."""
    try:
        with file.open("rb") as stream:
            head = stream.read(_HEAD_BYTES)
    except OSError:
        return []
    keys = _cbor_text_array(head, head.find(_KEYS) + len(_KEYS)) if _KEYS in head else []
    if keys:
        return keys
    stem = file.name.split(".")[0]
    return [stem.removeprefix("lib").removeprefix("q")]


def _cbor_text_array(data: bytes, at: int) -> list[str]:
    """The array of short text strings that CBOR encodes at ``at`` ([] if it is not one)."""
    if at >= len(data) or data[at] >> 5 != 4:
        return []
    count, at = data[at] & 0x1F, at + 1
    if count >= 24:
        return []  # a plugin with 24 or more keys: none is
    keys: list[str] = []
    for _ in range(count):
        if at >= len(data) or data[at] >> 5 != 3:
            return []
        length, at = data[at] & 0x1F, at + 1
        if length == 24 and at < len(data):
            length, at = data[at], at + 1
        elif length > 24:
            return []
        keys.append(data[at : at + length].decode("utf-8", "replace"))
        at += length
    return keys


def chosen_platforms(environ: Mapping[str, str]) -> list[str]:
    """The names in ``QT_QPA_PLATFORM`` ("wayland;xcb", "vnc:size=800x600"), in order."""
    text = environ.get("QT_QPA_PLATFORM", "")
    return [name for part in text.split(";") if (name := part.split(":")[0].strip())]


def platform_problem(environ: Mapping[str, str] | None = None) -> str:
    """Why Qt would find no platform plugin ("" when it will, or cannot tell): every name in
    ``QT_QPA_PLATFORM`` is unknown to this Qt. One line, naming the ones it has."""
    environ = os.environ if environ is None else environ
    chosen = chosen_platforms(environ)
    if not chosen:
        return ""
    available = available_platforms(environ)
    if not available or any(name.lower() in available for name in chosen):
        return ""
    named = shown(environ.get("QT_QPA_PLATFORM", ""))
    return (
        f"QT_QPA_PLATFORM={named}: Qt has no such platform plugin (it has "
        f"{', '.join(available)}); unset it, or use offscreen for no window"
    )
