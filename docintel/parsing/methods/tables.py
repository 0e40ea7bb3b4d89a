"""Table structure recovery (reason ``flat_table``): one ``table_row`` line per logical row.

How a table is read:

1. Regions: PyMuPDF ``find_tables(strategy="lines", use_layout=False)`` finds ruled tables
   (grids, and booktabs tables that have a few vertical rules); a "Table N" caption with
   horizontal rules near it finds booktabs and borderless tables the line strategy misses; a
   grid of mostly numbers finds a borderless table without a caption (a tax rate schedule, a
   payroll chart: :func:`docintel.parsing.grid.number_grids`), its header the lines above its
   first row of numbers.
   The layout model is not used: it makes ``find_tables`` ~7x slower and the rules plus word
   geometry suffice here.
2. Words come from the page's characters, with sub- and superscripts glued to their base
   (``d_model``, ``x10^6``), so a header's subscripts do not become a row of their own.
3. Columns are the page's vertical rules plus the whitespace gaps that no body word crosses;
   rows are text lines, grouped into bands by the horizontal rules that cross the table.
4. The header is everything above the first full-width rule that has text on both sides (or the
   first line); its lines are merged per column, and a header that sits over a partial rule
   (a merged "POTENTIAL IMPACT" cell, a cmidrule) is given to every column under that rule.
5. A band between two rules is one logical row whose cells wrap (merged line by line), unless it
   carries one group label and numeric sub-rows (Table 3 rows (A)-(D)): then each sub-row is a
   row and keeps the group label as its key. Without rules, a line with an empty first column
   and no numbers continues the row above.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable

from docintel.glyphs import glyph_text, is_symbol_font
from docintel.parsing.columns import assign_columns, low_runs
from docintel.parsing.grid import YEAR, is_numeric, number_grids
from docintel.parsing.rules import Rule, page_rules
from docintel.parsing.fitz import pymupdf
from docintel.parsing.methods.base import MethodResult, PageInput, number_lines
from docintel.settings import Settings

METHOD = "pymupdf_tables"

CAPTION_RE = re.compile(r"^\s*(?:Table|TABLE)\s+([A-Z]?\d+(?:[.\-]\d+)*[a-z]?|[A-Z](?:[.\-]\d+)*)(?=[\s.:—–])(?:\s*[.:—–]|\s+-\s)")
_BARE_CAPTION_RE = re.compile(r"^\s*(?:Table|TABLE)\s+([A-Z]?\d+(?:[.\-]\d+)*[a-z]?|[A-Z](?:[.\-]\d+)*)\s+[A-Z(]")
"""A caption without punctuation after its number ("Table 2-1 Normative and Informative
Sections"): accepted when its "Table N" is bold, so prose ("Table 2 Shows ...") is not."""
GRID_HEADER_WORDS = 8  # words of a captionless grid's header cell kept (those nearest the cells)
GRID_MIN_ROWS = 3  # rows of numbers under a grid's header that show the lines above them are all header
_CURRENCY_GAP = re.compile(r"(?<!\S)([$€£])\s+(?=\d)")
_LEADER_RE = re.compile(r"\s*(?:\.\s?){4,}\s*$")  # dot leaders: "AFM revisions ......"


# -- geometry primitives ---------------------------------------------------------------------


@dataclass
class Word:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    size: float
    bold: bool = False
    turn: int = 0  # a line set vertically, whole: -1 read upwards, 1 read downwards

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass
class WordGroup:
    """Words that belong together; the box around them."""

    words: list[Word]

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def y0(self) -> float:
        return min(w.y0 for w in self.words)

    @property
    def y1(self) -> float:
        return max(w.y1 for w in self.words)

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass
class Segment(WordGroup):
    """Words of one text line that stand together (no column gap between them)."""

    @property
    def text(self) -> str:
        return _LEADER_RE.sub("", " ".join(w.text for w in self.words)).strip() or " ".join(w.text for w in self.words)


@dataclass
class Line(WordGroup):
    """The words of one text line."""


@dataclass
class TableRow:
    cells: list[str]  # one per column, "" when empty
    key: str | None
    bbox: tuple[float, float, float, float]
    spanning: dict[int, list[int]] = field(default_factory=dict)  # start column -> columns it spans
    group: str | None = None  # label of a stacked group ("(A)")


@dataclass
class ExtractedTable:
    object_key: str
    caption: str | None
    bbox: tuple[float, float, float, float]
    headers: list[str]
    header_bbox: tuple[float, float, float, float] | None
    rows: list[TableRow]
    source: str  # lines | caption | grid
    cell_headers: list[str] | None = None  # the headers a row's cells are named by, when shorter

    def grid(self) -> list[list[str]]:
        """Header row then body rows, one string per column (for benchmarks and debugging)."""
        return [list(self.headers)] + [list(r.cells) for r in self.rows]


# -- words and rules ---------------------------------------------------------------------------


def page_words(page: Any) -> list[Word]:
    """Words from the page's characters, sub/superscripts attached to the word they follow;
    a line set vertically is one word of its own (``turn``), read only as a column's header
    (SP 800-63B's Table 10-1 names its columns so: "Memorized secrets", "Look-up Secrets")."""
    m = pymupdf()
    flags = (m.TEXTFLAGS_RAWDICT & ~m.TEXT_PRESERVE_IMAGES) | m.TEXT_MEDIABOX_CLIP
    raw = page.get_text("rawdict", flags=flags)
    words: list[Word] = []
    turned: list[Word] = []
    for block in raw["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for line in block["lines"]:
            if abs(line["dir"][1]) > 0.2:  # vertical text is no cell we can pair ...
                text = " ".join("".join(glyph_text(s["font"], "".join(ch["c"] for ch in s["chars"])) for s in line["spans"]).split())
                if abs(line["dir"][0]) < 0.05 and text:  # ... but may name a column
                    x0, y0, x1, y1 = line["bbox"]
                    size = max(s["size"] for s in line["spans"])
                    turned.append(Word(x0, y0, x1, y1, text, size, turn=-1 if line["dir"][1] < 0 else 1))
                continue
            for span in line["spans"]:
                size = span["size"]
                bold = bool(span["flags"] & 16) or "bold" in span["font"].lower()
                chars = span["chars"]
                if is_symbol_font(span["font"]):
                    chars = [dict(ch, c=glyph_text(span["font"], ch["c"])) for ch in chars]
                cur: list[dict] = []
                for ch in chars:
                    c = ch["c"]
                    if c.isspace() or (cur and ch["bbox"][0] - cur[-1]["bbox"][2] > 0.25 * size):
                        if cur:
                            words.append(_word(cur, size, bold))
                        cur = [] if c.isspace() else [ch]
                        continue
                    cur.append(ch)
                if cur:
                    words.append(_word(cur, size, bold))
    return _glue_touching(_attach_scripts(words)) + turned


def _glue_touching(words: list[Word]) -> list[Word]:
    """Words of one size on one baseline that touch are one word ("×" + "10^6" from two fonts)."""
    out: list[Word] = []
    for w in sorted(words, key=lambda w: (round(w.y1), w.x0)):
        prev = out[-1] if out else None
        if prev and abs(prev.y1 - w.y1) < 1.0 and abs(prev.size - w.size) < 0.5 and -0.5 <= w.x0 - prev.x1 <= 0.3:
            prev.text += w.text
            prev.x1 = max(prev.x1, w.x1)
            continue
        out.append(w)
    return out


def _word(chars: list[dict], size: float, bold: bool) -> Word:
    x0 = min(c["bbox"][0] for c in chars)
    x1 = max(c["bbox"][2] for c in chars)
    # glyph boxes vary with font metrics: use the baseline and the font size instead
    base = sum(c["origin"][1] for c in chars) / len(chars)
    return Word(x0, base - 0.75 * size, x1, base + 0.2 * size, "".join(c["c"] for c in chars), size, bold)


def _attach_scripts(words: list[Word]) -> list[Word]:
    """Glue a smaller word that touches the end of a bigger one: d + model -> d_model."""
    words = sorted(words, key=lambda w: (w.x0, w.y0))
    out: list[Word] = []
    small = []
    sizes = sorted(w.size for w in words)
    body = sizes[len(sizes) // 2] if sizes else 0
    for w in words:
        if w.size < 0.8 * body:
            small.append(w)
        else:
            out.append(w)
    for s in sorted(small, key=lambda w: w.x0):
        host = None
        for w in out:
            if w.size > 1.15 * s.size and -1.0 <= s.x0 - w.x1 <= 1.5 and s.y1 > w.y0 and s.y0 < w.y1:
                if host is None or abs(s.x0 - w.x1) < abs(s.x0 - host.x1):
                    host = w
        if host is None:
            out.append(s)
            continue
        s_base = s.y1 - 0.2 * s.size
        h_base = host.y1 - 0.2 * host.size
        mark = "_" if s_base > h_base + 0.5 else "^"
        host.text = f"{host.text}{mark}{s.text}"
        host.x1 = max(host.x1, s.x1)
    return out


def group_lines(words: Iterable[Word]) -> list[Line]:
    lines: list[Line] = []
    for w in sorted(words, key=lambda w: (w.cy, w.x0)):
        for line in reversed(lines[-6:]):
            overlap = min(line.y1, w.y1) - max(line.y0, w.y0)
            if overlap >= 0.5 * min(line.y1 - line.y0, w.y1 - w.y0):
                line.words.append(w)
                break
        else:
            lines.append(Line([w]))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
    return sorted(lines, key=lambda ln: ln.cy)


def segments(line: Line, cuts: Iterable[float] = (), rules: Iterable[float] = ()) -> list[Segment]:
    """Split a line where the gap between words is a column gap, crosses a vertical rule, or
    crosses a column cut and is wider than a word space."""
    out: list[Segment] = []
    for w in line.words:
        if out:
            prev = out[-1].words[-1]
            gap = w.x0 - prev.x1
            size = max(prev.size, w.size)
            cut = any(prev.x1 - 0.5 <= c <= w.x0 + 0.5 for c in rules) or (
                gap >= 0.4 * size and any(prev.x1 - 0.5 <= c <= w.x0 + 0.5 for c in cuts)
            )
            if gap <= max(0.55 * size, 2.5) and not cut:
                out[-1].words.append(w)
                continue
        out.append(Segment([w]))
    return out


# -- regions -----------------------------------------------------------------------------------


def _captions(page: Any, words: list[Word]) -> list[tuple[str, Line, str]]:
    """"Table N" captions from PyMuPDF's own lines (column-aware: a caption in the right column
    of a two-column page is not glued to the left column's line at the same height)."""
    m = pymupdf()
    out = []
    natives: dict[tuple[int, int], list] = {}
    for w in page.get_text("words", flags=m.TEXT_MEDIABOX_CLIP):
        natives.setdefault((w[5], w[6]), []).append(w)
    for ws in natives.values():
        text = " ".join(w[4] for w in ws)
        found = CAPTION_RE.match(text) or _BARE_CAPTION_RE.match(text)
        if not found:
            continue
        x0, y0 = min(w[0] for w in ws), min(w[1] for w in ws)
        x1, y1 = max(w[2] for w in ws), max(w[3] for w in ws)
        mine = [w for w in words if x0 - 1 <= (w.x0 + w.x1) / 2 <= x1 + 1 and y0 - 1 <= w.cy <= y1 + 1]
        if mine and not CAPTION_RE.match(text) and not all(w.bold for w in sorted(mine, key=lambda w: w.x0)[:2]):
            continue
        if mine:
            out.append((found.group(1).rstrip(".:"), Line(sorted(mine, key=lambda w: w.x0)), text))
    return out


def _line_text(line: Line) -> str:
    return " ".join(w.text for w in line.words)


def may_hold_ruled_table(page: Any, vrules: list[Rule], boxes: list) -> bool:
    """False when the "lines" strategy cannot find a table: no vertical edge on the page (no
    vertical line, no rectangle, no quad), so no cell can close. Spares ``find_tables``, whose
    character extraction is most of this method's time on a booktabs or label-table page."""
    if vrules or boxes:
        return True
    for d in page.get_drawings():
        for item in d["items"]:
            if item[0] == "l" and abs(item[1].y - item[2].y) >= 3 and abs(item[1].x - item[2].x) < 3:
                return True
            if item[0] in ("re", "qu") and (item[1] if item[0] == "re" else item[1].rect).height >= 3:
                return True
    return False


def find_regions(page: Any, words: list[Word], hrules: list[Rule], vrules: list[Rule],
                 boxes: list | None = None) -> list[tuple[Any, str]]:
    """(Rect, source) of every table on the page."""
    m = pymupdf()
    regions: list[tuple[Any, str]] = []
    tables = []
    if boxes is None or may_hold_ruled_table(page, vrules, boxes):
        try:
            found = page.find_tables(strategy="lines", use_layout=False)
            tables = found.tables if found else []
        except Exception:  # a malformed page: fall back to captions
            tables = []
    for tab in tables:
        if tab.row_count < 2:
            continue
        for r in _split_by_vrules(m.Rect(tab.bbox), vrules):
            if r.width <= 40 or r.height <= 15:
                continue
            if any(_iou(r, o) > 0.7 for o, _ in regions):
                continue
            inside = [w for w in words if r.contains(m.Point((w.x0 + w.x1) / 2, w.cy))]
            if len(inside) >= 4:
                regions.append((r, "lines"))
    for _id, cap, _text in _captions(page, words):
        cap_rect = m.Rect(min(w.x0 for w in cap.words), cap.y0, max(w.x1 for w in cap.words), cap.y1)
        if any(_near(cap_rect, r) for r, _ in regions):
            continue
        r = _region_from_caption(cap, cap_rect, words, hrules, page.rect)
        if r is not None and not any(r.intersects(o) for o, _ in regions):
            regions.append((r, "caption"))
    for r in _number_grid_regions(page, words):
        if not any(r.intersects(o) for o, _ in regions):
            regions.append((r, "grid"))
    return regions


def _numbers_row(line: Line) -> bool:
    """A line holding a number that is not a year (a body row of a number grid: "Weekly |
    $71.15"; a header may name years: "2010 | 2011") nor runs on ("line 40, is:")."""
    return any(is_numeric(g.text) and not YEAR.match(g.text) and not g.text.endswith(",") for g in segments(line))


def _number_grid_regions(page: Any, words: list[Word]) -> list[Any]:
    """Borderless tables without a caption, found by their numbers (:func:`number_grids` over
    the page's word-gap cells, column by column on a page of text columns)."""
    m = pymupdf()
    cells = [{"x0": g.x0, "y0": g.y0, "x1": g.x1, "y1": g.y1, "text": g.text} for ln in group_lines(words) for g in segments(ln)]
    for cell, column in zip(cells, assign_columns(cells, page.rect.width)[0]):
        cell["column"] = column
    return [m.Rect(b["x0"], b["y0"], b["x1"], b["y1"]) for b in number_grids(cells)]


def _iou(a: Any, b: Any) -> float:
    inter = a & b
    if inter.is_empty:
        return 0.0
    ia = inter.width * inter.height
    return ia / (a.width * a.height + b.width * b.height - ia)


def _split_by_vrules(region: Any, vrules: list[Rule]) -> list[Any]:
    """A line-strategy table that glued two grids (and the text between) back into grids."""
    m = pymupdf()
    inside = [r for r in vrules if region.x0 - 2 <= r.pos <= region.x1 + 2 and r.end > region.y0 and r.start < region.y1]
    spans = sorted((max(r.start, region.y0), min(r.end, region.y1)) for r in inside)
    if not spans:
        return [region]
    parts: list[list[float]] = []
    for a, b in spans:
        if parts and a <= parts[-1][1] + 4:
            parts[-1][1] = max(parts[-1][1], b)
        else:
            parts.append([a, b])
    parts = [p for p in parts if p[1] - p[0] > 15]
    if len(parts) <= 1:
        return [region]
    out = []
    for a, b in parts:
        xs = [r.pos for r in inside if r.start < b and r.end > a]
        x0 = min(xs) if len(xs) >= 2 else region.x0
        x1 = max(xs) if len(xs) >= 2 else region.x1
        out.append(m.Rect(x0, a - 1, x1, b + 1))
    return out


def _near(cap: Any, region: Any, dist: float = 60.0) -> bool:
    if cap.x1 < region.x0 or cap.x0 > region.x1:
        return False
    return -5 <= region.y0 - cap.y1 <= dist or -5 <= cap.y0 - region.y1 <= dist


def _is_paragraph(line: Line, width: float) -> bool:
    segs = segments(line)
    return len(segs) == 1 and segs[0].x1 - segs[0].x0 > 0.75 * width and len(segs[0].words) >= 8


def _rule_chain(first: Rule, hrules: list[Rule], lines: list[Line], x0: float, x1: float, direction: int = 1) -> list[Rule]:
    """The rules of one table from ``first`` away from the caption (down for 1, up for -1): same
    width, no paragraph line between them. Returned top to bottom."""
    same = sorted(
        (r for r in hrules if abs(r.start - x0) < 6 and abs(r.end - x1) < 6 and (r.pos - first.pos) * direction >= 0),
        key=lambda r: r.pos * direction,
    )
    chain = [first]
    for r in same:
        if abs(r.pos - chain[-1].pos) <= 0.5 or (r.pos - chain[-1].pos) * direction < 0:
            continue
        lo, hi = sorted((chain[-1].pos, r.pos))
        between = [ln for ln in lines if lo < ln.cy < hi]
        if any(_is_paragraph(ln, x1 - x0) for ln in between):
            break
        chain.append(r)
    return sorted(chain, key=lambda r: r.pos)


def _region_from_caption(cap: Line, cap_rect: Any, words: list[Word], hrules: list[Rule], page_rect: Any):
    """Booktabs / borderless table next to a caption: rules give its width, lines its height."""
    m = pymupdf()
    cap_ids = {id(w) for w in cap.words}
    options = []
    for direction in (1, -1):
        if direction == 1:
            near = [r for r in hrules if 0 < r.pos - cap.y1 < 80 and r.length > 80]
        else:
            near = [r for r in hrules if 0 < cap.y0 - r.pos < 80 and r.length > 80]
        near = [r for r in near if r.start < cap_rect.x1 and r.end > cap_rect.x0]
        if near:
            gap = min(abs(r.pos - (cap.y1 if direction == 1 else cap.y0)) for r in near)
            options.append((gap, direction, near))
    # the table is on the side whose rules are nearer the caption
    for _gap, direction, near in sorted(options, key=lambda o: o[0]):
        x0, x1 = min(r.start for r in near), max(r.end for r in near)
        # lines of the table's own width only (the other column of the page stays out)
        lines = group_lines(w for w in words if x0 - 3 <= w.x0 and w.x1 <= x1 + 3 and id(w) not in cap_ids)
        first = min(near, key=lambda r: abs(r.pos - (cap.y1 if direction == 1 else cap.y0)))
        chain = _rule_chain(first, hrules, lines, x0, x1, direction)
        if len(chain) >= 2:  # booktabs: top rule ... bottom rule
            return m.Rect(x0 - 1, chain[0].pos - 0.5, x1 + 1, chain[-1].pos + 0.5) & page_rect
        body = [ln for ln in lines if ln.words]
        if direction == 1:
            seq = [ln for ln in body if ln.y0 > cap.y1 - 1]
            cap_size = max(w.size for w in cap.words)
            last = cap
            while seq and seq[0].y0 - last.y1 < 0.8 * (cap.y1 - cap.y0) and abs(max(w.size for w in seq[0].words) - cap_size) < 0.3 and len(segments(seq[0])) == 1:
                last = seq.pop(0)  # the caption's second line
        else:
            seq = sorted((ln for ln in body if ln.y1 < cap.y0 + 1), key=lambda ln: -ln.cy)
        taken: list[Line] = []
        heights = sorted(ln.y1 - ln.y0 for ln in seq[:20]) or [10.0]
        h = heights[len(heights) // 2]
        for ln in seq:
            if taken:
                prev = taken[-1]
                gap = (ln.y0 - prev.y1) if direction == 1 else (prev.y0 - ln.y1)
                ruled = any(min(prev.cy, ln.cy) < r.pos < max(prev.cy, ln.cy) for r in near + hrules if r.length > 80)
                if gap > 2.2 * h and not ruled:
                    break
            text = _line_text(ln)
            if CAPTION_RE.match(text) or re.match(r"^\s*(Figure|Fig\.)\s+\d", text):
                break
            segs = segments(ln)
            if len(segs) == 1 and segs[0].x1 - segs[0].x0 > 0.75 * (x1 - x0) and len(segs[0].words) >= 8:
                break  # a paragraph line: the table ended
            taken.append(ln)
        if len(taken) < 2:
            continue
        y0 = min(ln.y0 for ln in taken)
        y1 = max(ln.y1 for ln in taken)
        # include the rules that close the table
        for r in hrules:
            if r.start < x1 and r.end > x0 and (0 <= y0 - r.pos < 6):
                y0 = r.pos - 0.5
            if r.start < x1 and r.end > x0 and (0 <= r.pos - y1 < 6):
                y1 = r.pos + 0.5
        return m.Rect(x0 - 1, y0, x1 + 1, y1) & page_rect
    return None


# -- structure ---------------------------------------------------------------------------------


def _columns(body: list[Line], vcuts: list[float], x0: float, x1: float) -> list[tuple[float, float]]:
    """Column x-ranges from body segments' coverage gaps and vertical rules."""
    segs = [s for ln in body for s in segments(ln, rules=vcuts)]
    if not segs:
        return [(x0, x1)]
    left = min(x0, min(s.x0 for s in segs))
    right = max(x1, max(s.x1 for s in segs))
    step = 0.5
    n = int((right - left) / step) + 1
    cover = [0] * n
    for s in segs:
        for i in range(max(0, int((s.x0 - left) / step)), min(n, int((s.x1 - left) / step) + 1)):
            cover[i] += 1
    # a gap may be crossed by a few merged cells, except in tiny tables where one line is a lot
    allowed = max(1, int(0.06 * len(body))) if len(body) >= 8 else 0
    lo = min(s.x0 for s in segs)
    hi = max(s.x1 for s in segs)
    cuts: list[float] = []
    for i, j in low_runs(cover, allowed):
        g0, g1 = left + i * step, left + j * step
        if g0 > lo + 1 and g1 < hi - 1 and g1 - g0 >= 2.5:
            rules = [c for c in vcuts if g0 - 1 <= c <= g1 + 1]
            cuts.append(rules[0] if rules else (g0 + g1) / 2)
    # soft gaps: a few cells centred over two columns (a merged body cell) bridge a real gap
    soft = max(allowed, int(0.25 * len(body)))
    for i, j in low_runs(cover, soft, above=allowed):
        g0, g1 = left + i * step, left + j * step
        crossing = [sg for sg in segs if sg.x0 < g1 and sg.x1 > g0]
        both_sides = sum(
            1
            for ln in body
            if any(g0 - 40 <= sg.x1 <= g0 + 0.5 for sg in segments(ln, rules=vcuts))
            and any(g1 - 0.5 <= sg.x0 <= g1 + 40 for sg in segments(ln, rules=vcuts))
        )
        if (
            g0 > lo + 1 and g1 < hi - 1 and g1 - g0 >= 4
            and all(abs(k - (g0 + g1) / 2) > 4 for k in cuts)
            and both_sides >= 0.4 * len(body)
            and crossing
            and all(sg.x0 < g0 - 3 and sg.x1 > g1 + 3 and g0 - 4 <= (sg.x0 + sg.x1) / 2 <= g1 + 4 for sg in crossing)
        ):
            cuts.append((g0 + g1) / 2)
    for c in vcuts:
        if lo + 1 < c < hi - 1 and all(abs(c - k) > 3 for k in cuts):
            cuts.append(c)
    cuts.sort()
    edges = [left] + cuts + [right]
    cols = [(edges[k], edges[k + 1]) for k in range(len(edges) - 1)]
    # drop columns no body segment is centred in (slivers beside a rule)
    def used(c: tuple[float, float]) -> bool:
        return any(c[0] <= (s.x0 + s.x1) / 2 < c[1] for s in segs)

    merged: list[tuple[float, float]] = []
    for c in cols:
        if not used(c) and merged:
            merged[-1] = (merged[-1][0], c[1])
        elif merged and not used(merged[-1]):
            merged[-1] = (merged[-1][0], c[1])
        else:
            merged.append(c)
    return merged


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def _place(seg: Segment, cols: list[tuple[float, float]]) -> list[int]:
    """Columns a body segment belongs to: one, or several when it spans them."""
    covered = [k for k, (c0, c1) in enumerate(cols) if _overlap(seg.x0, seg.x1, c0, c1) >= 0.6 * (c1 - c0)]
    width = seg.x1 - seg.x0
    for k in range(len(cols) - 1):
        cut = cols[k][1]
        if seg.x0 + 0.35 * width < cut < seg.x1 - 0.35 * width:
            covered = sorted(set(covered) | {k, k + 1})  # centred over a column boundary: merged cell
    if len(covered) >= 2:
        start = next((k for k, (c0, c1) in enumerate(cols) if c0 <= seg.x0 < c1), covered[0])
        return sorted(set([start] + covered))
    best = max(range(len(cols)), key=lambda k: _overlap(seg.x0, seg.x1, *cols[k]))
    return [best]


def _line_cells(line: Line, cols: list[tuple[float, float]], cuts: tuple) -> tuple[list[str], set[int]]:
    cells = [""] * len(cols)
    spanning: dict[int, list[int]] = {}
    for seg in segments(line, *cuts[:2]):
        ks = _place(seg, cols)
        k = ks[0]
        if len(ks) > 1 and len(cuts) > 2:
            # a merged cell runs from the vertical rule left of it to the one right of it
            crossing = [r.pos for r in cuts[2] if r.start <= line.y0 + 1 and r.end >= line.y1 - 1]
            left = max([x for x in crossing if x <= seg.x0 + 1], default=None)
            if left is not None:
                k = min(kk for kk, (c0, c1) in enumerate(cols) if c1 > left + 1)
        cells[k] = f"{cells[k]} {seg.text}".strip()
        if len(ks) > 1:
            spanning[k] = sorted(set(ks) | {k})
    # "$ 71.15": the currency sign set apart at the cell's left edge belongs to its number
    return [_CURRENCY_GAP.sub(r"\1", c) for c in cells], spanning


def _header(
    lines: list[Line],
    cols: list[tuple[float, float]],
    cuts: tuple[list[float], list[float]],
    hrules: list[Rule],
    boxes: list[tuple[float, float, float, float]] = (),
) -> list[str]:
    parts: list[list[str]] = [[] for _ in cols]
    for line in lines:
        for seg in segments(line, *cuts[:2]):
            box = [
                b for b in boxes
                if b[0] <= seg.x0 + 1 and b[2] >= seg.x1 - 1 and b[1] <= seg.y0 + 2 and b[3] >= seg.y1 - 2
                and b[2] - b[0] > (seg.x1 - seg.x0) + 20
            ]
            if box:
                b = min(box, key=lambda b: b[2] - b[0])
                ks = [k for k, (c0, c1) in enumerate(cols) if _overlap(b[0], b[2], c0, c1) >= 0.5 * (c1 - c0)]
                if len(ks) >= 2:
                    for k in ks:
                        parts[k].append(seg.text)
                    continue
            # a header over a partial rule (merged cell, cmidrule) heads every column under it
            under = [
                r
                for r in hrules
                if 0 < r.pos - seg.y1 < 9 and r.start <= seg.x0 + 2 and r.end >= seg.x1 - 2 and r.length > (seg.x1 - seg.x0) + 8
            ]
            if under:
                r = min(under, key=lambda r: r.pos)
                ks = [k for k, (c0, c1) in enumerate(cols) if _overlap(r.start, r.end, c0, c1) >= 0.5 * (c1 - c0)]
            else:
                ks = [k for k, (c0, c1) in enumerate(cols) if _overlap(seg.x0, seg.x1, c0, c1) >= 0.6 * (c1 - c0)]
                if len(ks) >= 2 and len(cuts) > 2:
                    # a merged header cell runs between the vertical rules that cross its line
                    crossing = [r.pos for r in cuts[2] if r.start <= line.y0 + 1 and r.end >= line.y1 - 1]
                    left = max([x for x in crossing if x <= seg.x0 + 1], default=cols[0][0])
                    right = min([x for x in crossing if x >= seg.x1 - 1], default=cols[-1][1])
                    ks = [k for k, (c0, c1) in enumerate(cols) if left - 2 <= (c0 + c1) / 2 <= right + 2] or ks
                if not ks:
                    ks = [max(range(len(cols)), key=lambda k: _overlap(seg.x0, seg.x1, *cols[k]))]
            for k in ks:
                parts[k].append(seg.text)
    return [" ".join(p) for p in parts]


HEADER_CELL_WORDS = 12
"""Words of a cell that make it prose, not a column label, when it holds a sentence end."""
RUN_ON_WORDS = 8
"""Words of a cell that make it prose when it starts in lower case: a sentence running on from
the page before ("necessary to cause all MEKs to be changed ...")."""
_SENTENCE_END = re.compile(r"(?<!\.)\.(?:\s+[A-Z]|\s*$)")


def _turned_header(headers: list[str], turned: list[Word], cols: list[tuple[float, float]]) -> list[str]:
    """``headers`` with the vertical lines over each column added to its header, in reading
    order: left to right for text read upwards, right to left for text read downwards
    ("Single Factor" + "Cryptographic Software")."""
    parts = [[h] if h else [] for h in headers]
    for w in sorted(turned, key=lambda w: w.x0 * -w.turn):
        k = max(range(len(cols)), key=lambda k: _overlap(w.x0, w.x1, *cols[k]))
        if _overlap(w.x0, w.x1, *cols[k]) > 0:
            parts[k].append(w.text)
    return [" ".join(p) for p in parts]


def _data_as_header(headers: list[str], body: list[Line], cols: list[tuple[float, float]], cuts: tuple) -> bool:
    """True when the lines taken for a header are a row of data: its row label recurs as a label
    in the body ("Purge:" over "Destroy:", "Notes:", "Clear:", "Purge:"), or a cell is prose (a
    sentence; text running on from the page before). SP 800-88's Appendix A tables run over a
    dozen pages with no header repeated; each page's first row was read as the header and its
    text put into every row below it."""
    label = " ".join(headers[0].split()) if headers else ""
    if label and any(" ".join(_line_cells(ln, cols, cuts)[0][0].split()) == label for ln in body):
        return True
    for h in headers:
        words = h.split()
        if len(words) >= RUN_ON_WORDS and words[0][0].islower():
            return True
        if len(words) >= HEADER_CELL_WORDS and _SENTENCE_END.search(h):
            return True
    return False


def _key(text: str) -> str | None:
    text = text.strip()
    return text or None


def _bbox(lines: list[Line]) -> tuple[float, float, float, float]:
    ws = [w for ln in lines for w in ln.words]
    return (min(w.x0 for w in ws), min(w.y0 for w in ws), max(w.x1 for w in ws), max(w.y1 for w in ws))


def build_table(
    region: Any,
    words: list[Word],
    hrules: list[Rule],
    vrules: list[Rule],
    object_key: str,
    caption: str | None,
    source: str,
    boxes: list[tuple[float, float, float, float]] = (),
    turned: list[Word] = (),
) -> ExtractedTable | None:
    """The logical table inside ``region``, or None when it is not a table (< 2 columns / rows).
    ``turned``: the page's lines set vertically (``page_words``), read as column headers where
    they stand above the body."""
    def within(w: Word) -> bool:
        return region.x0 - 1 <= (w.x0 + w.x1) / 2 <= region.x1 + 1 and region.y0 - 1 <= w.cy <= region.y1 + 1

    inside = [w for w in words if within(w)]
    lines = group_lines(inside)
    if len(lines) < 2:
        return None
    width = region.x1 - region.x0
    hr = [r for r in hrules if r.start < region.x1 and r.end > region.x0 and region.y0 - 3 <= r.pos <= region.y1 + 3]
    seps = sorted({round(r.pos, 1) for r in hr if _overlap(r.start, r.end, region.x0, region.x1) >= 0.85 * width})
    # header: above the first separator with text on both sides
    header_lines: list[Line] = []
    for y in seps:
        above = [ln for ln in lines if ln.cy < y]
        below = [ln for ln in lines if ln.cy > y]
        if above and below:
            header_lines = above
            break
    if not header_lines or len(header_lines) > max(6, len(lines) // 2):
        header_lines = lines[:1]
        if source == "grid":  # a number grid's header: its lines above the first row of numbers
            lead = next((i for i, ln in enumerate(lines) if _numbers_row(ln)), 1)
            # (no more than half the lines), or all of them when those past half are words alone
            # and rows of numbers follow: column labels under many title lines ("But not",
            # "Over— over—" under the 1040NR's schedule titles), not a year's row ("2004")
            half = min(lead, len(lines) // 2)
            words_only = all(not any(is_numeric(g.text) for g in segments(ln)) for ln in lines[half:lead])
            rows_below = sum(1 for ln in lines[lead:] if _numbers_row(ln))
            header_lines = lines[:max(1, lead if words_only and rows_below >= GRID_MIN_ROWS else half)]
    body = [ln for ln in lines if ln not in header_lines]
    if not body:
        return None

    vr = [r for r in vrules if region.x0 - 3 < r.pos < region.x1 + 3 and r.end > region.y0 and r.start < region.y1]

    def grid(body: list[Line]) -> tuple[list[tuple[float, float]], tuple]:
        """(columns, cuts) of the body's lines."""
        body_h = max(ln.y1 for ln in body) - min(ln.y0 for ln in body)
        vcuts = sorted(
            r.pos
            for r in vrules
            if region.x0 + 2 < r.pos < region.x1 - 2
            and _overlap(r.start, r.end, min(ln.y0 for ln in body), max(ln.y1 for ln in body)) >= 0.3 * body_h
        )
        cols = _columns(body, vcuts, region.x0, region.x1)
        return cols, ([c[0] for c in cols[1:]], vcuts, vr)

    cols, cuts = grid(body)
    if len(cols) < 2:
        return None
    partial = [r for r in hr if _overlap(r.start, r.end, region.x0, region.x1) < 0.85 * width]
    bx = [b for b in boxes if b[0] >= region.x0 - 3 and b[2] <= region.x1 + 3 and b[1] >= region.y0 - 3 and b[3] <= region.y1 + 3]
    headers = _header(header_lines, cols, cuts, partial, bx)
    data_row = source != "grid" and _data_as_header(headers, body, cols, cuts)
    if data_row:
        # a table running on from the page before has no header here: its first row is data
        header_lines, body = [], lines
        cols, cuts = grid(body)
        if len(cols) < 2:
            return None
        headers = [""] * len(cols)
    top = min(ln.y0 for ln in body)
    upright = [w for w in turned if within(w) and w.y1 <= top + 1]
    headers = _turned_header(headers, upright, cols)
    body_seps = [y for y in seps if min(ln.y0 for ln in body) < y < max(ln.y1 for ln in body)]
    bands: list[list[Line]] = [[]]
    for ln in body:
        while body_seps and ln.cy > body_seps[0]:
            body_seps.pop(0)
            if bands[-1]:
                bands.append([])
        bands[-1].append(ln)
    bands = [b for b in bands if b]
    if not data_row and len({h for h in headers if h}) <= 1 and len(bands) >= 2 and len(bands[0]) == 1:
        # a spanning super-header ("POTENTIAL IMPACT") over the real column header line
        cells, _ = _line_cells(bands[0][0], cols, cuts)
        filled = [c for c in cells if c]
        title = None
        if all(headers) and len(set(headers)) == 1 and len(filled) >= 0.8 * len(cols):
            # a title row spanning the whole table over the column header line: the title is a
            # section row of the body, the next line is the header
            title = headers[0]
            header_lines = bands.pop(0)
            headers = _turned_header(_header(header_lines, cols, cuts, partial, bx), upright, cols)
        elif len(filled) >= max(2, len(cols) // 2) and not any(is_numeric(c) for c in filled):
            header_lines = header_lines + bands.pop(0)
            headers = _turned_header(_header(header_lines, cols, cuts, partial, bx), upright, cols)
    else:
        title = None
    if title is None and not data_row and len(cols) >= 2 and all(headers) and len(set(headers)) == 1:
        # one text over every column and no column header under it ("Magnetic Media" over
        # "Floppies", "Clear: | Overwrite media ..."): the table's title, a section row of the body
        title, headers = headers[0], [""] * len(cols)
    ruled_rows = len(bands) >= 2
    rows: list[TableRow] = []
    if title:
        first = [ln for ln in lines if ln.cy < min(l.cy for l in header_lines)]
        rows.append(TableRow([title] + [""] * (len(cols) - 1), title, _bbox(first) if first else _bbox(header_lines),
                             {0: list(range(len(cols)))}))
    for band in bands:
        rows.extend(_band_rows(band, cols, cuts, ruled_rows))
    if source in ("caption", "grid"):  # notes under a borderless table are not rows
        while rows and sum(1 for c in rows[-1].cells if c) <= 1 and not rows[-1].spanning:
            rows.pop()
    if len(rows) < 1:
        return None
    hb = _bbox(header_lines + [Line(upright)]) if header_lines or upright else None
    table = ExtractedTable(object_key, caption, tuple(region), headers, hb, rows, source)
    if source == "grid":
        # a captionless grid's header lines run into the titles above it (the 1040NR's
        # "Schedule W Estates or Trusts Use this schedule ..."): the header row keeps them all,
        # a cell is named by the words nearest it
        table.cell_headers = [" ".join(h.split()[-GRID_HEADER_WORDS:]) for h in headers]
    return table


def _band_rows(band: list[Line], cols: list[tuple[float, float]], cuts: tuple[list[float], list[float]], ruled: bool) -> list[TableRow]:
    per_line = [(_line_cells(ln, cols, cuts), ln) for ln in band]
    if len(band) == 1:
        (cells, span), ln = per_line[0]
        return [TableRow(cells, _key(cells[0]) or _first(cells), _bbox([ln]), span)]
    label_lines = [ln for (cells, _), ln in per_line if cells[0]]
    data = [c for (cells, _), _ in per_line for c in cells[1:] if c]
    numeric = sum(1 for c in data if is_numeric(c)) / len(data) if data else 0.0
    data_lines = [(cells, span, ln) for (cells, span), ln in per_line if any(cells[1:])]
    label = " ".join(cells[0] for (cells, _), _ in per_line if cells[0])
    numeric_lines = sum(1 for cells, _, _ in data_lines if any(is_numeric(c) for c in cells[1:] if c))
    rowwise = len(data_lines) >= 2 and numeric_lines >= 0.8 * len(data_lines)
    if ruled and rowwise and numeric >= 0.5 and len(label_lines) <= max(1, len(data_lines) // 3):
        # one group label, numeric sub-rows: a row per sub-row, each keyed by the group
        out = []
        for cells, span, ln in data_lines:
            cells = list(cells)
            cells[0] = label
            out.append(TableRow(cells, _key(label), _bbox([ln]), span, group=_key(label)))
        return out
    if ruled and not rowwise:
        # one logical row whose cells wrap over the band's lines
        cells = [" ".join(c[k] for (c, _), _ in per_line if c[k]) for k in range(len(cols))]
        span = {k: v for (_, s), _ in per_line for k, v in s.items()}
        return [TableRow(cells, _wrapped_key(band, cols, per_line) or _first(cells), _bbox(band), span)]
    # line by line; a line with an empty first column and no numbers continues the row above
    out: list[TableRow] = []
    group: str | None = None
    for (cells, span), ln in per_line:
        nums = any(is_numeric(c) for c in cells[1:] if c)
        filled = [k for k, c in enumerate(cells) if c]
        wrapped = bool(out) and not span and (
            (not cells[0] and not nums)  # text continuing the cells above
            or (filled == [0] and cells[0][:1].islower())  # a first cell that wraps
            or (len(filled) == 1 and filled[0] > 0 and bool(out[-1].cells[filled[0]]))  # one wrapped value
        )
        if wrapped:
            prev = out[-1]
            prev.cells = [f"{a} {b}".strip() for a, b in zip(prev.cells, cells)]
            b = prev.bbox
            lb = _bbox([ln])
            prev.bbox = (min(b[0], lb[0]), min(b[1], lb[1]), max(b[2], lb[2]), max(b[3], lb[3]))
            continue
        if cells[0]:
            group = None
        row = TableRow(list(cells), _key(cells[0]) or group or _first(cells), _bbox([ln]), span, group=group)
        if cells[0] and not any(cells[1:]):
            group = _key(cells[0])  # a section label over the rows that follow
        out.append(row)
    return out


def _wrapped_key(band: list[Line], cols: list[tuple[float, float]], per_line: list) -> str | None:
    """Row label of a wrapped first cell: its bold lead ("Confidentiality" before the plain
    description), the whole cell when it is short ("Tier 1: Partial"), else its first line."""
    words = [w for ln in band for w in ln.words if (w.x0 + w.x1) / 2 < cols[0][1]]
    if not words:
        return None
    if words[0].bold and not all(w.bold for w in words):
        lead = []
        for w in words:
            if not w.bold:
                break
            lead.append(w.text)
        return " ".join(lead)
    if len(words) <= 5:
        return " ".join(w.text for w in words)
    return _key(next((c[0] for (c, _), _ in per_line if c[0]), ""))


def _first(cells: list[str]) -> str | None:
    return next((c for c in cells if c), None)


# -- page -> tables -> line rows ---------------------------------------------------------------


CONTINUED_RE = re.compile(r"^flat_table: .*?'Table ([^']+)' continued")


def continued_id(reasons: Iterable[str]) -> str | None:
    """The table id a page's flat_table reason says runs on to it ("'Table 8-1' continued")."""
    for r in reasons:
        m = CONTINUED_RE.match(str(r))
        if m:
            return m.group(1)
    return None


def extract_tables(page: Any, continued: str | None = None) -> list[ExtractedTable]:
    """Every table recovered on ``page``, top to bottom.

    ``continued``: the id of a table running on from the previous page; the first table, when
    it starts above every caption, is keyed with it (``table:8-1``) and takes no caption, so a
    row reference reaches every page of the table.
    """
    m = pymupdf()
    words = page_words(page)
    turned = [w for w in words if w.turn]
    words = [w for w in words if not w.turn]
    hrules, vrules, boxes = page_rules(page)
    caps = _captions(page, words)
    out: list[ExtractedTable] = []
    used_keys: set[str] = set()
    for i, (region, source) in enumerate(sorted(find_regions(page, words, hrules, vrules, boxes), key=lambda t: t[0].y0)):
        cap = None
        best = None
        top_caption = min((line.y0 for _, line, _ in caps), default=None)
        if continued and not out and not used_keys and (top_caption is None or region.y0 < top_caption):
            caps_here = []  # the table continued from the page before: the captions are later tables'
        else:
            caps_here = caps
        for ident, line, text in caps_here:
            r = m.Rect(min(w.x0 for w in line.words), line.y0, max(w.x1 for w in line.words), line.y1)
            if _near(r, region):
                dist = min(abs(region.y0 - r.y1), abs(r.y0 - region.y1))
                if best is None or dist < best:
                    best, cap = dist, (ident, line, text)
        if cap:
            key = f"table:{cap[0]}"
        elif continued and not out and not used_keys:
            key = f"table:{continued}"
        else:
            key = f"table:p{page.number + 1}.{i + 1}"
        if key in used_keys:
            key = f"{key}.{i + 1}"
        used_keys.add(key)
        caption_words = set(id(w) for w in cap[1].words) if cap else set()
        table = build_table(
            region,
            [w for w in words if id(w) not in caption_words],
            hrules,
            vrules,
            key,
            cap[2] if cap else None,
            source,
            boxes,
            turned,
        )
        if table is not None:
            out.append(table)
    return out


def _common_header(headers: list[str], cols: list[int]) -> str:
    """The words the spanned columns' headers share at their start ("Training Cost (FLOPs)")."""
    parts = [headers[k].split() for k in cols if k < len(headers)]
    if not parts or any(not p for p in parts):
        return ""
    common = []
    for ws in zip(*parts):
        if len(set(ws)) != 1:
            break
        common.append(ws[0])
    return " ".join(common)


def row_text(cells: list[str], headers: list[str], spanning: dict[int, list[int]]) -> tuple[str, list[dict[str, str]]]:
    parts: list[str] = []
    pairs: list[dict[str, str]] = []
    for k, value in enumerate(cells):
        if not value:
            continue
        header = _common_header(headers, spanning[k]) if k in spanning else (headers[k] if k < len(headers) else "")
        pairs.append({"header": header, "value": value})
        parts.append(f"{header}: {value}" if header and k > 0 else value)
    return " | ".join(parts), pairs


def table_lines(tables: list[ExtractedTable]) -> list[dict[str, Any]]:
    """line_df rows: per table a header line (row_key "header") and one line per row."""
    rows: list[dict[str, Any]] = []
    for t in tables:
        if any(t.headers) and t.header_bbox:
            hb = t.header_bbox
            rows.append(
                {
                    "text": " | ".join(h for k, h in enumerate(t.headers) if h and (k == 0 or h != t.headers[k - 1])),
                    "x0": hb[0], "y0": hb[1], "x1": hb[2], "y1": hb[3],
                    "kind": "table_row",
                    "object_key": t.object_key,
                    "row_key": "header",
                    "cells": json.dumps([{"header": h, "value": h} for h in t.headers if h], ensure_ascii=False),
                }
            )
        for r in t.rows:
            text, pairs = row_text(r.cells, t.cell_headers or t.headers, r.spanning)
            if not text:
                continue
            if len(pairs) > 1 and all(p["header"] == p["value"] for p in pairs):
                continue  # the column headers again, over the next block of a stacked table
            rows.append(
                {
                    "text": text,
                    "x0": r.bbox[0], "y0": r.bbox[1], "x1": r.bbox[2], "y1": r.bbox[3],
                    "kind": "table_row",
                    "object_key": t.object_key,
                    "row_key": r.key,
                    "cells": json.dumps(pairs, ensure_ascii=False),
                }
            )
    return rows


class TableMethod:
    """flat_table -> one table_row line per logical row, cells paired with their headers."""

    name: ClassVar[str] = METHOD
    reasons: ClassVar[tuple[str, ...]] = ("flat_table",)
    coverage: ClassVar[str] = "region"
    structured: ClassVar[bool] = True
    description: ClassVar[str] = "table structure recovery (find_tables lines, captions or grids of numbers + word-gap columns)"

    def estimate(self, page_row: dict[str, Any], settings: Settings) -> tuple[float, int]:
        return 0.4, 0

    def run(self, page: PageInput) -> MethodResult:
        tables = extract_tables(page.page, continued_id(page.reasons))
        rows = number_lines(table_lines(tables), page.doc_id, page.page_num, self.name)
        notes = [f"{t.object_key}: {len(t.rows)} rows x {len(t.headers)} columns" for t in tables]
        return MethodResult(lines=rows, notes=notes or ["no table found"])
