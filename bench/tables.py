"""Cell accuracy of the table method against the ground truth in ../shared/corpora/tables.

    .venv/bin/python bench/tables.py [--corpora DIR] [--json]

For each file the table method (docintel.parsing.methods.tables) reads the page named in
SOURCES.md, keeps the tables inside the ground truth's area, and its grid (header row, then body
rows) is aligned to the ground-truth CSV:

- Header: the ground truth's first ``header_rows`` rows are merged per column (a header split over
  5 lines is one header cell). A header cell counts as right when the method's header for the
  matched column contains the ground-truth words in order (a spanning parent such as "Percent Fuel
  Savings" may stand before them: that is where the merged cell sits).
- Body: the method's rows (its header row included, at its place on the page) are aligned to the
  ground truth's rows in order (dynamic programming over exact-cell matches); a non-empty
  ground-truth cell counts as right when the aligned row has the same text in the matched column
  (whitespace and case ignored). Columns are matched by best agreement.

Accuracy = right cells / non-empty ground-truth cells. Target >= 90% on each file.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# file -> (page, area (x0, top, x1, bottom) in points top-left origin or None, header rows)
CASES = {
    "foo": (1, None, 2),
    "spanning_cells": (1, None, 0),  # no header: section rows and repeated "Volume servers in:" rows
    "us-020": (2, (35, 103, 560, 641), 5),
    # camelot's table_areas=['316,499,566,337'] (bottom-left origin) on a 792 pt page; no caption,
    # no rules: found only as a grid of numbers
    "table_areas": (1, (316, 293, 566, 455), 2),
}


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", (text or "").replace("_", " ")).strip().lower()


def words(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", norm(text))


def contains_in_order(have: str, want: str) -> bool:
    h, w = words(have), words(want)
    if not w:
        return True
    return any(h[i : i + len(w)] == w for i in range(len(h) - len(w) + 1))


def align_rows(gt: list[list[str]], got: list[list[str]], colmap: dict[int, int]) -> list[tuple[int, int]]:
    """Order-preserving alignment maximising exactly matching cells."""

    def score(i: int, j: int) -> int:
        return sum(1 for c, v in enumerate(gt[i]) if v and c in colmap and colmap[c] < len(got[j]) and norm(got[j][colmap[c]]) == norm(v))

    n, m = len(gt), len(got)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            dp[i][j] = max(dp[i + 1][j], dp[i][j + 1], score(i, j) + dp[i + 1][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        s = score(i, j)
        if s and dp[i][j] == s + dp[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif dp[i][j] == dp[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def match_columns(gt: list[list[str]], got: list[list[str]]) -> dict[int, int]:
    """GT column -> method column by how many cell values they share (multiset overlap)."""
    from collections import Counter

    ncols = max((len(r) for r in gt), default=0)
    mcols = max((len(r) for r in got), default=0)
    out: dict[int, int] = {}
    for c in range(ncols):
        want = Counter(norm(r[c]) for r in gt if c < len(r) and r[c])
        best, best_k = 0, None
        for k in range(mcols):
            have = Counter(norm(r[k]) for r in got if k < len(r) and r[k])
            overlap = sum((want & have).values())
            if overlap > best:
                best, best_k = overlap, k
        if best_k is not None:
            out[c] = best_k
    return out


def score_file(pdf: Path, csv_path: Path, page: int, area, header_rows: int) -> dict:
    from docintel.parsing.fitz import pymupdf
    from docintel.parsing.methods.tables import extract_tables

    m = pymupdf()
    with m.open(pdf) as doc:
        tables = extract_tables(doc[page - 1])
    if area:
        box = m.Rect(area)
        tables = [t for t in tables if m.Rect(t.bbox).intersects(box)]
    gt = [row for row in csv.reader(csv_path.open(encoding="utf-8"))]
    gt_header, gt_body = gt[:header_rows], gt[header_rows:]
    got_body: list[list[str]] = []
    got_headers: list[list[str]] = []
    for t in tables:
        got_headers.append(t.headers)
        # the method's rows in page order, its header row where it stands (a title row may be above it)
        placed = [(r.bbox[1], r.cells) for r in t.rows]
        if t.header_bbox:
            placed.append((t.header_bbox[1], t.headers))
        got_body.extend(cells for _, cells in sorted(placed, key=lambda p: p[0]))
    # the first table's header stands for the ground truth's header; later tables' headers are rows
    first_header = got_headers[0] if got_headers else []
    colmap = match_columns(gt_body, got_body)
    right = total = 0
    # header cells
    ncols = max(len(r) for r in gt)
    for c in range(ncols):
        want = " ".join(r[c] for r in gt_header if c < len(r) and r[c])
        if not want:
            continue
        total += 1
        k = colmap.get(c, c)
        if k < len(first_header) and contains_in_order(first_header[k], want):
            right += 1
    header_right = right
    # body cells
    pairs = align_rows(gt_body, got_body, colmap)
    matched = {i: j for i, j in pairs}
    misses = []
    for i, row in enumerate(gt_body):
        for c, v in enumerate(row):
            if not v:
                continue
            total += 1
            j = matched.get(i)
            k = colmap.get(c)
            if j is not None and k is not None and k < len(got_body[j]) and norm(got_body[j][k]) == norm(v):
                right += 1
            elif len(misses) < 8:
                misses.append({"row": i + header_rows + 1, "col": c + 1, "want": v,
                               "got": got_body[j][k] if j is not None and k is not None and k < len(got_body[j]) else None})
    return {
        "file": pdf.name,
        "page": page,
        "tables": len(tables),
        "cells": total,
        "right": right,
        "header_right": header_right,
        "accuracy": round(right / total, 4) if total else 0.0,
        "misses": misses,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = []
    for name, (page, area, header_rows) in CASES.items():
        d = args.corpora / "tables"
        results.append(score_file(d / f"{name}.pdf", d / f"{name}.csv", page, area, header_rows))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{'file':<22}{'page':>5}{'tables':>8}{'cells':>7}{'right':>7}{'accuracy':>10}")
        for r in results:
            print(f"{r['file']:<22}{r['page']:>5}{r['tables']:>8}{r['cells']:>7}{r['right']:>7}{r['accuracy']:>10.1%}")
            for miss in r["misses"]:
                print(f"    miss r{miss['row']} c{miss['col']}: want {miss['want']!r} got {miss['got']!r}")
    return 0 if all(r["accuracy"] >= 0.9 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
