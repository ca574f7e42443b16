"""Checks shared by every model's inputs: whole numbers in a range, durations in seconds.
Each failure is a one-line `PipeLabError` naming the value and what it is."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.errors import PipeLabError


def whole_number(value: Any, what: str, low: int, high: int, unit: str = "") -> int:
    """``value`` as an int in [low, high]; a float with no fraction (3.0) is accepted."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            noun = f"a whole number of {unit}" if unit else "a whole number"
            raise PipeLabError(f"{what} must be {noun}, not {value!r}")
    number = int(value)
    if number < low or number > high:
        raise PipeLabError(f"{what} must be between {low} and {high:,}, not {number:,}")
    return number


def duration(value: Any, what: str) -> float:
    """``value`` as a finite, non-negative number of seconds."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise PipeLabError(f"{what} must be a number of seconds, not {value!r}")
    number = float(value)
    if math.isnan(number) or math.isinf(number):
        raise PipeLabError(f"{what} must be a finite number, not {number}")
    if number < 0:
        raise PipeLabError(f"{what} must be 0 or more, not {number:g}")
    return number
