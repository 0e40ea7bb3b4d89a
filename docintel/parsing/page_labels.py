"""Printed page labels: PDF page labels, else numbers printed in headers/footers, else physical.

1. The PDF's /PageLabels, when some label differs from the physical number ("iv", "A-3").
2. A page number printed in the header or footer band, accepted only when it is consistent
   across pages: arabic numbers must agree on one offset from the physical page on at least
   three pages (or half of the pages with a candidate); pages between two such pages inherit
   the offset even where the number is not printed (a full-page figure). Roman numerals and
   "A-3"-style labels are taken where printed, in front or back matter.
3. The physical page number.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

PDF = "pdf_labels"
PRINTED = "printed"
PHYSICAL = "physical"

BAND = 0.1  # header/footer band: top and bottom share of the page height
_ARABIC = re.compile(r"^(?:page\s+)?[-\u2013\u2014]?\s*(\d{1,5})\s*[-\u2013\u2014]?(?:\s+of\s+\d+)?$", re.I)
_ROMAN = re.compile(r"^(?:page\s+)?([ivxlcdm]{1,7})$", re.I)
_PREFIXED = re.compile(r"^(?:page\s+)?((?:[A-Z]{1,3}|\d{1,2})[-\u2013]\d{1,3})$")  # "A-3", "ES-1", "2-5"
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def pdf_labels(doc: Any) -> list[str] | None:
    """The PDF's own labels when they say something the physical numbers do not."""
    try:
        if not doc.get_page_labels():
            return None
        labels = [doc[i].get_label() or "" for i in range(doc.page_count)]
    except Exception:  # a malformed /PageLabels tree is not worth losing the document
        return None
    if all(lab in ("", str(i + 1)) for i, lab in enumerate(labels)):
        return None
    return [lab or str(i + 1) for i, lab in enumerate(labels)]


def band_candidates(lines: Sequence[dict[str, Any]], page_height: float) -> list[str]:
    """Short header/footer strings that may be a printed page number (nearest the edge first)."""
    out = []
    for r in sorted(lines, key=lambda r: min(r["y0"], page_height - r["y1"])):
        if r["y1"] > BAND * page_height and r["y0"] < (1 - BAND) * page_height:
            continue
        text = r["text"].strip()
        if len(text) > 16:
            # "FIPS PUB 199 ... 6" style running footers: try the last and first tokens
            parts = text.split()
            out.extend(p for p in (parts[-1], parts[0]) if p)
            continue
        out.append(text)
    return out


def roman_value(s: str) -> int | None:
    s = s.lower()
    if not s or any(c not in _ROMAN_VALUES for c in s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = _ROMAN_VALUES[a]
        total += -v if b != " " and _ROMAN_VALUES.get(b, 0) > v else v
    return total


def printed_labels(candidates: Sequence[Sequence[str]]) -> list[str | None]:
    """Per physical page (0-based list), the printed label when consistent, else None."""
    n = len(candidates)
    arabic: list[set[int]] = []
    for cands in candidates:
        offsets = set()
        for c in cands:
            m = _ARABIC.match(c)
            if m:
                offsets.add(len(arabic) + 1 - int(m.group(1)))
        arabic.append(offsets)
    counts = Counter(o for offs in arabic for o in offs)
    out: list[str | None] = [None] * n
    with_candidates = sum(1 for offs in arabic if offs)
    if counts:
        offset, hits = counts.most_common(1)[0]
        if hits >= 3 or (hits >= 2 and hits * 2 >= with_candidates):
            pages = [i for i in range(n) if offset in arabic[i]]
            first, last = pages[0], pages[-1]
            for i in range(first, last + 1):
                if i + 1 - offset >= 1:
                    out[i] = str(i + 1 - offset)
    # roman numerals (front matter) and "A-3" labels where printed and not already numbered
    for i, cands in enumerate(candidates):
        if out[i] is not None:
            continue
        for c in cands:
            m = _PREFIXED.match(c)
            if m:
                out[i] = m.group(1)
                break
            m = _ROMAN.match(c)
            if m and roman_value(m.group(1)) is not None and _roman_consistent(candidates, i, m.group(1)):
                out[i] = m.group(1)
                break
    return out


def _roman_consistent(candidates: Sequence[Sequence[str]], i: int, token: str) -> bool:
    """A roman numeral counts when a neighbouring page prints the next or previous one."""
    v = roman_value(token)
    for j, step in ((i - 1, -1), (i + 1, 1)):
        if 0 <= j < len(candidates):
            for c in candidates[j]:
                m = _ROMAN.match(c)
                if m and roman_value(m.group(1)) == v + step:
                    return True
    return False


def page_labels(doc: Any, candidates: Sequence[Sequence[str]]) -> tuple[list[str], list[str]]:
    """(label, source) per page: PDF labels, else printed numbers, else physical."""
    n = len(candidates)
    pdf = pdf_labels(doc)
    if pdf is not None:
        return pdf, [PDF] * n
    printed = printed_labels(candidates)
    labels = [p if p is not None else str(i + 1) for i, p in enumerate(printed)]
    sources = [PRINTED if p is not None else PHYSICAL for p in printed]
    return labels, sources
