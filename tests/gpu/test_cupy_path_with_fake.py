"""The CuPy code path run against a fake CuPy (gpu_fakes.py): pointers, issue order, events →
Schedule, checks against numpy, the model, and the faults (OOM, compile error, wrong result,
cancel) each ending in one clear message with memory handed back. No device needed."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from gpu_fakes import NULL_STREAM
from schedule_checks import assert_well_formed

from engine.base.errors import PipeLabError
from gpu import cuda_source, streams
from gpu.cuda_source import KERNEL_DIR, compile_error_message
from gpu.errors import Cancelled
from gpu.experiments import pipeline_experiment, run_to_end
from gpu.measured import GPU_UNITS
from gpu.params import MIB, PipelineParams
from gpu.tile_result import TileParams
from gpu.tiles import run_tiles


def small(**changes: object) -> PipelineParams:
    values: dict[str, object] = {"size_bytes": 1 * MIB, "chunks": 6, "streams": 3, "repeats": 2}
    values.update(changes)
    return PipelineParams(**values)  # type: ignore[arg-type]


def test_streams_experiment_logic(fake_cupy) -> None:
    cupy = fake_cupy()
    result = run_to_end(pipeline_experiment("cupy", small(intensity=5)))
    assert result.backend == "cupy" and "Fake GPU" in result.device
    assert_well_formed(result.sequential, 6, 1)
    assert_well_formed(result.pipelined, 6, 3)
    assert result.pipelined.unit_names == GPU_UNITS
    assert result.predicted.unit_names == GPU_UNITS
    assert any("copy engines" in note for note in result.notes)
    code, options = cupy.compiled[0]
    assert "stream_chain" in code and f"-I{KERNEL_DIR}" in options
    assert cupy.freed, "memory pools were not emptied"


def test_calibration_with_the_fake(fake_cupy) -> None:
    fake_cupy()
    result = run_to_end(streams.run_cupy_pipeline(small(repeats=1)))
    assert result.intensity >= 1


def test_wrong_kernel_result_is_an_error_not_a_timing(fake_cupy) -> None:
    fake_cupy(broken=True)
    with pytest.raises(PipeLabError, match="GPU sequential warm-up: wrong result at element 0"):
        run_to_end(streams.run_cupy_pipeline(small(intensity=1)))


def test_out_of_memory_is_one_line(fake_cupy) -> None:
    cupy = fake_cupy(oom=True)
    with pytest.raises(PipeLabError, match=r"out of GPU .*memory for 1 MiB.*smaller size"):
        run_to_end(streams.run_cupy_pipeline(small(intensity=1)))
    assert cupy.freed
    with pytest.raises(PipeLabError, match="out of GPU memory"):
        run_to_end(run_tiles(quick_tiles()))


def test_compile_error_shows_the_log_head(fake_cupy) -> None:
    fake_cupy(compile_error='tile.cu(3): error: identifier "x" is undefined\n1 error detected')
    with pytest.raises(PipeLabError) as caught:
        run_to_end(streams.run_cupy_pipeline(small(intensity=1)))
    message = str(caught.value)
    assert message.startswith("kernel stream_chain.cu does not compile:")
    assert 'identifier "x" is undefined | 1 error detected' in message
    assert "\n" not in message


def test_missing_header_message_names_the_fix() -> None:
    error = RuntimeError('catastrophic error: cannot open source file "cuda_pipeline.h"')
    assert "set CUDA_PATH" in compile_error_message("tile_async.cu", error)


def test_cancel_frees_and_says_so(fake_cupy) -> None:
    cupy = fake_cupy()
    cancel = threading.Event()
    experiment = streams.run_cupy_pipeline(small(intensity=1), cancel)
    with pytest.raises(Cancelled):
        for report in experiment:
            if "chunk 2" in report.message:
                cancel.set()
    assert cupy.freed


def test_engine_order_starts() -> None:
    starts = np.array([[0.0, 1.0, 2.0], [0.0, 1.5, 2.5], [0.5, 1.6, 4.0]])
    ends = np.array([[1.0, 2.0, 3.0], [1.5, 2.6, 3.5], [2.0, 3.0, 4.5]])
    fixed = streams.engine_order(starts, ends)
    expected = [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [1.5, 2.6, 4.0]]
    np.testing.assert_allclose(fixed, expected)


def quick_tiles(**changes: object) -> TileParams:
    """A small sweep, few launches per window (the timer's own tests check N and 2 ms)."""
    values: dict[str, object] = {
        "size_bytes": MIB,
        "intensities": (1,),
        "repeats": 1,
        "min_launches": 2,
        "min_window_ms": 0.0,
        "warmup_ms": 1.0,
    }
    values.update(changes)
    return TileParams(**values)  # type: ignore[arg-type]


def test_tiles_experiment_logic(fake_cupy) -> None:
    cupy = fake_cupy()
    params = TileParams(size_bytes=MIB, intensities=(0, 4), repeats=2, warmup=1)
    result = run_to_end(run_tiles(params))
    assert result.variants == ("sync", "async2", "async3")
    assert [row.intensity for row in result.rows] == [0, 4]
    for row in result.rows:
        assert row.copy_ms > 0 and set(row.variant_ms) == set(result.variants)
        # At least 20 launches per event pair for the copy and every variant.
        assert set(row.launches) == {"copy", *result.variants}
        assert min(row.launches.values()) >= 20
    figures = result.figures()
    assert figures["bandwidth_counts"] == "bytes read + bytes written"
    assert "async3_speedup_over_sync" in figures["rows"][0]
    assert result.best_pipelined() is not None
    # Two passes: 8 blocks per SM (the fake has 4 SMs), then 1 block per SM.
    assert [(p.blocks_per_sm, p.grid_blocks) for p in result.all_passes] == [(8, 32), (1, 4)]
    assert result.headline() is not None and result.headline().blocks_per_sm == 1
    assert result.launch_overhead_ms > 0
    assert any("empty" in code for code, _ in cupy.compiled)
    async_options = next(options for code, options in cupy.compiled if "tile_async2" in code)
    assert "-DPIPELAB_PTX_CP_ASYNC" in async_options or any(
        o.startswith("-I") and "kernels" not in o for o in async_options
    )


def test_tiles_on_an_old_device_run_only_sync(fake_cupy) -> None:
    fake_cupy(major=7, minor=5)
    result = run_to_end(run_tiles(quick_tiles()))
    assert result.variants == ("sync",)
    assert result.best_pipelined() is None
    assert any("needs sm_80" in note for note in result.notes)


def test_wrong_tile_result_is_an_error(fake_cupy) -> None:
    fake_cupy(broken=True)
    with pytest.raises(PipeLabError, match="synchronous, intensity 1: wrong result"):
        run_to_end(run_tiles(quick_tiles()))


def test_tiles_do_all_device_work_on_the_timed_stream(fake_cupy) -> None:
    """The timer's stream is non-blocking: the input copy, the NaN fill and the gather must
    share it with the kernels, or they are not ordered before or after them."""
    cupy = fake_cupy()
    run_to_end(run_tiles(quick_tiles(intensities=(0, 3), warmup=1)))
    kinds = {operation.split()[0] for operation, _ in cupy.device_ops}
    assert {"copy", "scatter", "gather", "kernel"} <= kinds
    used = {id(stream) for _, stream in cupy.device_ops}
    assert len(used) == 1, sorted({str(stream) for _, stream in cupy.device_ops})
    assert all(stream is not NULL_STREAM for _, stream in cupy.device_ops)


def test_streams_never_use_the_legacy_default_stream(fake_cupy) -> None:
    cupy = fake_cupy()
    run_to_end(streams.run_cupy_pipeline(small(intensity=2)))
    assert cupy.device_ops
    assert [op for op, stream in cupy.device_ops if stream is NULL_STREAM] == []
    kernels = [stream for op, stream in cupy.device_ops if op.startswith("kernel")]
    assert len({id(stream) for stream in kernels}) == 3  # pipelined: chunks on 3 streams


def test_a_toolkit_header_that_fails_falls_back_to_inline_ptx(
    fake_cupy, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    include = tmp_path / "include"
    include.mkdir()
    (include / "cuda_pipeline.h").write_text("// another CUDA version's header\n")
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    cupy = fake_cupy(
        compile_error='cuda_pipeline.h(9): error: identifier "x" is undefined',
        compile_error_if=f"-I{include}",
    )
    result = run_to_end(run_tiles(quick_tiles()))
    assert result.variants == ("sync", "async2", "async3")
    tried = [options for code, options in cupy.compiled if "tile_async2" in code]
    assert [f"-I{include}" in o for o in tried] == [True, False]
    assert "-DPIPELAB_PTX_CP_ASYNC" in tried[1]
    note = next(n for n in result.notes if n.startswith("tile_async.cu"))
    assert "inline PTX" in note and 'identifier "x" is undefined' in note


def test_both_ways_failing_is_one_compile_error(fake_cupy, monkeypatch, tmp_path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda_pipeline.h").write_text("\n")
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    cupy = fake_cupy(
        compile_error="tile_async.cu(40): error: expected a ;", compile_error_if="tile_async2"
    )
    with pytest.raises(PipeLabError, match=r"^kernel tile_async.cu does not compile: .*expected"):
        run_to_end(run_tiles(quick_tiles()))
    assert len([code for code, _ in cupy.compiled if "tile_async2" in code]) == 2


def test_header_digest_is_in_the_options_and_follows_the_headers(
    fake_cupy, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """CuPy's disk cache keys on source and options only: an edited .cuh must change them."""
    cupy = fake_cupy()
    run_to_end(streams.run_cupy_pipeline(small(intensity=1, repeats=1, warmup=0)))
    digest = cuda_source.headers_digest()
    assert f"-DPIPELAB_HEADERS={digest}" in cupy.compiled[0][1]
    copy = tmp_path / "kernels"
    shutil.copytree(KERNEL_DIR, copy)
    monkeypatch.setattr(cuda_source, "KERNEL_DIR", copy)
    assert cuda_source.headers_digest() == digest
    (copy / "chain.cuh").write_text((copy / "chain.cuh").read_text() + "\n// edited\n")
    assert cuda_source.headers_digest() != digest


def test_every_variant_runs_the_same_grid_and_the_low_pass_is_capped(fake_cupy) -> None:
    """One wave of the same grid for every variant (the occupancy API holds 8 blocks of each
    per SM); at low occupancy, dynamic shared memory the API confirms leaves room for one."""
    from gpu_fakes import RESERVED_PER_BLOCK, SHARED_PER_SM, STATIC_SHARED

    cupy = fake_cupy()
    result = run_to_end(run_tiles(quick_tiles(intensities=(0, 2))))
    tile_launches = [launch for launch in cupy.launches if launch[0].startswith("tile_")]
    grids = {(name, grid, shared) for name, grid, _, shared in tile_launches}
    main = {(name, shared) for name, grid, shared in grids if grid == (32,)}
    assert main == {("tile_sync", 0), ("tile_async2", 0), ("tile_async3", 0)}
    low = {name: shared for name, grid, shared in grids if grid == (4,)}
    assert set(low) == {"tile_sync", "tile_async2", "tile_async3"}
    for name, dynamic in low.items():
        per_block = dynamic + STATIC_SHARED[name] + RESERVED_PER_BLOCK
        assert per_block <= SHARED_PER_SM < 2 * per_block  # one fits, two don't
    empty = [launch for launch in cupy.launches if launch[0] == "pipelab_empty"]
    assert empty and {launch[1] for launch in empty} == {(32,)}  # the tiles' own grid
    assert "occupancy API confirmed" in result.all_passes[1].residency
    assert any("one wave for every variant" in note for note in result.notes)


def test_a_grid_larger_than_the_sms_hold_is_cut_to_one_wave(fake_cupy) -> None:
    fake_cupy()
    result = run_to_end(run_tiles(quick_tiles(blocks_per_sm=16, low_blocks_per_sm=0)))
    assert [(p.blocks_per_sm, p.grid_blocks) for p in result.all_passes] == [(8, 32)]
    assert result.low_occupancy is None
    assert result.headline() is not None and result.headline().blocks_per_sm == 8


def test_the_tile_sweep_warms_up_before_the_first_row(fake_cupy) -> None:
    cupy = fake_cupy()
    run_to_end(run_tiles(quick_tiles(warmup_ms=5.0)))
    first_timed = next(i for i, (op, _) in enumerate(cupy.device_ops) if op.startswith("scatter"))
    before = [op for op, _ in cupy.device_ops[:first_timed]]
    assert before.count("kernel tile_sync") >= 2 and "copy device to device" in before


def test_streams_result_carries_spread_and_the_measured_sequential_run(fake_cupy) -> None:
    fake_cupy()
    result = run_to_end(pipeline_experiment("cupy", small(intensity=3, repeats=3)))
    assert len(result.sequential_makespans) == len(result.pipelined_makespans) == 3
    spread = result.sequential_spread
    assert spread.minimum <= spread.median <= spread.maximum and spread.runs == 3
    assert spread.median == result.sequential.makespan  # the drawn run is the median one
    assert result.pipelined_spread.median == result.pipelined.makespan
    sequential, pipelined, predicted = result.timeline_schedules
    assert sequential is result.sequential and sequential.source == "measured"
    assert pipelined.source == "measured" and predicted.source == "simulated"
    figures = result.figures()
    assert figures["sequential_spread"]["runs"] == 3
    assert set(figures["efficiency_explanation"]) >= {
        "stage_ms_alone",
        "stage_ms_side_by_side",
        "predicted_from_side_by_side_makespan",
        "text",
    }
    assert any("intensity 3 as given" in note for note in result.notes)


def test_a_run_over_its_time_limit_is_refused_before_it_starts(fake_cupy, monkeypatch) -> None:
    from gpu.calibration import RunTooLong

    def never(*args: object) -> None:
        raise AssertionError("the timed runs started")

    monkeypatch.setattr(streams, "_measure", never)
    cupy = fake_cupy()
    params = small(intensity=1_000_000, time_limit_s=1.0)
    with pytest.raises(RunTooLong, match=r"^this run would take about .* over the limit of 1 s"):
        run_to_end(pipeline_experiment("cupy", params))
    assert any(op == "kernel stream_chain" for op, _ in cupy.device_ops)  # calibration ran
    assert cupy.freed
