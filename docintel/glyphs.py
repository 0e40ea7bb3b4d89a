"""Symbol-font glyphs read as the characters they draw.

A PDF set in Wingdings or Webdings carries the font's own codes, and PyMuPDF hands them on as
text: the diamond that marks a cell of SP 800-63B's usability table (Table 10-1, Wingdings 0x77)
reads "w", the small square opening a bullet of its Section 10.2 list (0xA7) reads "§", a
section sign. A code whose glyph Unicode has (the marks used as bullets and in tables: circles,
squares, diamonds, checks, crosses, arrows) is read as that character; any other code of such a
font is read as the private-use character symbol fonts map it to (U+F000 + code), a glyph of
unknown meaning that no word or number is made of (the list-item patterns in ``docintel.text``
read those as bullets). Like ``docintel.text``, this module sits below the bricks: the parsers
read spans with it, the word helpers take its marks for bullets.
"""

from __future__ import annotations

from typing import Any

_WINGDINGS = {
    0x6C: "\u25cf",  # black circle
    0x6D: "\u274d",  # shadowed white circle
    0x6E: "\u25a0",  # black square
    0x6F: "\u25a1",  # white square
    0x71: "\u2751",  # lower right shadowed white square
    0x72: "\u2752",  # upper right shadowed white square
    0x73: "\u2b27",  # black medium lozenge
    0x74: "\u29eb",  # black lozenge
    0x75: "\u25c6",  # black diamond
    0x76: "\u2756",  # black diamond minus white x
    0x77: "\u2b25",  # black medium diamond
    0x78: "\u2327",  # x in a rectangle box
    0x9E: "\u00b7",  # middle dot
    0x9F: "\u2022",  # bullet
    0xA0: "\u25aa",  # black small square
    0xA1: "\u25cb",  # white circle
    0xA4: "\u25c9",  # fisheye
    0xA5: "\u25ce",  # bullseye
    0xA7: "\u25aa",  # black small square
    0xA8: "\u25fb",  # white medium square
    0xAA: "\u2726",  # black four pointed star
    0xAB: "\u2605",  # black star
    0xD8: "\u27a2",  # three-d top-lighted rightwards arrowhead
    0xE8: "\u2794",  # heavy wide-headed rightwards arrow
    0xEF: "\u21e6",  # leftwards white arrow
    0xF0: "\u21e8",  # rightwards white arrow
    0xF1: "\u21e7",  # upwards white arrow
    0xF2: "\u21e9",  # downwards white arrow
    0xF9: "\u25ad",  # white rectangle
    0xFA: "\u25ab",  # white small square
    0xFB: "\u2717",  # ballot x
    0xFC: "\u2713",  # check mark
    0xFD: "\u2612",  # ballot box with x
    0xFE: "\u2611",  # ballot box with check
}
"""Wingdings code -> the character its glyph is (Unicode's names)."""
MARKS = "".join(sorted(set(_WINGDINGS.values())))
"""The marks Wingdings codes are read as: set at a line's start, each opens a list item, as the
code did when it was read as a private-use character."""

_PRIVATE = 0xF000  # symbol fonts' codes as they sit in the private use area (U+F020-U+F0FF)


def is_symbol_font(font: str) -> bool:
    """A Wingdings or Webdings font ("Wingdings-Regular", "Wingdings2", "ABCDEF+Webdings")."""
    name = font.lower()
    return "wingding" in name or "webding" in name


def glyph_text(font: str, text: str) -> str:
    """``text`` as set in ``font``: a Wingdings code read as the character it draws, any other
    code of a symbol font (Webdings', Wingdings' without a Unicode character) as a private-use
    character, a control code too (SP 800-48 sets its bullets in Webdings as code 0x1F, which
    reads as white space and vanished); any other font's text unchanged."""
    if not is_symbol_font(font):
        return text
    name = font.lower()
    table = _WINGDINGS if "wingdings" in name and not any(d in name for d in "23") else {}  # Wingdings 2 / 3 are other fonts
    out = []
    for c in text:
        code = ord(c) - _PRIVATE if _PRIVATE <= ord(c) <= _PRIVATE + 0xFF else ord(c)
        if c in " \t\n\r\u00a0" or code > 0xFF:
            out.append(c)
        else:
            out.append(table.get(code, chr(_PRIVATE + code)))
    return "".join(out)


def span_text(span: dict[str, Any]) -> str:
    """A PyMuPDF span's text, its symbol-font glyphs read as they draw."""
    return glyph_text(span["font"], span["text"])
