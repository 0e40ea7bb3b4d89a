"""Line preparation shared by headings, captions and contents pages.

Everything here is vectorised over the whole ``line_df`` once:

* :func:`logical_lines` joins fragments that PyMuPDF splits on one baseline ("3.5" + "Positional
  Encoding", "Table 1:" + caption) into one row that keeps the first fragment's ``line_num``;
* :func:`body_style` is the document's dominant font size / font (by characters);
* :func:`furniture_mask` marks running headers and footers (same text, digits ignored, on many
  pages);
* :func:`leader_mask` marks contents-page entries (dotted leaders, a trailing page label).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

_BARE_LABEL = r"(?:§?\s*(?:\d{1,2}(?:\.\d{1,3}){0,5}|[A-Z](?:\.\d{1,3}){1,4})\.?|(?:table|figure|fig\.|exhibit|appendix|annex|schedule)\s+[\w.\-]{1,6}[.:]?)"
_LEADER = r"(?:\.\s?){4,}|…{2,}|(?:_\s?){6,}"
LEADER_LINE = re.compile(rf"(?:{_LEADER})\s*(?:[ivxlcdmIVXLCDM]{{1,6}}|[A-Z]{{0,2}}-?\d{{1,4}})?\s*$")


@dataclass(frozen=True)
class BodyStyle:
    size: float
    font: str


def body_style(lines: pd.DataFrame) -> BodyStyle:
    """Dominant font size (rounded to 0.5 pt) and font, weighted by characters."""
    if lines.empty:
        return BodyStyle(10.0, "")
    n = lines["text"].str.len()
    size = (lines["font_size"].astype(float) * 2).round() / 2
    by_size = n.groupby(size).sum()
    by_font = n.groupby(lines["font"].fillna("")).sum()
    return BodyStyle(float(by_size.idxmax()), str(by_font.idxmax()))


def logical_lines(lines: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``lines`` with same-baseline fragments joined.

    A fragment joins the previous row when both sit on one baseline of one page, it starts to
    the right of the previous one, and either they share a PyMuPDF block or the previous one is
    a bare label ("3.5", "Table 1:", "Appendix A") close to its left. The joined row keeps the
    first fragment's ``line_num``/``y0`` and gets ``line_end`` (last fragment's line_num) and
    ``n_frag``. Rows come back in (page_num, line_num) order with a fresh RangeIndex.
    """
    if lines.empty:
        out = lines.copy()
        out["line_end"] = pd.Series(dtype="int64")
        out["n_frag"] = pd.Series(dtype="int64")
        return out
    df = lines.sort_values(["page_num", "line_num"], kind="stable").reset_index(drop=True)
    page = df["page_num"].to_numpy()
    y0 = df["y0"].to_numpy(float)
    y1 = df["y1"].to_numpy(float)
    x0 = df["x0"].to_numpy(float)
    x1 = df["x1"].to_numpy(float)
    block = df["block_num"].fillna(-1).to_numpy()
    text = df["text"].fillna("")
    bare = text.str.fullmatch(_BARE_LABEL, case=False).to_numpy()
    same = np.zeros(len(df), dtype=bool)
    height = np.maximum(y1 - y0, 1.0)
    same[1:] = (
        (page[1:] == page[:-1])
        & (np.abs(y0[1:] - y0[:-1]) < 0.45 * height[:-1])
        & (np.abs(y1[1:] - y1[:-1]) < 0.6 * height[:-1])
        & (x0[1:] >= x1[:-1] - 2.0)
        & (((block[1:] == block[:-1]) & (x0[1:] - x1[:-1] < 80)) | (bare[:-1] & (x0[1:] - x1[:-1] < 60)))
    )
    group = np.cumsum(~same)
    df["_g"] = group
    df["line_end"] = df["line_num"]
    df["n_frag"] = 1
    if not same.any():
        return df.drop(columns="_g")
    multi = df["_g"].isin(np.unique(group[same]))
    parts = df[multi]
    joined = parts.groupby("_g", sort=False).agg(
        text=("text", " ".join),
        x1=("x1", "max"),
        y1=("y1", "max"),
        line_end=("line_num", "max"),
        n_frag=("line_num", "size"),
        bold=("bold", "max"),
        font_size=("font_size", "max"),
    )
    first = parts.drop_duplicates("_g").set_index("_g")
    for col in joined.columns:
        first[col] = joined[col]
    first = first.reset_index()
    out = pd.concat([df[~multi], first], ignore_index=True)
    out = out.sort_values(["page_num", "line_num"], kind="stable").reset_index(drop=True)
    return out.drop(columns="_g")


def furniture_mask(lines: pd.DataFrame, n_pages: int) -> pd.Series:
    """True for running headers/footers: same text (digits ignored) on >= 30% of pages (>= 3)."""
    if lines.empty or n_pages < 3:
        return pd.Series(False, index=lines.index)
    key = lines["text"].str.replace(r"\d+", "#", regex=True).str.lower()
    pages_per_key = lines.assign(_k=key).groupby("_k")["page_num"].nunique()
    frequent = set(pages_per_key[pages_per_key >= max(3, 0.3 * n_pages)].index)
    # a heading that merely recurs ("Introduction") is rare; page numbers like "v", "12" also count
    mask = key.isin(frequent)
    mask |= lines["text"].str.fullmatch(r"(?:page\s+)?[ivxlcdm]{1,6}|(?:page\s+)?\d{1,4}(?:\s+of\s+\d+)?", case=False)
    return mask


def leader_mask(lines: pd.DataFrame) -> pd.Series:
    """True for lines with dotted leaders (contents / list-of-tables entries)."""
    return lines["text"].str.contains(LEADER_LINE, regex=True)


def contents_pages(lines: pd.DataFrame, leaders: pd.Series) -> set[int]:
    """Pages that are contents / list-of-figures pages: >= 3 leader lines, or a "Contents" title
    with many lines ending in a page number."""
    if lines.empty:
        return set()
    counts = leaders.groupby(lines["page_num"]).sum()
    pages = set(counts[counts >= 3].index.astype(int))
    titled = lines["text"].str.fullmatch(
        r"(?:table of )?contents|list of (?:tables|figures|exhibits|appendices|illustrations)", case=False
    )
    ends_num = lines["text"].str.contains(r"\s(?:\d{1,4}|[ivxlc]{1,6})$", regex=True)
    share = ends_num.groupby(lines["page_num"]).mean()
    for p in lines.loc[titled, "page_num"].unique():
        if share.get(p, 0) >= 0.3:
            pages.add(int(p))
    return pages
