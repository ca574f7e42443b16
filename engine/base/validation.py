"""Checks shared by every model's inputs (whole numbers in a range, durations), each
failure a one-line `PipeLabError` naming the value and what it is.

The magnitude policy (docs/model.md, "Limits"): every duration is 0 or in [1e-6, 1e9] time
units; with at most 10^7 ops of three stages every start, end and makespan stays finite
(at most 3·10^16) and every view's arithmetic away from overflow and subnormals.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.base.text import elided_middle, printable

#: The shortest non-zero duration: a microsecond when the unit is seconds. The views resolve
#: time to 1e-9 of max(1, makespan) (event stepping, narration, the clock), so a shorter
#: stage could not be stepped to or told apart from its neighbours.
MIN_DURATION = 1e-6
#: The longest duration: about 32 years in seconds.
MAX_DURATION = 1e9
#: How the limits read in messages.
DURATION_LIMITS = "0 or between 1e-6 and 1e9"
#: At most this many characters of a bad value are quoted in a message (about a line); a
#: longer one is cut, and the message says how long it was.
SHOWN = 80
#: A longer path is shown as its start, "…" and its end (the file name stays in view).
SHOWN_PATH = 160
_CLOSING = {"'": "'", '"': '"', "[": "]", "(": ")", "{": "}"}
#: A backslash escape in a repr: cutting one in two would misquote the value.
_REPR_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")


def shown(value: Any, limit: int = SHOWN) -> str:
    """``repr(value)`` for a message, `printable` and cut to about ``limit`` characters,
    keeping its closing quote or bracket and saying how long the whole was: 'xxxx…'
    (1,000,000 characters). The one quoting helper."""
    try:
        text = printable(repr(value))
    except Exception:  # a failing repr (an int of 5,000 digits) must not lose the message
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    cut = limit - 1
    for match in _REPR_ESCAPE.finditer(text, max(0, cut - 10), cut + 10):
        if match.start() < cut < match.end():
            cut = match.start()  # never half an escape ("\\x1" for "\\x1b")
    closing = _CLOSING.get(text[0], "") if text[-1:] == _CLOSING.get(text[0]) else ""
    return f"{text[:cut]}…{closing} ({_size(value, text)})"


def _size(value: Any, text: str) -> str:
    """How long a value cut by `shown` was: a string's characters, a collection's items
    (two or more), else its repr's characters."""
    if isinstance(value, str):
        return f"{len(value):,} characters"
    if isinstance(value, list | tuple | dict | set | frozenset) and len(value) > 1:
        return f"{len(value):,} items"
    return f"{len(text):,} characters"


def path_text(path: str | os.PathLike[str]) -> str:
    """A path for a message, escaped; beyond `SHOWN_PATH` characters its start, "…" and its
    end, so the file name stays readable: "/very/long/…/run.toml (4,200 characters)". A
    path holding a control character is quoted as well ('a\\nb.png'), so its escapes
    cannot be read as backslashes in the name."""
    text = os.fspath(path)
    shown_path = elided_middle(text, SHOWN_PATH)
    escaped = printable(text)
    if escaped == text:
        return shown_path
    if len(escaped) <= SHOWN_PATH:
        return f"'{shown_path}'"
    body, _, size = shown_path.rpartition(" (")  # the length stays outside the quotes
    return f"'{body}' ({size}"


def value_text(value: float) -> str:
    """A number someone gave, as they would write it: 2.5, 1e-320, 3e9 (not "3e+09"),
    9.0000001 (not "9"): the short form where it reads back exactly, else the shortest
    exact one. The one formatter for user-given numbers."""
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
    """``value`` as an int in [low, high] (3.0 accepted): the one rule for whole numbers
    in files, flags and forms. An empty ``what`` starts the message at "must be"."""
    given = value
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            noun = f"a whole number of {unit}" if unit else "a whole number"
            raise PipeLabError(_said(what, f"must be {noun}, not {shown(value)}"))
    number = int(value)
    if number < low or number > high:
        raise PipeLabError(_outside(what, low, high, _whole_text(given)))
    return number


def whole_number_text(text: str, what: str, low: int, high: int, unit: str = "") -> int:
    """A whole number typed as text, by `whole_number`'s rule: "3", "+3", "1_000" as ints,
    "3.0", "1e3" as floats, as a file's value would be read."""
    try:
        value: Any = int(text)
    except ValueError:
        digits = _DIGITS.fullmatch(text.strip())
        if digits:  # beyond int()'s 4,300 digits: a whole number, far out of any range
            count = len(digits.group(1).replace("_", "").lstrip("0"))
            raise PipeLabError(_outside(what, low, high, f"a {count:,}-digit number")) from None
        try:
            value = float(text)
        except ValueError:
            value = text
    return whole_number(value, what, low, high, unit)


#: An integer as int() reads it, signs, spaces and underscores included.
_DIGITS = re.compile(r"[-+]?(\d(?:_?\d)*)")


def _said(what: str, rest: str) -> str:
    return f"{what} {rest}" if what else rest


def _outside(what: str, low: int, high: int, given: str) -> str:
    return _said(what, f"must be between {low} and {high:,}, not {given}")


def _whole_text(value: Any) -> str:
    """A whole number as given: 1,000,000; a float as written (1e300); a huge int by its
    length."""
    if isinstance(value, float):
        return value_text(value)
    number = abs(int(value))
    if number < 10**30:
        return f"{int(value):,}"
    digits = len(str(number)) if number.bit_length() < 10_000 else int(math.log10(number)) + 1
    return f"a {digits:,}-digit number"


def duration(value: Any, what: str) -> float:
    """``value`` as a duration within the magnitude policy; ``what`` names the field."""
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
    """`duration`'s policy for a column; the message names the first bad op ("read
    duration of op 3 must be …")."""
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
