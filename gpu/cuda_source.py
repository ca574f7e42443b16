"""Loading gpu/kernels/*.cu into CuPy: include paths for NVRTC and readable compile errors.

NVRTC does not search the toolkit's include folder, so ``<cuda_pipeline.h>`` fails to open
unless ``-I<CUDA include>`` is passed (cupy#7328, cupy#8593). `cuda_include_dirs` finds
folders that hold the header; where none exists, or the header found does not compile (a
toolkit of another CUDA version than CuPy's NVRTC, say), tile_async.cu is compiled with
``PIPELAB_PTX_CP_ASYNC`` and issues the same cp.async instructions as inline PTX.

CuPy caches compiled kernels on disk keyed by the source text and the options, not by the
files the source includes, so the options carry a digest of gpu/kernels/*.cuh: editing a
header recompiles instead of reusing a stale binary.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.base.resources import resource
from gpu.errors import GpuError

KERNEL_DIR = resource("gpu", "kernels")
PIPELINE_HEADER = "cuda_pipeline.h"
#: Lines of the compiler's log an error message quotes.
LOG_LINES = 6


def kernel_sources() -> list[Path]:
    """Every CUDA source that is compiled on its own (the .cuh files are included)."""
    return sorted(KERNEL_DIR.glob("*.cu"))


def cuda_include_dirs(cupy: Any | None = None) -> list[Path]:
    """Folders that hold ``cuda_pipeline.h``: CUDA_PATH / CUDA_HOME, CuPy's own CUDA root,
    /usr/local/cuda, and the NVIDIA wheels (``nvidia/cuda_runtime/include``) on sys.path."""
    roots: list[Path] = []
    for name in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(name):
            roots.append(Path(os.environ[name]) / "include")
    if cupy is not None:
        try:
            found = cupy.cuda.get_cuda_path()
        except Exception:
            found = None
        if found:
            roots.append(Path(found) / "include")
    roots.append(Path("/usr/local/cuda/include"))
    for entry in sys.path:
        base = Path(entry or ".") / "nvidia"
        roots += [base / "cuda_runtime" / "include", base / "cu13" / "include"]
    seen: list[Path] = []
    for root in roots:
        if root not in seen and (root / PIPELINE_HEADER).is_file():
            seen.append(root)
    return seen


@dataclass(frozen=True)
class LoadedModule:
    """A compiled RawModule and how it was built (said in the result's notes)."""

    module: Any
    note: str

    def function(self, name: str) -> Any:
        return self.module.get_function(name)


def headers_digest() -> str:
    """A short digest of every header in gpu/kernels (part of the compile options)."""
    digest = hashlib.sha256()
    for header in sorted(KERNEL_DIR.glob("*.cuh")):
        digest.update(header.name.encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()[:16]


def load_module(cupy: Any, source: str, needs_pipeline_header: bool = False) -> LoadedModule:
    """Compile gpu/kernels/<source> with NVRTC; GpuError with the log's first lines if not.

    With ``needs_pipeline_header``: with the toolkit's cuda_pipeline.h where one is found,
    else, or where that fails to compile, with the inline-PTX cp.async.
    """
    code = (KERNEL_DIR / source).read_text(encoding="utf-8")
    base = ["-std=c++17", f"-I{KERNEL_DIR}", f"-DPIPELAB_HEADERS={headers_digest()}"]
    attempts: list[tuple[list[str], str]] = [([], "")]
    if needs_pipeline_header:
        ptx = (
            ["-DPIPELAB_PTX_CP_ASYNC"],
            "no cuda_pipeline.h found: cp.async issued as inline PTX",
        )
        includes = cuda_include_dirs(cupy)
        attempts = [ptx]
        if includes:
            header = ([f"-I{includes[0]}"], "cuda_pipeline.h from the CUDA toolkit headers")
            attempts = [header, ptx]
    failed: BaseException | None = None
    for extra, how in attempts:
        try:
            module = cupy.RawModule(code=code, options=tuple(base + extra))
            module.compile()
        except Exception as error:
            failed = error
            continue
        note = f"{source}: compiled with NVRTC" + (f" ({how})" if how else "")
        if failed is not None:
            first = compile_error_message(source, failed)
            note = (
                f"{source}: compiled with NVRTC (cp.async issued as inline PTX: with "
                f"cuda_pipeline.h it failed: {first.split(': ', 1)[-1]})"
            )
        return LoadedModule(module, note)
    assert failed is not None
    raise GpuError(compile_error_message(source, failed))


def compile_error_message(source: str, error: BaseException) -> str:
    """One line: which source failed, and the first lines of the compiler's log."""
    log = getattr(error, "get_message", None)
    text = log() if callable(log) else str(error)
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    head = " | ".join(lines[:LOG_LINES]) or type(error).__name__
    hint = ""
    if PIPELINE_HEADER in head or "cannot open source file" in head:
        hint = " (NVRTC needs the CUDA headers: set CUDA_PATH to the toolkit)"
    return f"kernel {source} does not compile: {head}{hint}"
