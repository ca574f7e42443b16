"""The one tolerance for telling simulated times apart.

Times are sums of durations; two sums that should be equal may differ in their last bits.
Two times of a run whose span is ``scale`` count as the same when they differ by at most
`time_tolerance` (scale): a billionth of the span, and at least a billionth of a second (or of
whatever the run's time unit is), so that runs near 0 keep a usable margin.
"""

from __future__ import annotations

#: The share of the span that counts as "the same time".
RELATIVE = 1e-9


def time_tolerance(scale: float) -> float:
    """How far apart two times of a run spanning ``scale`` may be and still be equal."""
    return RELATIVE * max(1.0, float(scale))
