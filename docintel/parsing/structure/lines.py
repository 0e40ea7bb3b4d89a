"""Line preparation shared by headings, captions, contents pages and links.

Structure runs on every document at ingest, so the line table is turned once into numpy arrays
plus a Python list of texts (:class:`Lines`); every later step filters with array masks or
cheap string tests first and runs a regular expression only on the few lines left.

* :func:`logical_lines` joins fragments that PyMuPDF splits on one baseline ("3.5" + "Positional
  Encoding", "Table 1:" + caption) into one line that keeps the first fragment's ``line_num``;
* :func:`body_style` is the document's dominant font size / font (by characters);
* :func:`furniture_mask` marks running headers and footers (same text, digits ignored, in the
  top or bottom band of many pages, and bare page numbers there);
* :func:`leader_mask` marks contents-page entries (dotted leaders, a trailing page label);
* :func:`contents_pages` finds the printed contents / list-of-figures pages.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

_BARE_LABEL = re.compile(
    r"(?:§?\s*(?:\d{1,2}(?:\.\d{1,3}){0,5}|[A-Z](?:\.\d{1,3}){1,4})\.?"
    r"|(?:table|figure|fig\.|exhibit|appendix|annex|schedule)\s+[\w.\-]{1,6}[.:]?)",
    re.IGNORECASE,
)
_PAGE_NUMBER = re.compile(r"(?:page\s+)?(?:[ivxlcdm]{1,6}|[A-Z]?-?\d{1,4})(?:\s+of\s+\d+)?", re.IGNORECASE)
_CONTENTS_TITLE = re.compile(
    r"(?:table of )?contents|list of (?:tables|figures|exhibits|appendices|illustrations)", re.IGNORECASE
)


@dataclass(frozen=True)
class BodyStyle:
    size: float
    font: str


class Lines:
    """A line table as arrays, sorted by (page_num, line_num). ``line_end`` is the last
    fragment's line_num for joined logical lines (= line_num otherwise)."""

    __slots__ = ("text", "font", "page", "line_num", "line_end", "block", "block_line", "box", "size", "bold", "font_code", "font_names")

    def __init__(self, text, font, page, line_num, line_end, block, block_line, box, size, bold, font_code=None, font_names=None):
        self.text: list[str] = text
        self.font = font  # font name per line (sequence of str)
        self.page = page
        self.line_num = line_num
        self.line_end = line_end
        self.block = block
        self.block_line = block_line
        self.box = box  # (n, 4): x0, y0, x1, y1
        self.size = size
        self.bold = bold
        if font_code is None:  # factorise the font names: per-font facts become array lookups
            index: dict[str, int] = {}
            font_code = np.fromiter((index.setdefault(f, len(index)) for f in font), dtype=np.int64, count=len(font))
            font_names = list(index)
        self.font_code = font_code
        self.font_names: list[str] = font_names

    @classmethod
    def from_frame(cls, df: Any) -> "Lines":
        """From a line_df DataFrame (LINE_DF columns; missing style columns get defaults)."""
        import pandas as pd

        n = 0 if df is None else len(df)
        if n == 0:
            return cls.empty()
        cols = df.columns

        def num(name: str, dtype: Any, default: float) -> np.ndarray:
            if name not in cols:
                return np.full(n, default, dtype=dtype)
            raw = df[name].to_numpy()
            if raw.dtype.kind in "iub" or (raw.dtype.kind == "f" and not np.isnan(raw).any()):
                return raw.astype(dtype, copy=False)
            a = np.asarray(df[name].to_numpy(dtype=float, na_value=default), dtype=float)
            return a.astype(dtype)

        text_col = df["text"]
        if n > 5000 and pd.api.types.is_string_dtype(text_col) and not pd.api.types.is_object_dtype(text_col):
            keep = (text_col.str.strip().str.len() > 0).fillna(False).to_numpy(dtype=bool)
            text = text_col.fillna("").tolist()
        else:
            text = ["" if t is None or t != t else str(t) for t in text_col.tolist()]
            keep = np.fromiter((bool(t.strip()) for t in text), dtype=bool, count=n)
        page = num("page_num", np.int64, 0)
        line_num = num("line_num", np.int64, 0)
        order = np.lexsort((line_num, page))
        order = order[keep[order]]
        if "font" in cols and n > 5000:
            codes, uniques = pd.factorize(df["font"].fillna("").astype(str))
            names = [str(u) for u in uniques]
        elif "font" in cols:
            index: dict[str, int] = {}
            codes = np.fromiter(
                (index.setdefault(f if isinstance(f, str) else "", len(index)) for f in df["font"].tolist()),
                dtype=np.int64,
                count=n,
            )
            names = list(index)
        else:
            codes, names = np.zeros(n, dtype=np.int64), [""]
        codes = np.asarray(codes, dtype=np.int64)[order]
        if not names:
            names = [""]
        bold = num("bold", float, 0.0) > 0
        box = np.column_stack([num(c, float, 0.0) for c in ("x0", "y0", "x1", "y1")])
        return cls(
            [text[i] for i in order.tolist()],
            np.asarray(names, dtype=object)[codes],
            page[order],
            line_num[order],
            line_num[order].copy(),
            num("block_num", np.int64, -1)[order],
            num("block_line", np.int64, 0)[order],
            box[order],
            num("font_size", float, 0.0)[order],
            bold[order],
            codes,
            names,
        )

    @classmethod
    def empty(cls) -> "Lines":
        z = np.zeros(0, dtype=np.int64)
        return cls([], [], z, z, z, z, z, np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=bool), z, [""])

    def __len__(self) -> int:
        return len(self.text)

    def take(self, idx: np.ndarray) -> "Lines":
        idx = np.asarray(idx, dtype=np.int64)
        return Lines(
            [self.text[i] for i in idx],
            np.asarray(self.font, dtype=object)[idx],
            self.page[idx],
            self.line_num[idx],
            self.line_end[idx],
            self.block[idx],
            self.block_line[idx],
            self.box[idx],
            self.size[idx],
            self.bold[idx],
            self.font_code[idx],
            self.font_names,
        )

    # -- per-page access -------------------------------------------------------------------
    def page_slice(self, page: int) -> slice:
        lo = int(np.searchsorted(self.page, page, "left"))
        hi = int(np.searchsorted(self.page, page, "right"))
        return slice(lo, hi)

    def row_neighbours(self, page: int, box: Sequence[float]) -> int:
        """How many other lines of the page sit on the same row as ``box`` (vertical overlap of
        more than half its height, no horizontal overlap) within 250 pt: table cells do."""
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
        return int(self.line_num[sl][sel].max()), [
            float(b[:, 0].min()),
            float(b[:, 1].min()),
            float(b[:, 2].max()),
            float(b[:, 3].max()),
        ]

    def find(self, page: int, line_num: int) -> int | None:
        """Row index of (page_num, line_num), or None."""
        sl = self.page_slice(page)
        k = int(np.searchsorted(self.line_num[sl], line_num))
        if k < sl.stop - sl.start and int(self.line_num[sl.start + k]) == line_num:
            return sl.start + k
        return None


def body_style(lines: Lines) -> BodyStyle:
    """Dominant font size (rounded to 0.5 pt) and font, weighted by characters."""
    if not len(lines):
        return BodyStyle(10.0, "")
    n = np.fromiter((len(t) for t in lines.text), dtype=np.int64, count=len(lines))
    size = np.round(lines.size * 2) / 2
    sizes, inv = np.unique(size, return_inverse=True)
    best_size = float(sizes[int(np.bincount(inv, weights=n).argmax())])
    weights = np.bincount(lines.font_code, weights=n, minlength=len(lines.font_names))
    return BodyStyle(best_size, lines.font_names[int(weights.argmax())])


def logical_lines(lines: Lines) -> Lines:
    """``lines`` with same-baseline fragments joined.

    A fragment joins the previous line when both sit on one baseline of one page, it starts to
    the right of the previous one, and either they share a PyMuPDF block or the previous one is
    a bare label ("3.5", "Table 1:", "Appendix A") close to its left. The joined line keeps the
    first fragment's ``line_num``/``y0``, is bold/large if any fragment is, and gets
    ``line_end`` = the last fragment's line_num.
    """
    n = len(lines)
    if n < 2:
        return lines
    page, block = lines.page, lines.block
    x0, y0, x1, y1 = lines.box[:, 0], lines.box[:, 1], lines.box[:, 2], lines.box[:, 3]
    height = np.maximum(y1 - y0, 1.0)
    geom = (
        (page[1:] == page[:-1])
        & (np.abs(y0[1:] - y0[:-1]) < 0.45 * height[:-1])
        & (np.abs(y1[1:] - y1[:-1]) < 0.6 * height[:-1])
        & (x0[1:] >= x1[:-1] - 2.0)
    )
    gap = x0[1:] - x1[:-1]
    same = np.zeros(n, dtype=bool)
    same[1:] = geom & (block[1:] == block[:-1]) & (gap < 80)
    # a bare label ("3.5", "Table 1:") joins the next fragment even across PyMuPDF blocks
    maybe = np.flatnonzero(geom & ~same[1:] & (gap < 60))
    for i in maybe:
        t = lines.text[i]
        if len(t) <= 16 and _BARE_LABEL.fullmatch(t):
            same[i + 1] = True
    if not same.any():
        return lines
    starts = np.flatnonzero(~same)
    ends = np.r_[starts[1:], n]
    text = lines.text
    joined = [
        text[a] if b - a == 1 else " ".join(text[a:b]) for a, b in zip(starts.tolist(), ends.tolist())
    ]
    box = lines.box[starts].copy()
    box[:, 2] = np.maximum.reduceat(lines.box[:, 2], starts)
    box[:, 3] = np.maximum.reduceat(lines.box[:, 3], starts)
    return Lines(
        joined,
        np.asarray(lines.font, dtype=object)[starts],
        lines.page[starts],
        lines.line_num[starts],
        lines.line_num[ends - 1],
        lines.block[starts],
        lines.block_line[starts],
        box,
        np.maximum.reduceat(lines.size, starts),
        np.logical_or.reduceat(lines.bold, starts),
        lines.font_code[starts],
        lines.font_names,
    )


_TRAIL_LABEL = re.compile(r"(?:[ivxlcdmIVXLCDM]{1,6}|[A-Z]{0,2}-?\d{1,4})$")
_LEADER_TAIL = re.compile(r"(?:(?:\.\s?){4}|…{2}|(?:_\s?){6})$")


def has_leader(text: str) -> bool:
    """Dotted (or underscored) leaders at the end of a line, before an optional page label.

    Written without a search over the whole line: forms are full of long "______" runs, on
    which a backtracking regular expression is quadratic."""
    if not ("...." in text or ". . . ." in text or "……" in text or "____" in text or "_ _ _ _" in text):
        return False
    s = text.rstrip()
    m = _TRAIL_LABEL.search(s[-8:])
    if m:
        s = s[: len(s) - (len(s[-8:]) - m.start())].rstrip()
    tail = _LEADER_TAIL.search(s[-14:])
    # "Name ________" without a page label is a form field, not a contents entry
    return bool(tail) and (m is not None or "_" not in tail.group())


def leader_mask(lines: Lines) -> np.ndarray:
    """True for lines with dotted leaders (contents / list-of-tables entries)."""
    return np.fromiter((has_leader(t) for t in lines.text), dtype=bool, count=len(lines))


def on_contents_mask(lines: Lines, leaders: np.ndarray, contents: set[int]) -> np.ndarray:
    """True for contents entries: lines with leaders and every line of a contents page."""
    out = leaders.copy()
    for p in contents:
        out[lines.page_slice(p)] = True
    return out


def furniture_mask(lines: Lines, n_pages: int) -> np.ndarray:
    """True for running headers/footers: lines in the top or bottom band of their page whose
    text (digits ignored) recurs on >= 30% of the pages (>= 3), and bare page numbers there."""
    n = len(lines)
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    height = float(lines.box[:, 3].max()) + 36.0  # the text area's bottom plus a margin
    band = ((lines.box[:, 1] < 0.1 * height) | (lines.box[:, 3] > 0.9 * height)).nonzero()[0]
    keys: dict[str, set[int]] = {}
    key_of: dict[int, str] = {}
    for i in band.tolist():
        t = lines.text[i]
        if _PAGE_NUMBER.fullmatch(t.strip()):
            out[i] = True
            continue
        k = re.sub(r"\d+", "#", t.lower())
        key_of[i] = k
        keys.setdefault(k, set()).add(int(lines.page[i]))
    if n_pages >= 3:
        need = max(3, 0.3 * n_pages)
        for i, k in key_of.items():
            if len(keys[k]) >= need:
                out[i] = True
    return out


def contents_pages(lines: Lines, leaders: np.ndarray) -> set[int]:
    """Pages that are contents / list-of-figures pages: >= 3 leader lines, or a "Contents" title
    with many lines ending in a page number."""
    if not len(lines):
        return set()
    pages: set[int] = set()
    if leaders.any():
        counts = Counter(lines.page[leaders].tolist())
        pages = {int(p) for p, c in counts.items() if c >= 3}
    for i, t in enumerate(lines.text):
        if len(t) <= 40 and ("ontents" in t or "ONTENTS" in t or "ist of" in t or "IST OF" in t) and _CONTENTS_TITLE.fullmatch(t.strip()):
            p = int(lines.page[i])
            sl = lines.page_slice(p)
            texts = lines.text[sl.start : sl.stop]
            ends = sum(1 for s in texts if re.search(r"\s(?:\d{1,4}|[ivxlc]{1,6})$", s))
            if texts and ends >= 0.3 * len(texts):
                pages.add(p)
    return pages


def first_content_y(lines: Lines, furniture: np.ndarray) -> dict[int, float]:
    """Per page, the top of the first line that is not a running header/footer."""
    keep = ~furniture
    out: dict[int, float] = {}
    for p, y in zip(lines.page[keep].tolist(), lines.box[keep, 1].tolist()):
        if p not in out or y < out[p]:
            out[p] = y
    return out
