"""The figures of a run as labelled lines, shared by the CLI table and the panel's table."""

from __future__ import annotations

from gpu.measured import PipelineResult
from gpu.params import MIB
from gpu.tiles import VARIANTS, TileResult


def _ms(value: float) -> str:
    return f"{value:.3f} ms" if value < 100 else f"{value:,.1f} ms"


def pipeline_rows(result: PipelineResult) -> list[tuple[str, str]]:
    """(label, value) pairs: measured vs model, speedups, stage means and bandwidths."""
    params = result.params
    read, compute, write = result.stage_ms
    slots = "stream" if result.backend == "cupy" else "staging buffer"
    return [
        ("backend", f"{result.backend}: {result.device}"),
        (
            "data",
            f"{params.size_bytes / MIB:,.4g} MiB float32 in {params.chunks} chunks, "
            f"{params.streams} {slots}{'s' if params.streams > 1 else ''} in flight",
        ),
        ("intensity", f"{result.intensity} multiply-adds per element"),
        ("runs", f"median of {params.repeats} (after {params.warmup} warm-up)"),
        ("sequential (measured)", _ms(result.sequential.makespan)),
        ("pipelined (measured)", _ms(result.pipelined.makespan)),
        ("pipelined (model)", _ms(result.predicted.makespan)),
        ("speedup (measured)", f"{result.speedup:.2f}×"),
        ("speedup (model)", f"{result.predicted_speedup:.2f}×"),
        (
            "overlap efficiency",
            f"{result.overlap_efficiency:.0%} (model makespan / measured makespan)",
        ),
        ("read, mean", f"{_ms(read)} per chunk, {result.read_gbps:,.1f} GB/s"),
        (
            "compute, mean",
            f"{_ms(compute)} per chunk, {result.compute_gbps:,.1f} GB/s (read + written)",
        ),
        ("write, mean", f"{_ms(write)} per chunk, {result.write_gbps:,.1f} GB/s"),
        (
            "side by side",
            "stages took {:.2f}× / {:.2f}× / {:.2f}× (read / compute / write) as long as "
            "alone".format(*result.side_by_side_slowdown),
        ),
        ("checked", f"{result.checked_values:,} values against numpy: all correct"),
    ]


def tile_rows(result: TileResult) -> list[tuple[str, str]]:
    """One line per intensity: copy and every variant's GB/s and share of the copy's."""
    rows = [
        ("device", result.device),
        (
            "data",
            f"{result.bytes_moved / 2 / MIB:,.4g} MiB in, the same out; GB/s count bytes "
            "read + written",
        ),
    ]
    for row in result.rows:
        parts = [f"copy {result.gbps(row.copy_ms):,.0f} GB/s"]
        for variant in result.variants:
            parts.append(
                f"{VARIANTS[variant]} {result.gbps(row.variant_ms[variant]):,.0f} GB/s "
                f"({result.fraction_of_copy(row, variant):.0%})"
            )
        rows.append((f"intensity {row.intensity}", "; ".join(parts)))
    best = result.best_pipelined()
    if best is not None:
        row, variant, fraction = best
        rows.append(
            (
                "best pipelined",
                f"{VARIANTS[variant]} at intensity {row.intensity}: {fraction:.0%} of copy "
                f"bandwidth ({row.variant_ms['sync'] / row.variant_ms[variant]:.2f}× sync)",
            )
        )
    rows.append(("checked", f"{result.checked_values:,} values per variant: all correct"))
    return rows
