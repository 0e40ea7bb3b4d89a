"""Table geometry shared by the column detector and the flat-table signal.

A *grid row* is a horizontal band holding several cells side by side: two or more short,
narrow lines, or three or more lines that are each under half the text width (tables whose
cells are small paragraphs). Consecutive grid rows form a *grid block*; a block with a
"Table N" caption just above or below it is a *table region*. Prose columns never make a grid
row: a two-column page has two lines per band, each about half the text width.
"""

from __future__ import annotations

import re
from typing import Any, Sequence


def text_extent(lines: Sequence[dict[str, Any]]) -> tuple[float, float]:
    if not lines:
        return 0.0, 0.0
    return min(r["x0"] for r in lines), max(r["x1"] for r in lines)


def row_bands(lines: Sequence[dict[str, Any]], idx: Sequence[int] | None = None) -> list[list[int]]:
    """Group line indices into horizontal bands: lines whose vertical centres are close."""
    order = sorted(idx if idx is not None else range(len(lines)), key=lambda i: (lines[i]["y0"] + lines[i]["y1"]) / 2)
    bands: list[list[int]] = []
    last = None
    for i in order:
        r = lines[i]
        cy = (r["y0"] + r["y1"]) / 2
        tol = max(2.0, 0.45 * (r["y1"] - r["y0"]))
        if bands and last is not None and cy - last <= tol:
            bands[-1].append(i)
        else:
            bands.append([i])
            last = cy
    return bands


CELL_WIDTH = 0.3  # a short cell is narrower than this share of the page's text width
PARA_CELL_WIDTH = 0.5  # three+ lines side by side, each narrower than this, are cells too
MIN_CELLS = 8  # cells in a block for a table
MIN_ROWS = 3  # grid rows in a block for a table
CAPTION_GAP = 120.0  # points between a caption and its grid (caption above or below)
MAX_WRAP_ROWS = 10  # wrapped-text bands held between two grid rows of a paragraph-cell table
MERGE_GAP = 160.0  # points between two grid blocks that share cell edges (one table, tall rows)
MIN_LABEL_ROWS = 3  # label rows ("Clear:" | paragraph) in a block for a label table
LABEL_GAP = 400.0  # points between two label rows of one table (their paragraph cells are tall)

# "Table 3:", "TABLE 1:", "Table 2-1.", "Table A-1", "Table A4-12", "Table IV."
_CAPTION = re.compile(
    r"^(?:Table|TABLE)\s+((?:[A-Z]{0,2}\d+(?:[-.]\d+)*)|[A-Z](?:-\d+)?|[IVXLC]+)(?=$|\s*[:.\u2013\u2014-]|\s+[A-Z(])"
)
_CAPTION_PUNCT = re.compile(r"^(?:Table|TABLE)\s+\S+?\s*([:.\u2013\u2014-]|$)")


NUMBER_SHARE = 0.35
"""Share of a captionless grid's cells that are numbers for it to be a table (a rate schedule,
a tax table, a payroll-period chart): label | value tables hold about half."""
NUMBER_GRID_ROWS = 4  # grid rows a captionless number grid needs (a caption vouches for fewer)
YEAR = re.compile(r"^(?:19|20)\d\d$")
"""A year ("2011"): a number that heads a column rather than fills a cell."""
_FIGURE_CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.)\s+[A-Z]?\d+(?:[.\-]\d+)*\s*[:.\u2013\u2014-]")
_NUMERIC = re.compile(r"^[\s$€£(\[]*[-+−–±]?[\d.,]*\d[\d.,]*\s*(%|[KMBkmb]|x|×)?[\s)\]*]*$")


def is_numeric(text: str) -> bool:
    """A cell that is a number: "$ 71.15", "1,850.00", "15%", "(3.2)"."""
    return bool(text) and bool(_NUMERIC.match(text.replace(" ", "")))


def number_grids(lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Grid blocks without a "Table N" caption that are tables by their numbers: at least
    NUMBER_GRID_ROWS rows, MIN_CELLS cells and NUMBER_SHARE of them numbers (IRS rate schedules
    and payroll charts carry no caption). Each block gets its "numbers" share. On a page of
    several text columns each column is searched too (a chart in the right-hand column must
    not be read together with the prose beside it). A grid within CAPTION_GAP of a "Figure N"
    caption is a plot's tick labels, not a table."""
    caps = {k for k, _ in caption_lines(lines)}
    figures = [(r["y0"] + r["y1"]) / 2 for r in lines if _FIGURE_CAPTION.match(r["text"].strip())]
    groups = [list(range(len(lines)))]
    columns = {r.get("column") for r in lines} - {None, "single"}
    if len(columns) > 1:
        for c in sorted(columns):
            member = [k for k, r in enumerate(lines) if r.get("column") == c]
            left, right = text_extent([lines[k] for k in member])
            # a short line the column detector left to no column ("single") that sits inside this
            # column's extent is one of its lines (a chart's last row, in a band with prose beside)
            groups.append(sorted(member + [k for k, r in enumerate(lines) if r.get("column") == "single"
                                           and r["x0"] >= left - 1 and r["x1"] <= right + 1]))
    out: list[dict[str, Any]] = []
    for group in groups:
        sub = [lines[k] for k in group]
        numeric = [is_numeric(r["text"].strip()) for r in sub]
        # a block's lines of running prose are the paragraph beside it: they neither cut it
        # nor bound it, but they still count against its share of numbers (taking them out
        # must not make a table of a worksheet's line numbers)
        pieces = []  # (piece, first of its block, last of its block, prose lines beside it)
        prosy: _Prose | None = None
        for whole in grid_blocks(sub, [i for i, k in enumerate(group) if k in caps]):
            if whole["rows"] < NUMBER_GRID_ROWS or sum(numeric[k] for k in whole["lines"]) < 3:
                continue  # no piece of it can be a grid of numbers
            prosy = prosy or _Prose(sub)
            block = prosy.without(whole)
            prose = set(whole["lines"]) - set(block["lines"]) if block else set()
            # the text column beside a piece shows once the block is cut (a sample table above
            # the tax table, an example paragraph to its left)
            cut = [q for q in (prosy.without(q) for q in _split_at_headers(sub, block)) if q] if block else []
            pieces += [(piece, i == 0, i == len(cut) - 1, prose) for i, piece in enumerate(cut)]
        for block, first, last, prose in pieces:
            if block["rows"] < NUMBER_GRID_ROWS or block["cells"] < MIN_CELLS:
                continue
            if any(block["y0"] - CAPTION_GAP <= y <= block["y1"] + CAPTION_GAP for y in figures):
                continue
            beside = sum(block["y0"] <= (sub[k]["y0"] + sub[k]["y1"]) / 2 <= block["y1"] for k in prose)
            share = sum(numeric[k] for k in block["lines"]) / (len(block["lines"]) + beside)
            if share >= NUMBER_SHARE:
                region = {**block, "lines": [group[k] for k in block["lines"]], "numbers": share}
                # its header lines, when not a grid row themselves, and a last row whose label is
                # too wide for a grid row; never into the grid above or below it
                if first:
                    _extend_up(sub, region)
                if last:
                    _extend_down(sub, region)
                out.append(region)
    return out


def _numbers_band(lines: Sequence[dict[str, Any]], band: list[int]) -> bool:
    """A band holding a number that is not a year: a body row, not a header."""
    return any(is_numeric(t) and not YEAR.match(t) for t in (lines[k]["text"].strip() for k in band))


def _split_at_headers(lines: Sequence[dict[str, Any]], block: dict[str, Any]) -> list[dict[str, Any]]:
    """A grid block cut where a header starts a new table: a run of bands without numbers
    between rows of numbers (the 1040NR's Schedules Y and Z stacked under W and X). A piece
    keeps the block's keys, recomputed over its own lines."""
    bands = row_bands(lines, block["lines"])
    kinds = [_numbers_band(lines, b) for b in bands]
    cuts = [i for i in range(1, len(bands)) if not kinds[i] and kinds[i - 1] and any(kinds[i:])]
    if not cuts:
        return [block]
    return [_block_of(lines, [k for band in bands[a:b] for k in band]) for a, b in zip([0] + cuts, cuts + [len(bands)])]


def _block_of(lines: Sequence[dict[str, Any]], idx: list[int]) -> dict[str, Any]:
    """The :func:`grid_blocks` keys of the block made of the lines ``idx``."""
    return {
        "cells": len(idx), "rows": len(row_bands(lines, idx)), "lines": idx,
        "y0": min(lines[k]["y0"] for k in idx), "y1": max(lines[k]["y1"] for k in idx),
        "x0": min(lines[k]["x0"] for k in idx), "x1": max(lines[k]["x1"] for k in idx),
        "lefts": {round(lines[k]["x0"], 1) for k in idx},
    }


PROSE_WORDS = 5
"""Words in a line of running prose (a short row label has fewer)."""


class _Prose:
    """The lines of running prose among ``lines`` (read once per page or column): PROSE_WORDS
    words or more, and the line or the line just under it (at its left edge) starts in lower
    case: "you for the 10 succeeding tax years" / "following the year of your ..." beside a chart
    of years is the paragraph next to it, not its row labels."""

    def __init__(self, lines: Sequence[dict[str, Any]]) -> None:
        self.lines = lines
        self.by_edge: dict[int, list[int]] = {}  # left edge (whole points) -> line indices
        for k, r in enumerate(lines):
            self.by_edge.setdefault(int(r["x0"]), []).append(k)
        lower = [r["text"].strip()[:1].islower() for r in lines]
        self.prose = [False] * len(lines)
        for k, r in enumerate(lines):
            if len(r["text"].split()) < PROSE_WORDS:
                continue
            height = r["y1"] - r["y0"]
            self.prose[k] = lower[k] or any(lower[j] for j in self.at_edge(r["x0"])
                                            if 0 <= lines[j]["y0"] - r["y1"] <= 1.5 * height)

    def at_edge(self, x: float) -> list[int]:
        """Indices of the lines starting within 3 points of ``x``."""
        return [j for e in range(int(x) - 4, int(x) + 5) for j in self.by_edge.get(e, ())
                if abs(self.lines[j]["x0"] - x) <= 3]

    def without(self, block: dict[str, Any]) -> dict[str, Any] | None:
        """``block`` without the lines of running prose its bands took in, and, where two or
        more lines of prose within its bounds start at one left edge and their paragraph goes on
        above or below the block (the text column beside a chart), without every line at that
        edge: the column's headings too ("Expatriation Before June 4," / "2004" over the
        paragraph). None when nothing is left."""
        lines = self.lines
        prose = [k for k, r in enumerate(lines) if self.prose[k] and block["y0"] <= (r["y0"] + r["y1"]) / 2 <= block["y1"]
                 and block["x0"] <= r["x0"] <= block["x1"]]
        if not prose:
            return block
        members, found = set(block["lines"]), set(prose)
        drop = set(found)
        done: set[int] = set()
        for k in prose:
            x, height = lines[k]["x0"], lines[k]["y1"] - lines[k]["y0"]
            edge = self.at_edge(x)
            if int(x) in done or sum(j in found for j in edge) < 2:
                continue
            done.add(int(x))
            if any(j not in members and (0 <= lines[j]["y0"] - block["y1"] <= 1.5 * height
                                         or 0 <= block["y0"] - lines[j]["y1"] <= 1.5 * height) for j in edge):
                drop |= {j for j in edge if j in members}
        idx = [k for k in block["lines"] if k not in drop]
        return _block_of(lines, idx) if idx else None


HEADER_LINES = 10
"""Lines over a grid of numbers that may be its header (a chart's column titles wrap: "IF you /
expatriated / during ..." beside "THEN the rules / outlined on this page / apply if ...")."""
HEADER_SLACK = (15.0, 30.0)
"""Points a header line may start left of a grid (a title over a centred year) and end right of
it (over right-aligned amounts)."""


def _extend_up(lines: Sequence[dict[str, Any]], region: dict[str, Any], max_lines: int = HEADER_LINES) -> None:
    """Grow a region over the header lines just above it ("One Withholding" over "Allowance"),
    each close to the one below: lines that start at one of its cell edges, or short ones (fewer
    than PROSE_WORDS words) set over it, column titles centred over their cells; the region
    widens to hold them."""
    above = sorted(
        (k for k, r in enumerate(lines) if r["y1"] <= region["y0"] + 1 and r["x1"] >= region["x0"] - 1 and r["x0"] <= region["x1"] + 1),
        key=lambda k: -lines[k]["y1"],
    )
    top, x0, x1 = region["y0"], region["x0"], region["x1"]
    left, right = HEADER_SLACK
    for k in above[:max_lines]:
        r = lines[k]
        aligned = any(abs(r["x0"] - x) <= 3 for x in region["lefts"])
        over = (r["x0"] >= region["x0"] - left and r["x1"] <= region["x1"] + right
                and len(r["text"].split()) < PROSE_WORDS)
        if top - r["y1"] > 1.5 * (r["y1"] - r["y0"]) or not (aligned or over):
            break
        top, x0, x1 = min(top, r["y0"]), min(x0, r["x0"]), max(x1, r["x1"])
    region["y0"], region["x0"], region["x1"] = top, x0, x1


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


def _disjoint(lines: Sequence[dict[str, Any]], idx: list[int]) -> int:
    cells = sorted(idx, key=lambda k: lines[k]["x0"])
    n = 1 if cells else 0
    for a, b in zip(cells, cells[1:]):
        if lines[b]["x0"] >= lines[a]["x1"] - 1:
            n += 1
    return n


def grid_blocks(lines: Sequence[dict[str, Any]], captions: Sequence[int] = ()) -> list[dict[str, Any]]:
    """Vertically contiguous runs of grid rows; a caption line (index in ``captions``) ends a run.

    Each block: {"cells", "rows", "y0", "y1", "x0", "x1", "lines": [indices in grid rows],
    "lefts": {cell left edges}}. Lines that start at a cell edge of the block above continue
    it (paragraph cells wrap onto rows where fewer columns have text) when a real grid row
    follows within MAX_WRAP_ROWS bands.
    """
    left, right = text_extent(lines)
    width = right - left
    if width <= 0:
        return []
    candidates = [k for k, r in enumerate(lines) if r["x1"] - r["x0"] < PARA_CELL_WIDTH * width]
    cap_y = sorted((lines[k]["y0"] + lines[k]["y1"]) / 2 for k in captions)
    blocks: list[dict[str, Any]] = []
    pending: list[list[int]] = []  # continuation bands, kept only if a real grid row follows
    last_bottom: float | None = None

    def add(block: dict[str, Any], cells: list[int]) -> None:
        block["cells"] += len(cells)
        block["rows"] += 1
        block["y1"] = max(block["y1"], max(lines[k]["y1"] for k in cells))
        block["x0"] = min(block["x0"], min(lines[k]["x0"] for k in cells))
        block["x1"] = max(block["x1"], max(lines[k]["x1"] for k in cells))
        block["lines"].extend(cells)
        block["lefts"] |= {round(lines[k]["x0"], 1) for k in cells}

    for band in row_bands(lines, candidates):
        narrow = [k for k in band if lines[k]["x1"] - lines[k]["x0"] < CELL_WIDTH * width]
        h = max(lines[k]["y1"] - lines[k]["y0"] for k in band)
        top = min(lines[k]["y0"] for k in band)
        near = bool(blocks) and last_bottom is not None and top - last_bottom <= 3 * h
        if near and any(last_bottom <= y <= top for y in cap_y):
            near = False  # a caption between two grids separates two tables
        if not near:
            pending = []
        if _disjoint(lines, narrow) >= 2:
            cells = narrow
        elif _disjoint(lines, band) >= 3:
            cells = band
        elif near and len(pending) < MAX_WRAP_ROWS and all(
            any(abs(lines[k]["x0"] - x) <= 3 for x in blocks[-1]["lefts"]) for k in band
        ):
            pending.append(band)
            last_bottom = max(lines[k]["y1"] for k in band)
            continue
        else:
            if near and len(pending) >= MAX_WRAP_ROWS:
                pending, last_bottom = [], None  # too long without a grid row: the table ended
            continue
        if near:
            for wrapped in pending:
                add(blocks[-1], wrapped)
            add(blocks[-1], cells)
        else:
            blocks.append({"cells": 0, "rows": 0, "y0": top, "y1": top, "x0": lines[cells[0]]["x0"],
                           "x1": lines[cells[0]]["x1"], "lines": [], "lefts": set()})
            add(blocks[-1], cells)
        pending = []
        last_bottom = blocks[-1]["y1"]
    return blocks


def _label_line(lines: Sequence[dict[str, Any]], k: int, width: float) -> bool:
    r = lines[k]
    text = r["text"].strip()
    return r["x1"] - r["x0"] < CELL_WIDTH * width and bool(text) and (bool(r.get("bold")) or text.endswith(":"))


def label_blocks(lines: Sequence[dict[str, Any]], captions: Sequence[int] = (), min_rows: int = MIN_LABEL_ROWS) -> list[dict[str, Any]]:
    """Two-column tables of a short row label and a paragraph cell (SP 800-88's "Clear:" |
    "Overwrite media ..."): runs of label rows, each a short bold or colon-ended line with a line
    starting right of it in its band, the labels left-aligned, and nothing between two label
    rows that starts in the label column (wrapped paragraph text stays in the value column).

    Blocks have the :func:`grid_blocks` keys (two cells per row) plus "label_x".
    """
    left, right = text_extent(lines)
    width = right - left
    if width <= 0:
        return []
    rows: list[tuple[int, list[int]]] = []  # (label index, value indices in its band)
    for band in row_bands(lines):
        band = sorted(band, key=lambda k: lines[k]["x0"])
        first = band[0]
        if not _label_line(lines, first, width):
            continue
        values = [k for k in band[1:] if lines[k]["x0"] >= lines[first]["x1"] - 1]
        if values:
            rows.append((first, values))
    cap_y = sorted((lines[k]["y0"] + lines[k]["y1"]) / 2 for k in captions)
    blocks: list[dict[str, Any]] = []
    prev: tuple[int, list[int]] | None = None
    for label, values in rows:
        lab = lines[label]
        joined = False
        if prev is not None and blocks:
            plab = lines[prev[0]]
            top, bottom = plab["y1"], lab["y0"]
            between = [r for r in lines if top <= (r["y0"] + r["y1"]) / 2 <= bottom]
            joined = (
                abs(lab["x0"] - blocks[-1]["label_x"]) <= 3
                and bottom - top <= LABEL_GAP
                and not any(top <= y <= bottom for y in cap_y)
                and all(r["x0"] >= min(plab["x1"], lab["x1"]) - 1 for r in between)
            )
        cells = [label, values[0]]
        if not joined:
            blocks.append({"cells": 0, "rows": 0, "y0": min(lines[k]["y0"] for k in cells), "y1": 0.0,
                           "x0": lab["x0"], "x1": lab["x1"], "lines": [], "lefts": set(), "label_x": lab["x0"]})
        b = blocks[-1]
        b["cells"] += len(cells)
        b["rows"] += 1
        b["y1"] = max(b["y1"], max(lines[k]["y1"] for k in values + [label]))
        b["x1"] = max(b["x1"], max(lines[k]["x1"] for k in values))
        b["lines"].extend(cells)
        b["lefts"] |= {round(lines[k]["x0"], 1) for k in cells}
        prev = (label, values)
    return [b for b in blocks if b["rows"] >= min_rows]


def headed_label_blocks(lines: Sequence[dict[str, Any]], captions: Sequence[int]) -> list[dict[str, Any]]:
    """Two-column tables whose row labels are plain text, neither bold nor ending in a colon
    (SP 800-61's "Table 3-4. Recoverability Effort Categories": "Category | Definition" over
    "Extended | Time to recovery is unpredictable; ..."): under a caption (index in
    ``captions``), a header band of two or more short cells side by side, then rows whose short
    label starts at the header's left edge and whose paragraph cell starts at one edge right of
    the labels. A band of the label column alone is a wrapped label ("Privacy" / "Breach"), a
    band of the paragraph column alone a wrapped cell; anything else ends the table.

    Blocks have the :func:`label_blocks` keys, so :func:`table_regions` takes them as label
    tables."""
    left, right = text_extent(lines)
    width = right - left
    if width <= 0:
        return []
    bands = [sorted(b, key=lambda k: lines[k]["x0"]) for b in row_bands(lines)]
    out: list[dict[str, Any]] = []
    for cap in captions:
        below = [b for b in bands if min(lines[k]["y0"] for k in b) >= lines[cap]["y1"] - 1]
        if not below or min(lines[k]["y0"] for k in below[0]) - lines[cap]["y1"] > CAPTION_GAP:
            continue
        header = below[0]
        if _disjoint(lines, header) < 2 or any(lines[k]["x1"] - lines[k]["x0"] >= CELL_WIDTH * width for k in header):
            continue
        label_x = lines[header[0]]["x0"]
        block = {"cells": 0, "rows": 0, "y0": min(lines[k]["y0"] for k in header), "y1": 0.0,
                 "x0": label_x, "x1": max(lines[k]["x1"] for k in header), "lines": [], "lefts": set(),
                 "label_x": label_x}
        value_x: float | None = None
        for band in below[1:]:
            first = lines[band[0]]
            if band[0] in captions:
                break
            if abs(first["x0"] - label_x) <= 3 and first["x1"] - first["x0"] < CELL_WIDTH * width and first["text"][:1].isalnum():
                values = [k for k in band[1:] if lines[k]["x0"] >= first["x1"] - 1]
                if len(values) != len(band) - 1:
                    break
                if values:
                    vx = lines[values[0]]["x0"]
                    if value_x is None:
                        value_x = vx
                    elif abs(vx - value_x) > 3:
                        break
                    cells = [band[0], values[0]]
                    block["rows"] += 1
                    block["cells"] += len(cells)
                    block["lines"].extend(cells)
                    block["lefts"] |= {round(lines[k]["x0"], 1) for k in cells}
            elif value_x is not None and all(abs(lines[k]["x0"] - value_x) <= 3 for k in band):
                pass  # the paragraph cell wraps
            else:
                break
            block["y1"] = max(lines[k]["y1"] for k in band)
            block["x1"] = max(block["x1"], max(lines[k]["x1"] for k in band))
        if block["rows"] >= MIN_LABEL_ROWS:
            out.append(block)
    return out


def table_regions(lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Grid blocks big enough for a table with a "Table N" caption within CAPTION_GAP points.

    Each region is its grid block plus "table_id" and "caption" (line index).
    """
    captions = caption_lines(lines)
    if not captions:
        return []
    out = []
    cap_idx = [k for k, _ in captions]
    blocks = (_merge_aligned(grid_blocks(lines, cap_idx), [lines[k] for k in cap_idx]) + label_blocks(lines, cap_idx)
              + headed_label_blocks(lines, cap_idx))
    for block in blocks:
        if "label_x" not in block and (block["cells"] < MIN_CELLS or block["rows"] < MIN_ROWS):
            continue
        best = None
        for k, table_id in captions:
            cap = lines[k]
            above = cap["y1"] <= block["y0"] + 1
            if "label_x" in block and not above:
                continue  # a label table reads downwards: its caption is above it
            gap = block["y0"] - cap["y1"] if above else cap["y0"] - block["y1"]
            if -1 <= gap <= CAPTION_GAP and (best is None or gap < best[0]):
                best = (gap, k, table_id)
        if best is not None:
            region = {**block, "table_id": best[2], "caption": best[1]}
            if lines[best[1]]["y1"] <= block["y0"] + 1:
                _extend_down(lines, region)  # caption above: the last row's wrapped text follows
            out.append(region)
    return out


def _extend_down(lines: Sequence[dict[str, Any]], region: dict[str, Any]) -> None:
    """Grow a region over the wrapped lines under its last grid row (they start at cell edges)."""
    below = sorted(
        (k for k, r in enumerate(lines) if r["y0"] >= region["y1"] - 1 and r["x1"] >= region["x0"] - 1 and r["x0"] <= region["x1"] + 1),
        key=lambda k: lines[k]["y0"],
    )
    bottom = region["y1"]
    for k in below[: 3 * MAX_WRAP_ROWS]:
        r = lines[k]
        if r["y0"] - bottom > 3 * (r["y1"] - r["y0"]) or not any(abs(r["x0"] - x) <= 3 for x in region["lefts"]):
            break
        bottom = max(bottom, r["y1"])
    region["y1"] = bottom


def _merge_aligned(blocks: list[dict[str, Any]], captions: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """Join blocks that continue each other across tall rows: close, sharing >= 2 cell edges,
    with no caption between them."""
    out: list[dict[str, Any]] = []
    for b in blocks:
        prev = out[-1] if out else None
        if prev is not None and any(prev["y1"] <= (c["y0"] + c["y1"]) / 2 <= b["y0"] for c in captions):
            prev = None
        if prev is None:
            out.append(b)
            continue
        shared = 0 if prev is None else sum(1 for x in b["lefts"] if any(abs(x - y) <= 3 for y in prev["lefts"]))
        if prev is not None and b["y0"] - prev["y1"] <= MERGE_GAP and shared >= 2:
            out[-1] = {
                **prev,
                "cells": prev["cells"] + b["cells"],
                "rows": prev["rows"] + b["rows"],
                "y1": max(prev["y1"], b["y1"]),
                "x0": min(prev["x0"], b["x0"]),
                "x1": max(prev["x1"], b["x1"]),
                "lines": prev["lines"] + b["lines"],
                "lefts": prev["lefts"] | b["lefts"],
            }
        else:
            out.append(b)
    return out


def region_members(lines: Sequence[dict[str, Any]], regions: Sequence[dict[str, Any]]) -> set[int]:
    """Indices of lines whose vertical centre lies inside a table region (cells and their wraps)."""
    out: set[int] = set()
    for reg in regions:
        for k, r in enumerate(lines):
            cy = (r["y0"] + r["y1"]) / 2
            if reg["y0"] - 1 <= cy <= reg["y1"] + 1 and r["x1"] >= reg["x0"] - 1 and r["x0"] <= reg["x1"] + 1:
                out.add(k)
    return out


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def header_texts(lines: Sequence[dict[str, Any]], region: dict[str, Any]) -> frozenset[str]:
    """The texts of a table region's header row(s): lines of the first bands (two or more lines
    side by side) from the caption, when it is above, down into the grid."""
    cap = lines[region["caption"]]
    top = cap["y1"] if cap["y1"] <= region["y0"] + 1 else region["y0"]
    bands = [
        b for b in row_bands(lines)
        if top - 1 <= min(lines[k]["y0"] for k in b) <= region["y1"]
    ]
    return frozenset(_norm(lines[k]["text"]) for b in bands[:3] if len(b) >= 2 for k in b)


def top_cut(lines: Sequence[dict[str, Any]], top_share: float = 0.4) -> float:
    """The y above which the top ``top_share`` of the page's text stands (its first line's top to
    its last line's top): where a table running on from the previous page must show itself."""
    ys = [r["y0"] for r in lines]
    return min(ys) + top_share * (max(ys) - min(ys))


def continues_labels(lines: Sequence[dict[str, Any]], label_x: float, top_share: float = 0.4) -> bool:
    """True when label rows aligned at ``label_x`` (a label table's row-label column on the
    previous page) go on on this page: one in the top part of the page, or two and more anywhere (the
    previous row's paragraph cell may fill the top of the page)."""
    if not lines:
        return False
    cut = top_cut(lines, top_share)
    return any(
        abs(b["label_x"] - label_x) <= 3 and (b["y0"] <= cut or b["rows"] >= 2) for b in label_blocks(lines, min_rows=1)
    )


def repeats_header(lines: Sequence[dict[str, Any]], header: frozenset[str], top_share: float = 0.4) -> bool:
    """True when a band in the top part of the page holds two or more of ``header``'s texts: a
    table continued from the previous page, its header row repeated."""
    if not lines or not header:
        return False
    cut = top_cut(lines, top_share)
    for band in row_bands(lines):
        if len(band) >= 2 and min(lines[k]["y0"] for k in band) <= cut:
            if sum(_norm(lines[k]["text"]) in header for k in band) >= 2:
                return True
    return False
