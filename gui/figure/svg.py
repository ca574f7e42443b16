"""The SVG back end: writes a `Figure` as plain SVG 1.1 that librsvg, Chromium, Firefox,
Inkscape and Qt draw alike.

Text is ``<text>`` (selectable, searchable, editable), bars are ``<rect>``, hatching is a
``<pattern>`` of lines; no raster images, no transforms on shapes, no non-scaling strokes.
Units are points: the root's width and height say "pt" and its viewBox counts points, so
the file has its physical size. Runs, rows, the axis and the legend are ``<g>`` groups with
ids and classes (``run``, ``row``, ``unit-load``, ``op-row``, ``task``, ``colour-N``,
``op-N``, ``idle-REASON``, ``density``, ``makespan``, ``row-label``…) for restyling.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from engine.base.errors import PipeLabError
from gui.figure.fonts import SVG_FAMILIES
from gui.figure.model import Embed, Figure, Group, Hatch, Item, Line, Rects, Text

#: What XML 1.0 may not hold at all (control characters, lone surrogates, U+FFFE/FFFF).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(text: str) -> str:
    """``text`` as XML character data: escaped, and what XML cannot hold left out (a
    title with a control character made a file no renderer would open)."""
    return escape(_NOT_XML.sub("", text))


def _n(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _numbers(values: np.ndarray) -> list[str]:
    return [_n(v) for v in np.round(values, 2).tolist()]


def figure_svg(figure: Figure) -> bytes:
    """The SVG document of ``figure`` (UTF-8)."""
    writer = _Writer()
    writer.collect_patterns(figure.items)
    out = writer.out
    w, h = _n(figure.width), _n(figure.height)
    out.append('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}pt" height="{h}pt" '
        f'viewBox="0 0 {w} {h}" font-family={quoteattr(SVG_FAMILIES)}>\n'
    )
    out.append(f"<title>{_text(figure.meta.get('title', 'PipeLab timeline'))}</title>\n")
    if figure.meta.get("caption"):
        out.append(f"<desc>{_text(figure.meta['caption'])}</desc>\n")
    if writer.patterns:
        out.append("<defs>\n")
        out.extend(writer.pattern_defs())
        out.append("</defs>\n")
    if figure.background:
        out.append(
            f'<rect id="background" x="0" y="0" width="{w}" height="{h}" '
            f'fill="{figure.background}"/>\n'
        )
    writer.items(figure.items)
    out.append("</svg>\n")
    return "".join(out).encode("utf-8")


class _Writer:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.patterns: dict[tuple[str, tuple[int, ...], float, str, float], str] = {}

    # -- hatch patterns ------------------------------------------------------------------

    def collect_patterns(self, items: tuple[Item, ...]) -> None:
        for item in items:
            if isinstance(item, Group):
                self.collect_patterns(item.items)
            elif isinstance(item, Hatch) and item.angles:
                key = _pattern_key(item)
                if key not in self.patterns:
                    name = f"hatch-{item.reason}"
                    taken = set(self.patterns.values())
                    suffix = 2
                    while name in taken:
                        name = f"hatch-{item.reason}-{suffix}"
                        suffix += 1
                    self.patterns[key] = name

    def pattern_defs(self) -> list[str]:
        """One tile per hatch: lines x ± y = k·spacing (or y, x = spacing / 2) through a
        spacing-square tile at the origin of user space (where the painter back end
        anchors its lines)."""
        defs = []
        for key, name in self.patterns.items():
            _, angles, spacing, colour, width = key
            s, two, minus = _n(spacing), _n(2 * spacing), _n(-spacing)
            paths = []
            if 45 in angles:  # x + y = 0, s, 2s
                paths.append(f"M0,{s}L{s},0M{minus},{s}L{s},{minus}M0,{two}L{two},0")
            if -45 in angles:  # x - y = 0, -s, s
                paths.append(f"M0,0L{s},{s}M{minus},0L{s},{two}M0,{minus}L{two},{s}")
            half = _n(spacing / 2)
            if 0 in angles:  # y = s / 2
                paths.append(f"M0,{half}L{s},{half}")
            if 90 in angles:  # x = s / 2
                paths.append(f"M{half},0L{half},{s}")
            defs.append(
                f'<pattern id="{name}" patternUnits="userSpaceOnUse" x="0" y="0" '
                f'width="{s}" height="{s}"><path d="{"".join(paths)}" stroke="{colour}" '
                f'stroke-width="{_n(width)}" fill="none"/></pattern>\n'
            )
        return defs

    # -- items -----------------------------------------------------------------------------

    def items(self, items: tuple[Item, ...]) -> None:
        for item in items:
            if isinstance(item, Group):
                attrs = (f' id="{item.id}"' if item.id else "") + (
                    f' class="{item.cls}"' if item.cls else ""
                )
                self.out.append(f"<g{attrs}>\n")
                self.items(item.items)
                self.out.append("</g>\n")
            elif isinstance(item, Rects):
                self.rects(item)
            elif isinstance(item, Hatch):
                self.hatch(item)
            elif isinstance(item, Line):
                self.line(item)
            elif isinstance(item, Text):
                self.text(item)
            elif isinstance(item, Embed):
                raise PipeLabError(
                    f"SVG cannot hold the {item.name} line as shapes and text: "
                    "export it to PDF or PNG, or leave out --assembly"
                )

    def rects(self, item: Rects) -> None:
        if not len(item):
            return
        attrs = f' class="{item.cls}"' if item.cls else ""
        attrs += f' fill="{item.fill}"'
        if item.stroke and item.stroke_width > 0:
            attrs += f' stroke="{item.stroke}" stroke-width="{_n(item.stroke_width)}"'
        self.out.append(f"<g{attrs}>\n")
        xs, ys, ws, hs = (_numbers(a) for a in (item.x, item.y, item.w, item.h))
        if item.ops is not None:
            ops = (item.ops + 1).tolist()
            self.out.extend(
                f'<rect x="{x}" y="{y}" width="{w}" height="{h}" class="op-{op}"/>\n'
                for x, y, w, h, op in zip(xs, ys, ws, hs, ops, strict=True)
            )
        else:
            self.out.extend(
                f'<rect x="{x}" y="{y}" width="{w}" height="{h}"/>\n'
                for x, y, w, h in zip(xs, ys, ws, hs, strict=True)
            )
        self.out.append("</g>\n")

    def hatch(self, item: Hatch) -> None:
        if not len(item) or not item.angles:
            return
        name = self.patterns[_pattern_key(item)]
        self.out.append(f'<g class="{item.cls}" fill="url(#{name})">\n')
        xs, ys, ws, hs = (_numbers(a) for a in (item.x, item.y, item.w, item.h))
        self.out.extend(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}"/>\n'
            for x, y, w, h in zip(xs, ys, ws, hs, strict=True)
        )
        self.out.append("</g>\n")

    def line(self, item: Line) -> None:
        dash = f' stroke-dasharray="{",".join(_n(d) for d in item.dash)}"' if item.dash else ""
        cls = f' class="{item.cls}"' if item.cls else ""
        self.out.append(
            f'<line x1="{_n(item.x1)}" y1="{_n(item.y1)}" x2="{_n(item.x2)}" y2="{_n(item.y2)}" '
            f'stroke="{item.colour}" stroke-width="{_n(item.width)}"{dash}{cls}/>\n'
        )

    def text(self, item: Text) -> None:
        attrs = f' x="{_n(item.x)}" y="{_n(item.y)}" font-size="{_n(item.size)}"'
        if item.bold:
            attrs += ' font-weight="bold"'
        if item.anchor != "start":
            attrs += f' text-anchor="{item.anchor}"'
        attrs += f' fill="{item.colour}"'
        if item.cls:
            attrs += f' class="{item.cls}"'
        self.out.append(f"<text{attrs}>{_text(item.text)}</text>\n")


def _pattern_key(item: Hatch) -> tuple[str, tuple[int, ...], float, str, float]:
    """One pattern per reason (and look): readers restyle a reason by its pattern's id."""
    return (item.reason, item.angles, round(item.spacing, 3), item.colour, round(item.width, 3))
