"""What PipeLab's installed distribution carries: its data files and its version.

The presets, icons and style sheet live in the top-level assets/ folder, installed as the
package ``pipelab_assets``; `asset` is the one way to them. Files that belong to one
package's code stay beside it (engine/model.md, gpu/kernels) and `resource` finds those.
Both go through importlib.resources, so a source checkout (an editable install maps
``pipelab_assets`` to assets/) and an installed wheel behave alike and no path is ever
computed from the source tree's layout.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from engine.base.errors import PipeLabError

DISTRIBUTION = "pipelab"


def resource(package: str, *parts: str) -> Path:
    """The file or folder ``parts`` shipped inside PipeLab's package ``package``.

    A Path, not just a Traversable: Qt, NVRTC's ``-I`` and `Scenario.load` take paths, and
    wheels always install as plain files (PipeLab never runs from a zip archive).
    """
    root = resources.files(package)
    if not isinstance(root, Path):
        raise PipeLabError(f"package {package!r} is not installed as files on disk ({root})")
    return root.joinpath(*parts)


#: The package assets/ is installed as (pyproject's package-dir).
ASSETS_PACKAGE = "pipelab_assets"


def asset(*parts: str) -> Path:
    """The shipped data file or folder ``parts`` of assets/: ``asset("presets")``,
    ``asset("icons")``, ``asset("style.qss")``."""
    try:
        return resource(ASSETS_PACKAGE, *parts)
    except ModuleNotFoundError:
        raise PipeLabError(
            f"PipeLab's data files ({ASSETS_PACKAGE}) are not installed: run `uv sync` in the "
            "checkout, or reinstall pipelab"
        ) from None


def model_doc() -> Path:
    """The model in words (docs/model.md in the source), shipped inside the engine package
    as ``engine/model.md`` so an installed PipeLab has the page every ``--help`` cites."""
    return resource("engine", "model.md")


def version() -> str:
    """PipeLab's version as installed (pyproject's ``version``), e.g. "0.1.0"."""
    from importlib import metadata  # (10 ms with the email package: not at start-up)

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (not installed: run `uv sync`)"
