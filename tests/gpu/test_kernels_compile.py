"""Every CUDA source compiles with the installed nvcc for sm_80 and sm_90 (-cubin), with the
toolkit's cuda_pipeline.h and with the inline-PTX fallback; the cp.async kernels really
issue cp.async and the synchronous one doesn't."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpu.cuda_source import KERNEL_DIR, kernel_sources

NVCC = shutil.which("nvcc") or (
    "/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").is_file() else None
)
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed here")


def compile_(source: Path, arch: str, out: Path, *extra: str) -> None:
    assert NVCC is not None
    result = subprocess.run(
        [NVCC, "-cubin", f"-arch={arch}", f"-I{KERNEL_DIR}", *extra, str(source), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert out.stat().st_size > 0


def test_the_sources_are_found() -> None:
    names = {p.name for p in kernel_sources()}
    expected = {"stream_chain.cu", "tile_sync.cu", "tile_async.cu", "empty.cu", "occupancy.cu"}
    assert expected | {"spin.cu"} <= names


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("source", kernel_sources(), ids=lambda p: p.name)
def test_every_source_compiles(source: Path, arch: str, tmp_path: Path) -> None:
    compile_(source, arch, tmp_path / "out.cubin")


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_inline_ptx_fallback_compiles(arch: str, tmp_path: Path) -> None:
    compile_(KERNEL_DIR / "tile_async.cu", arch, tmp_path / "out.cubin", "-DPIPELAB_PTX_CP_ASYNC")


@needs_nvcc
def test_cp_async_is_really_issued(tmp_path: Path) -> None:
    def ptx(name: str, *extra: str) -> str:
        out = tmp_path / f"{name}.ptx"
        result = subprocess.run(
            [
                NVCC,
                "-ptx",
                "-arch=sm_80",
                f"-I{KERNEL_DIR}",
                *extra,
                str(KERNEL_DIR / name),
                "-o",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        return out.read_text()

    for text in (ptx("tile_async.cu"), ptx("tile_async.cu", "-DPIPELAB_PTX_CP_ASYNC")):
        assert "cp.async" in text and "cp.async.wait_group" in text
    assert "cp.async" not in ptx("tile_sync.cu")


TILE_KERNELS = {"tile_sync.cu": 1, "tile_async.cu": 2, "empty.cu": 1}


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("source", sorted(TILE_KERNELS))
def test_tile_kernels_carry_launch_bounds_for_8_blocks(source: str, arch: str, tmp_path) -> None:
    """__launch_bounds__(256, 8): ptxas keeps every tile kernel at 32 registers or fewer
    (65,536 / (8 × 256)), so every variant fits 8 blocks per SM and runs the same waves."""
    assert NVCC is not None
    cubin = tmp_path / "out.cubin"
    result = subprocess.run(
        [NVCC, "-cubin", f"-arch={arch}", f"-I{KERNEL_DIR}", "-Xptxas", "-v",
         str(KERNEL_DIR / source), "-o", str(cubin)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    registers = [int(n) for n in re.findall(r"Used (\d+) registers", result.stderr)]
    assert len(registers) == TILE_KERNELS[source], result.stderr
    assert max(registers) <= 32, result.stderr
    ptx = subprocess.run(
        [NVCC, "-ptx", f"-arch={arch}", f"-I{KERNEL_DIR}", str(KERNEL_DIR / source), "-o", "-"],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert ptx.stdout.count(".maxntid 256, 1, 1") == TILE_KERNELS[source]
    assert ptx.stdout.count(".minnctapersm 8") == TILE_KERNELS[source]


@needs_nvcc
def test_the_timer_spin_waits_on_the_global_timer_with_a_cycle_cap(tmp_path: Path) -> None:
    """gpu/kernels/spin.cu reads %globaltimer (not the SM clock, which may be ramping) and
    stops on clock64() too, so a timer that does not move cannot hang the stream."""
    assert NVCC is not None
    result = subprocess.run(
        [NVCC, "-ptx", "-arch=sm_80", str(KERNEL_DIR / "spin.cu"), "-o", "-"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "%globaltimer" in result.stdout and "%clock64" in result.stdout
    assert ".entry pipelab_spin" in result.stdout
