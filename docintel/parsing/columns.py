"""Column detection from a page's own x-distribution (no fixed midpoint).

A gutter is a vertical band, inside the text area, that almost no line crosses while real text
columns stand on both sides of it. Three things keep non-columns out:

- tables: rows of many short cells (:func:`grid_lines`) and captioned table regions
  (:func:`docintel.parsing.grid.table_regions`, paragraph cells included) are set aside before
  the search, so a table's cell grid never counts as columns (its lines are labelled by the
  column region the table sits in, or ``single`` when it spans the gutter);
- spanning lines: lines wider than most of the text area (titles, author blocks, full-width
  captions) do not vote; they cross the gutter and are labelled ``single``;
- thin "columns": each column must be a real share of the text width and hold lines of prose
  length, so two short labels with a gap between them are not a layout.

Lines left of the first gutter are ``left``, right of the last ``right``; with 3+ columns lines
are ``col1``..``colN``; lines that cross a gutter and pages without one are ``single``.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any, Iterator, Sequence

from docintel.parsing.grid import region_members, row_bands, table_regions, text_extent

_BIN = 2.0  # points per histogram bin
_MIN_GUTTER = 6.0  # narrowest gap that counts as a gutter, points
_MIN_LINES = 4  # lines a column needs
_MIN_SHARE = 0.12  # share of the voting lines each column needs
_SPANNING = 0.62  # a line wider than this share of the text width spans columns
_MIN_COL_WIDTH = 0.18  # share of the text width a column needs
_MAX_CROSSING = 0.3  # share of all lines that may cross a gutter (titles, captions)
_MIN_COL_CHARS = 18  # median characters per line a text column needs
_CELL_WIDTH = 0.3  # a grid cell is narrower than this share of the text width
_GRID_CELLS = 4  # narrow lines side by side that make a table row (3 if very narrow)


def grid_lines(lines: Sequence[dict[str, Any]]) -> set[int]:
    """Indices of lines that sit in table-grid rows: many short cells side by side.

    A band is a grid row when it holds >= 4 narrow, horizontally disjoint lines (or >= 3 very
    narrow ones). Prose columns give at most 2-3 lines per band, each about a column wide.
    """
    left, right = text_extent(lines)
    width = right - left
    if width <= 0:
        return set()
    out: set[int] = set()
    for band in row_bands(lines):
        narrow = [i for i in band if lines[i]["x1"] - lines[i]["x0"] < _CELL_WIDTH * width]
        very = [i for i in narrow if lines[i]["x1"] - lines[i]["x0"] < 0.16 * width]
        if len(narrow) >= _GRID_CELLS or len(very) >= 3:
            out.update(narrow)
    return out


def low_runs(cover: Sequence[int], most: int, above: int = -1) -> Iterator[tuple[int, int]]:
    """Maximal runs ``[i, j)`` of a coverage histogram at or below ``most``: the gaps between
    columns. A run starts only at a bin above ``above`` (default: any bin) and goes on while the
    coverage stays at or below ``most``."""
    i, n = 0, len(cover)
    while i < n:
        if above < cover[i] <= most:
            j = i
            while j < n and cover[j] <= most:
                j += 1
            yield i, j
            i = j
        else:
            i += 1


def find_gutters(
    boxes: Sequence[tuple[float, float]],
    page_width: float,
    chars: Sequence[int] | None = None,
) -> list[tuple[float, float]]:
    """Gutters as (x_start, x_end) from line x-extents [(x0, x1), ...] (grid lines excluded).

    ``chars`` (characters per line, same order) lets a column be checked for prose-length lines.
    """
    items = [
        (max(0.0, a), min(page_width, b), (chars[k] if chars is not None else _MIN_COL_CHARS))
        for k, (a, b) in enumerate(boxes)
        if b > a
    ]
    if len(items) < 2 * _MIN_LINES:
        return []
    left = min(a for a, _, _ in items)
    right = max(b for _, b, _ in items)
    width = right - left
    voters = [it for it in items if it[1] - it[0] <= _SPANNING * width]
    if len(voters) < 2 * _MIN_LINES:
        return []
    nbins = max(1, int(width / _BIN) + 1)
    delta = [0] * (nbins + 1)  # difference array: +1 where a line starts, -1 after it ends
    for a, b, _ in voters:
        delta[int((a - left) / _BIN)] += 1
        delta[min(nbins, int((b - left) / _BIN) + 1)] -= 1
    cover = list(accumulate(delta[:nbins]))
    allowed = max(1, int(0.1 * len(voters)))  # a few stray lines may cross a gutter
    candidates: list[tuple[float, float]] = []
    for i, j in low_runs(cover, allowed):
        g0, g1 = left + i * _BIN, left + j * _BIN
        if g1 - g0 >= _MIN_GUTTER and g0 > left + 0.15 * width and g1 < right - 0.15 * width:
            candidates.append((g0, g1))
    # drop gutters whose neighbouring columns are not real text columns; repeat until stable
    gutters = candidates
    while gutters:
        edges = [left] + [x for g in gutters for x in g] + [right]
        bad = None
        for k in range(len(gutters) + 1):
            lo, hi = edges[2 * k], edges[2 * k + 1]
            inside = [it for it in voters if it[0] >= lo - 1 and it[1] <= hi + 1]
            need = max(_MIN_LINES, _MIN_SHARE * len(voters) / (len(gutters) + 1))
            med_chars = sorted(c for _, _, c in inside)[len(inside) // 2] if inside else 0
            if len(inside) < need or hi - lo < _MIN_COL_WIDTH * width or med_chars < _MIN_COL_CHARS:
                bad = k
                break
        if bad is None:
            # most lines crossing a gutter means one wide column with a few short lines in it
            crossing = [g for g in gutters if sum(1 for a, b, _ in items if a < g[0] - 1 and b > g[1] + 1) > _MAX_CROSSING * len(items)]
            if not crossing:
                break
            gutters = [g for g in gutters if g not in crossing]
            continue
        # merge the weak column into a neighbour by dropping the gutter next to it
        drop = bad - 1 if bad == len(gutters) else bad
        if bad > 0 and bad < len(gutters):
            # prefer dropping the narrower of the two adjacent gutters
            left_g, right_g = gutters[bad - 1], gutters[bad]
            drop = bad - 1 if (left_g[1] - left_g[0]) < (right_g[1] - right_g[0]) else bad
        gutters = gutters[:drop] + gutters[drop + 1:]
    return gutters


def _label(col: int, n: int) -> str:
    if n == 1 or col < 0:
        return "single"
    if n == 2:
        return "left" if col == 0 else "right"
    return f"col{col + 1}"


def _column_of(x0: float, x1: float, gutters: Sequence[tuple[float, float]]) -> int:
    for k, (g0, g1) in enumerate(gutters):
        if x1 <= g0 + 1:
            return k
        if x0 < g1 - 1:  # crosses this gutter
            return -1
    return len(gutters)


def page_gutters(lines: Sequence[dict[str, Any]], page_width: float, grid: set[int] | None = None) -> list[tuple[float, float]]:
    """The page's gutters from line dicts (x0, x1, text): table grids set aside, prose checked."""
    grid = grid_lines(lines) if grid is None else grid
    prose = [k for k in range(len(lines)) if k not in grid]
    return find_gutters(
        [(lines[k]["x0"], lines[k]["x1"]) for k in prose],
        page_width,
        [len(lines[k]["text"]) for k in prose],
    )


def assign_columns(lines: Sequence[dict[str, Any]], page_width: float) -> tuple[list[str], int]:
    """A column label per line and the page's column count (table grids do not count)."""
    regions = table_regions(lines)
    in_tables = region_members(lines, regions)
    grid = grid_lines(lines) | in_tables
    gutters = page_gutters(lines, page_width, grid)
    n = len(gutters) + 1
    labels = [_label(_column_of(r["x0"], r["x1"], gutters), n) for r in lines]
    if n > 1:
        # a captioned table sits in one column or spans the gutter: its lines follow its extent
        for reg in regions:
            label = _label(_column_of(reg["x0"], reg["x1"], gutters), n)
            for k in region_members(lines, [reg]):
                labels[k] = label
    grid -= in_tables
    if grid and n > 1:
        # a table sits in one column or spans the gutter: label its cells by the table's extent
        for band_group in _grid_blocks(lines, grid):
            x0 = min(lines[k]["x0"] for k in band_group)
            x1 = max(lines[k]["x1"] for k in band_group)
            label = _label(_column_of(x0, x1, gutters), n)
            for k in band_group:
                labels[k] = label
    return labels, n


def _grid_blocks(lines: Sequence[dict[str, Any]], grid: set[int]) -> list[list[int]]:
    """Grid lines grouped into vertically contiguous blocks (one per table)."""
    bands = row_bands(lines, sorted(grid))
    blocks: list[list[int]] = []
    last_bottom = None
    for band in bands:
        top = min(lines[k]["y0"] for k in band)
        h = max(lines[k]["y1"] - lines[k]["y0"] for k in band)
        if blocks and last_bottom is not None and top - last_bottom <= 3 * h:
            blocks[-1].extend(band)
        else:
            blocks.append(list(band))
        last_bottom = max(lines[k]["y1"] for k in band)
    return blocks
