"""The one view every reader uses: per page, the best available parse.

Each page_df row says how its parse combines with the others (``coverage``):

- ``page``: the method re-read the whole page (reading order, high-resolution OCR); its lines
  replace the baseline's. The baseline methods (``pymupdf``, ``tesseract``) are ``page`` too.
- ``region``: the method re-read regions (a table); inside the bounding box of each of its
  objects (``object_key``) the baseline lines are replaced by its rows, elsewhere the base stays.
- ``addition``: the method found text the base does not have (figure labels); its lines are added,
  per object, before the first base line that starts below the object's top.

Failed parses (``error`` set) are ignored. Every returned line keeps its ``parsing_method``.
"""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from docintel.store.store import Store

BASELINE_METHODS = ("pymupdf", "tesseract")


def best_lines(store: Store, doc_id: str, pages: Iterable[int] | None = None) -> pd.DataFrame:
    """Lines of ``doc_id`` (optionally only ``pages``) in the best available parse."""
    filters = None if pages is None else [("page_num", "in", sorted(set(int(p) for p in pages)))]
    lines = store.read_table("line_df", [doc_id], filters=filters)
    page_rows = store.read_table("page_df", [doc_id], filters=filters)
    return combine(lines, page_rows)


def combine(lines: pd.DataFrame, page_rows: pd.DataFrame) -> pd.DataFrame:
    """Pure part of :func:`best_lines`: pick and merge parses page by page."""
    if lines.empty:
        return lines
    ok = page_rows[page_rows["error"].isna()] if "error" in page_rows else page_rows
    out = []
    for page_num, page_lines in lines.groupby("page_num", sort=True):
        methods = ok[ok["page_num"] == page_num]
        out.append(_combine_page(page_lines, methods))
    return pd.concat(out, ignore_index=True) if out else lines.iloc[0:0]


def _coverage(row: pd.Series) -> str:
    cov = row.get("coverage")
    if isinstance(cov, str) and cov:
        return cov
    return "page"


def _combine_page(page_lines: pd.DataFrame, methods: pd.DataFrame) -> pd.DataFrame:
    by_method = {m: g for m, g in page_lines.groupby("parsing_method", sort=False)}
    rows = [r for _, r in methods.iterrows() if r["parsing_method"] in by_method]
    page_methods = [r["parsing_method"] for r in rows if _coverage(r) == "page"]
    # the last full-page parse written wins; baselines are written first
    non_base = [m for m in page_methods if m not in BASELINE_METHODS]
    base_method = (non_base or page_methods or [next(iter(by_method))])[-1]
    # "in_base": the row is the page parse's own, not a region's or an addition's, whose line
    # numbers count from 1 in their own parse (a span of the page is cut by the page parse's)
    base = by_method[base_method].sort_values("line_num").assign(in_base=True)
    for r in rows:
        method = r["parsing_method"]
        if _coverage(r) != "region":
            continue
        region_lines = by_method[method]
        for _, obj in region_lines.groupby(region_lines["object_key"].fillna(""), sort=False):
            base = base.reset_index(drop=True)
            x0, y0, x1, y1 = obj["x0"].min(), obj["y0"].min(), obj["x1"].max(), obj["y1"].max()
            cx = ((base["x0"] + base["x1"]) / 2).to_numpy()
            cy = ((base["y0"] + base["y1"]) / 2).to_numpy()
            inside = (cx >= x0 - 2) & (cx <= x1 + 2) & (cy >= y0 - 2) & (cy <= y1 + 2)
            inside &= (base["parsing_method"] != method).to_numpy()
            ordered = obj.sort_values("line_num").assign(in_base=False)
            if inside.any():
                at = int(inside.argmax())
                kept = base[~inside]
                base = pd.concat([kept[kept.index < at], ordered, kept[kept.index >= at]])
            else:
                base = pd.concat([base, ordered])
    for r in rows:
        if _coverage(r) != "addition":
            continue
        added = by_method[r["parsing_method"]]
        for _, obj in added.groupby(added["object_key"].fillna(""), sort=False):
            # an object's added lines go where the object sits: before the first line below its top
            base = base.reset_index(drop=True)
            top = obj["y0"].min()
            below = (base["y0"] > top).to_numpy() & (base["parsing_method"] != r["parsing_method"]).to_numpy()
            ordered = obj.sort_values("line_num").assign(in_base=False)
            if below.any():
                at = int(below.argmax())
                base = pd.concat([base.iloc[:at], ordered, base.iloc[at:]])
            else:
                base = pd.concat([base, ordered])
    return base.reset_index(drop=True)
