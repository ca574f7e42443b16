"""Experiment 2's results, and the headline: the row and the pass that carry the claim.

The claim is that cp.async's double buffering hides memory latency inside a block. Where
every variant is a plain copy (intensity 0), or where other blocks on the SM already hide
the latency (high occupancy), the variants tie and prove nothing. So the headline reports
cp.async's gain on the *balanced* row, picked from the synchronous kernel and the copy
alone (never from the cp.async results): the intensity at which the synchronous kernel
falls furthest behind what the hardware bounds it to, max(copy time, compute alone). There
loading and computing cost about the same, and overlapping them is worth most. It is taken
from the low-occupancy pass when that ran (latency must be hidden inside the block there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.text import time_text
from gpu.params import ITEM

if TYPE_CHECKING:
    from gpu.tiles import TileParams

#: Floats per tile (256 threads × one float4 each): gpu/kernels/tile_common.cuh TILE_VEC × 4.
TILE = 1024
SYNC = "sync"
VARIANTS = {SYNC: "synchronous", "async2": "cp.async, 2 stages", "async3": "cp.async, 3 stages"}
KERNELS = {SYNC: "tile_sync", "async2": "tile_async2", "async3": "tile_async3"}


@dataclass(frozen=True)
class TileRow:
    """One intensity: median per-launch ms of the device-to-device copy and of every
    variant, and the launches per timed window each used."""

    intensity: int
    copy_ms: float
    variant_ms: dict[str, float]
    launches: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TilePass:
    """The intensity sweep at one residency: ``blocks_per_sm`` blocks on every SM (a grid of
    ``grid_blocks``), held there as ``residency`` says."""

    blocks_per_sm: int
    grid_blocks: int
    residency: str
    rows: tuple[TileRow, ...]


def compute_ms_per_intensity(rows: Sequence[TileRow]) -> float:
    """The synchronous kernel's cost per unit of intensity, from its two most intense rows
    (compute-bound there, so the difference is compute alone); 0 with fewer than two."""
    ordered = sorted(rows, key=lambda row: row.intensity)
    if len(ordered) < 2:
        return 0.0
    low, high = ordered[-2], ordered[-1]
    if high.intensity <= low.intensity:
        return 0.0
    slope = (high.variant_ms[SYNC] - low.variant_ms[SYNC]) / (high.intensity - low.intensity)
    return max(0.0, slope)


def sync_shortfall(row: TileRow, ms_per_intensity: float) -> float:
    """How far the synchronous kernel falls behind its bound: its time ÷ max(copy time,
    compute alone). 1 = as fast as the hardware allows; 2 = loading and computing in turn."""
    bound = max(row.copy_ms, ms_per_intensity * row.intensity)
    return row.variant_ms[SYNC] / bound if bound > 0 else 1.0


def balanced_row(rows: Sequence[TileRow]) -> TileRow:
    """The row where the synchronous kernel falls furthest behind max(copy, compute alone)
    (the lowest intensity on ties). Chosen without looking at the cp.async variants."""
    if not rows:
        raise ValueError("no rows to choose from")
    slope = compute_ms_per_intensity(rows)
    ordered = sorted(rows, key=lambda row: row.intensity)
    return max(ordered, key=lambda row: sync_shortfall(row, slope))


@dataclass(frozen=True)
class Headline:
    """cp.async's result on the balanced row of one pass."""

    blocks_per_sm: int
    row: TileRow
    variant: str
    shortfall: float

    @property
    def gain(self) -> float:
        """Synchronous time ÷ the cp.async variant's (above 1: cp.async is faster)."""
        return self.row.variant_ms[SYNC] / self.row.variant_ms[self.variant]

    @property
    def fraction_of_copy(self) -> float:
        return self.row.copy_ms / self.row.variant_ms[self.variant]

    @property
    def sync_fraction_of_copy(self) -> float:
        return self.row.copy_ms / self.row.variant_ms[SYNC]

    def text(self) -> str:
        return (
            f"{self.blocks_per_sm} block(s)/SM, intensity {self.row.intensity} (balanced row: "
            f"synchronous {self.shortfall:.2f}× its bound max(copy, compute)): "
            f"{VARIANTS[self.variant]} {self.gain:.2f}× the synchronous kernel, "
            f"{self.fraction_of_copy:.0%} of copy bandwidth (synchronous "
            f"{self.sync_fraction_of_copy:.0%})"
        )

    def figures(self) -> dict[str, Any]:
        return {
            "blocks_per_sm": self.blocks_per_sm,
            "balanced_intensity": self.row.intensity,
            "rule": "the row where the synchronous kernel falls furthest behind "
            "max(copy, compute alone); chosen without the cp.async results",
            "sync_shortfall": self.shortfall,
            "variant": self.variant,
            "gain_over_sync": self.gain,
            "fraction_of_copy": self.fraction_of_copy,
            "sync_fraction_of_copy": self.sync_fraction_of_copy,
            "text": self.text(),
        }


def headline(sweep: TilePass, variants: Sequence[str]) -> Headline | None:
    """The balanced row of ``sweep`` and the faster cp.async variant on it (None when no
    cp.async variant ran)."""
    pipelined = [v for v in variants if v != SYNC]
    if not pipelined or not sweep.rows:
        return None
    row = balanced_row(sweep.rows)
    variant = min(pipelined, key=lambda v: row.variant_ms[v])
    shortfall = sync_shortfall(row, compute_ms_per_intensity(sweep.rows))
    return Headline(sweep.blocks_per_sm, row, variant, shortfall)


@dataclass(frozen=True)
class TileResult:
    """Experiment 2: the main pass's rows (``rows``), every pass, the launch overhead."""

    device: str
    params: TileParams
    variants: tuple[str, ...]
    rows: tuple[TileRow, ...]
    checked_values: int
    notes: tuple[str, ...] = field(default=())
    passes: tuple[TilePass, ...] = field(default=())
    launch_overhead_ms: float = 0.0

    @property
    def all_passes(self) -> tuple[TilePass, ...]:
        """Every pass run, the main one first (a result built from rows alone has one)."""
        if self.passes:
            return self.passes
        return (TilePass(self.params.blocks_per_sm, 0, "default occupancy", self.rows),)

    @property
    def low_occupancy(self) -> TilePass | None:
        return self.all_passes[1] if len(self.all_passes) > 1 else None

    @property
    def bytes_moved(self) -> int:
        """Bytes read + bytes written by every variant and by the copy."""
        return 2 * ITEM * self.params.n_elements

    def gbps(self, milliseconds: float) -> float:
        return self.bytes_moved / (milliseconds * 1e6) if milliseconds > 0 else 0.0

    def fraction_of_copy(self, row: TileRow, variant: str) -> float:
        return row.copy_ms / row.variant_ms[variant]

    def headline(self) -> Headline | None:
        """The claim: the low-occupancy pass's balanced row (the main pass's without it)."""
        carrying = self.low_occupancy or self.all_passes[0]
        return headline(carrying, self.variants)

    def main_headline(self) -> Headline | None:
        """The same rule on the main (high-occupancy) pass, for comparison."""
        return headline(self.all_passes[0], self.variants)

    def best_pipelined(self) -> tuple[TileRow, str, float] | None:
        """(row, cp.async variant, its fraction of copy bandwidth) of the `headline`."""
        found = self.headline()
        if found is None:
            return None
        return found.row, found.variant, found.fraction_of_copy

    def _row_figures(self, row: TileRow) -> dict[str, Any]:
        return {
            "intensity": row.intensity,
            "copy_ms": row.copy_ms,
            "copy_gbps": self.gbps(row.copy_ms),
            **{f"{v}_ms": row.variant_ms[v] for v in self.variants},
            **{f"{v}_gbps": self.gbps(row.variant_ms[v]) for v in self.variants},
            **{
                f"{v}_speedup_over_sync": row.variant_ms[SYNC] / row.variant_ms[v]
                for v in self.variants
                if v != SYNC
            },
            "launches_per_window": dict(row.launches),
        }

    def figures(self) -> dict[str, Any]:
        found, main = self.headline(), self.main_headline()
        return {
            "device": self.device,
            "size_bytes": ITEM * self.params.n_elements,
            "bandwidth_counts": "bytes read + bytes written",
            "timing": f"median of {self.params.repeats} windows, each >= "
            f"{self.params.min_launches} back-to-back launches and >= "
            f"{time_text(self.params.min_window_ms, 'ms')}, divided by the launches",
            "launch_overhead_ms": self.launch_overhead_ms,
            "variants": {v: VARIANTS[v] for v in self.variants},
            "rows": [self._row_figures(row) for row in self.rows],
            "passes": [
                {
                    "blocks_per_sm": p.blocks_per_sm,
                    "grid_blocks": p.grid_blocks,
                    "residency": p.residency,
                    "balanced_intensity": balanced_row(p.rows).intensity if p.rows else None,
                    "rows": [self._row_figures(row) for row in p.rows],
                }
                for p in self.all_passes
            ],
            "headline": found.figures() if found else None,
            "main_pass_headline": main.figures() if main else None,
            "checked_values": self.checked_values,
            "notes": list(self.notes),
        }
