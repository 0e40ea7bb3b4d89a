"""Column detection from a page's own x-distribution (no fixed midpoint).

A gutter is a vertical band, inside the text area, that almost no line crosses while text
stands on both sides of it. Lines left of the first gutter are ``left``, right of the last
``right``; with 3+ columns lines are ``col1``..``colN``; lines that cross a gutter (titles,
full-width figures' captions) and pages without a gutter are ``single``.
"""

from __future__ import annotations

from typing import Any, Sequence

_BIN = 2.0  # points per histogram bin
_MIN_GUTTER = 6.0  # narrowest gap that counts as a gutter, points
_MIN_LINES = 4  # lines a column needs on each side of a gutter
_MIN_SHARE = 0.15  # share of the page's lines each column needs


def find_gutters(boxes: Sequence[tuple[float, float]], page_width: float) -> list[tuple[float, float]]:
    """Gutters as (x_start, x_end) from line x-extents [(x0, x1), ...]."""
    boxes = [(max(0.0, a), min(page_width, b)) for a, b in boxes if b > a]
    if len(boxes) < 2 * _MIN_LINES:
        return []
    left = min(a for a, _ in boxes)
    right = max(b for _, b in boxes)
    nbins = max(1, int((right - left) / _BIN) + 1)
    cover = [0] * nbins
    for a, b in boxes:
        for i in range(int((a - left) / _BIN), min(nbins, int((b - left) / _BIN) + 1)):
            cover[i] += 1
    allowed = max(1, int(0.04 * len(boxes)))  # a few full-width lines may cross a gutter
    gutters: list[tuple[float, float]] = []
    i = 0
    while i < nbins:
        if cover[i] <= allowed:
            j = i
            while j < nbins and cover[j] <= allowed:
                j += 1
            g0, g1 = left + i * _BIN, left + j * _BIN
            if g1 - g0 >= _MIN_GUTTER and g0 > left + 0.12 * (right - left) and g1 < right - 0.12 * (right - left):
                gutters.append((g0, g1))
            i = j
        else:
            i += 1
    # keep only gutters with real columns on both sides
    kept: list[tuple[float, float]] = []
    edges = [left] + [g[0] for g in gutters] + [right]
    for k, g in enumerate(gutters):
        lo, hi = edges[k], edges[k + 2] if k + 2 < len(edges) else right
        n_left = sum(1 for a, b in boxes if b <= g[0] + 1 and a >= (kept[-1][1] - 1 if kept else lo))
        n_right = sum(1 for a, b in boxes if a >= g[1] - 1 and b <= hi + 1)
        need = max(_MIN_LINES, _MIN_SHARE * len(boxes) / (len(gutters) + 1))
        if n_left >= need and n_right >= need:
            kept.append(g)
    return kept


def assign_columns(lines: Sequence[dict[str, Any]], page_width: float) -> tuple[list[str], int]:
    """A column label per line and the page's column count."""
    gutters = find_gutters([(r["x0"], r["x1"]) for r in lines], page_width)
    n = len(gutters) + 1
    labels = []
    for r in lines:
        col = None
        for k, (g0, g1) in enumerate(gutters):
            if r["x1"] <= g0 + 1:
                col = k
                break
            if r["x0"] < g1 - 1:  # crosses this gutter
                col = -1
                break
        else:
            col = len(gutters)
        if n == 1 or col == -1:
            labels.append("single")
        elif n == 2:
            labels.append("left" if col == 0 else "right")
        else:
            labels.append(f"col{col + 1}")
    return labels, n
