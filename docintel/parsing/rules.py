"""Ruling lines drawn on a page: the rules of a table's grid, read from its vector drawings.

Ingest reads them only on a page holding a "Table N" caption (and the page after it), to see a
ruled table whose cells hold wrapped text (no grid of short cells in its lines); the table
method (:mod:`docintel.parsing.methods.tables`) reads them to find rows and columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MIN_GRID_RULE = 8.0
"""Points a vertical rule must run to be a cell edge (not a tick or a glyph's stroke)."""
FRAME_SHARE = 0.8
"""A vertical rule this share of the page's height or taller is the page's frame, no cell edge."""
EDGE_TOL = 2.0
"""Points apart two vertical rules may stand and still be one column edge."""


@dataclass
class Rule:
    pos: float  # y for a horizontal rule, x for a vertical one
    start: float
    end: float

    @property
    def length(self) -> float:
        return self.end - self.start


def page_rules(page: Any) -> tuple[list[Rule], list[Rule], list[tuple[float, float, float, float]]]:
    """Horizontal and vertical rules (lines and thin rectangles), collinear pieces joined, and
    filled boxes (cell backgrounds)."""
    hs: list[Rule] = []
    vs: list[Rule] = []
    boxes: list[tuple[float, float, float, float]] = []
    for d in page.get_drawings():
        for item in d["items"]:
            if item[0] == "l":
                p, q = item[1], item[2]
                if abs(p.y - q.y) < 1.0 and abs(p.x - q.x) > 2:
                    hs.append(Rule((p.y + q.y) / 2, min(p.x, q.x), max(p.x, q.x)))
                elif abs(p.x - q.x) < 1.0 and abs(p.y - q.y) > 2:
                    vs.append(Rule((p.x + q.x) / 2, min(p.y, q.y), max(p.y, q.y)))
            elif item[0] == "re":
                r = item[1]
                if r.height <= 2.5 and r.width > 2:
                    hs.append(Rule((r.y0 + r.y1) / 2, r.x0, r.x1))
                elif r.width <= 2.5 and r.height > 2:
                    vs.append(Rule((r.x0 + r.x1) / 2, r.y0, r.y1))
                elif r.width > 2 and r.height > 2:
                    if d.get("color") is not None:
                        hs += [Rule(r.y0, r.x0, r.x1), Rule(r.y1, r.x0, r.x1)]
                        vs += [Rule(r.x0, r.y0, r.y1), Rule(r.x1, r.y0, r.y1)]
                    if d.get("fill") is not None:
                        boxes.append((r.x0, r.y0, r.x1, r.y1))
    return _join(hs), _join(vs), boxes


def _join(rules: list[Rule], tol: float = 1.2, gap: float = 3.0) -> list[Rule]:
    out: list[Rule] = []
    for r in sorted(rules, key=lambda r: (round(r.pos), r.start)):
        for o in out[-8:]:
            if abs(o.pos - r.pos) <= tol and r.start <= o.end + gap and r.end >= o.start - gap:
                o.start, o.end = min(o.start, r.start), max(o.end, r.end)
                break
        else:
            out.append(Rule(r.pos, r.start, r.end))
    return out


def ruled_grids(hrules: list[Rule], vrules: list[Rule], page_height: float) -> list[dict[str, float]]:
    """The ruled grids of a page: vertical cell edges whose spans touch, crossed by horizontal
    rules. Each: {"x0", "y0", "x1", "y1", "columns", "rows"}, with at least two columns and two
    rows (three edges each way): a framed note or a single rule under a heading is none."""
    edges = sorted((v for v in vrules if MIN_GRID_RULE <= v.length < FRAME_SHARE * page_height), key=lambda v: v.start)
    groups: list[list[Rule]] = []
    bottom = 0.0  # the lowest end of the last group's edges
    for v in edges:  # vertical edges whose spans overlap (within a rule's gap) are one grid's
        if groups and v.start <= bottom + 3.0:
            groups[-1].append(v)
            bottom = max(bottom, v.end)
        else:
            groups.append([v])
            bottom = v.end
    out = []
    for group in groups:
        xs: list[float] = []
        for x in sorted(v.pos for v in group):
            if not xs or x - xs[-1] > EDGE_TOL:
                xs.append(x)
        y0, y1 = min(v.start for v in group), max(v.end for v in group)
        x0, x1 = xs[0], xs[-1]
        ys: list[float] = []
        for h in sorted(hrules, key=lambda h: h.pos):
            crosses = y0 - 3.0 <= h.pos <= y1 + 3.0 and min(h.end, x1) - max(h.start, x0) >= 0.5 * (x1 - x0)
            if crosses and (not ys or h.pos - ys[-1] > EDGE_TOL):
                ys.append(h.pos)
        if len(xs) >= 3 and len(ys) >= 3:
            out.append({"x0": x0, "y0": y0, "x1": x1, "y1": y1, "columns": len(xs) - 1, "rows": len(ys) - 1})
    return out
