"""The warp model fitted to a measured bandwidth curve, and whether the curve saturated.

The model is the warp model's min(1, W·C / (C + L)) scaled to bandwidth:
``gbps = peak · min(1, W / knee)``, with ``knee = (C + L) / C``. It is fitted by least
squares over every point (not read off the first and the largest point), and the fit's
residual is reported with it. A curve still rising at the largest W has no knee to show:
the verdict then says "not saturated" and gives the largest W as a lower bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: The last step still "rises" when its bandwidth gain is more than this share of the gain
#: a curve proportional to W would make over the same step (56 → 64 warps: 14% × 0.25).
RISE_SHARE = 0.25


@dataclass(frozen=True)
class SaturationFit:
    """``gbps = peak_gbps · min(1, W / knee)``, least squares; residual as an RMS in GB/s."""

    peak_gbps: float
    knee: float
    rms_residual_gbps: float

    @property
    def relative_residual(self) -> float:
        """RMS residual as a fraction of the fitted peak."""
        return self.rms_residual_gbps / self.peak_gbps if self.peak_gbps > 0 else 0.0

    def model_gbps(self, warps: npt.ArrayLike) -> FloatArray:
        w = np.asarray(warps, dtype=np.float64)
        shape: FloatArray = self.peak_gbps * np.minimum(1.0, w / self.knee)
        return shape


def _sse_at(knee: float, w: FloatArray, g: FloatArray) -> tuple[float, float]:
    """(squared error, best peak) of the model with this knee (the peak is linear: closed form)."""
    f = np.minimum(1.0, w / knee)
    peak = float(f @ g / (f @ f))
    residual = g - peak * f
    return float(residual @ residual), peak


def fit_saturation(warps: npt.ArrayLike, gbps: npt.ArrayLike) -> SaturationFit:
    """Least-squares fit of ``peak · min(1, W / knee)`` to the points (exact, not a search).

    For a knee between two measured W the points split into a line through the origin and
    a plateau, each solved in closed form; where that knee falls outside its interval the
    optimum lies at an interval end, a measured W, which is tried too. A curve that never
    bends gets the largest W (the fit is then equally good for any knee beyond it).
    """
    order = np.argsort(np.asarray(warps, dtype=np.float64))
    w = np.asarray(warps, dtype=np.float64)[order]
    g = np.asarray(gbps, dtype=np.float64)[order]
    if len(w) == 0 or (w <= 0).any():
        raise ValueError("the fit needs at least one point, every W above 0")
    candidates = [float(x) for x in w]
    for split in range(1, len(w)):
        line_w, line_g, plateau = w[:split], g[:split], g[split:]
        slope = float(line_w @ line_g / (line_w @ line_w))
        if slope > 0:
            knee = float(plateau.mean()) / slope
            if w[split - 1] <= knee <= w[split]:
                candidates.append(knee)
    best: tuple[float, float, float] | None = None  # (error, knee, peak)
    for knee in candidates:
        error, peak = _sse_at(knee, w, g)
        if best is None or error < best[0] - 1e-12 * max(1.0, best[0]):
            best = (error, knee, peak)
    assert best is not None
    error, knee, peak = best
    return SaturationFit(peak, knee, float(np.sqrt(error / len(w))))


@dataclass(frozen=True)
class Verdict:
    """Whether the curve saturated inside the sweep, in words."""

    saturated: bool
    text: str


def last_step_gain(warps: npt.ArrayLike, gbps: npt.ArrayLike) -> tuple[float, float]:
    """(bandwidth gain, W gain) of the last step, as fractions (0.1 = +10%)."""
    w = np.asarray(warps, dtype=np.float64)
    g = np.asarray(gbps, dtype=np.float64)
    return float(g[-1] / g[-2] - 1.0), float(w[-1] / w[-2] - 1.0)


def saturation_verdict(
    warps: npt.ArrayLike, gbps: npt.ArrayLike, fit: SaturationFit | None = None
) -> Verdict:
    """Saturated when the fitted knee leaves at least two measured W on the plateau and the
    last step no longer rises (gain under `RISE_SHARE` of a proportional one)."""
    w = np.sort(np.asarray(warps, dtype=np.float64))
    g = np.asarray(gbps, dtype=np.float64)[np.argsort(np.asarray(warps, dtype=np.float64))]
    top = f"{w[-1]:.0f}" if len(w) else "?"
    if len(w) < 3:
        return Verdict(False, f"not saturated: {len(w)} points are too few to see a plateau")
    fit = fit or fit_saturation(w, g)
    gain, w_gain = last_step_gain(w, g)
    if gain > RISE_SHARE * w_gain:
        return Verdict(
            False,
            f"not saturated: bandwidth still rises at W = {top} ({gain:+.0%} over W = "
            f"{w[-2]:.0f}); the knee lies at {top} warps per SM or beyond, so none is drawn",
        )
    if fit.knee > w[-2]:
        return Verdict(
            False,
            f"not saturated: the fitted knee (W = {fit.knee:.1f}) leaves fewer than two "
            f"measured points on the plateau; it lies at {w[-2]:.0f} warps per SM or beyond",
        )
    return Verdict(
        True,
        f"saturated: knee W = {fit.knee:.1f} warps per SM, plateau {fit.peak_gbps:,.0f} GB/s "
        f"(least squares, RMS residual {fit.rms_residual_gbps:,.1f} GB/s = "
        f"{fit.relative_residual:.1%} of the plateau)",
    )
