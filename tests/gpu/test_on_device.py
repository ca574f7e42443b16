"""Both experiments on a real CUDA device, at a small size (skipped, with the reason, where
no device works). Never imports Qt."""

from __future__ import annotations

import pytest
from schedule_checks import assert_well_formed

from gpu.experiments import run_to_end
from gpu.params import MIB, PipelineParams
from gpu.streams import run_cupy_pipeline
from gpu.tile_result import TileParams
from gpu.tiles import run_tiles

pytestmark = pytest.mark.gpu


def test_streams_small_run_is_correct_and_well_formed(cuda_device) -> None:
    params = PipelineParams(size_bytes=32 * MIB, chunks=8, streams=3, repeats=3)
    result = run_to_end(run_cupy_pipeline(params))
    assert result.backend == "cupy"
    assert result.checked_values == 8 * 4096
    assert_well_formed(result.sequential, 8, 1)
    assert_well_formed(result.pipelined, 8, 3)
    assert result.predicted.makespan > 0
    spread = result.sequential_spread
    assert spread.runs == 3 and spread.minimum <= spread.median <= spread.maximum
    assert spread.median == result.sequential.makespan
    assert result.timeline_schedules[0].source == "measured"
    assert result.efficiency_explanation()["text"]


def test_pipelined_streams_beat_sequential(cuda_device) -> None:
    params = PipelineParams(size_bytes=64 * MIB, chunks=16, streams=3, repeats=5)
    result = run_to_end(run_cupy_pipeline(params))
    assert result.pipelined.makespan < result.sequential.makespan, result.figures()


def test_tiles_small_sweep_is_correct(cuda_device) -> None:
    """Both passes (8 blocks per SM, then 1, capped with shared memory the occupancy API
    confirms), N launches per event pair, every output checked against numpy."""
    params = TileParams(size_bytes=16 * MIB, intensities=(0, 32), repeats=3, warmup=1)
    result = run_to_end(run_tiles(params))
    expected = ("sync",) if cuda_device.async_copy_reason else ("sync", "async2", "async3")
    assert result.variants == expected
    assert [p.blocks_per_sm for p in result.all_passes] == [8, 1]
    for sweep in result.all_passes:
        for row in sweep.rows:
            assert row.copy_ms > 0 and all(ms > 0 for ms in row.variant_ms.values())
            assert min(row.launches.values()) >= 20
    assert result.launch_overhead_ms > 0
    if not cuda_device.async_copy_reason:
        assert result.headline() is not None
