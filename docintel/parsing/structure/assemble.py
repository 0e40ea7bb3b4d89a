"""Sequencing of the structure steps: prepare lines once, then TOC, objects, references."""

from __future__ import annotations

from typing import Any

import pandas as pd

from docintel.parsing.structure import lines as L
from docintel.parsing.structure.links import native_link_rows, object_anchor_rows, toc_anchor_rows
from docintel.parsing.structure.objects import appendix_rows, caption_rows
from docintel.parsing.structure.outline import outline_entries, read_outline
from docintel.parsing.structure.toc import finalize_toc

_NEEDED = ("page_num", "line_num", "text", "x0", "y0", "x1", "y1", "block_num", "block_line", "font_size", "bold", "font")


def prepare_lines(lines: pd.DataFrame) -> pd.DataFrame:
    """The columns structure needs, typed, without empty text."""
    if lines is None or len(lines) == 0:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in _NEEDED + ("column",)})
    df = lines
    for c in _NEEDED:
        if c not in df.columns:
            df = df.assign(**{c: None})
    cols = list(_NEEDED) + (["column"] if "column" in df.columns else [])
    df = df[cols].copy()
    df["text"] = df["text"].fillna("").astype(str)
    df = df[df["text"].str.strip() != ""]
    df["font_size"] = pd.to_numeric(df["font_size"], errors="coerce").fillna(0.0)
    df["bold"] = df["bold"].fillna(False).astype(bool)
    df["font"] = df["font"].fillna("").astype(str)
    df["block_num"] = pd.to_numeric(df["block_num"], errors="coerce").fillna(-1).astype(int)
    df["block_line"] = pd.to_numeric(df["block_line"], errors="coerce").fillna(0).astype(int)
    return df.reset_index(drop=True)


def first_content_y(lines: pd.DataFrame, furniture: pd.Series) -> dict[int, float]:
    body = lines[~furniture]
    if body.empty:
        return {}
    return {int(p): float(y) for p, y in body.groupby("page_num")["y0"].min().items()}


def assemble(doc: Any, doc_id: str, lines: pd.DataFrame, page_labels: list[str]) -> tuple[list, list, list]:
    n_pages = int(getattr(doc, "page_count", 0) or (int(lines["page_num"].max()) if len(lines) else 0))
    df = prepare_lines(lines)
    logical = L.logical_lines(df)
    furniture = L.furniture_mask(logical, n_pages)
    leaders = L.leader_mask(logical)
    contents = L.contents_pages(logical, leaders)
    on_contents = logical["page_num"].isin(contents) | leaders
    top_y = first_content_y(logical, furniture)

    raw = read_outline(doc)
    if raw:
        entries = outline_entries(raw, logical[~furniture & ~on_contents])
    else:
        from docintel.parsing.structure.headings import toc_without_outline

        entries = toc_without_outline(logical, furniture, on_contents, contents, page_labels, n_pages)
    toc_rows = finalize_toc(entries, doc_id, n_pages, top_y)

    style = L.body_style(df)
    arrays = L.LineArrays(df)
    objects = caption_rows(logical, arrays, style, furniture | on_contents)
    taken = {(o["object_type"], o["object_id"]) for o in objects}
    for o in appendix_rows(toc_rows, logical):
        if (o["object_type"], o["object_id"]) not in taken:
            objects.append(o)
            taken.add((o["object_type"], o["object_id"]))

    citation_pages = {
        p
        for r in toc_rows
        if r["page_start"] is not None and r["title"].strip().lower() in ("references", "bibliography", "works cited", "literature cited")
        for p in range(r["page_start"], (r["page_end"] or r["page_start"]) + 1)
    }
    refs = native_link_rows(doc, arrays, citation_pages) + toc_anchor_rows(toc_rows) + object_anchor_rows(objects)
    for r in toc_rows:
        r.pop("kind", None)
    return toc_rows, objects, refs
