"""The wheel as a user installs it: built from a copy of the checkout, installed into a fresh
venv offline (the locked dependencies from uv's cache, which `uv sync` filled), and run from
another folder, so nothing can come from the source tree.

One wheel build and one venv for the whole module (about 10-20 s on an idle machine, most of
it the app's own start-up and the wheel build).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "gpu", "gui", "cli")
#: The top-level assets/ folder and the package it is installed as.
ASSETS, ASSETS_PACKAGE = "assets", "pipelab_assets"
#: Folders of data: every file in them must be in the wheel (assets/ as pipelab_assets/).
DATA_DIRS = ("assets", "gpu/kernels")
#: Not copied for the build: environments, caches and earlier build outputs (a stale build/
#: would leak old files into the wheel).
BUILD_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
    "out", ".whl", ".device", "node_modules",
)  # fmt: skip
#: A guard against a hung process, not a speed limit (a busy machine is slow).
HANG_S = 600


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    home: Path  # HOME and XDG_CONFIG_HOME of the runs: never the user's settings

    @property
    def pipelab(self) -> str:
        return str(self.venv / "bin" / "pipelab")

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")


def project_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if not found:
        pytest.fail("uv is needed to build and install the wheel (run the tests with `uv run`)")
    return found


def _uv_env() -> dict[str, str]:
    """uv with the caller's cache and configuration, offline, outside the test's venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.pop("UV_PROJECT_ENVIRONMENT", None)
    return {**env, "UV_OFFLINE": "1", "UV_NO_PROGRESS": "1"}


def _clean_env(home: Path) -> dict[str, str]:
    """A user's shell: no venv, no PYTHONPATH, a home of its own (settings), Qt offscreen."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    return {**env, "QT_QPA_PLATFORM": "offscreen"}


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_S
    )
    return result


def _check(command: list[str], cwd: Path, env: dict[str, str]) -> None:
    result = _run(command, cwd, env)
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("install")
    home = base / "home"
    home.mkdir()
    env = _uv_env()
    uv = _uv()
    source, dist, venv = base / "source", base / "dist", base / "venv"
    # Links kept as links (engine/model.md is one): the build must ship the text, as a
    # wheel built from a git checkout would.
    shutil.copytree(ROOT, source, ignore=BUILD_IGNORE, symlinks=True)
    _check(
        [uv, "build", "--wheel", "--out-dir", str(dist), "--python", sys.executable], source, env
    )
    (wheel,) = dist.glob("pipelab-*.whl")
    _check([uv, "venv", "--python", sys.executable, str(venv)], base, env)
    # The locked runtime dependencies (what `uv sync` fetched), then the wheel itself.
    sync_env = {**env, "UV_PROJECT_ENVIRONMENT": str(venv)}
    _check([uv, "sync", "--frozen", "--no-dev", "--no-install-project"], source, sync_env)
    python = str(venv / "bin" / "python")
    _check([uv, "pip", "install", "--python", python, "--no-deps", str(wheel)], base, env)
    _check([uv, "pip", "check", "--python", python], base, env)  # its requirements are met
    return Installed(wheel=wheel, venv=venv, home=home)


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder with nothing of PipeLab in it, where the commands run."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def test_wheel_carries_the_packages_their_data_and_the_licence(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
    dist_info = f"pipelab-{project_version()}.dist-info"
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {*PACKAGES, ASSETS_PACKAGE, dist_info}, "no `main` module, no tests/"
    assert f"{dist_info}/licenses/LICENSE" in names
    modules = {
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert modules <= names, f"modules missing from the wheel: {sorted(modules - names)}"
    model = wheel_text(installed.wheel, "engine/model.md")
    assert model == (ROOT / "docs" / "model.md").read_text(encoding="utf-8"), "the text, no link"
    for folder in DATA_DIRS:
        shipped = {
            wheel_name(path.relative_to(ROOT).as_posix())
            for path in (ROOT / folder).rglob("*")
            if path.is_file() and "__pycache__" not in path.parts
        }
        assert shipped, folder
        assert shipped <= names, sorted(shipped - names)


def test_installed_packages_and_data_come_from_the_venv(
    installed: Installed, elsewhere: Path
) -> None:
    code = (
        "import engine, gui.icons, gpu.cuda_source, engine.model.scenario as s\n"
        "print(engine.__file__); print(s.PRESETS_DIR); print(gui.icons.ICONS_DIR)\n"
        "print(s.SHAPES_DIR); print(gpu.cuda_source.KERNEL_DIR)\n"
        "print(len(gpu.cuda_source.kernel_sources()), len(s.preset_names()))\n"
    )
    result = _run([installed.python, "-c", code], elsewhere, _clean_env(installed.home))
    assert result.returncode == 0, result.stderr
    *paths, counts = result.stdout.splitlines()
    site = installed.venv.resolve()
    for path in paths:
        assert Path(path).resolve().is_relative_to(site), path
        assert Path(path).exists(), path
    kernels, presets = map(int, counts.split())
    assert kernels == len(list((ROOT / "gpu" / "kernels").glob("*.cu"))) > 0
    assert presets == len(list((ROOT / ASSETS / "presets").glob("*.toml"))) > 0


def wheel_name(path: str) -> str:
    """Where the file at ``path`` in the checkout lies in the wheel."""
    top, _, rest = path.partition("/")
    return f"{ASSETS_PACKAGE}/{rest}" if top == ASSETS else path


def test_the_build_names_every_package_on_disk() -> None:
    """pyproject lists the packages one by one (assets/ needs a package-dir): a subpackage
    added on disk but not to the list would be missing from the wheel, so compare."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        setuptools = tomllib.load(file)["tool"]["setuptools"]
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for package in PACKAGES
        for init in (ROOT / package).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert set(setuptools["packages"]) == {*on_disk, ASSETS_PACKAGE}
    assert setuptools["package-dir"] == {ASSETS_PACKAGE: ASSETS}
    assert (ROOT / ASSETS / "__init__.py").is_file()
    assert not (ROOT / "gui" / "assets").exists() and not (ROOT / "engine" / "presets").exists()


def test_the_top_level_is_the_cards() -> None:
    """main.py, gui/, engine/, gpu/, tests/, assets/, pyproject.toml (and cli/)."""
    for name in ("main.py", "gui", "engine", "gpu", "tests", "assets", "pyproject.toml", "cli"):
        assert (ROOT / name).exists(), name
    for name in ("presets", "shapes", "icons"):
        assert (ROOT / ASSETS / name).exists(), name


def wheel_text(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(name).decode("utf-8")


def test_help_points_to_the_installed_model_page(installed: Installed, elsewhere: Path) -> None:
    """Every --help cites the model; installed, the page is inside the venv."""
    result = _run([installed.pipelab, "simulate", "--help"], elsewhere, _clean_env(installed.home))
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "docs/model.md" in text and "Help → The model" in text
    (page,) = [Path(w.lstrip("(")) for w in text.split() if w.startswith("(/")]
    assert page.resolve().is_relative_to(installed.venv.resolve()), page
    assert page.read_text(encoding="utf-8").startswith("# The model behind PipeLab")


def test_version(installed: Installed, elsewhere: Path) -> None:
    result = _run([installed.pipelab, "--version"], elsewhere, _clean_env(installed.home))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"pipelab {project_version()}\n"


def test_simulate_the_book_preset(installed: Installed, elsewhere: Path) -> None:
    command = [installed.pipelab, "simulate", "--preset", "book", "--policy", "both"]
    result = _run([*command, "--format", "json"], elsewhere, _clean_env(installed.home))
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)
    assert runs["sequential"]["makespan"] == 9 and runs["pipelined"]["makespan"] == 5


def test_an_unknown_preset_names_the_shipped_ones(installed: Installed, elsewhere: Path) -> None:
    command = [installed.pipelab, "simulate", "--preset", "nope"]
    result = _run(command, elsewhere, _clean_env(installed.home))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "book" in result.stderr, result.stderr


def test_export_a_png(installed: Installed, elsewhere: Path) -> None:
    command = [installed.pipelab, "export", "--preset", "book", "--out", "x.png"]
    result = _run(command, elsewhere, _clean_env(installed.home))
    assert result.returncode == 0, result.stderr
    from PIL import Image

    with Image.open(elsewhere / "x.png") as image:
        assert image.format == "PNG"
        assert image.width >= 200 and image.height >= 100
        assert len(image.convert("RGB").getcolors(2**24)) > 3  # drawn, not a blank canvas


def test_the_app_starts_offscreen_and_quits_by_itself(
    installed: Installed, elsewhere: Path
) -> None:
    env = {**_clean_env(installed.home), "PIPELAB_QUIT_AFTER_MS": "3000"}
    settings = installed.home / ".config" / "PipeLab" / "PipeLab.ini"
    settings.unlink(missing_ok=True)
    result = _run([installed.pipelab, "--preset", "double-buffering"], elsewhere, env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "Error" not in result.stderr, result.stderr
    assert "Cannot open" not in result.stderr, result.stderr  # an icon missing
    # It ran and closed like a user's session: the window saved its scenario on closing.
    assert "double-buffering" in settings.read_text(encoding="utf-8")
