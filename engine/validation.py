"""Checks shared by every model's inputs: whole numbers in a range, durations in seconds.
Each failure is a one-line `PipeLabError` naming the value and what it is.

The magnitude policy (docs/model.md, "Limits"): every duration is 0 or within
[`MIN_DURATION`, `MAX_DURATION`] = [1e-6, 1e9] time units. With at most 10^7 ops of three
stages that keeps every start, end and makespan finite (at most 3·10^16) and every view's
arithmetic (scales, widths, fractions) away from overflow and subnormal numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import PipeLabError

#: The shortest non-zero duration: a microsecond when the unit is seconds. The views resolve
#: time to 1e-9 of max(1, makespan) (event stepping, narration, the clock), so a shorter
#: stage could not be stepped to or told apart from its neighbours.
MIN_DURATION = 1e-6
#: The longest duration: about 32 years in seconds.
MAX_DURATION = 1e9
#: How the limits read in messages.
DURATION_LIMITS = "0 or between 1e-6 and 1e9"
#: At most this many characters of a bad value are quoted in a message.
_SHOWN = 60


def shown(value: Any) -> str:
    """``repr(value)`` cut to a readable length: messages stay one short line whatever the
    input (a megabyte string, a deep list)."""
    try:
        text = repr(value)
    except Exception:  # a repr that fails is no reason to lose the message
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def value_text(value: float) -> str:
    """A number someone gave, as they would write it, for a message that quotes it: 2.5,
    -1, 1e-320, 3e9 (not "3e+09"), 9.0000001 (not "9"). The short form when it reads back
    as exactly the value, else Python's shortest exact one: never a value the message
    misstates. The one formatter for user-given numbers (times for people:
    `engine.text.time_text`)."""
    number = float(value)
    if not math.isfinite(number):
        return str(number)
    text = f"{number:.6g}"
    exact = repr(number)
    if float(text) != number or len(exact) < len(text):
        text = exact
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa.removesuffix('.0')}e{int(exponent)}"
    return text.removesuffix(".0")


def whole_number(value: Any, what: str, low: int, high: int, unit: str = "") -> int:
    """``value`` as an int in [low, high]; a float with no fraction (3.0) is accepted."""
    given = value
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            noun = f"a whole number of {unit}" if unit else "a whole number"
            raise PipeLabError(f"{what} must be {noun}, not {shown(value)}")
    number = int(value)
    if number < low or number > high:
        raise PipeLabError(f"{what} must be between {low} and {high:,}, not {_whole_text(given)}")
    return number


def _whole_text(value: Any) -> str:
    """A whole number as given: 1,000,000; a float as written (1e300, not its 301 digits);
    an int too long for a line (10^5000) by its length."""
    if isinstance(value, float):
        return value_text(value)
    number = int(value)
    if abs(number) < 10**30:
        return f"{number:,}"
    return f"a {len(str(abs(number))):,}-digit number"


def duration(value: Any, what: str) -> float:
    """``value`` as a duration within the magnitude policy (0 or in [MIN_DURATION,
    MAX_DURATION]); ``what`` names the field in the message."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise PipeLabError(f"{what} must be a number of seconds, not {shown(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond a float (10^400)
        raise PipeLabError(f"{what} must be {DURATION_LIMITS}, not {_whole_text(value)}") from None
    if math.isnan(number) or math.isinf(number):
        raise PipeLabError(f"{what} must be a finite number, not {number}")
    if number < 0:
        raise PipeLabError(f"{what} must be 0 or more, not {value_text(number)}")
    if number != 0 and not MIN_DURATION <= number <= MAX_DURATION:
        raise PipeLabError(f"{what} must be {DURATION_LIMITS}, not {value_text(number)}")
    return number


def check_durations(array: npt.NDArray[np.float64], what: str) -> None:
    """`duration`'s policy for a whole column at once; ``what`` is e.g. "read" and the
    message names the first bad op ("read duration of op 3 must be …")."""
    finite = np.isfinite(array)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise PipeLabError(
            f"{what} duration of op {bad + 1} must be a finite number, "
            f"not {value_text(float(array[bad]))}"
        )
    if (array < 0).any():
        bad = int(np.flatnonzero(array < 0)[0])
        raise PipeLabError(
            f"{what} duration of op {bad + 1} must be 0 or more, "
            f"not {value_text(float(array[bad]))}"
        )
    outside = (array != 0) & ((array < MIN_DURATION) | (array > MAX_DURATION))
    if outside.any():
        bad = int(np.flatnonzero(outside)[0])
        raise PipeLabError(
            f"{what} duration of op {bad + 1} must be {DURATION_LIMITS}, "
            f"not {value_text(float(array[bad]))}"
        )
