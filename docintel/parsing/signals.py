"""Cheap per-page quality signals: small pure functions of a page's rows, each testable alone.

Inputs are plain records: ``lines`` are line_df rows (dicts with text and x0/y0/x1/y1), and
``images`` image_df rows (dicts with bbox, area_ratio, text_chars_inside). A flag function
returns the reason string when it fires (the measured value included, e.g.
``"flat_table: 'Table 3' caption + 141 short cells in 24 rows"``) and ``None`` otherwise.
:func:`evaluate` runs them all for one page; ``escalate`` is the union of the flags.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

from docintel.parsing.grid import (  # noqa: F401 (re-exported)
    CAPTION_GAP,
    caption_lines,
    continues_labels,
    grid_blocks,
    header_texts,
    label_blocks,
    number_grids,
    repeats_header,
    table_regions,
    top_cut,
)

FLAGS = ("flat_table", "opaque_figure", "col_anomaly", "scanned")

# flat_table
CONTINUED_TOP = 0.4  # share of the page's text height a ruled grid must open in to go on from the previous page

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


def flat_table(lines: Sequence[dict[str, Any]], grids: Sequence[dict[str, float]] = ()) -> str | None:
    """A "Table N" caption next to a grid of many short cell lines (:mod:`docintel.parsing.grid`),
    or, without a caption, a grid of mostly numbers (a tax rate schedule, a payroll chart), or a
    caption next to a ruled grid (``grids``, :func:`docintel.parsing.rules.ruled_grids`) whose
    cells hold wrapped text (SP 800-40's "Table A-1. SCAP Version 1.2 Component Specifications":
    a name and a two-line description per row, no grid of short cells in its lines)."""
    regions = table_regions(lines)
    # on multi-column pages also look inside each column: a figure's axis labels in the next
    # column must not bridge two tables and their captions
    columns = {r.get("column") for r in lines} - {None, "single"}
    if len(columns) > 1:
        for col in sorted(columns):
            regions += table_regions([r for r in lines if r.get("column") == col])
    if not regions:
        ruled = _ruled_caption(lines, grids)
        if ruled is not None:
            tid, grid = ruled
            return f"flat_table: 'Table {tid}' caption + ruled grid of {grid['columns']} columns x {grid['rows']} rows"
        numbers = number_grids(lines)
        if not numbers:
            return None
        best = max(numbers, key=lambda r: r["cells"])
        return (f"flat_table: no caption; {best['cells']} short cells in {best['rows']} rows, "
                f"{round(100 * best['numbers'])}% numbers")
    best = max(regions, key=lambda r: r["cells"])
    return f"flat_table: 'Table {best['table_id']}' caption + {best['cells']} short cells in {best['rows']} rows"


def _ruled_caption(lines: Sequence[dict[str, Any]], grids: Sequence[dict[str, float]]) -> tuple[str, dict[str, float]] | None:
    """(table id, grid) of the last ruled grid with a "Table N" caption within CAPTION_GAP points
    above or below it."""
    found = None
    captions = caption_lines(lines) if grids else []
    for grid in grids:
        for k, table_id in captions:
            cap = lines[k]
            gap = grid["y0"] - cap["y1"] if cap["y1"] <= grid["y0"] + 1 else cap["y0"] - grid["y1"]
            if -1 <= gap <= CAPTION_GAP and (found is None or grid["y0"] >= found[1]["y0"]):
                found = (table_id, grid)
    return found


def table_header(lines: Sequence[dict[str, Any]], grids: Sequence[dict[str, float]] = ()) -> tuple[str, frozenset[str], float | None] | None:
    """(table id, header row texts, row-label column x or None) of the page's last captioned
    table (the one that may run on to the next page); a ruled one (``grids``) gives its id alone."""
    regions = table_regions(lines)
    if not regions:
        ruled = _ruled_caption(lines, grids)
        if ruled is not None:
            return ruled[0], frozenset(), None
    last = max(regions, key=lambda r: (r["y1"], r["cells"])) if regions else None
    # a later caption whose label table has only begun (too few rows here to be a region)
    later = [(k, tid) for k, tid in caption_lines(lines) if last is None or lines[k]["y0"] > last["y1"]]
    if later:
        k, tid = max(later, key=lambda c: lines[c[0]]["y0"])
        start = lines[k]["y1"]
        blocks = label_blocks(lines, min_rows=1)
        for block in blocks:
            if start - 1 <= block["y0"] <= start + CAPTION_GAP:
                return tid, frozenset(), block["label_x"]
        if blocks and last is None:  # only its caption fits on this page: it takes the page's label column
            return tid, frozenset(), blocks[-1]["label_x"]
    if last is None:
        return None
    return last["table_id"], header_texts(lines, last), last.get("label_x")


def continued_table(lines: Sequence[dict[str, Any]], previous: tuple | None,
                    grids: Sequence[dict[str, float]] = ()) -> str | None:
    """A table running on from the previous page: no caption here, its header row repeated, (a
    label table, ``previous[2]``) its row labels continuing at the top of the page, or a ruled
    grid (``grids``) opening in the top part of the page."""
    if previous is None:
        return None
    if repeats_header(lines, previous[1]):
        return f"flat_table: 'Table {previous[0]}' continued (its header row repeats on this page)"
    label_x = previous[2] if len(previous) > 2 else None
    if label_x is not None and continues_labels(lines, label_x):
        return f"flat_table: 'Table {previous[0]}' continued (its row labels go on on this page)"
    if lines and grids:
        if any(g["y0"] <= top_cut(lines, CONTINUED_TOP) for g in grids):
            return f"flat_table: 'Table {previous[0]}' continued (its ruled grid goes on on this page)"
    return None


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


INTERLEAVED = 0.4
"""Share of consecutive lines in columns that switch column above which a page's text is read
across its columns, not down them."""
INTERLEAVED_LINES = 30
"""Lines in columns a page needs for :func:`interleaved` to judge its order."""


def interleaved(lines: Sequence[dict[str, Any]]) -> float:
    """Share of consecutive lines (in the order the page gives them, lines in a column only)
    that switch column: near 0 read column by column, near 1 read across the page (the 1040NR's
    text comes line by line across its columns). 0 for fewer than :data:`INTERLEAVED_LINES` such
    lines: a worksheet's few rows of amounts side by side are no columns of prose."""
    cols = [r.get("column") for r in lines if r.get("column") not in (None, "single")]
    if len(cols) < INTERLEAVED_LINES:
        return 0.0
    return sum(a != b for a, b in zip(cols, cols[1:])) / (len(cols) - 1)


def col_anomaly(columns: int, norm: int, switch: float = 0.0) -> str | None:
    """Reading-order risk: more columns than the document's norm, or 3 and more, or columns
    whose lines come interleaved (``switch``: :func:`interleaved`).

    A page with fewer columns than the norm (a full-width figure page in a two-column paper)
    carries no reading-order risk and does not fire, unless its lines are read across it.
    """
    if columns >= 3 or columns > norm:
        return f"col_anomaly: {columns} columns (document norm {norm})"
    if columns >= 2 and switch >= INTERLEAVED:
        return f"col_anomaly: {columns} columns read across ({switch:.0%} of lines switch column)"
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
    previous_table: tuple[str, frozenset[str]] | None = None,
    grids: Sequence[dict[str, float]] = (),
) -> dict[str, Any]:
    """All signals of one page: the page_df signal columns plus ``reasons`` and ``escalate``.

    ``text_layer_chars`` is the PDF text layer's size when ``lines`` come from OCR;
    ``previous_table`` the previous page's :func:`table_header` (a table may run on here);
    ``grids`` the page's ruled grids (:func:`docintel.parsing.rules.ruled_grids`), where read.
    """
    chars = char_count(lines)
    coverage = image_coverage(images)
    layer = chars if text_layer_chars is None else text_layer_chars
    fired = {
        "scanned": scanned(layer, coverage),
        "flat_table": flat_table(lines, grids),
        "col_anomaly": col_anomaly(columns, norm, interleaved(lines)),
    }
    captions = caption_lines(lines)
    if fired["flat_table"] is None or not captions:  # no table here, or one without a caption
        continued = continued_table(lines, previous_table, grids)
        if continued is not None:  # ... that is the previous page's table going on
            fired["flat_table"] = continued
            fired["col_anomaly"] = None  # the "columns" are the table's cells, not text columns
    elif previous_table is not None:
        # the previous page's table may end here, above this page's first caption
        first = min(lines[k]["y0"] for k, _ in captions)
        above = continued_table([r for r in lines if r["y1"] <= first], previous_table, [g for g in grids if g["y1"] <= first])
        if above is not None:
            fired["flat_table"] += f"; 'Table {previous_table[0]}' continued above it"
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
