"""The About text: PipeLab's version and licence, then the versions of Python, Qt, PySide6,
pyqtgraph, numpy, and CuPy only if installed (read from package metadata: CuPy is never
imported for this)."""

from __future__ import annotations

import platform
from importlib import metadata

import numpy
import pyqtgraph
import PySide6
from PySide6.QtCore import qVersion

from engine.base.resources import version

CUPY_PACKAGES = ("cupy-cuda12x", "cupy-cuda13x", "cupy-cuda11x", "cupy")


def cupy_version() -> str | None:
    """The installed CuPy's version from its package metadata, or None."""
    for name in CUPY_PACKAGES:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def versions() -> dict[str, str]:
    found = {
        "Python": platform.python_version(),
        "Qt": qVersion(),
        "PySide6": PySide6.__version__,
        "pyqtgraph": pyqtgraph.__version__,
        "numpy": numpy.__version__,
    }
    cupy = cupy_version()
    if cupy is not None:
        found["CuPy"] = cupy
    return found


def about_text() -> str:
    rows = "".join(f"<tr><td>{k}</td><td>&nbsp;{v}</td></tr>" for k, v in versions().items())
    return (
        f"<h3>PipeLab {version()}</h3><p>Makes GPU pipelining visible and measurable: a "
        "scheduling engine, an animated assembly line, and real pipelined kernels.</p>"
        f"<table>{rows}</table><p>MIT License</p>"
    )
