"""Experiment 2's headline: the balanced row (where the synchronous kernel falls furthest
behind max(copy, compute alone)), chosen without the cp.async results, the low-occupancy
pass carrying the claim, and the report naming the row."""

from __future__ import annotations

import pytest

from gpu.report import HEADLINE, tile_rows
from gpu.tile_result import (
    TilePass,
    TileResult,
    TileRow,
    balanced_row,
    compute_ms_per_intensity,
    headline,
)
from gpu.tiles import TileParams

COPY_MS = 0.1
#: Compute alone costs 0.1 ms at intensity 32: the balanced intensity.
PER_INTENSITY = COPY_MS / 32


def row(intensity: int, sync_overlap: float, async_ms: float | None = None) -> TileRow:
    """A synthetic row: memory (the copy's time) and compute; the synchronous kernel
    overlaps them by ``sync_overlap`` (0: in turn, 1: perfectly); cp.async at ``async_ms``
    (default: perfectly, max(memory, compute))."""
    memory, compute = COPY_MS, PER_INTENSITY * intensity
    sync = memory + compute - sync_overlap * min(memory, compute)
    best = max(memory, compute) if async_ms is None else async_ms
    return TileRow(intensity, COPY_MS, {"sync": sync, "async2": best * 1.05, "async3": best})


INTENSITIES = (0, 8, 16, 32, 64, 128, 512)


def test_the_balanced_row_is_where_compute_meets_copy() -> None:
    rows = [row(i, 0.0) for i in INTENSITIES]
    assert compute_ms_per_intensity(rows) == pytest.approx(PER_INTENSITY)
    assert balanced_row(rows).intensity == 32


def test_not_the_row_where_everything_is_a_copy_nor_the_most_intense() -> None:
    """The old rule (the best fraction of copy over every row) picked intensity 0, where
    every variant is a copy; 'furthest behind the copy' alone would pick 512, compute-bound
    for every variant. Neither says anything about cp.async."""
    rows = [row(i, 0.2) for i in INTENSITIES]
    result = TileResult("Stand-in", TileParams(), ("sync", "async2", "async3"), tuple(rows), 1)
    found = result.headline()
    assert found is not None and found.row.intensity == 32
    fractions = {r.intensity: r.copy_ms / r.variant_ms["async3"] for r in rows}
    assert max(fractions, key=fractions.__getitem__) == 0
    assert max(rows, key=lambda r: r.variant_ms["sync"] / r.copy_ms).intensity == 512


def test_the_choice_does_not_look_at_cp_async() -> None:
    rows = [row(i, 0.0) for i in INTENSITIES]
    worse = [row(i, 0.0, async_ms=10.0 if i == 32 else None) for i in INTENSITIES]
    assert balanced_row(rows).intensity == balanced_row(worse).intensity == 32
    found = headline(TilePass(1, 132, "capped", tuple(worse)), ("sync", "async2", "async3"))
    assert found is not None and found.row.intensity == 32 and found.gain < 1
    assert "0.02× the synchronous kernel" in found.text()


def test_the_headline_reads_the_faster_variant_on_the_balanced_row() -> None:
    rows = tuple(row(i, 0.0) for i in INTENSITIES)
    found = headline(TilePass(1, 132, "capped", rows), ("sync", "async2", "async3"))
    assert found is not None
    assert found.variant == "async3"
    assert found.gain == pytest.approx(2.0)  # memory + compute vs max(memory, compute)
    assert found.fraction_of_copy == pytest.approx(1.0)
    assert found.sync_fraction_of_copy == pytest.approx(0.5)
    assert found.shortfall == pytest.approx(2.0)
    assert found.text().startswith("1 block(s)/SM, intensity 32 (balanced row")


def test_without_cp_async_there_is_no_headline() -> None:
    rows = tuple(row(i, 0.0) for i in (0, 32))
    assert headline(TilePass(8, 1056, "default", rows), ("sync",)) is None


def test_one_row_is_its_own_balanced_row() -> None:
    only = row(16, 0.0)
    assert balanced_row([only]) is only
    with pytest.raises(ValueError):
        balanced_row([])


def result_with_two_passes() -> TileResult:
    high = tuple(row(i, 0.9) for i in INTENSITIES)  # occupancy hides latency already
    low = tuple(row(i, 0.0) for i in INTENSITIES)
    return TileResult(
        "Stand-in GPU",
        TileParams(),
        ("sync", "async2", "async3"),
        high,
        65536,
        passes=(
            TilePass(8, 1056, "default occupancy", high),
            TilePass(1, 132, "capped with 220,160 bytes of dynamic shared memory", low),
        ),
        launch_overhead_ms=0.002,
    )


def test_the_low_occupancy_pass_carries_the_claim() -> None:
    result = result_with_two_passes()
    found, main = result.headline(), result.main_headline()
    assert found is not None and main is not None
    assert found.blocks_per_sm == 1 and found.gain == pytest.approx(2.0)
    assert main.blocks_per_sm == 8 and main.gain < 1.2
    best = result.best_pipelined()
    assert best is not None and best[0] is found.row and best[1] == "async3"
    figures = result.figures()
    assert figures["headline"]["blocks_per_sm"] == 1
    assert figures["headline"]["balanced_intensity"] == 32
    assert "chosen without the cp.async results" in figures["headline"]["rule"]
    assert [p["blocks_per_sm"] for p in figures["passes"]] == [8, 1]
    assert figures["launch_overhead_ms"] == 0.002


def test_the_report_names_the_row_that_carries_the_claim() -> None:
    rows = tile_rows(result_with_two_passes())
    labels = [label for label, _ in rows]
    text = dict(rows)
    assert text[HEADLINE].startswith("1 block(s)/SM, intensity 32 (balanced row")
    assert (
        "2.00× the synchronous kernel, 100% of copy bandwidth (synchronous 50%)" in text[HEADLINE]
    )
    assert "other blocks on the SM already hide the latency" in text["at full occupancy"]
    assert "2 µs per launch" in text["launch overhead"]
    assert labels.count("  intensity 32 (balanced)") == 2  # marked in both passes
    assert "8 block(s)/SM" in labels and "1 block(s)/SM" in labels
