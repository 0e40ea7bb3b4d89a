"""Reading order (reasons ``col_anomaly`` / ``multi_column``): lines column by column.

PyMuPDF returns lines in content-stream order, which on multi-column pages can interleave the
columns. This method re-reads the page's lines, finds its gutters (docintel.parsing.columns),
cuts the page into horizontal sections at every full-width line (titles, wide figures'
captions), and emits each section's columns left to right, each column top to bottom.
"""

from __future__ import annotations

from typing import Any, ClassVar

from docintel.parsing.baseline import extract_lines
from docintel.parsing.columns import find_gutters
from docintel.parsing.methods.base import MethodResult, PageInput, number_lines
from docintel.settings import Settings

METHOD = "reading_order"


def order_lines(rows: list[dict[str, Any]], page_width: float) -> list[dict[str, Any]]:
    """``rows`` (dicts with x0..y1) in reading order; sets ``column`` to col1..colN / single."""
    gutters = find_gutters([(r["x0"], r["x1"]) for r in rows], page_width)
    if not gutters:
        for r in rows:
            r["column"] = "single"
        return sorted(rows, key=lambda r: (round(r["y0"], 1), r["x0"]))

    def col_of(r: dict[str, Any]) -> int:
        for k, (g0, g1) in enumerate(gutters):
            if r["x0"] < g0 and r["x1"] > g1:
                return -1  # spans a whole gutter: full width
            if (r["x0"] + r["x1"]) / 2 < (g0 + g1) / 2:
                return k
        return len(gutters)

    n = len(gutters) + 1
    names = ["left", "right"] if n == 2 else [f"col{k + 1}" for k in range(n)]
    out: list[dict[str, Any]] = []
    section: list[tuple[int, dict[str, Any]]] = []

    def flush() -> None:
        for k in range(n):
            out.extend(r for c, r in sorted(section, key=lambda t: (t[1]["y0"], t[1]["x0"])) if c == k)
        section.clear()

    for r in sorted(rows, key=lambda r: (r["y0"], r["x0"])):
        c = col_of(r)
        if c == -1:
            flush()
            r["column"] = "single"
            out.append(r)
        else:
            r["column"] = names[c]
            section.append((c, r))
    flush()
    return out


class ReadingOrderMethod:
    """col_anomaly / multi-column -> the page's lines in true reading order."""

    name: ClassVar[str] = METHOD
    reasons: ClassVar[tuple[str, ...]] = ("col_anomaly", "multi_column")
    coverage: ClassVar[str] = "page"
    structured: ClassVar[bool] = False
    description: ClassVar[str] = "lines re-ordered column by column between full-width lines"

    def estimate(self, page_row: dict[str, Any], settings: Settings) -> tuple[float, int]:
        return 0.05, 0

    def run(self, page: PageInput) -> MethodResult:
        rows = extract_lines(page.page, page.doc_id, page.page_num)
        ordered = order_lines(rows, page.page.rect.width)
        for r in ordered:
            r["kind"] = "text"
        n_cols = len({r["column"] for r in ordered} - {"single"})
        return MethodResult(lines=number_lines(ordered, page.doc_id, page.page_num, METHOD),
                            notes=[f"{len(ordered)} lines in {max(1, n_cols)} column(s)"])
