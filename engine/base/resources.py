"""What PipeLab's installed distribution carries: its data files and its version.

`asset` finds the top-level assets/ (installed as the package ``pipelab_assets``), `resource`
the files beside one package's code (engine/model.md, gpu/kernels), both through
importlib.resources: a checkout and an installed wheel behave alike.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from engine.base.errors import PipeLabError

DISTRIBUTION = "pipelab"


def resource(package: str, *parts: str) -> Path:
    """The file or folder ``parts`` shipped inside ``package``: a Path, which Qt and NVRTC's
    ``-I`` take (wheels install as plain files; PipeLab never runs from a zip)."""
    root = resources.files(package)
    if not isinstance(root, Path):
        raise PipeLabError(f"package {package!r} is not installed as files on disk ({root})")
    return root.joinpath(*parts)


#: The package assets/ is installed as (pyproject's package-dir).
ASSETS_PACKAGE = "pipelab_assets"


def asset(*parts: str) -> Path:
    """The shipped data file or folder ``parts`` of assets/ (``asset("presets")``)."""
    try:
        return resource(ASSETS_PACKAGE, *parts)
    except ModuleNotFoundError:
        raise PipeLabError(
            f"PipeLab's data files ({ASSETS_PACKAGE}) are not installed: run `uv sync` in the "
            "checkout, or reinstall pipelab"
        ) from None


def model_doc() -> Path:
    """docs/model.md, shipped as ``engine/model.md``: the page every ``--help`` cites."""
    return resource("engine", "model.md")


def version() -> str:
    """PipeLab's version as installed (pyproject's ``version``), e.g. "0.1.0"."""
    from importlib import metadata  # (10 ms with the email package: not at start-up)

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (not installed: run `uv sync`)"
