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
    df["line_end"] = df["line_num"]
    df["n_frag"] = 1
    if not same.any():
        return df
    # join each run of fragments into its first row (few rows: plain Python is cheapest)
    texts = text.tolist()
    line_num = df["line_num"].to_numpy()
    bold = df["bold"].to_numpy(bool).copy()
    size = df["font_size"].to_numpy(float).copy()
    new_text = list(texts)
    line_end = line_num.copy()
    n_frag = np.ones(len(df), dtype=np.int64)
    keep = ~same
    x1 = x1.copy()
    y1 = y1.copy()
    head = -1
    for i in np.flatnonzero(same | np.r_[same[1:], False]):
        if not same[i]:
            head = i
            continue
        new_text[head] = new_text[head] + " " + texts[i]
        x1[head] = max(x1[head], x1[i])
        y1[head] = max(y1[head], y1[i])
        line_end[head] = line_num[i]
        n_frag[head] += 1
        bold[head] = bold[head] or bold[i]
        size[head] = max(size[head], size[i])
    df["text"] = new_text
    df["x1"] = x1
    df["y1"] = y1
    df["line_end"] = line_end
    df["n_frag"] = n_frag
    df["bold"] = bold
    df["font_size"] = size
    return df[keep].reset_index(drop=True)


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


class LineArrays:
    """Columns of a line table sorted by (page_num, line_num), as numpy arrays, with per-page
    slices: cheap bbox lookups without pandas indexing in loops."""

    def __init__(self, lines: pd.DataFrame):
        df = lines.sort_values(["page_num", "line_num"], kind="stable") if len(lines) else lines
        self.page = df["page_num"].to_numpy(np.int64) if len(df) else np.zeros(0, np.int64)
        self.line_num = df["line_num"].to_numpy(np.int64) if len(df) else np.zeros(0, np.int64)
        self.block = df["block_num"].to_numpy(np.int64) if len(df) else np.zeros(0, np.int64)
        self.box = df[["x0", "y0", "x1", "y1"]].to_numpy(float) if len(df) else np.zeros((0, 4))
        self.text: list[str] = df["text"].tolist() if len(df) else []

    def page_slice(self, page: int) -> slice:
        lo = int(np.searchsorted(self.page, page, "left"))
        hi = int(np.searchsorted(self.page, page, "right"))
        return slice(lo, hi)

    def line_at(self, page: int, rect: tuple[float, float, float, float]) -> int | None:
        """line_num of the page's line with the largest overlap with ``rect``."""
        sl = self.page_slice(page)
        b = self.box[sl]
        if not len(b):
            return None
        rx0, ry0, rx1, ry1 = rect
        ix = np.clip(np.minimum(b[:, 2], rx1) - np.maximum(b[:, 0], rx0), 0, None)
        iy = np.clip(np.minimum(b[:, 3], ry1) - np.maximum(b[:, 1], ry0), 0, None)
        area = ix * iy
        k = int(area.argmax())
        if area[k] <= 0:
            return None
        return int(self.line_num[sl][k])

    def row_neighbours(self, page: int, box: tuple[float, float, float, float]) -> int:
        """How many other lines of the page sit on the same row as ``box`` (vertical overlap of
        more than half the height, no horizontal overlap) within 250 pt: table cells do."""
        sl = self.page_slice(page)
        b = self.box[sl]
        x0, y0, x1, y1 = box
        h = max(y1 - y0, 1.0)
        iy = np.minimum(b[:, 3], y1) - np.maximum(b[:, 1], y0)
        ix = np.minimum(b[:, 2], x1) - np.maximum(b[:, 0], x0)
        near = (b[:, 0] < x1 + 250) & (b[:, 2] > x0 - 250)
        return int(((iy > 0.5 * h) & (ix <= 0) & near).sum())

    def block_after(self, page: int, block: int, after_line: int, limit: int = 12) -> tuple[int, list[float]] | None:
        """(last line_num, union bbox) of the lines of ``block`` after ``after_line``, when the
        block is small (<= ``limit`` lines: a caption, not a text column)."""
        sl = self.page_slice(page)
        in_block = self.block[sl] == block
        if not in_block.any() or int(in_block.sum()) > limit:
            return None
        sel = in_block & (self.line_num[sl] > after_line)
        if not sel.any():
            return None
        b = self.box[sl][sel]
        return int(self.line_num[sl][sel].max()), [float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())]
