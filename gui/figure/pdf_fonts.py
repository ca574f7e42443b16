"""Names the subset fonts of a Qt-written PDF as subsets.

Qt's QPdfWriter embeds only the glyphs a page uses and tags the font descriptor's
/FontName ("QRAAAA+DejaVuSans") but writes the font's /BaseFont without the tag, which
the PDF standard asks of both (ISO 32000-1, 9.6.4): pdffonts then says "sub no", and
preflight checks flag fonts that are in fact subset. `tag_subset_fonts` copies each tag
to its /BaseFont entries and moves the cross-reference offsets by the bytes inserted.
A file in any other shape (another Qt, a cross-reference stream) is returned unchanged.
"""

from __future__ import annotations

import re

_FONT_NAME = re.compile(rb"/FontName /([A-Z]{6})\+([A-Za-z0-9_.-]+)")
#: A font dictionary as Qt writes it: "<< /Type /Font\n/Subtype /Type0\n/BaseFont /Name".
_BASE_FONT = re.compile(
    rb"(/Type /Font\s*/Subtype /(?:Type0|CIDFontType2)\s*/BaseFont /)([A-Za-z0-9_.-]+)(?=[\s/>])"
)
_XREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")


def tag_subset_fonts(pdf: bytes) -> bytes:
    """``pdf`` with each subset font's tag on its /BaseFont (see the module doc)."""
    tags: dict[bytes, bytes] = {}
    for match in _FONT_NAME.finditer(pdf):
        tag, name = match.group(1), match.group(2)
        if tags.setdefault(name, tag) != tag:
            return pdf  # one name, two subsets: which is which is not ours to guess
    end = _XREF.search(pdf)
    if not tags or end is None:
        return pdf
    xref_at = int(end.group(1))
    table = re.compile(rb"xref\s*\n0 (\d+)\s*\n").match(pdf, xref_at)
    if table is None:
        return pdf
    inserts: list[tuple[int, bytes]] = []  # (offset, bytes inserted there)
    for match in _BASE_FONT.finditer(pdf, 0, xref_at):
        tag = tags.get(match.group(2))
        if tag is not None:
            inserts.append((match.start(2), tag + b"+"))
    if not inserts:
        return pdf

    def moved(offset: int) -> int:
        return offset + sum(len(words) for at, words in inserts if at < offset)

    count, first = int(table.group(1)), table.end()
    entries = pdf[first : first + 20 * count]
    if len(entries) != 20 * count:
        return pdf
    rows = []
    for k in range(count):
        row = entries[20 * k : 20 * k + 20]
        if row[17:18] == b"n":
            row = b"%010d" % moved(int(row[:10])) + row[10:]
        rows.append(row)
    out, last = [], 0
    for at, words in inserts:
        out += [pdf[last:at], words]
        last = at
    out += [pdf[last:first], b"".join(rows), pdf[first + 20 * count : end.start()]]
    out.append(b"startxref\n%d\n%%%%EOF\n" % moved(xref_at))
    return b"".join(out)
