"""Colours: one per op (the same in the assembly line, the Gantt and every export), the
light and dark themes' neutrals, how each kind of idle time is hatched, and the ramp that
shows a busy share where bars are thinner than a pixel. Idle time is never an op colour: it
is pale and hatched. The app's Gantt and every exported figure read these same tables."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PySide6.QtGui import QColor

#: Tableau 10 without its grey (grey means idle): distinct, readable on light and dark.
OP_COLOURS: tuple[str, ...] = (
    "#4E79A7",
    "#F28E2B",
    "#E15759",
    "#76B7B2",
    "#59A14F",
    "#EDC948",
    "#B07AA1",
    "#FF9DA7",
    "#9C755F",
)

_QCOLOURS = tuple(QColor(c) for c in OP_COLOURS)


def op_colour(op: int) -> QColor:
    """The colour of op ``op`` (0-based), cycling through the palette."""
    return QColor(_QCOLOURS[op % len(_QCOLOURS)])


def ink_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour``."""
    luminance = 0.299 * colour.red() + 0.587 * colour.green() + 0.114 * colour.blue()
    return QColor("#1b1b1b") if luminance > 150 else QColor("#ffffff")


@dataclass(frozen=True)
class Theme:
    """The neutrals of one theme (hex strings)."""

    name: str
    background: str
    surface: str
    text: str
    muted: str
    grid: str
    idle: str
    idle_hatch: str
    cursor: str
    accent: str
    done: str
    #: Full-busy end of the density ramp (idle or background at the other end).
    busy: str = "#34465c"
    #: Pale tints under the hatch of some wait reasons (`IDLE_STYLES`): each reason differs
    #: from the others by its pattern too, so print and colour-blind readers lose nothing.
    slot_tint: str = "#f7e2c6"
    overhead_tint: str = "#f1dae6"
    done_tint: str = "#f6f7f9"
    #: A warp run (`engine.latency.warps`): a warp waiting for its load, and a warp ready but not
    #: picked (the Warps tab's own colours, in the light theme).
    memory: str = "#b9c4d3"
    stall_tint: str = "#fbe3c0"

    def colour(self, field: str) -> QColor:
        return QColor(getattr(self, field))


LIGHT = Theme(
    name="light",
    background="#ffffff",
    surface="#f3f4f6",
    text="#1f2328",
    muted="#5b6270",
    grid="#d0d4da",
    idle="#eceef1",
    idle_hatch="#a9b0bb",
    cursor="#d1242f",
    accent="#0969da",
    done="#1a7f37",
)

DARK = Theme(
    name="dark",
    background="#16181c",
    surface="#22252b",
    text="#e6e8eb",
    muted="#9aa3af",
    grid="#3a3f47",
    idle="#262a31",
    idle_hatch="#5a616c",
    cursor="#ff6b6b",
    accent="#58a6ff",
    done="#3fb950",
    busy="#b9c6d8",
    slot_tint="#3d3221",
    overhead_tint="#3a2733",
    done_tint="#1d2025",
    memory="#4a5568",
    stall_tint="#4a3720",
)

THEMES = {"light": LIGHT, "dark": DARK}


@dataclass(frozen=True)
class IdleStyle:
    """How one kind of waiting is drawn: a pale ``tint`` (a `Theme` field) crossed by hatch
    lines in the directions ``angles`` (45 = "/", -45 = "\\", 0 = "—", 90 = "|"), with
    ``label`` in legends. Every reason has a pattern of its own, so it reads without
    colour (print, greyscale, colour blindness); the tint only helps the eye."""

    reason: str
    label: str
    angles: tuple[int, ...]
    tint: str = "idle"


#: The hatch of every wait reason (`engine.reasons.waits`): a worker's idle time (input, slot, done,
#: overhead) and an op's waits (worker, slot, overhead), "idle" where the reason is not
#: known, and a warp run's stalls and starved issue unit. The app's Gantt, its legend and
#: every exported figure share this table.
IDLE_STYLES: dict[str, IdleStyle] = {
    "input": IdleStyle("input", "waiting for input", (45,)),
    "worker": IdleStyle("worker", "waiting for a busy unit", (-45,)),
    "slot": IdleStyle("slot", "waiting for a buffer slot", (45, -45), "slot_tint"),
    "done": IdleStyle("done", "no work left", (0,), "done_tint"),
    "overhead": IdleStyle("overhead", "overhead the model does not see", (90,), "overhead_tint"),
    "idle": IdleStyle("idle", "reason not known", (45,)),
    # A warp run's rows (`engine.latency.warp_idle`): a stalled warp waits for the busy issue unit,
    # an idle issue unit waits for a ready warp, hence the patterns of "worker", "input".
    "stall": IdleStyle("stall", "ready, not picked (another warp issues)", (-45,), "stall_tint"),
    "starved": IdleStyle("starved", "issue unit idle: no warp ready", (45,)),
    # An imported profile's lanes (`gpu.profile.idle`): the GPU had no work, or other
    # streams ran while this one waited for a reason the trace does not record.
    "host": IdleStyle("host", "GPU idle: no work from the host", (90,), "overhead_tint"),
    "other": IdleStyle("other", "other streams running", (-45,)),
}
#: What the legend calls the waiting of each row mode (its entries follow).
WAIT_TITLES = {"workers": "Idle:", "ops": "Ops wait:"}
#: Distance between hatch lines in the app's Gantt, in screen pixels.
HATCH_PIXELS = 7.0


def idle_style(reason: str) -> IdleStyle:
    """The style of ``reason`` (an unknown one is drawn as "idle")."""
    return IDLE_STYLES.get(reason, IDLE_STYLES["idle"])


#: Steps of the density ramp (busy share per pixel where bars are thinner than a pixel).
DENSITY_LEVELS = 24


def blend(low: QColor, high: QColor, share: float) -> QColor:
    """The colour ``share`` of the way from ``low`` to ``high`` (linear in sRGB)."""
    a = 1.0 - share
    return QColor(
        round(low.red() * a + high.red() * share),
        round(low.green() * a + high.green() * share),
        round(low.blue() * a + high.blue() * share),
    )


def density_colours(theme: Theme, base: str = "idle") -> list[QColor]:
    """The density ramp: entry k is a cell busy k / DENSITY_LEVELS of the time, from the
    theme's ``base`` colour (idle rows; background where rows are ops) to ``busy``."""
    return [QColor(colour) for colour in _density_ramp(theme, base)]


@lru_cache(maxsize=16)
def _density_ramp(theme: Theme, base: str) -> tuple[QColor, ...]:
    """`density_colours`, blended once per theme (each Gantt paint asks for it)."""
    low, high = theme.colour(base), theme.colour("busy")
    return tuple(blend(low, high, k / DENSITY_LEVELS) for k in range(DENSITY_LEVELS + 1))
