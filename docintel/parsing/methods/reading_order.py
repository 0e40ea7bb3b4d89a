"""Reading order (reasons ``col_anomaly`` / ``multi_column``): lines column by column.

PyMuPDF returns lines in content-stream order, which on multi-column pages can interleave the
columns. This method re-reads the page's lines, finds its gutters (docintel.parsing.columns),
cuts the page into horizontal sections at every full-width line (titles, wide figures'
captions), and emits each section's columns left to right, each column top to bottom.

A layout can change down a column without a full-width line: the 1040NR sets three columns of
prose over a worksheet that spans two of them, so the page has one gutter and its left "column"
holds two. A column (or a page) with no gutter of its own is cut into bands at its wide vertical
gaps, and a band with a gutter of its own is read column by column (an XY cut). A line over
some of the columns but not all (the 1040NR's worksheets under the first two of three) joins
those columns: they are read together, as a page of their own, before the columns beside them,
so the third column's lines are not read between the worksheet's. Lines that cross every gutter
the page found but have a column beside them (a chart over two columns, the third running on to
its right, where a worksheet lower down hid the third column's gutter) are no full-width lines:
the band they stand in is read on its own, with a gutter of its own.

A table is not columns of prose: where the table method finds a table on the page (a ruled grid
or a captioned booktabs table, which is often what made the page look multi-column), its
``table_row`` lines replace the table's text lines and are read as one full-width block, row by
row, so cells are never read column by column.
"""

from __future__ import annotations

from typing import Any, ClassVar

from docintel.parsing.baseline import extract_lines
from docintel.parsing.columns import find_gutters
from docintel.parsing.methods.base import MethodResult, PageInput, number_lines
from docintel.settings import Settings

METHOD = "reading_order"


BAND_GAP = 1.5
"""A vertical gap wider than this many median line heights ends a band of a column."""


def _bands(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """``rows`` (in y order) cut at each vertical gap no line bridges that is wider than
    :data:`BAND_GAP` line heights."""
    heights = sorted(r["y1"] - r["y0"] for r in rows)
    h = heights[len(heights) // 2]
    out = [[rows[0]]]
    bottom = rows[0]["y1"]
    for r in rows[1:]:
        if r["y0"] - bottom > BAND_GAP * h:
            out.append([])
        out[-1].append(r)
        bottom = max(bottom, r["y1"])
    return out


def _by_bands(rows: list[dict[str, Any]], page_width: float) -> list[dict[str, Any]] | None:
    """``rows`` (one column, or a page, with no gutter of its own; in y order) read band by band,
    each band with a gutter of its own column by column; None when no band has one."""
    if len(rows) < 8:
        return None
    bands = _bands(rows)
    prose = [_prose_columns(b, page_width) for b in bands]
    if len(bands) < 2 or not any(prose):
        return None
    return [r for b, cols in zip(bands, prose) for r in (order_lines(b, page_width) if cols else b)]


PROSE_CHARS = 18
"""Characters of a line of prose (a column of the band read by :func:`_by_bands`)."""


def _prose_columns(band: list[dict[str, Any]], page_width: float) -> bool:
    """Whether ``band`` has a gutter with prose on both sides: most lines of each side run to
    :data:`PROSE_CHARS` characters. A list of short labels beside their titles ("Pub. 529" |
    "Miscellaneous Deductions") or a worksheet's columns of amounts are rows, read across."""
    gutters = find_gutters([(r["x0"], r["x1"]) for r in band], page_width)
    if not gutters:
        return False
    edges = [float("-inf")] + [(g0 + g1) / 2 for g0, g1 in gutters] + [float("inf")]
    for lo, hi in zip(edges, edges[1:]):
        side = [r for r in band if lo <= (r["x0"] + r["x1"]) / 2 < hi]
        if not side or sum(len(r["text"]) >= PROSE_CHARS for r in side) < 0.6 * len(side):
            return False
    return True


def _beside_a_column(
    rows: list[dict[str, Any]], wide: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]] | None:
    """(above, the band, below) of ``rows`` when lines that cross every gutter the page found
    have a column beside them (the 1040NR's "Who Must Use Pub. 972" chart over its first two
    columns, the third running on to its right: the worksheet at the foot of the second and
    third hid their gutter); the band, from the first such line's top to the last one's
    bottom, has a gutter of its own and is read on its own. None when no line crossing every
    gutter has one beside it, or the band would be the whole of ``rows``."""
    def beside(r: dict[str, Any]) -> bool:
        return any(o["y0"] < r["y1"] and o["y1"] > r["y0"] and (o["x0"] >= r["x1"] + _MIN_GAP or o["x1"] <= r["x0"] - _MIN_GAP)
                   and o["x1"] - o["x0"] >= _MIN_WIDE * (r["x1"] - r["x0"]) for o in rows if o is not r)
    held = [r for r in wide if "_block" not in r and beside(r)]
    if len(held) < _MIN_HELD:
        return None
    top, bottom = min(r["y0"] for r in held), max(r["y1"] for r in held)
    mid = [(r["y0"] + r["y1"]) / 2 for r in rows]
    above = [r for r, m in zip(rows, mid) if m < top]
    within = [r for r, m in zip(rows, mid) if top <= m <= bottom]
    below = [r for r, m in zip(rows, mid) if m > bottom]
    if len(within) == len(rows):
        return None
    return above, within, below


_MIN_GAP = 6.0
"""Points between a line and a line beside it (the narrowest gutter)."""
_MIN_WIDE = 0.3
"""A line beside another is at least this share of its width: a column's line, not a box number."""
_MIN_HELD = 3
"""Lines crossing every gutter with a column beside them that make a band: one is a stray."""


def order_lines(rows: list[dict[str, Any]], page_width: float, blocks: list[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """``rows`` (dicts with x0..y1) in reading order; sets ``column`` to col1..colN / single.

    ``blocks`` are table rows (and captions), each table read as one unit: full width when it
    spans a gutter, else inside the column it sits in (a small table in the left column of a
    two-column notice is read there, its rows not interleaved with the right column's lines).
    """
    gutters = find_gutters([(r["x0"], r["x1"]) for r in rows], page_width)
    if not gutters and not blocks:
        banded = _by_bands(sorted(rows, key=lambda r: (round(r["y0"], 1), r["x0"])), page_width)
        if banded is not None:
            return banded
    if blocks:
        spans: dict[Any, tuple[float, float]] = {}  # each table's extent across the page
        keys = [b.get("_table") or b.get("object_key") or id(b) for b in blocks]  # a caption: its table's
        for key, b in zip(keys, blocks):
            x0, x1 = spans.get(key, (b["x0"], b["x1"]))
            spans[key] = (min(x0, b["x0"]), max(x1, b["x1"]))
        rows = list(rows) + [{**{k: v for k, v in b.items() if k != "_table"}, "_block": spans[key]}
                             for key, b in zip(keys, blocks)]
    if not gutters:
        for r in rows:
            r["column"] = "single"
            r.pop("_block", None)
        return sorted(rows, key=lambda r: (round(r["y0"], 1), r["x0"]))

    def cols_of(r: dict[str, Any]) -> tuple[int, int]:
        """The first and last column ``r`` stands in: (-1, -1) when it crosses every gutter."""
        x0, x1 = r.get("_block") or (r["x0"], r["x1"])  # a table row: where its whole table lies
        crossed = [k for k, (g0, g1) in enumerate(gutters) if x0 < g0 and x1 > g1]
        if len(crossed) == len(gutters):
            return -1, -1  # full width
        if crossed:
            return crossed[0], crossed[-1] + 1
        k = next((k for k, (g0, g1) in enumerate(gutters) if (x0 + x1) / 2 < (g0 + g1) / 2), len(gutters))
        return k, k

    where = {id(r): cols_of(r) for r in rows}
    band = _beside_a_column(rows, [r for r in rows if where[id(r)] == (-1, -1)])
    if band is not None:  # a chart over the first columns, a column the page found no gutter for beside it
        above, within, below = band
        out = [r for part in (above, within, below) for r in order_lines(part, page_width)]
        for r in out:
            r.pop("_block", None)
        return out

    n = len(gutters) + 1
    names = ["left", "right"] if n == 2 else [f"col{k + 1}" for k in range(n)]
    out: list[dict[str, Any]] = []

    def read(section: list[tuple[tuple[int, int], dict[str, Any]]]) -> None:
        """Each column of ``section`` top to bottom, left to right."""
        for k in range(n):
            column = [r for c, r in section if c[0] == k]
            banded = _by_bands(column, page_width)  # two columns over a worksheet inside this one
            out.extend(column if banded is None else banded)
            for r in column:
                r["column"] = names[k]

    def flush(section: list[tuple[tuple[int, int], dict[str, Any]]]) -> None:
        section = sorted(section, key=lambda t: (t[1]["y0"], t[1]["x0"]))
        # a line over some of the columns (a worksheet under the first two of three) joins them:
        # they are read together (an XY cut), before the columns beside them
        group = list(range(n))
        for (lo, hi), _ in section:
            group = [group[lo] if lo <= k <= hi or g in group[lo:hi + 1] else g for k, g in enumerate(group)]
        if len(set(group)) == 1:  # the lines over some columns join them all: each cuts the page
            part: list[tuple[tuple[int, int], dict[str, Any]]] = []
            for c, r in section:
                if c[0] == c[1]:
                    part.append((c, r))
                    continue
                read(part)
                part = []
                r["column"] = "single"
                out.append(r)
            read(part)
            return
        for g in sorted(set(group)):
            members = [(c, r) for c, r in section if group[c[0]] == g]
            if all(lo == hi for (lo, hi), _ in members):
                read(members)
                continue
            out.extend(order_lines([r for _, r in members], page_width))
            for (lo, hi), r in members:
                r["column"] = names[lo] if lo == hi else "single"

    section: list[tuple[tuple[int, int], dict[str, Any]]] = []
    for r in sorted(rows, key=lambda r: (r["y0"], r["x0"], r.get("line_num") or 0)):
        c = where[id(r)]
        if c == (-1, -1):
            flush(section)
            section = []
            r["column"] = "single"
            out.append(r)
        else:
            section.append((c, r))
    flush(section)
    for r in out:
        r.pop("_block", None)
    return out


class ReadingOrderMethod:
    """col_anomaly / multi-column -> the page's lines in true reading order."""

    name: ClassVar[str] = METHOD
    reasons: ClassVar[tuple[str, ...]] = ("col_anomaly", "multi_column")
    coverage: ClassVar[str] = "page"
    structured: ClassVar[bool] = False
    description: ClassVar[str] = "lines re-ordered column by column between full-width lines; tables read row by row"

    def estimate(self, page_row: dict[str, Any], settings: Settings) -> tuple[float, int]:
        return 0.4, 0

    def run(self, page: PageInput) -> MethodResult:
        from docintel.parsing.methods.tables import extract_tables, table_lines

        rows = extract_lines(page.page, page.doc_id, page.page_num)
        for r in rows:
            r["kind"] = "text"
        tables = extract_tables(page.page)
        blocks = table_lines(tables)
        for t in tables:
            x0, y0, x1, y1 = t.bbox
            rows = [r for r in rows if not (x0 - 2 <= (r["x0"] + r["x1"]) / 2 <= x1 + 2 and y0 - 2 <= (r["y0"] + r["y1"]) / 2 <= y1 + 2)]
            # the caption goes with its table, not with the column it happens to sit in
            caps = [r for r in rows if t.caption and r["text"] == " ".join(t.caption.split())
                    and min(abs(r["y1"] - y0), abs(r["y0"] - y1)) < 60]
            blocks.extend(dict(r, _table=t.object_key) for r in caps)
            rows = [r for r in rows if r not in caps]
        ordered = order_lines(rows, page.page.rect.width, blocks)
        n_cols = len({r["column"] for r in ordered} - {"single"})
        notes = [f"{len(ordered)} lines in {max(1, n_cols)} column(s)"] + [f"{t.object_key}: {len(t.rows)} rows" for t in tables]
        return MethodResult(lines=number_lines(ordered, page.doc_id, page.page_num, METHOD), notes=notes,
                            structured=bool(tables))
