"""object_registry: tables, figures, exhibits from captions; appendices, annexes, schedules from
headings and the TOC.

A caption is a line that STARTS with the label and reads like a caption: the label is followed by
punctuation ("Table 3:", "Figure 2-3.", "TABLE 1 —"), by nothing (the caption text is on the
next fragment/line), or by a capitalised title on a line set apart (bold, another font or size,
a block of its own). "Table 2 summarizes ..." (lower-case verb) and a label that continues the
previous line's sentence are prose mentions, not captions. Contents pages (lists of tables and
figures, dotted leaders) register nothing. The first caption of an id wins ("continued" tables).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

import numpy as np
import pandas as pd

from docintel.parsing.structure.lines import BodyStyle, LineArrays
from docintel.parsing.structure.numbering import parse_object_label

CAPTION_START = re.compile(
    r"^(?:table|tab\.|figure|fig\.?|exhibit|equation|schedule|annex)\s*[A-Z0-9IVX]", re.IGNORECASE
)
_CONTINUED = re.compile(r"\(?\b(?:continued|cont['’]?d\.?|cont\.)\)?", re.IGNORECASE)
_CAPTION_TYPES = {"table", "figure", "exhibit", "equation", "schedule", "annex"}


def caption_rows(
    logical: pd.DataFrame,
    arrays: LineArrays,
    style: BodyStyle,
    skip: pd.Series,
) -> list[dict[str, Any]]:
    """Object rows from caption lines.

    ``logical``: logical lines (joined fragments); ``arrays``: the raw lines (for multi-line
    caption extents); ``skip``: boolean mask over ``logical`` (furniture, contents pages).
    """
    if logical.empty:
        return []
    text = logical["text"]
    cand = text.str.match(CAPTION_START) & ~skip
    if not cand.any():
        return []
    prev_text = text.shift(1).fillna("")
    prev_same_block = (logical["page_num"].shift(1) == logical["page_num"]) & (
        logical["block_num"].shift(1) == logical["block_num"]
    )
    prev_same = prev_same_block.to_numpy()
    prev_texts = prev_text.tolist()
    best: dict[tuple[str, str], tuple[tuple, dict[str, Any]]] = {}
    sub = logical[cand]
    positions = np.flatnonzero(cand.to_numpy())
    for i, row in zip(positions, sub.itertuples(index=False)):
        label = parse_object_label(row.text)
        if label is None:
            continue
        kind, ident, end = label
        if kind not in _CAPTION_TYPES:
            continue
        rest = row.text[end:]
        quality = _caption_quality(rest, row, style)
        if quality <= 0:
            continue
        if prev_same[i] and _continues_sentence(prev_texts[i]):
            continue
        if quality == 1 and arrays.row_neighbours(int(row.page_num), (row.x0, row.y0, row.x1, row.y1)) > 0:
            continue  # a bare "Table 8-1" sharing its row with other cells: a table cell
        key = (kind, ident)
        rank = (quality, -int(row.page_num), -int(row.line_num))
        if key in best and best[key][0] >= rank:
            continue
        line_start, line_end, bbox = _caption_extent(row, arrays)
        continued = bool(_CONTINUED.search(row.text[: end + 20]))
        best[key] = (
            rank,
            {
                "object_type": kind,
                "object_id": ident,
                "object_key": f"{kind}:{ident}",
                "caption": _CONTINUED.sub("", row.text).strip() if continued else row.text,
                "page_num": int(row.page_num),
                "bbox": bbox,
                "line_start": line_start,
                "line_end": line_end,
                "source": "caption",
            },
        )
    rows = [r for _, r in best.values()]
    rows.sort(key=lambda r: (r["page_num"], r["line_start"]))
    return rows


def _caption_quality(rest: str, row: Any, style: BodyStyle) -> int:
    """3: label + punctuation or a set-apart title; 2: a label with a plain capitalised title;
    1: a bare label; 0: not a caption (prose, "continued" repeats rank below any first caption)."""
    stripped = rest.lstrip()
    if not stripped:
        return 1
    if rest[:1] not in (" ", "\t", ":", ".", "\u2014", "\u2013", "-", "|"):
        return 0
    first = stripped[0]
    if stripped.startswith("(") or _CONTINUED.match(stripped.lstrip(":.\u2014\u2013-| ")):
        return 1 if _CONTINUED.match(stripped.lstrip("(:.\u2014\u2013-| ")) or _CONTINUED.match(stripped) else 0
    if first in ":.\u2014\u2013-|":
        return 3
    if not (first.isupper() or first.isdigit()):
        return 0
    distinct = bool(row.bold) or abs(float(row.font_size) - style.size) >= 0.9 or (row.font or "") != style.font
    if distinct:
        return 3
    return 2 if int(row.block_line) == 0 else 0


def _continues_sentence(prev: str) -> bool:
    prev = prev.rstrip()
    if not prev:
        return False
    last = prev[-1]
    return last.islower() or last in ",;(" or prev.lower().endswith((" see", " in", " of", " and", " to"))


def _caption_extent(row: Any, arrays: LineArrays) -> tuple[int, int, list[float]]:
    """Caption lines: the caption line plus the following lines of its block (a wrapped caption)."""
    start, end = int(row.line_num), int(row.line_end)
    x0, y0, x1, y1 = float(row.x0), float(row.y0), float(row.x1), float(row.y1)
    more = arrays.block_after(int(row.page_num), int(row.block_num), end)
    if more is not None:
        end, (bx0, by0, bx1, by1) = more[0], more[1]
        x0, y0, x1, y1 = min(x0, bx0), min(y0, by0), max(x1, bx1), max(y1, by1)
    return start, end, [x0, y0, x1, y1]


def appendix_rows(toc_rows: Iterable[dict[str, Any]], logical: pd.DataFrame) -> list[dict[str, Any]]:
    """Appendix / annex / schedule / exhibit objects from TOC entries of those kinds."""
    out = []
    idx = None
    if not logical.empty:
        idx = logical.set_index(["page_num", "line_num"], drop=False)
    for r in toc_rows:
        kind = r.get("kind")
        if kind not in ("appendix", "annex", "schedule", "exhibit", "attachment", "supplement"):
            continue
        if r["toc_id"].startswith("#") or r["page_start"] is None:
            continue
        otype = "appendix" if kind in ("attachment", "supplement") else kind
        bbox, line_end, caption = None, r.get("line_num"), r["title"]
        if idx is not None and r.get("line_num") is not None:
            try:
                hit = idx.loc[(r["page_start"], r["line_num"])]
                if isinstance(hit, pd.DataFrame):
                    hit = hit.iloc[0]
                bbox = [float(hit.x0), float(hit.y0), float(hit.x1), float(hit.y1)]
                line_end = int(hit.line_end)
                caption = hit.text
            except KeyError:
                pass
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
                "source": "heading" if r.get("line_num") is not None else r.get("source", "outline"),
            }
        )
    return out
