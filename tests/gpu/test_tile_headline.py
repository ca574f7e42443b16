"""Experiment 2's claims: each pass's balanced row (where its synchronous kernel falls
furthest behind that pass's max(load, compute)), chosen without the cp.async results; the
claim variant fixed in advance (2 stages), the other shown beside it; the low-occupancy pass
judged by the gain over synchronous, the full-occupancy pass by the share of the copy; and
the report naming which row carries which claim."""

from __future__ import annotations

import pytest

from gpu.report import FULL_OCCUPANCY, HEADLINE, tile_rows
from gpu.tile_result import (
    COPY_CLAIM,
    COPY_GOAL,
    GAIN_CLAIM,
    GAIN_GOAL,
    Bound,
    TileParams,
    TilePass,
    TileResult,
    TileRow,
    balanced_row,
    claim_variant,
    compute_ms_per_intensity,
    headline,
    load_ms,
)

COPY_MS = 0.1
#: Compute alone costs 0.1 ms at intensity 32: the balanced intensity when load = copy.
PER_INTENSITY = COPY_MS / 32
INTENSITIES = (0, 8, 16, 32, 64, 128, 512)
ALL = ("sync", "async2", "async3")


def row(
    intensity: int,
    sync_overlap: float,
    async_ms: float | None = None,
    load: float = COPY_MS,
) -> TileRow:
    """A synthetic row: loading takes ``load`` (the copy's time at full occupancy; several
    times it at 1 block per SM), computing PER_INTENSITY × intensity; the synchronous kernel
    overlaps them by ``sync_overlap`` (0: in turn, 1: perfectly); cp.async, 3 stages at
    ``async_ms`` (default: perfectly, max(load, compute)), 2 stages 5% slower."""
    compute = PER_INTENSITY * intensity
    sync = load + compute - sync_overlap * min(load, compute)
    best = max(load, compute) if async_ms is None else async_ms
    return TileRow(intensity, COPY_MS, {"sync": sync, "async2": best * 1.05, "async3": best})


def test_the_balanced_row_is_where_compute_meets_load() -> None:
    rows = [row(i, 0.0) for i in INTENSITIES]
    assert compute_ms_per_intensity(rows) == pytest.approx(PER_INTENSITY)
    assert load_ms(rows, PER_INTENSITY) == pytest.approx(COPY_MS)
    assert balanced_row(rows).intensity == 32


def test_at_low_occupancy_the_bound_is_the_pass_own_load_time() -> None:
    """At 1 block per SM the synchronous kernel's load takes ~4× the full-machine copy. The
    old bound, max(copy, compute), picked intensity 32, where loading (0.4 ms) still
    dwarfs computing (0.1 ms); the pass's own bound picks 128, where they are equal."""
    rows = [row(i, 0.0, load=4 * COPY_MS) for i in INTENSITIES]
    bound = Bound.of(rows)
    assert bound.load_ms == pytest.approx(4 * COPY_MS)
    assert bound.ms_per_intensity == pytest.approx(PER_INTENSITY)
    assert balanced_row(rows).intensity == 128
    old_rule = max(
        rows, key=lambda r: r.variant_ms["sync"] / max(r.copy_ms, PER_INTENSITY * r.intensity)
    )
    assert old_rule.intensity == 32
    found = headline(TilePass(1, 132, "capped", tuple(rows)), ALL)
    assert found is not None and found.shortfall == pytest.approx(2.0)


def test_without_an_intensity_0_row_the_load_is_estimated() -> None:
    rows = [row(i, 0.0, load=4 * COPY_MS) for i in (8, 32, 128, 512)]
    assert load_ms(rows, compute_ms_per_intensity(rows)) == pytest.approx(4 * COPY_MS)
    assert balanced_row(rows).intensity == 128


def test_not_the_row_where_everything_is_a_copy_nor_the_most_intense() -> None:
    """The old rule (the best fraction of copy over every row) picked intensity 0, where
    every variant is a copy; 'furthest behind the copy' alone would pick 512, compute-bound
    for every variant. Neither says anything about cp.async."""
    rows = [row(i, 0.2) for i in INTENSITIES]
    result = TileResult("Stand-in", TileParams(), ALL, tuple(rows), 1)
    found = result.headline()
    assert found is not None and found.row.intensity == 32
    fractions = {r.intensity: r.copy_ms / r.variant_ms["async3"] for r in rows}
    assert max(fractions, key=fractions.__getitem__) == 0
    assert max(rows, key=lambda r: r.variant_ms["sync"] / r.copy_ms).intensity == 512


def test_the_choice_does_not_look_at_cp_async() -> None:
    rows = [row(i, 0.0) for i in INTENSITIES]
    worse = [row(i, 0.0, async_ms=10.0 if i == 32 else None) for i in INTENSITIES]
    assert balanced_row(rows).intensity == balanced_row(worse).intensity == 32
    found = headline(TilePass(1, 132, "capped", tuple(worse)), ALL)
    assert found is not None and found.row.intensity == 32 and found.gain < 1
    assert "0.02× the synchronous kernel" in found.text() and not found.met


def test_the_claim_variant_is_fixed_in_advance_not_the_faster_one() -> None:
    """cp.async with 3 stages is the faster here, but the claim rests on 2 stages (double
    buffering), fixed before the run; 3 stages is shown beside it."""
    rows = tuple(row(i, 0.0) for i in INTENSITIES)
    found = headline(TilePass(1, 132, "capped", rows), ALL)
    assert found is not None
    assert found.variant == "async2" and found.beside == ("async3",)
    assert found.row.variant_ms["async3"] < found.row.variant_ms["async2"]
    assert found.gain == pytest.approx(2.0 / 1.05)
    assert found.gain_of("async3") == pytest.approx(2.0)
    assert found.fraction_of_copy == pytest.approx(1 / 1.05)
    assert found.sync_fraction_of_copy == pytest.approx(0.5)
    assert found.shortfall == pytest.approx(2.0)
    text = found.text()
    assert text.startswith("1 block(s)/SM, intensity 32 (balanced row")
    assert "cp.async, 2 stages 1.90× the synchronous kernel, 95% of copy bandwidth" in text
    assert "beside it cp.async, 3 stages 2.00×, 100% of copy" in text
    figures = found.figures()
    assert figures["variant"] == "async2" and "fixed in advance" in figures["variant_rule"]
    assert figures["beside"]["async3"]["gain_over_sync"] == pytest.approx(2.0)


def test_the_claim_variant_order() -> None:
    assert claim_variant(ALL) == "async2"
    assert claim_variant(("sync", "async3")) == "async3"
    assert claim_variant(("sync",)) is None


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
    low = tuple(row(i, 0.0, load=4 * COPY_MS) for i in INTENSITIES)
    return TileResult(
        "Stand-in GPU",
        TileParams(),
        ALL,
        high,
        65536,
        passes=(
            TilePass(8, 1056, "default occupancy", high),
            TilePass(1, 132, "capped with 220,160 bytes of dynamic shared memory", low),
        ),
        launch_overhead_ms=0.002,
    )


def test_each_pass_carries_its_own_claim() -> None:
    """Low occupancy: the gain over synchronous (>= 1.5×), not the share of the copy, which
    one block per SM cannot reach; full occupancy: the share of the copy (>= 85%)."""
    result = result_with_two_passes()
    found, main = result.headline(), result.main_headline()
    assert found is not None and main is not None
    assert found.blocks_per_sm == 1 and found.claim == GAIN_CLAIM
    assert found.row.intensity == 128 and found.gain == pytest.approx(2.0 / 1.05)
    assert found.gain >= GAIN_GOAL and found.met
    assert found.fraction_of_copy < COPY_GOAL  # latency-bound: far from the copy, and fine
    assert "goal cp.async, 2 stages >= 1.5× the synchronous kernel: met" in found.text()
    assert "85%" not in found.text()
    assert main.blocks_per_sm == 8 and main.claim == COPY_CLAIM and main.gain < 1.2
    assert main.fraction_of_copy >= COPY_GOAL and main.met
    assert "goal cp.async, 2 stages >= 85% of copy bandwidth: met" in main.text()
    best = result.best_pipelined()
    assert best is not None and best[0] is found.row and best[1] == "async2"
    figures = result.figures()
    assert figures["headline"]["blocks_per_sm"] == 1
    assert figures["headline"]["balanced_intensity"] == 128
    assert figures["headline"]["claim"] == GAIN_CLAIM and figures["headline"]["goal_met"]
    assert figures["main_pass_headline"]["claim"] == COPY_CLAIM
    assert "chosen without the cp.async results" in figures["headline"]["rule"]
    assert [p["blocks_per_sm"] for p in figures["passes"]] == [8, 1]
    assert [p["balanced_intensity"] for p in figures["passes"]] == [32, 128]
    assert figures["launch_overhead_ms"] == 0.002
    assert "not subtracted" in figures["launch_overhead"]["what"]


def test_a_single_pass_is_judged_by_the_share_of_the_copy() -> None:
    rows = tuple(row(i, 0.0) for i in INTENSITIES)
    result = TileResult("Stand-in", TileParams(), ALL, rows, 1)
    found = result.headline()
    assert found is not None and found.claim == COPY_CLAIM
    labels = dict(tile_rows(result))
    assert FULL_OCCUPANCY not in labels
    assert labels["claims"].startswith(f"'{HEADLINE}' (8 block(s)/SM): share of copy")


def test_the_report_names_which_row_carries_which_claim() -> None:
    rows = tile_rows(result_with_two_passes())
    labels = [label for label, _ in rows]
    text = dict(rows)
    assert text[HEADLINE].startswith("1 block(s)/SM, intensity 128 (balanced row")
    assert "24% of copy bandwidth (synchronous 1" in text[HEADLINE]  # 12.5%: latency-bound
    assert text["claims"].startswith(
        f"'{HEADLINE}' (1 block(s)/SM): gain over the synchronous kernel at the same "
        f"occupancy, goal >= 1.5×; '{FULL_OCCUPANCY}' (8 block(s)/SM): share of copy "
        "bandwidth, goal >= 85%"
    )
    assert "cp.async, 2 stages (fixed in advance)" in text["claims"]
    assert "other blocks on the SM already hide the latency" in text[FULL_OCCUPANCY]
    launch = text["launch to launch"]
    assert "2 µs per launch: the device's own time" in launch and "not subtracted" in launch
    assert "include" not in launch and "Python" not in launch
    assert labels.count("  intensity 32 (balanced)") == 1  # full occupancy
    assert labels.count("  intensity 128 (balanced)") == 1  # low occupancy: its own bound
    assert "8 block(s)/SM" in labels and "1 block(s)/SM" in labels


def test_a_host_bound_launch_figure_says_so() -> None:
    result = result_with_two_passes()
    from dataclasses import replace

    late = replace(result, launch_overhead_host_bound=3)
    text = dict(tile_rows(late))["launch to launch"]
    assert "in 3 window(s) the device caught up with the host" in text
    assert "how fast Python queues launches" in text
