"""Cheap per-page quality signals: small pure functions of a page's rows, each testable alone.

Inputs are plain records: ``lines`` are line_df rows (dicts with text and x0/y0/x1/y1), and
``images`` image_df rows (dicts with bbox, area_ratio, text_chars_inside). A flag function
returns the reason string when it fires (the measured value included, e.g.
``"flat_table: 'Table 3' caption + 141 short cells in 24 rows"``) and ``None`` otherwise.
:func:`evaluate` runs them all for one page; ``escalate`` is the union of the flags.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Sequence

from docintel.parsing.columns import row_bands, text_extent

FLAGS = ("flat_table", "opaque_figure", "col_anomaly", "scanned")

# "Table 3:", "TABLE 1:", "Table 2-1.", "Table A-1", "Table A4-12", "Table IV."
_CAPTION = re.compile(
    r"^(?:Table|TABLE)\s+((?:[A-Z]{0,2}\d+(?:[-.]\d+)*)|[A-Z](?:-\d+)?|[IVXLC]+)(?=$|\s*[:.\u2013\u2014-]|\s+[A-Z(])"
)
_CAPTION_PUNCT = re.compile(r"^(?:Table|TABLE)\s+\S+?\s*([:.\u2013\u2014-]|$)")

# flat_table
CELL_WIDTH = 0.3  # a table cell is narrower than this share of the page's text width
MIN_CELLS = 8  # short cells in a grid block
MIN_ROWS = 3  # grid rows in a block
CAPTION_GAP = 120.0  # points between the caption and its grid (caption above or below)
# opaque_figure
FIGURE_MIN_AREA = 0.02  # share of the page an image must cover to count as a figure
FIGURE_MIN_SIDE = 40.0  # points
FIGURE_MAX_CHARS = 20  # text chars inside the image bbox below which it is opaque
# scanned
SCANNED_MAX_CHARS = 50  # text-layer chars below which a page has no usable text
SCANNED_MIN_COVERAGE = 0.5  # share of the page covered by images


def char_count(lines: Iterable[dict[str, Any]]) -> int:
    """Characters of text on the page (lines joined, whitespace collapsed)."""
    return sum(len(r["text"]) for r in lines)


def image_count(images: Sequence[dict[str, Any]]) -> int:
    return len(images)


def n_lines(lines: Sequence[dict[str, Any]]) -> int:
    return len(lines)


def image_coverage(images: Sequence[dict[str, Any]]) -> float:
    """Share of the page covered by images (sum of clipped areas, capped at 1)."""
    return min(1.0, sum(float(i.get("area_ratio") or 0.0) for i in images))


def n_columns(lines: Sequence[dict[str, Any]], page_width: float) -> int:
    """Text columns on the page from its own x-distribution; table grids do not count."""
    from docintel.parsing.columns import assign_columns

    return assign_columns(lines, page_width)[1]


def caption_lines(lines: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
    """(index, table id) of lines that open a table caption ("Table 3:", "TABLE 1:")."""
    out = []
    for k, r in enumerate(lines):
        text = r["text"]
        if not text.startswith(("Table", "TABLE")):
            continue
        m = _CAPTION.match(text)
        if not m:
            continue
        # "Table 1 summarizes ..." is prose: a caption has punctuation after the id, is bold,
        # is upper case, or is the id alone
        if _CAPTION_PUNCT.match(text) or r.get("bold") or text.startswith("TABLE") or len(text) <= 12:
            out.append((k, m.group(1)))
    return out


def grid_blocks(lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Vertically contiguous runs of rows holding >= 2 short, narrow cells side by side.

    Each block: {"cells": n, "rows": n, "y0": top, "y1": bottom}.
    """
    left, right = text_extent(lines)
    width = right - left
    if width <= 0:
        return []
    narrow = [k for k, r in enumerate(lines) if r["x1"] - r["x0"] < CELL_WIDTH * width]
    blocks: list[dict[str, Any]] = []
    for band in row_bands(lines, narrow):
        cells = sorted(band, key=lambda k: lines[k]["x0"])
        disjoint = 1
        for a, b in zip(cells, cells[1:]):
            if lines[b]["x0"] >= lines[a]["x1"] - 1:
                disjoint += 1
        if disjoint < 2:
            continue
        top = min(lines[k]["y0"] for k in band)
        bottom = max(lines[k]["y1"] for k in band)
        h = max(lines[k]["y1"] - lines[k]["y0"] for k in band)
        if blocks and top - blocks[-1]["y1"] <= 3 * h:
            b = blocks[-1]
            b["cells"] += len(band)
            b["rows"] += 1
            b["y1"] = max(b["y1"], bottom)
        else:
            blocks.append({"cells": len(band), "rows": 1, "y0": top, "y1": bottom})
    return blocks


def flat_table(lines: Sequence[dict[str, Any]]) -> str | None:
    """A "Table N" caption next to a grid of many short, narrow cell lines."""
    captions = caption_lines(lines)
    if not captions:
        return None
    best = None
    for block in grid_blocks(lines):
        if block["cells"] < MIN_CELLS or block["rows"] < MIN_ROWS:
            continue
        for k, table_id in captions:
            cap = lines[k]
            above = 0 <= block["y0"] - cap["y1"] <= CAPTION_GAP
            below = 0 <= cap["y0"] - block["y1"] <= CAPTION_GAP
            if (above or below) and (best is None or block["cells"] > best[1]["cells"]):
                best = (table_id, block)
    if best is None:
        return None
    table_id, block = best
    return f"flat_table: 'Table {table_id}' caption + {block['cells']} short cells in {block['rows']} rows"


def opaque_figure(images: Sequence[dict[str, Any]]) -> str | None:
    """An image big enough to be a figure with (almost) no extractable text inside its bbox."""
    worst = None
    for im in images:
        x0, y0, x1, y1 = im["bbox"]
        if (im.get("area_ratio") or 0.0) < FIGURE_MIN_AREA or min(x1 - x0, y1 - y0) < FIGURE_MIN_SIDE:
            continue
        chars = int(im.get("text_chars_inside") or 0)
        if chars < FIGURE_MAX_CHARS and (worst is None or im["area_ratio"] > worst["area_ratio"]):
            worst = im
    if worst is None:
        return None
    x0, y0, x1, y1 = worst["bbox"]
    return (
        f"opaque_figure: image {x1 - x0:.0f}x{y1 - y0:.0f} pt ({worst['area_ratio']:.0%} of page) "
        f"with {int(worst.get('text_chars_inside') or 0)} text chars inside"
    )


def column_norm(counts: Iterable[tuple[int, int]]) -> int:
    """The document's usual column count from (n_columns, n_lines) per page.

    Pages with fewer than 10 lines do not vote; ties go to the smaller count; 1 by default.
    """
    votes = Counter(n for n, lines in counts if lines >= 10)
    if not votes:
        return 1
    top = max(votes.values())
    return min(n for n, v in votes.items() if v == top)


def col_anomaly(columns: int, norm: int) -> str | None:
    """Reading-order risk: more columns than the document's norm, or 3 and more.

    A page with fewer columns than the norm (a full-width figure page in a two-column paper)
    carries no reading-order risk and does not fire.
    """
    if columns >= 3 or columns > norm:
        return f"col_anomaly: {columns} columns (document norm {norm})"
    return None


def scanned(chars: int, coverage: float) -> str | None:
    """No usable text layer on a page mostly covered by images."""
    if chars < SCANNED_MAX_CHARS and coverage >= SCANNED_MIN_COVERAGE:
        return f"scanned: {chars} text chars, images cover {coverage:.0%} of the page"
    return None


def evaluate(
    lines: Sequence[dict[str, Any]],
    images: Sequence[dict[str, Any]],
    columns: int,
    norm: int,
    text_layer_chars: int | None = None,
) -> dict[str, Any]:
    """All signals of one page: the page_df signal columns plus ``reasons`` and ``escalate``.

    ``text_layer_chars`` is the PDF text layer's size when ``lines`` come from OCR.
    """
    chars = char_count(lines)
    coverage = image_coverage(images)
    layer = chars if text_layer_chars is None else text_layer_chars
    fired = {
        "scanned": scanned(layer, coverage),
        "flat_table": flat_table(lines),
        "col_anomaly": col_anomaly(columns, norm),
    }
    # on a scan the image is the page, not a figure
    fired["opaque_figure"] = None if fired["scanned"] else opaque_figure(images)
    reasons = [fired[f] for f in FLAGS if fired[f]]
    return {
        "char_count": chars,
        "image_count": image_count(images),
        "image_coverage": round(coverage, 4),
        "n_lines": n_lines(lines),
        "n_columns": columns,
        **{f: fired[f] is not None for f in FLAGS},
        "reasons": reasons,
        "escalate": bool(reasons),
    }
