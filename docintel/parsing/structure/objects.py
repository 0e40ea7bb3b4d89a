"""object_registry: tables, figures, exhibits from captions; appendices, annexes, schedules from
headings and the TOC.

A caption is a line that STARTS with the label and reads like a caption: the label is followed by
punctuation ("Table 3:", "Figure 2-3.", "TABLE 1 —"), by nothing (the caption text is on the
next fragment/line), or by a capitalised title on a line set apart (bold, another font or size,
a block of its own). "Table 2 summarizes ..." (lower-case verb) and a label that continues the
previous line's sentence are prose mentions, not captions; a bare "Table 8-1" sharing its row
with other cells is a table cell. Contents pages (lists of tables and figures, dotted leaders)
register nothing on themselves. Of several captions with one id the best-formed wins, then the
first: "Table 2 (continued)" never displaces "Table 2: ...".
"""

from __future__ import annotations

import re
from typing import Any, Iterable

import numpy as np

from docintel.parsing.structure.lines import BodyStyle, Lines
from docintel.parsing.structure.numbering import parse_object_label

CAPTION_PREFIXES = (
    "Table", "TABLE", "Tab.", "TAB.", "Figure", "FIGURE", "Fig", "FIG", "Exhibit", "EXHIBIT",
    "Equation", "EQUATION", "Schedule", "SCHEDULE", "Annex", "ANNEX",
)
_CONTINUED = re.compile(r"\(?\b(?:continued|cont['’]?d\.?|cont\.)\)?", re.IGNORECASE)
_CAPTION_TYPES = {"table", "figure", "exhibit", "equation", "schedule", "annex"}


def caption_rows(logical: Lines, raw: Lines, style: BodyStyle, skip: np.ndarray) -> list[dict[str, Any]]:
    """Object rows from caption lines.

    ``logical``: logical lines (joined fragments); ``raw``: the line table itself (for the
    extent of a wrapped caption); ``skip``: mask over ``logical`` (running headers, contents
    pages). Of several captions with one id the best-formed wins, then the first.
    """
    best: dict[tuple[str, str], tuple[tuple, dict[str, Any]]] = {}
    text = logical.text
    for i, t in enumerate(text):
        if not t.startswith(CAPTION_PREFIXES) or skip[i]:
            continue
        label = parse_object_label(t)
        if label is None:
            continue
        kind, ident, end = label
        if kind not in _CAPTION_TYPES:
            continue
        quality = _caption_quality(t[end:], logical, i, style)
        if quality <= 0:
            continue
        page = int(logical.page[i])
        if i > 0 and logical.page[i - 1] == page and logical.block[i - 1] == logical.block[i] and _continues_sentence(text[i - 1]):
            continue  # "... as shown in" / "Table 3 ..." : a mention wrapped onto a new line
        box = logical.box[i]
        if quality == 1 and raw.row_neighbours(page, box) > 0:
            continue  # a bare "Table 8-1" sharing its row with other cells: a table cell
        key = (kind, ident)
        rank = (quality, -page, -int(logical.line_num[i]))
        if key in best and best[key][0] >= rank:
            continue
        line_start, line_end, bbox = _caption_extent(logical, i, raw)
        continued = bool(_CONTINUED.search(t[: end + 20]))
        best[key] = (
            rank,
            {
                "object_type": kind,
                "object_id": ident,
                "object_key": f"{kind}:{ident}",
                "caption": _CONTINUED.sub("", t).strip() if continued else t,
                "page_num": page,
                "bbox": bbox,
                "line_start": line_start,
                "line_end": line_end,
                "source": "caption",
            },
        )
    rows = [r for _, r in best.values()]
    rows.sort(key=lambda r: (r["page_num"], r["line_start"]))
    return rows


def _caption_quality(rest: str, lines: Lines, i: int, style: BodyStyle) -> int:
    """3: label + punctuation or a set-apart title; 2: a label with a plain capitalised title
    opening its block; 1: a bare label or a "continued" repeat; 0: prose ("Table 2 shows")."""
    stripped = rest.lstrip()
    if not stripped:
        return 1
    if rest[:1] not in (" ", "\t", ":", ".", "\u2014", "\u2013", "-", "|"):
        return 0
    if _CONTINUED.match(stripped.lstrip("(:.\u2014\u2013-| ")):
        return 1
    first = stripped[0]
    if first == "(":
        return 0
    if first in ":.\u2014\u2013-|":
        return 3
    if not (first.isupper() or first.isdigit()):
        return 0
    distinct = bool(lines.bold[i]) or abs(float(lines.size[i]) - style.size) >= 0.9 or lines.font[i] != style.font
    if distinct:
        return 3
    return 2 if int(lines.block_line[i]) == 0 else 0


def _continues_sentence(prev: str) -> bool:
    prev = prev.rstrip()
    if not prev:
        return False
    last = prev[-1]
    return last.islower() or last in ",;(" or prev.lower().endswith((" see", " in", " of", " and", " to"))


def _caption_extent(lines: Lines, i: int, raw: Lines) -> tuple[int, int, list[float]]:
    """Caption lines: the caption line plus the following lines of its block (a wrapped caption)."""
    start, end = int(lines.line_num[i]), int(lines.line_end[i])
    x0, y0, x1, y1 = (float(v) for v in lines.box[i])
    more = raw.block_after(int(lines.page[i]), int(lines.block[i]), end)
    if more is not None:
        end, (bx0, by0, bx1, by1) = more[0], more[1]
        x0, y0, x1, y1 = min(x0, bx0), min(y0, by0), max(x1, bx1), max(y1, by1)
    return start, end, [x0, y0, x1, y1]


_APPENDIX_KINDS = {"appendix": "appendix", "annex": "annex", "schedule": "schedule", "exhibit": "exhibit",
                   "attachment": "appendix", "supplement": "appendix"}


def appendix_rows(toc_rows: Iterable[dict[str, Any]], logical: Lines) -> list[dict[str, Any]]:
    """Appendix / annex / schedule / exhibit objects from TOC entries of those kinds."""
    out = []
    for r in toc_rows:
        otype = _APPENDIX_KINDS.get(r.get("kind") or "")
        if otype is None or r["toc_id"].startswith("#") or r["page_start"] is None:
            continue
        bbox, line_end, caption = None, r.get("line_num"), r["title"]
        k = logical.find(r["page_start"], r["line_num"]) if r.get("line_num") is not None else None
        if k is not None:
            bbox = [float(v) for v in logical.box[k]]
            line_end = int(logical.line_end[k])
            caption = logical.text[k]
        out.append(
            {
                "object_type": otype,
                "object_id": r["toc_id"],
                "object_key": f"{otype}:{r['toc_id']}",
                "caption": caption,
                "page_num": r["page_start"],
                "bbox": bbox,
                "line_start": r.get("line_num"),
                "line_end": line_end,
                "source": "heading" if k is not None else r.get("source", "outline"),
            }
        )
    return out
