"""Project-wide checks that run inside `uv run pytest`: lint, format, layer contracts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed in the test environment (dev dependency group)")
    return found


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_lint() -> None:
    result = _run(_tool("ruff"), "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run(_tool("ruff"), "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_contracts() -> None:
    """engine imports no Qt/CuPy; gpu imports no Qt; layers point down only."""
    result = _run(_tool("lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


def test_engine_and_gpu_import_without_qt_or_cupy() -> None:
    code = (
        "import sys, engine, engine.model.scheduler, engine.analysis.timeline, gpu\n"
        "import engine.analysis.writers\n"
        "bad = [m for m in ('PySide6', 'pyqtgraph', 'cupy') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr


def test_mypy_strict() -> None:
    """engine/, gpu/, gui/ and cli/ type-check under mypy --strict (configured in pyproject)."""
    result = _run(_tool("mypy"))
    assert result.returncode == 0, result.stdout + result.stderr


PACKAGES = ("engine", "gpu", "gui", "cli")


def test_packages_find_their_files_through_the_one_accessor() -> None:
    """No module computes a path from its own location: an installed wheel has no source
    tree around it. Presets, icons and the kernels go through
    engine.base.resources.resource (importlib.resources)."""
    offenders = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "__file__" in path.read_text(encoding="utf-8")
    ]
    assert not offenders, offenders


def test_changelog_has_a_section_for_the_version() -> None:
    """Releasing means naming the version in CHANGELOG.md; the licence is the MIT text."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {project['version']} " in changelog
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def _circles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a graph: its strongly connected parts of two or more modules
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(imports):
        if root in index:
            continue
        work = [(root, iter(sorted(imports[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imports[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    circles.append(sorted(part))
    return circles


def test_the_import_graph_has_no_circles() -> None:
    """Issue 27: no module imports itself through others (a circle hides which layer is
    below which). Imports made only to name a type (`if TYPE_CHECKING:`) do not count:
    `engine.analysis.derived` sits above the indexes it builds, which name its type in their
    signatures without importing it."""
    import grimp

    graph = grimp.build_graph("engine", "gpu", "gui", "cli", exclude_type_checking_imports=True)
    imports = {
        module: {m for m in graph.find_modules_directly_imported_by(module) if m in graph.modules}
        for module in graph.modules
    }
    assert _circles(imports) == []
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
