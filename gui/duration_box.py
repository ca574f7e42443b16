"""A spin box for a duration in seconds that shows and takes every duration the engine
accepts: 0, or anything from 1e-6 to 1e9 s (`engine.base.validation`).

A QDoubleSpinBox with two decimals showed 1e-6 s as "0.00 s" and rounded 0.125 to 0.13.
This one writes significant digits ("0.125", "1e-6", "2.5e8") and reads any float Python
reads; its value is never rounded to decimals. The form still compares what a field shows
with the scenario's value (`gui.scenario_panel`), so a field left untouched never rewrites
the scenario, even where twelve digits cannot show a value exactly.

Where the ops' durations differ the form's field shows their range ("1–3 s", `show_range`)
in place of op 1's value, until a number typed, stepped or set over it stands for every op.
"""

from __future__ import annotations

import math
import re

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox, QWidget

from engine.base.validation import MAX_DURATION

#: Digits shown: more than anyone types, few enough that 0.1 + 0.2 reads "0.3".
SIGNIFICANT = 12
#: Qt rounds a QDoubleSpinBox's value to its decimals; this many keep every double as it is.
ALL_DECIMALS = 323
#: What may still become a number while it is typed ("", "1.", "2e", "2e-").
_PARTIAL = re.compile(r"^\+?(\d[\d_]*)?\.?\d*([eE][+-]?\d*)?$")


def duration_text(value: float) -> str:
    """``value`` in at most `SIGNIFICANT` significant digits: "0", "0.125", "1234.5" from
    a thousandth to a million, "1e-6", "2.5e8" beyond."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e6:
        return f"{value:.{SIGNIFICANT}g}"
    mantissa, exponent = f"{value:.{SIGNIFICANT - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def parse_duration(text: str) -> float | None:
    """The number in ``text`` (a trailing "s" and spaces allowed), or None."""
    cleaned = text.strip().removesuffix("s").strip().replace("_", "").replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


class DurationBox(QDoubleSpinBox):
    """Seconds, from 0 to `MAX_DURATION`, shown in significant digits."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: The ops' durations ("1–3 s") shown in place of a value, and whether the user
        #: has typed, stepped or set a value over them.
        self._range: str | None = None
        self._range_replaced = False
        self._value_under_range = 0.0
        self.setDecimals(ALL_DECIMALS)
        self.setRange(0.0, MAX_DURATION)  # the engine's policy decides the rest
        self.setSuffix(" s")
        self.setSingleStep(0.25)
        self.lineEdit().textEdited.connect(self._on_typed)
        self.valueChanged.connect(self._on_value_changed)

    def show_range(self, text: str | None) -> None:
        """Show ``text`` (the range of the ops' durations, with its unit) in place of a
        value until the field is edited; None shows the value. The same range again
        leaves the field alone (the user may be typing in it)."""
        if text != self._range:
            self._range, self._range_replaced = text, False
            self._value_under_range = self.value()
            self._show()

    def show_range_again(self) -> None:
        """Put the range back over what was typed (an edit the scenario refused)."""
        if self._range is not None:
            self._range_replaced = False
            self._value_under_range = self.value()
            self._show()

    @property
    def shows_range(self) -> bool:
        """Whether the field shows the ops' range, untouched: leaving it changes no op."""
        return self._range is not None and not self._range_replaced

    @property
    def replaces_range(self) -> bool:
        """Whether a value was typed, stepped or set over the range: it is every op's, even
        where it equals op 1's."""
        return self._range is not None and self._range_replaced

    def _show(self) -> None:
        # The range carries its own unit ("1–3 ms"); setting the suffix redraws the text.
        self.setSuffix("" if self.shows_range else " s")

    def _on_typed(self, _text: str) -> None:
        if self._range is not None:
            self._range_replaced = True  # (no redraw: the user is typing)

    def _on_value_changed(self, value: float) -> None:
        # (Qt reports the value again when a field is left: that is no change.)
        if self.shows_range and value != self._value_under_range:  # stepped or set
            self._range_replaced = True
            self._show()

    def textFromValue(self, value: float) -> str:
        return self._range if self.shows_range and self._range else duration_text(value)

    def valueFromText(self, text: str) -> float:
        value = parse_duration(self._strip(text))
        return self.value() if value is None else value

    def validate(self, text: str, position: int) -> tuple[QValidator.State, str, int]:
        body = self._strip(text)
        value = parse_duration(body)
        if value is not None and self.minimum() <= value <= self.maximum():
            return QValidator.State.Acceptable, text, position
        if value is None and _PARTIAL.match(body.strip().replace(",", "")):
            return QValidator.State.Intermediate, text, position
        if value is not None and value >= 0:
            return QValidator.State.Intermediate, text, position  # out of range: fixup says
        if self._range is not None and "–" in body:  # the range, in part deleted
            return QValidator.State.Intermediate, text, position
        return QValidator.State.Invalid, text, position

    def fixup(self, text: str) -> str:
        """A number beyond the range (typed "2e10") becomes the nearest limit when the field
        is left. Without this, Qt put back the last value the box held while the number was
        typed: a prefix of it (2e10 became 20 s, 1e308 became 1000 s)."""
        value = parse_duration(self._strip(text))
        if value is None:
            self.show_range_again()  # no number typed over the range: it stays
            return text
        return self.textFromValue(min(max(value, self.minimum()), self.maximum()))

    def stepBy(self, steps: int) -> None:
        """Quarter seconds from a quarter second up; below, steps of the value's own
        magnitude (1e-6 → 2e-6), so arrows never jump a microsecond to a quarter second."""
        value = self.value()
        if value >= 0.25 or (value == 0 and steps > 0):
            step = self.singleStep()
        else:
            step = 10.0 ** math.floor(math.log10(value)) if value > 0 else self.singleStep()
        self.setValue(min(max(value + steps * step, self.minimum()), self.maximum()))

    def _strip(self, text: str) -> str:
        suffix = self.suffix().strip()
        body = text.strip()
        return body.removesuffix(suffix).strip() if suffix else body
