"""Region fetch: the lines inside a page that carry the answer, and the lines a resolved pointer
designates (a section's lines, a table's rows, one selected row with its header).

Lines come from ``docintel.store.view.best_lines`` so escalated table rows are used where they
exist. Without them, a table row is rebuilt from the flat baseline lines whose vertical centre
matches the row label's, and the passage says it was rebuilt.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from docintel.schemas.generation import Cell, PassageLine
from docintel.schemas.questions import ParsedQuestion
from docintel.schemas.references import TargetRegion
from docintel.store.values import as_float
from docintel.text import split_sentences as _split_sentences
from docintel.text import BULLET, acronym_stems, bracket_ranges, folded, held, money_amounts, names_column, normalise_number, row_text, runs_on, stem, stems, superlative

_NUMERIC = re.compile(r"^[\s\-+−–]*[\d.,]+\s*[%KMB]?$|^[\s\-+−–]*[\d.,]+\s*[x×·]?\s*10\S*$")


# -- sentences and answer windows -------------------------------------------------------------


@dataclass
class Sentence:
    text: str
    line_nums: list[int] = field(default_factory=list)
    ranges: list[tuple[float, float]] = field(default_factory=list)  # a bracket table row's (low, high)


def split_sentences(lines: list[tuple[int, str]], set_as: Mapping[int, str] | None = None) -> list[Sentence]:
    return [Sentence(text, nums) for text, nums in _split_sentences(lines, set_as)]


def keyword_weights(parsed: ParsedQuestion, idf: dict[str, float] | None = None) -> dict[str, float]:
    """stem -> weight (idf when known, else 1) of the question's keywords."""
    out: dict[str, float] = {}
    for k in parsed.keywords:
        s = stem(k)
        out[s] = max(out.get(s, 0.0), (idf or {}).get(k, 1.0))
    return out


def sentence_score(text: str, weights: dict[str, float], parsed: ParsedQuestion, have: set[str] | None = None) -> float:
    have = stems(text) if have is None else have
    score = held(have, weights)
    low = text.lower()
    for term in parsed.terms:
        if term in low:
            score += 0.5 * len(term.split())
    return score


@dataclass
class WindowScore:
    coverage: float  # share of the question's weight in the best window
    first: int | None
    last: int | None
    centre: int | None
    sentence: float  # share of the question's weight in the best single sentence

    def __iter__(self):  # (coverage, first, last, centre), as before
        return iter((self.coverage, self.first, self.last, self.centre))


def best_window(
    lines: pd.DataFrame, parsed: ParsedQuestion, idf: dict[str, float] | None = None, width: int = 3, min_lines: int = 5
):
    """(score share 0-1, first line, last line, centre sentence's first line) of the best run
    of ``width`` sentences."""
    weights = keyword_weights(parsed, idf)
    total = sum(weights.values()) or 1.0
    sents = _units(lines)
    if not sents:
        return WindowScore(0.0, None, None, None, 0.0)
    terms = tuple(parsed.terms)  # "your HSA" holds "health savings account", "a one-time password" "OTP"
    sets = [stems(x.text) | acronym_stems(x.text, terms, parsed.text) for x in sents]
    # a bracket table's row holds the amount the question names when its range does: the row
    # "25,300 | 25,350 | 3,334" answers "my income is $25,320"
    amounts = money_amounts(parsed.text)
    named = {k: v for k, v in ((k, normalise_number(k)) for k in weights) if v is not None and v in amounts}
    for i, x in enumerate(sents):
        sets[i] |= {k for k, v in named.items() if any(lo <= v < hi for lo, hi in x.ranges)}
    half = width // 2
    best = (-1.0, -1.0, 0, 0, 0)
    best_sentence = 0.0
    for i in range(len(sents)):
        best_sentence = max(best_sentence, held(sets[i], weights) / total)
        lo, hi = max(0, i - half), min(len(sents) - 1, i + half)
        # short lines (a small table, a list) make short "sentences": widen to >= min_lines lines
        while sents[hi].line_nums[-1] - sents[lo].line_nums[0] + 1 < min_lines and (lo > 0 or hi < len(sents) - 1):
            lo, hi = max(0, lo - 1), min(len(sents) - 1, hi + 1)
        have = set().union(*sets[lo : hi + 1])
        cov = held(have, weights) / total
        if cov < best[0]:
            continue
        own = sentence_score(sents[i].text, weights, parsed, sets[i])
        if (cov, own) > best[:2]:
            best = (cov, own, i, lo, hi)
    cov, _, i, lo, hi = best
    return WindowScore(cov, sents[lo].line_nums[0], sents[hi].line_nums[-1], sents[i].line_nums[0], best_sentence)


def kinds_of(lines: pd.DataFrame) -> pd.Series:
    """Each line's kind ("text" where unset or where the frame has no kind column)."""
    if "kind" not in lines:
        return pd.Series("text", index=lines.index)
    return lines["kind"].fillna("text").astype(str)


def _units(lines: pd.DataFrame) -> list[Sentence]:
    """The scoring units of a page: the sentences of its prose, and each table row whole, read
    with its column headers ("POTENTIAL IMPACT MODERATE: The disruption ..."), so a row answers
    a question that names its column (the generator reads rows the same way)."""
    kinds = kinds_of(lines)
    is_row = kinds.eq("table_row") & lines["cells"].notna() if "cells" in lines else kinds.eq("_none_")
    foot = kinds.eq("footnote")
    prose = lines[~is_row & ~foot]
    out = split_sentences(list(zip(prose["line_num"].astype(int), prose["text"].astype(str))), type_marks(prose))
    if foot.any():  # each footnote block apart from the sentences its marks sit in
        notes = lines[foot]
        out += split_sentences(list(zip(notes["line_num"].astype(int), notes["text"].astype(str))))
    if is_row.any():
        for num, text, raw in zip(lines.loc[is_row, "line_num"].astype(int), lines.loc[is_row, "text"].astype(str),
                                  lines.loc[is_row, "cells"]):
            try:
                cells = json.loads(raw) if isinstance(raw, str) and raw else []
                pairs = [(str(c.get("header") or ""), str(c.get("value") or "")) for c in cells]
            except (ValueError, AttributeError, TypeError):
                pairs = []
            out.append(Sentence(row_text(pairs) or text, [num], [(lo, hi) for _, lo, hi in bracket_ranges(pairs)]))
        out.sort(key=lambda x: x.line_nums[0])
    return out


def answer_span(lines: pd.DataFrame, parsed: ParsedQuestion, idf: dict[str, float] | None = None, context: int = 40):
    """The line span of a page to hand to the generator: the best window grown by ``context``
    lines each way (the generator narrows its citations to the sentences it uses).
    Returns a WindowScore (coverage, first line, last line, centre line, best sentence), in the
    page parse's line numbers (:func:`span_rows` cuts by them)."""
    lines, own = _in_page_order(lines)
    w = best_window(lines, parsed, idf)
    cov, lo, hi, centre = w
    nums = sorted(lines["line_num"].astype(int))
    if lo is None:
        return WindowScore(cov, own(nums[0], -1), own(nums[min(len(nums) - 1, 2 * context)], 1), None, w.sentence)
    i_lo, i_hi = nums.index(lo), nums.index(hi)
    first, last = _whole_sentences(lines, nums, max(0, i_lo - context), min(len(nums) - 1, i_hi + context))
    return WindowScore(cov, own(nums[first], -1), own(nums[last], 1), None if centre is None else own(centre, -1), w.sentence)


def _in_page_order(lines: pd.DataFrame):
    """(``lines`` numbered 1.. in page order, position -> the page parse's own line number at or
    before it (``way`` -1) or at or after it (1)) when a region's or an addition's lines are set
    in the page (a table's rows, a figure's text, numbered 1.. in their own parse); ``lines`` and
    the identity otherwise. Read by their own numbers, a chart's rows 1..9 in the right column of
    IRS Notice 1036 made the window round them the page's first lines, and the span handed on
    missed the chart."""
    if "in_base" not in lines:
        return lines, lambda num, way: num
    mine = lines["in_base"].fillna(True).astype(bool).to_numpy()
    if mine.all() or not mine.any():
        return lines, lambda num, way: num
    nums = lines["line_num"].astype(int).to_numpy()
    at = [k + 1 for k in range(len(nums)) if mine[k]]  # positions of the page parse's lines

    def own(pos: int, way: int) -> int:
        k = bisect.bisect_right(at, pos) - 1 if way < 0 else bisect.bisect_left(at, pos)
        return int(nums[at[min(max(k, 0), len(at) - 1)] - 1])

    return lines.assign(line_num=range(1, len(lines) + 1)), own


SENTENCE_LINES = 6
SENTENCE_WORDS = 70
"""At most SENTENCE_LINES lines are added at either end of a span to finish a sentence it cuts,
or more while they hold no more than SENTENCE_WORDS words: the Federal Register's three columns
set five words a line, and a sentence there runs over eight ("To facilitate the flightcrew's
ability to | recognize and respond to undesired | ... | flightcrew for the 737 MAX."); a span
that took in six of them quoted a fragment."""


def _whole_sentences(lines: pd.DataFrame, nums: list[int], first: int, last: int) -> tuple[int, int]:
    """(first, last) indexes into ``nums`` (the page's sorted line numbers) moved out to where the
    prose sentences the span's ends cut begin and end (SENTENCE_LINES, SENTENCE_WORDS): a span
    cut at its context's edge quoted "... you must use the Tax Table that begins on"."""
    text = dict(zip(lines["line_num"].astype(int), lines["text"].astype(str)))
    prose = dict(zip(lines["line_num"].astype(int), kinds_of(lines).eq("text")))

    def out(i: int, step: int) -> int:
        """``i`` moved by ``step`` while the sentence runs on across the line boundary there."""
        added = words = 0
        while 0 <= i + step < len(nums):
            nxt = i + step
            if _closed(text[nums[min(i, nxt)]]) or not prose[nums[nxt]]:  # the upper line ends one
                break
            words += len(text[nums[nxt]].split())
            if added >= SENTENCE_LINES and words > SENTENCE_WORDS:
                break
            i, added = nxt, added + 1
        return i

    return out(first, -1), out(last, 1)


def span_rows(page: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    """The lines of one page's combined parse (:func:`docintel.store.view.best_lines`, in page
    order) from the page parse's line ``lo`` to its line ``hi``, with the table rows and
    figure text set between them: a region's or an addition's lines are numbered in their own
    parse, so a span read by number alone would drop a chart in the middle of a long page
    (1040NR p7's rows 1..9 under lines 36-130) and take in figure text from elsewhere."""
    num = page["line_num"].astype(int)
    inside = (num >= lo) & (num <= hi)
    if "in_base" not in page:
        return with_table_headers(page[inside].sort_values("line_num"), page)
    ordered = page.reset_index(drop=True)
    base = page["in_base"].fillna(True).astype(bool).to_numpy()
    at = ordered.index[inside.to_numpy() & base]
    if not len(at):
        return with_table_headers(page[inside].sort_values("line_num"), page)
    # a span from the page parse's first line (or to its last) takes what comes before (after) it
    first = 0 if lo <= num[base].min() else at.min()
    last = len(ordered) - 1 if hi >= num[base].max() else at.max()
    return with_table_headers(ordered.iloc[first: last + 1], ordered)


def with_table_headers(span: pd.DataFrame, page: pd.DataFrame) -> pd.DataFrame:
    """``span`` with the header rows of each table whose rows it holds from below them: a span
    cut from a 64-row tax table page keeps what its columns are ("2007 Tax Table– Continued ...
    Single ..."), which the answer needs to say what its number is."""
    if "row_key" not in span or "object_key" not in span:
        return span
    keys = set(span.loc[span["object_key"].notna() & span["row_key"].ne("header"), "object_key"])
    if not keys:
        return span
    heads = page[page["object_key"].isin(keys) & page["row_key"].eq("header")]
    heads = heads[~heads.index.isin(span.index)]
    return pd.concat([heads, span]) if len(heads) else span


def group_label(rows: pd.DataFrame, line_num: int | None, table_keys: pd.Series | None = None) -> str | None:
    """The label of the group of table rows that the row ``line_num`` of ``rows`` belongs to:
    the rows of one table (one ``object_key``), in reading order, possibly from the page before.

    A table that repeats the same row labels under group labels (SP 800-88's Appendix A:
    "ATA Hard Disk Drives ...", then "Clear:", "Purge:", "Destroy:", "Notes:"; "SCSI Hard Disk
    Drives ...", then the same four) says which group a row is about only in its label: the
    "Notes:" rows of two groups can be word for word the same. A group label is a row set at the
    table's left edge whose key is not one of the recurring ones, followed by a row whose key
    recurs (among ``table_keys``, the row keys of the whole table, when given; else among
    ``rows``'). None when the row is no table row, or no label precedes it."""
    if line_num is None or rows.empty or "row_key" not in rows:
        return None
    at = rows.index[(rows["line_num"] == line_num) & (rows["page_num"] == rows["page_num"].max())]
    if len(at) == 0:
        return None
    keys = rows["row_key"].fillna("").astype(str).str.strip()
    every = keys if table_keys is None else table_keys.fillna("").astype(str).str.strip()
    recurring = set(every[every.duplicated(keep=False) & every.ne("") & every.ne("header")])
    if len(recurring) < 2:
        return None
    left = rows.groupby("page_num")["x0"].transform("min")
    pos = list(rows.index)

    def labels(k: int) -> bool:  # the row at position k is a group label over the row after it
        return k + 1 < len(pos) and keys[pos[k]] not in recurring and keys[pos[k]] not in ("", "header") \
            and keys[pos[k + 1]] in recurring and float(rows.at[pos[k], "x0"]) <= float(left[pos[k]]) + 3

    for k in range(pos.index(at[0]), -1, -1):
        if labels(k):
            return " ".join(str(rows.at[pos[k], "text"]).replace(" | ", " ").split())
    return None


def extreme_tables(page: pd.DataFrame, asked: str) -> list[str]:
    """The object keys of the tables on ``page`` with a column the question's superlative names
    ("Which dataset has the longest summaries?": a table with a "|summary| (words)" column; not
    "the maximum data rate of ...", where "maximum" is part of the column's own name, nor "What's
    the most interest I can count?", which asks for a value, not which row)."""
    sup = superlative(asked, which=True)
    if sup is None or not sup[2] or not {"object_key", "cells", "row_key"} <= set(page.columns):
        return []
    word, _, what = sup
    out = []
    for key, raw in zip(page["object_key"], page["cells"]):
        if not isinstance(key, str) or not isinstance(raw, str) or key in out:
            continue
        try:
            columns = [str(c.get("header") or "") for c in json.loads(raw)][1:]  # the first names the rows
        except (ValueError, TypeError, AttributeError):
            continue
        if any(stem(word) not in stems(c) and names_column(c, what) for c in columns):
            out.append(key)
    return out


def with_extreme_table(span: pd.DataFrame, page: pd.DataFrame, asked: str) -> pd.DataFrame:
    """``span`` with every row of each table on the page that has a column the question's
    superlative names (:func:`extreme_tables`): which row is the longest can only be read off
    all of them."""
    keys = extreme_tables(page, asked)
    if not keys:
        return span
    have = set(zip(span["parsing_method"], span["line_num"])) if len(span) else set()
    rows = page[page["object_key"].isin(keys)]
    rows = rows[[k not in have for k in zip(rows["parsing_method"], rows["line_num"])]]
    return pd.concat([span, rows]) if len(rows) else span


def drop_margins(lines: pd.DataFrame, heights: dict[int, float], share: float = 0.07,
                 nearby: pd.DataFrame | None = None) -> pd.DataFrame:
    """Drop running headers, footers and page numbers: short lines in the top or bottom
    ``share`` of the page, lines there that another page repeats (``nearby``: lines of the
    pages around, read only for that), and capitals, bare page numbers or small type within
    1.5 x ``share``; then mark the footnote blocks (:func:`mark_footnotes`)."""
    if lines.empty or not heights:
        return lines
    h = lines["page_num"].map(lambda p: heights.get(int(p), 0.0)).astype(float)
    y0, y1 = lines["y0"].astype(float), lines["y1"].astype(float)
    text = lines["text"].astype(str).str.strip()
    n_words = text.str.split().str.len()
    text_kind = kinds_of(lines).eq("text")
    band = _in_band(y0, y1, h, share) & text_kind
    wide_band = _in_band(y0, y1, h, 1.5 * share) & text_kind
    # ... unless it is set with the text: the first or last line of a column set near the edge
    margin = band & (n_words <= 12) & ~_set_with_the_text(lines, band)
    # a little further in, only what reads as a running head: capitals (not a caption such as
    # "TABLE 2-1. KEY SECURITY ROLES") or a bare page number (SP 800-63B sets "AUTHENTICATION &
    # LIFECYCLE MANAGEMENT" down to 60 pt of 792)
    caption = text.str.match(r"(?i)(?:table|figure|fig\.|appendix|annex|chapter|section|part|schedule)\b")
    number = text.str.fullmatch(r"(?:\d{1,4}|[ivxlc]{1,6}|[A-Z]-\d{1,3})")
    headish = (text.str.fullmatch(r"[^a-z]*[A-Z][^a-z]*") & ~caption) | number
    caps = wide_band & (n_words <= 12) & headish
    # ... but not the end of a sentence the line over it runs into ("security, you should receive
    # a Form" | "RRB-1042S.", 1040NR p29, the first line of its column)
    margin |= caps & (number | ~_set_with_the_text(lines, caps & ~number, under_open=True))
    # a running head of any length set smaller than the page's body text ("FIPS Publication 199
    # Standards for Security Categorization of Federal Information and Information Systems", 8 pt
    # over 10.5 pt body; CSWP 29's "February 26, 2024" at 61 pt)
    # ... but not a note's line set close under a line in small type it continues, itself text
    # (SP 800-61 p68: "... (e.g., accounting department unable" | "to perform tasks for two days)
    # or ... a cost of over $100,000).", 9 pt over 11 pt body, its second line 72 pt from the
    # foot); a running foot set close under the body's last line (an ACL paper's "Proceedings of
    # the 17th Conference ..." | "May 2-6, 2023 ©2023 Association ...") still goes, both lines
    if "font_size" in lines:
        size = lines["font_size"].astype(float)
        body = size.where(n_words > _BODY_WORDS).groupby(lines["page_num"]).transform("median")
        small_type = size < 0.85 * body
        small = wide_band & ~caption & small_type
        margin |= small & ~_set_with_the_text(lines[small_type], small[small_type], under_open=True,
                                              chained=True).reindex(lines.index, fill_value=False)
    # text set sideways at the left edge: a stamp, not the page's text ("arXiv:1706.03762v7
    # [cs.CL] 2 Aug 2023", "jbell on DSKJLSW7X2PROD with PROPOSALS")
    if "x0" in lines and "x1" in lines:
        x0, x1 = lines["x0"].astype(float), lines["x1"].astype(float)
        margin |= (y1 - y0 > 4 * (x1 - x0)) & (x1 < _EDGE) & text_kind & (n_words >= 2)
    # a line in the margin band that another page repeats, page numbers aside ("Federal Register /
    # Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules", 14 words at body size)
    if band.any():
        key = _head_key(text)
        seen = pd.concat([pd.DataFrame({"page_num": lines["page_num"][band], "key": key[band]}), _band_keys(nearby, share)])
        pages_with = seen.drop_duplicates().groupby("key")["page_num"].nunique()
        margin |= band & key.map(pages_with).fillna(0).ge(2)
    return mark_footnotes(lines[~margin], heights)


_EDGE = 45.0
"""Points from the left edge of the page within which sideways text is a stamp."""


def _set_with_the_text(lines: pd.DataFrame, band: pd.Series, under_open: bool = False, chained: bool = False) -> pd.Series:
    """Lines of ``band`` set at the body's line spacing from another line over or under them
    (a gap under half a line, overlapping it across): the first or last line of a column set
    close to the edge ("your residency was more than" / "$124,000. This amount is adjusted for",
    1040NR p7), not a running head or foot, which stands apart from the text. ``under_open``:
    only a line over it that ends mid-sentence counts (a running head's second line is set as
    close under its first: "DIGITAL IDENTITY GUIDELINES:" / "AUTHENTICATION & LIFECYCLE ...").
    ``chained``: a line of ``band`` over it counts only when it is set with the text itself
    (read from the top down: a note's lines run on from one above the band)."""
    out = np.zeros(len(lines), dtype=bool)
    if not band.any() or "x0" not in lines:
        return pd.Series(out, index=lines.index)
    page = lines["page_num"].to_numpy()
    x0, x1 = lines["x0"].to_numpy(dtype=float), lines["x1"].to_numpy(dtype=float)
    y0, y1 = lines["y0"].to_numpy(dtype=float), lines["y1"].to_numpy(dtype=float)
    open_end = ~lines["text"].astype(str).map(_closed).to_numpy(dtype=bool) if under_open else None
    flagged = band.to_numpy()
    for p in np.unique(page[flagged]):
        on = np.flatnonzero(page == p)
        for b in sorted(on[flagged[on]], key=lambda k: y0[k]):
            across = (x0[on] < x1[b]) & (x1[on] > x0[b]) & (on != b)
            gap = np.maximum(y0[b] - y1[on], y0[on] - y1[b])  # the white space between the two lines
            near = across & (gap >= -1) & (gap <= 0.5 * (y1[b] - y0[b]))
            if open_end is not None:
                near &= (y1[on] <= y0[b] + 1) & open_end[on]
            if chained:
                near &= ~flagged[on] | out[on]
            out[b] = bool(near.any())
    return pd.Series(out, index=lines.index)


def _in_band(y0: pd.Series, y1: pd.Series, h: pd.Series, share: float) -> pd.Series:
    """Lines in the top or bottom ``share`` of their page (``h``: page height, 0 when unknown)."""
    return (h > 0) & ((y1 < share * h) | (y0 > (1 - share) * h))


def _band_keys(lines: pd.DataFrame | None, share: float) -> pd.DataFrame:
    """(page_num, key) of the lines of ``lines`` in the margin band, digits folded (a page's own
    number does not make its running head differ from the next page's)."""
    if lines is None or lines.empty or "height" not in lines:
        return pd.DataFrame({"page_num": [], "key": []})
    band = _in_band(lines["y0"].astype(float), lines["y1"].astype(float), lines["height"].astype(float), share)
    band &= kinds_of(lines).eq("text")
    return pd.DataFrame({"page_num": lines["page_num"][band], "key": _head_key(lines["text"].astype(str).str.strip()[band])})


def _head_key(text: pd.Series) -> pd.Series:
    """A margin line as compared across pages: case, spacing and digits (its page number) folded."""
    return text.str.casefold().str.replace(r"\d+", "#", regex=True).str.replace(r"\s+", " ", regex=True)


_FOOTNOTE_MARK = re.compile(r"^(?:\d{1,3}|[*†‡§])(?:\s|$)")


def mark_footnotes(lines: pd.DataFrame, heights: dict[int, float]) -> pd.DataFrame:
    """Give kind ``footnote`` to the footnote block at the foot of each page: from the first line
    in the lower 40% that starts with a note mark ("1 For the purposes of this document ...",
    "32" above "http://nvd.nist.gov/") and is set smaller than the body text or below a wide
    gap, down to the page's end. Read in line order, a footnote lands inside the sentence that
    carries its mark ("an organization-wide 1 1 For the purposes ... approach to managing").
    A page read in columns without such a block may end each column in notes of its own
    (:func:`_column_notes`)."""
    if lines.empty or "font_size" not in lines or "kind" not in lines:
        return lines
    out = lines
    for page_num, page in lines[kinds_of(lines).eq("text")].groupby("page_num"):
        h = heights.get(int(page_num), 0.0)
        if h <= 0 or len(page) < 4:
            continue
        notes = _column_notes(page, h)
        if len(notes):
            if out is lines:
                out = lines.copy()
            out.loc[notes, "kind"] = "footnote"
            continue
        size = page["font_size"].astype(float)
        words = page["text"].astype(str).str.split().str.len()
        body = size[words > _BODY_WORDS].median() if (words > _BODY_WORDS).any() else size.median()
        ys = page.sort_values("y0")
        pitch = ys["y0"].astype(float).diff()
        pitch = pitch[pitch > 1].median() if (pitch > 1).any() else 0.0
        start = None
        tops = ys["y0"].to_numpy(dtype=float)
        sizes = ys["font_size"].to_numpy(dtype=float)
        texts = ys["text"].astype(str).tolist()
        for i in range(1, len(ys)):
            y = tops[i]
            if y < 0.6 * h or not _FOOTNOTE_MARK.match(texts[i]):
                continue
            fs = sizes[i] if sizes[i] == sizes[i] else body
            gap = y - tops[i - 1]
            if fs > body + 0.1:
                continue  # a numbered heading ("3 Premium") is set larger, not smaller
            if fs <= body - 1.0 or (pitch and gap >= 1.8 * pitch):
                start = y
                break
        if start is None:
            continue
        foot = page.index[page["y0"].astype(float) >= start - 0.5]
        if len(foot) * 2 >= len(page) or words.loc[foot].sum() < 3:
            continue  # half the page is no footnote block; a lone number is a page number
        if out is lines:
            out = lines.copy()
        out.loc[foot, "kind"] = "footnote"
    return out


_NOTES_FROM = 0.45
"""A column's notes start in the lower part of the page below this share of its height."""


def _column_notes(page: pd.DataFrame, height: float) -> pd.Index:
    """The note lines at the foot of each column of a page read in columns: from a line in the
    lower half that starts with a note mark (or, after a column that ended in notes, carries one
    on) and is set a point or more smaller than the line above it, when every line below it in
    the column is set no larger, to the column's end. The Federal Register's page 2 ends each of
    its three columns in 7 pt notes, from half-way down the first: more lines than its 9 pt
    text, so no page-wide body size sets them apart, and its first column's cut note was read as
    page 3's opening sentence ("... AOA is measured by each of" | "require operators to ...").
    Its page 3 starts notes at a different height in each column: a cut across the page at the
    highest made the first column's 9 pt text below that height a footnote."""
    if "column" not in page or page["column"].nunique() < 2:
        return page.index[:0]
    found: list = []
    for _, col in page[page["column"].notna()].groupby("column"):
        col = col.sort_values("y0")
        size = col["font_size"].to_numpy(dtype=float, na_value=np.nan)
        top = col["y0"].to_numpy(dtype=float)
        text = col["text"].astype(str).tolist()
        carried = bool(found)
        for i in range(1, len(col)):
            if top[i] < _NOTES_FROM * height or not (carried or _FOOTNOTE_MARK.match(text[i])):
                continue
            if size[i] <= size[i - 1] - 1.0 and bool((size[i:] <= size[i] + 0.1).all()):
                found.extend(col.index[i:])
                break
    return pd.Index(found)


def mark_type(lines: pd.DataFrame) -> pd.DataFrame:
    """``lines`` with a column ``set_as``: how a text line is set against its neighbours (read
    in line order on its page), by its type and where it stands, for
    :func:`docintel.text.join_lines`:

    - ``"body"``: set in the same type as the line after it, neither bold nor larger. Nothing sets
      it apart as a heading, so a short one the next line runs on is a sentence's start.
    - ``"heading"``: set larger than the lines on both sides of it, or bold between lines that are
      not, alone or one of two (a title on two lines: the 1040NR's "Student Loan Interest
      Deduction" | "Worksheet—Line 32"): a heading, even where the column it ends runs on past it
      (the Federal Register sets "ESTIMATED COSTS" at the foot of a column whose sentence goes on
      at the top of the next).
    - ``"beside"``: the line after it starts level with it, or with one of the few lines just
      above it, and right of all of them: the next cell of a table's row or a glossary's entry
      (SP 800-61's Table 3-1: "File integrity" | "checking" | "software", then "File integrity
      checking software can detect ..." level with its first line). Its run ends there. Not where
      a heading's mark applies.
    - ``"aside"``: a label or glyph of one word set in the margin beside the lines it sits
      between: no lower case, no digit, set in another size than the line before it and ending
      left of where that line starts (the 1040NR's "!" | "CAUTION" and "TIP" icons, read in line
      order inside the sentence they stand beside: "... must be under ! age 17 ..."). It is no
      word of any sentence.
    - None: neither, or the parse gave no type (OCR, a table parse).

    Read against the neighbours, not a page-wide body size: a Federal Register page may set more
    of its characters in its 7 pt notes than in its 9 pt columns."""
    if lines.empty or "font_size" not in lines or "bold" not in lines:
        return lines.assign(set_as=None)
    text = lines[kinds_of(lines).eq("text")].sort_values(["page_num", "line_num"])
    n = len(text)
    page = text["page_num"].to_numpy()
    size = text["font_size"].to_numpy(dtype=float, na_value=np.nan)
    bold = text["bold"].map({True: 1.0, False: 0.0}).to_numpy(dtype=float, na_value=np.nan)  # NaN: not known

    def neighbour(values: np.ndarray, step: int) -> np.ndarray:
        """Each line's neighbour's value on its page (``step`` 1: the line after), else NaN."""
        out = np.full(n, np.nan)
        if n > 1:
            src = slice(step, None) if step > 0 else slice(None, step)
            dst = slice(None, -step) if step > 0 else slice(-step, None)
            same = page[src] == page[dst]
            out[dst] = np.where(same, values[src], np.nan)
        return out

    after_size, before_size = neighbour(size, 1), neighbour(size, -1)
    after_bold, before_bold = neighbour(bold, 1), neighbour(bold, -1)
    with np.errstate(invalid="ignore"):
        body = (bold == 0) & (after_bold == 0) & (size <= after_size + 0.5)
        larger = (size > after_size + 0.5) & (size > before_size + 0.5)
        first_of_two = (before_bold == 0) & (after_bold == 1) & (neighbour(bold, 2) == 0)
        second_of_two = (neighbour(bold, -2) == 0) & (before_bold == 1) & (after_bold == 0)
        stands_out = (bold == 1) & (((after_bold == 0) & (before_bold == 0)) | first_of_two | second_of_two)
    x0, x1, y0 = (text[c].to_numpy(dtype=float, na_value=np.nan) if c in text else np.full(n, np.nan)
                  for c in ("x0", "x1", "y0"))
    beside = _beside(page, x0, x1, y0, size)
    aside = _aside(text["text"], size, before_size, x1, neighbour(x0, -1))
    marks = np.where(aside, "aside", np.where(larger | stands_out, "heading",
                                              np.where(beside, "beside", np.where(body, "body", None))))
    return lines.assign(set_as=pd.Series(marks, index=text.index, dtype=object).reindex(lines.index))


_ICON_TEXT = re.compile(r"[^\sa-z0-9]+")
"""A margin label's text: one word, no lower case, no digit ("CAUTION", "TIP", "!")."""


def _aside(text: pd.Series, size: np.ndarray, before_size: np.ndarray, x1: np.ndarray, before_x0: np.ndarray) -> np.ndarray:
    """For :func:`mark_type`: whether each line is a margin icon's label (see ``"aside"``); a
    line without a position (NaN) is none."""
    words = text.astype(str).str.strip()
    icon = words.str.fullmatch(_ICON_TEXT).to_numpy(dtype=bool) & ~words.str.match(BULLET).to_numpy(dtype=bool)
    with np.errstate(invalid="ignore"):
        return icon & (np.abs(size - before_size) >= 0.5) & (x1 < before_x0)


_BESIDE_LINES = 5
"""How many lines above a line the one after it may start level with (a cell's label wraps)."""
_LEVEL = 2.0
"""Tops within this many points are level."""


def _beside(page: np.ndarray, x0: np.ndarray, x1: np.ndarray, y0: np.ndarray, size: np.ndarray) -> np.ndarray:
    """For :func:`mark_type`: whether each line's next line starts level with it or with one of
    the _BESIDE_LINES lines before it, more than an em right of every line from that one down
    (a table's next cell; the next column of a page's text may too, where the column before
    it is a few lines long: :func:`docintel.text.join_lines` still runs a sentence on into it).
    A line without a position (NaN) is none."""
    n = len(page)
    out = np.zeros(n, dtype=bool)
    if n < 2:
        return out
    nxt = np.arange(n - 1)
    reach = x1[:-1].copy()  # the right end of the lines from the one level with the next line down
    with np.errstate(invalid="ignore"):
        for back in range(_BESIDE_LINES + 1):
            j = nxt - back
            ok = j >= 0
            j = np.where(ok, j, 0)
            if back:
                reach = np.maximum(reach, np.where(ok, x1[j], -np.inf))
            same = ok & (page[nxt + 1] == page[nxt]) & (page[j] == page[nxt])
            level = np.abs(y0[nxt + 1] - y0[j]) <= _LEVEL
            out[:-1] |= same & level & (x0[nxt + 1] > reach + size[:-1])
    return out


def type_marks(lines: pd.DataFrame) -> dict[int, str]:
    """line_num -> ``set_as`` of the marked ``lines`` (:func:`mark_type`)."""
    if "set_as" not in lines:
        return {}
    return {int(n): m for n, m in zip(lines["line_num"].tolist(), lines["set_as"].tolist()) if isinstance(m, str)}


# -- sentences across a page break ---------------------------------------------------------------

_BODY_WORDS = 6
"""A prose line of the body has more words than this (running dates, headings and labels fewer)."""
_PARAGRAPH_LINES = 12
"""At most this many lines are read back from a page's end to the start of its last paragraph."""


def _body(lines: pd.DataFrame) -> pd.DataFrame:
    """The page's running prose lines in reading order: kind text, long enough to be body text."""
    if lines.empty:
        return lines
    words = lines["text"].astype(str).str.split().str.len()
    return lines[kinds_of(lines).eq("text") & (words > _BODY_WORDS)].sort_values("line_num")


def _closed(text: str) -> bool:
    return text.rstrip().rstrip("\"'’”)]").endswith((".", "!", "?", ":", ";"))


def opens_mid_sentence(page: pd.DataFrame) -> int | None:
    """The line number of the page's first body line when it continues a sentence from the page
    before ("continuously improving. Selecting Tiers ..."): it starts with a lower-case letter."""
    body = _body(page)
    if body.empty:
        return None
    first = body.iloc[0]
    text = str(first["text"]).lstrip()
    return int(first["line_num"]) if runs_on(text) else None


def ends_mid_sentence(page: pd.DataFrame) -> int | None:
    """The line number of the page's last body line when its sentence runs on to the next page."""
    body = _body(page)
    if body.empty:
        return None
    last = body.iloc[-1]
    return None if _closed(str(last["text"])) else int(last["line_num"])


def tail_paragraph(page: pd.DataFrame) -> pd.DataFrame:
    """The last paragraph of a page whose final sentence runs on: lines back from its last body
    line to the heading or sentence start that opens the paragraph (at most _PARAGRAPH_LINES)."""
    end = ends_mid_sentence(page)
    if end is None:
        return page.iloc[0:0]
    ordered = page[kinds_of(page).eq("text") & (page["line_num"] <= end)].sort_values("line_num")
    take: list[int] = []
    for i in range(len(ordered) - 1, -1, -1):
        row = ordered.iloc[i]
        text = str(row["text"]).strip()
        take.append(i)
        if len(text.split()) <= _BODY_WORDS and not _closed(text):
            break  # a heading ("3.2. CSF Tiers"): the paragraph's title, kept
        if len(take) >= _PARAGRAPH_LINES:
            break
        prev = str(ordered.iloc[i - 1]["text"]) if i > 0 else ""
        if i > 0 and _closed(prev) and text[:1].isupper() and len(prev.split()) <= _BODY_WORDS + 4:
            break  # a short closed line above: the previous paragraph ended there
    return ordered.iloc[sorted(take)]


def head_sentence(page: pd.DataFrame) -> pd.DataFrame:
    """The opening lines of a page that finish a sentence begun on the page before: up to the
    first line that ends closed (:func:`_whole_sentences`); or, when the page opens with list
    items, those items (:func:`_head_items`: the list the page before ended in runs on). A
    sentence that starts after the cut one's close on the same line is read whole too, short
    lines and all ("this AD. Information may be emailed to: 9-" |
    "ANM-Seattle-ACO-AMOC-Requests@faa.gov."): cut there, it would be quoted cut."""
    first = opens_mid_sentence(page)
    if first is None:
        return _head_items(page)
    lines = page[kinds_of(page).eq("text") & (page["line_num"] >= first)].sort_values("line_num")
    _, last = _whole_sentences(lines, list(lines["line_num"].astype(int)), 0, 0)
    return lines.iloc[: last + 1]


def _head_items(page: pd.DataFrame) -> pd.DataFrame:
    """The list items a page opens with, when the page before ended unclosed (its list runs on:
    SP 800-61's change log lists "Expanded discussion of eradication and recovery (Section
    3.3.4)" at the top of p70): the items up to the first line that is neither an item nor the
    wrapped rest of one (at most _LIST_LINES lines); none when the page opens otherwise. A
    wrapped line opens with a lower-case letter or is indented past the item's number (a hanging
    indent: CSWP 29's five steps of a Profile, "2. Gather the information needed ..." | "information
    may include ...", at 90 and 108 pt, then the paragraph after them at 72 pt).
    Measured on the 180 read golden questions: answer checks +2, none lost; the indent and the
    30 lines turned one complete-and-wrong answer partial (docs/evaluation.md, nineteenth session)."""
    body = _body(page)
    if body.empty or BULLET.match(str(body.iloc[0]["text"]).lstrip()) is None:
        return page.iloc[0:0]
    first = int(body.iloc[0]["line_num"])
    lines = page[kinds_of(page).eq("text") & (page["line_num"] >= first)].sort_values("line_num")
    x0 = lines["x0"].astype(float).tolist() if "x0" in lines else [float("nan")] * len(lines)
    take = 0
    for text, x in zip(lines["text"].astype(str).head(_LIST_LINES), x0):
        t = text.lstrip()
        indented = x == x and x0[0] == x0[0] and x > x0[0] + _INDENT
        if take and BULLET.match(t) is None and not t[:1].islower() and not indented:
            break  # neither an item nor an item's wrapped line
        take += 1
    return lines.iloc[:take]


_LIST_LINES = 30
"""At most this many lines of a list are read at the top of the page it runs on to."""
_INDENT = 3.0
"""A line starting this many points right of a list item's number is indented under it."""


# -- converting rows ---------------------------------------------------------------------------


def to_passage_lines(lines: pd.DataFrame) -> list[PassageLine]:
    out = []
    for r in lines.to_dict("records"):
        cells = []
        raw = r.get("cells")
        if isinstance(raw, str) and raw:
            try:
                cells = [Cell(header=str(c.get("header") or ""), value=str(c.get("value") or "")) for c in json.loads(raw)]
            except (ValueError, AttributeError, TypeError):
                cells = []
        out.append(
            PassageLine(
                line_num=int(r["line_num"]),
                text=str(r.get("text") or ""),
                kind=str(r.get("kind") or "text"),
                parsing_method=str(r.get("parsing_method") or ""),
                row_key=r.get("row_key") if isinstance(r.get("row_key"), str) else None,
                cells=cells,
                object_key=r.get("object_key") if isinstance(r.get("object_key"), str) else None,
                x0=as_float(r.get("x0")), y0=as_float(r.get("y0")), x1=as_float(r.get("x1")), y1=as_float(r.get("y1")),
                set_as=r.get("set_as") if isinstance(r.get("set_as"), str) else None,
            )
        )
    return out


# -- target regions ----------------------------------------------------------------------------


def _label_match(row_key: str | None, text: str | None, sub: str) -> bool:
    sub_n = sub.strip("() ").lower()
    for cand in (row_key, text):
        if not isinstance(cand, str) or not cand.strip():
            continue
        c = cand.strip().lower()
        if c.strip("() ") == sub_n or c.startswith(f"({sub_n})") or c.split()[0].strip("().:") == sub_n:
            return True
    return False


def section_lines(pages: pd.DataFrame, region: TargetRegion,
                  next_start: tuple[int, float] | tuple[int, float, int] | None) -> pd.DataFrame:
    """Lines from the section heading to the next section's heading: by height on the page, or
    by reading order when the region numbers its lines so (a heading in the second of three
    columns starts there, not across the page)."""
    sel = pages[(pages["page_num"] >= region.page_start) & (pages["page_num"] <= region.page_end)].copy()
    if region.by_line and region.line_start is not None:
        num = sel["line_num"].astype(int)
        sel = sel[~((sel["page_num"] == region.page_start) & (num < region.line_start))]
        if next_start is not None and len(next_start) == 3:
            np_, _, nl = next_start
            num = sel["line_num"].astype(int)
            sel = sel[~((sel["page_num"] > np_) | ((sel["page_num"] == np_) & (num >= nl)))]
        return sel
    cy = (sel["y0"].astype(float) + sel["y1"].astype(float)) / 2
    if region.y_start is not None:
        sel = sel[~((sel["page_num"] == region.page_start) & (cy < region.y_start - 2))]
        cy = cy.loc[sel.index]
    if next_start is not None:
        np_, ny = next_start[:2]
        sel = sel[~((sel["page_num"] > np_) | ((sel["page_num"] == np_) & (cy >= ny - 2)))]
    return sel


SUBJECT_LINES = 3
"""Lines a heading read as a page pointer's subject may wrap over."""


def subject_lines(page: pd.DataFrame, subject: str) -> pd.DataFrame:
    """The lines of ``page`` from where the part a page pointer names begins (its subject: a
    title, "Services performed partly inside and partly outside the United States", or a term,
    "identifying number") to the page's end: the first heading reading it, on lines of its own
    or run in ("Identifying number. If you are an individual, ..."). The whole page when no
    heading reads it: the part is then not told apart from the rest."""
    page = page.sort_values(["page_num", "line_num"])
    texts = [folded(str(t)) for t in page["text"]]
    want = folded(subject)
    for i in range(len(texts)):
        read = ""
        for j in range(i, min(i + SUBJECT_LINES, len(texts))):
            read = f"{read} {texts[j]}".strip()
            if not want.startswith(read) and not read.startswith(want):
                break
            rest = read[len(want):]
            if read.startswith(want) and (not rest or rest[0] in ".:\u2014\u2013"):
                return page.iloc[i:]
    return page


def table_lines(page: pd.DataFrame, region: TargetRegion) -> tuple[pd.DataFrame, str]:
    """All lines of a table (escalated rows when present, else flat baseline lines), and how."""
    key = region.object_key
    if key and "object_key" in page and "kind" in page:
        keys = page["object_key"].fillna("").astype(str)
        rows = page[keys.eq(key) & (page["kind"] == "table_row")]
        if not rows.empty:
            # escalate keys a further grid region of the same captioned table "table:A-3.2"; a
            # real "Table A-3.2" has a caption line of its own on the page and is left out
            parts = page[keys.str.match(rf"^{re.escape(key)}\.\d+$") & (page["kind"] == "table_row")]
            texts = page["text"].astype(str)
            for part in sorted(set(parts["object_key"])):
                ident = part.split(":", 1)[-1]
                if not texts.str.match(rf"(?i)^table\s+{re.escape(ident)}\b").any():
                    rows = pd.concat([rows, parts[parts["object_key"] == part]])
            return rows.sort_values("line_num"), "table_rows"
    return flat_table_region(page, region), "flat"


def flat_table_region(page: pd.DataFrame, region: TargetRegion) -> pd.DataFrame:
    """Baseline lines of a table: below its caption block (or inside its bbox) down to prose."""
    page = page.sort_values("line_num")
    cap = None
    if region.line_start is not None:
        hit = page[page["line_num"] == region.line_start]
        if not hit.empty:
            cap = hit.iloc[0]
    if cap is None and region.title:
        hit = page[page["text"].astype(str).str.startswith(region.title[:25])]
        if not hit.empty:
            cap = hit.iloc[0]
    if cap is None and region.ref_target:
        pat = re.compile(rf"^(?i:table)\s+{re.escape(region.ref_target)}\s*[:.]")
        hit = page[page["text"].astype(str).str.match(pat)]
        if not hit.empty:
            cap = hit.iloc[0]
    if cap is None:
        return page.iloc[0:0]
    widths = (page["x1"] - page["x0"]).astype(float)
    text_width = float(widths.max() or 1.0)
    # the caption block: following lines of the same block, or long lines right below it
    after = page[page["line_num"] > cap["line_num"]]
    cap_block = cap.get("block_num")
    body_start = None
    for idx, r in after.iterrows():
        same_block = cap_block is not None and r.get("block_num") == cap_block
        if same_block:
            continue
        body_start = idx
        break
    if body_start is None:
        return page.iloc[0:0]
    body = after.loc[body_start:]
    out = []
    seen_numeric = False
    first = body.iloc[0] if not body.empty else None
    caption_below = first is not None and len(str(first["text"]).split()) >= 12 and (first["x1"] - first["x0"]) > 0.6 * text_width
    if not caption_below:
        cut = _table_bottom(body)
        for _, r in body.iterrows():
            text = str(r["text"])
            if (float(r["y0"]) + float(r["y1"])) / 2 >= cut:
                continue
            words = len(text.split())
            prose = words >= 8 and (r["x1"] - r["x0"]) > 0.6 * text_width
            if prose and seen_numeric:
                break
            if _NUMERIC.match(text):
                seen_numeric = True
            out.append(r)
    if caption_below or not out:  # a caption below the table: take the lines above it instead
        above = page[(page["line_num"] < cap["line_num"])]
        out = [r for _, r in above.iterrows() if r["y1"] <= cap["y0"] + 1][-80:]
    return pd.DataFrame(out)


def _table_bottom(body: pd.DataFrame) -> float:
    """The y where the table ends: the next caption, or the first vertical gap much wider
    than the table's row pitch (rows are walked top-down, whatever the line order)."""
    cut = float("inf")
    for _, r in body.iterrows():
        if _CAPTION_START.match(str(r["text"])):
            cut = min(cut, float(r["y0"]))
    cys = sorted((float(a) + float(b)) / 2 for a, b in zip(body["y0"], body["y1"]))
    rows: list[float] = []
    for cy in cys:
        if cy >= cut:
            break
        if not rows or cy - rows[-1] > 3:
            rows.append(cy)
    gaps: list[float] = []
    for a, b in zip(rows, rows[1:]):
        gap = b - a
        if len(gaps) >= 2 and gap > max(1.8 * sorted(gaps)[len(gaps) // 2], 18.0):
            return min(cut, (a + b) / 2)
        gaps.append(gap)
    return cut


_CAPTION_START = re.compile(r"^(?:Table|Figure|Fig\.|Exhibit)\s+[A-Z]?\d+(?:[.\-]\d+)*\s*[:.\-—]")


def cluster_rows(lines: pd.DataFrame, tol: float = 3.0) -> list[pd.DataFrame]:
    """Group flat lines into visual rows by vertical centre."""
    if lines.empty:
        return []
    df = lines.assign(_cy=(lines["y0"].astype(float) + lines["y1"].astype(float)) / 2).sort_values("_cy")
    rows: list[list] = []
    for _, r in df.iterrows():
        if rows and abs(r["_cy"] - rows[-1][-1]["_cy"]) <= tol:
            rows[-1].append(r)
        else:
            rows.append([r])
    return [pd.DataFrame(g).sort_values("x0") for g in rows]


def _is_data_row(row: pd.DataFrame) -> bool:
    vals = [str(t) for t in row["text"]]
    num = sum(1 for v in vals if _NUMERIC.match(v))
    return num >= max(1, len(vals) // 2)


def header_columns(rows: list[pd.DataFrame]) -> tuple[list[tuple[float, float, str]], int]:
    """(x0, x1, header text) per column from the rows above the first data row; index of that row."""
    first_data = next((i for i, r in enumerate(rows) if _is_data_row(r)), None)
    if not first_data:
        return [], 0 if first_data is None else first_data
    cols: list[list] = []
    for r in rows[:first_data]:
        for _, c in r.iterrows():
            for col in cols:
                if min(col[1], c["x1"]) - max(col[0], c["x0"]) > 0:
                    col[0], col[1] = min(col[0], c["x0"]), max(col[1], c["x1"])
                    col[2].append(str(c["text"]))
                    break
            else:
                cols.append([float(c["x0"]), float(c["x1"]), [str(c["text"])]])
    return [(a, b, " ".join(t)) for a, b, t in sorted(cols)], first_data


def _header_for(x0: float, x1: float, cols: list[tuple[float, float, str]]) -> str:
    best, best_ov = "", 0.0
    cx = (x0 + x1) / 2
    for a, b, h in cols:
        ov = min(b, x1) - max(a, x0)
        if ov > best_ov:
            best, best_ov = h, ov
    if best:
        return best
    near = min(cols, key=lambda c: abs((c[0] + c[1]) / 2 - cx), default=None)
    return near[2] if near else ""


def rebuild_row(table: pd.DataFrame, sub: str) -> tuple[list[PassageLine], list[PassageLine], str]:
    """Rebuild row ``sub`` (and the first data row, the usual reference row) from flat lines.

    Returns (header lines, row lines, note). A label that sits between several visual rows
    (a group label such as "(A)") picks the rows sharing its vertical centre only, and the note
    says the row was rebuilt from positions.
    """
    rows = cluster_rows(table)
    cols, first_data = header_columns(rows)
    label_row = None
    if sub in ("first", "last") and len(rows) > first_data:
        label_row = first_data if sub == "first" else len(rows) - 1
    for i, r in enumerate(rows):
        if label_row is not None:
            break
        if any(_label_match(None, t, sub) for t in r["text"]):
            label_row = i
            break
    header_line = PassageLine(line_num=int(table["line_num"].min()) if not table.empty else 0,
                              text=" | ".join(h for _, _, h in cols), kind="header", parsing_method="pymupdf")
    if label_row is None:
        return [header_line] if cols else [], [], f"row ({sub}) not found in the flat table lines"

    left = min((a for a, _, _ in cols), default=0.0)

    def header(c) -> str:
        x0, x1, text = float(c["x0"]), float(c["x1"]), str(c["text"])
        if x1 <= left + 1 or _label_match(None, text, sub):
            return ""  # the row-label column
        spanned = sum(1 for a, b, _ in cols if min(b, x1) - max(a, x0) > 0)
        if spanned >= 2 and not _NUMERIC.match(text):
            return ""  # a description spanning several columns
        return _header_for(x0, x1, cols)

    def as_line(r: pd.DataFrame, tag: str) -> PassageLine:
        cells = [Cell(header=header(c), value=str(c["text"])) for _, c in r.iterrows()]
        text = "; ".join(f"{c.header}: {c.value}" if c.header else c.value for c in cells)
        return PassageLine(line_num=int(r["line_num"].min()), text=text, kind="table_row",
                           parsing_method=str(r["parsing_method"].iloc[0]), row_key=tag, cells=cells)

    out = [as_line(rows[label_row], f"({sub})")]
    lines_in = len(rows[label_row])
    note = "row rebuilt from flat baseline lines by vertical position (no table structure parse)"
    if lines_in <= 1 + 0:
        note += f"; row ({sub}) is a group label with no values on its own line: values could not be recovered"
    if first_data is not None and first_data != label_row and first_data < len(rows):
        base = as_line(rows[first_data], "first row")
        out.append(base)
    return [header_line] if cols else [], out, note


def rebuild_table(table: pd.DataFrame) -> tuple[list[PassageLine], list[PassageLine]]:
    """Every visual row of a flat table as a table_row line with header-paired cells."""
    rows = cluster_rows(table)
    cols, first_data = header_columns(rows)
    if not cols and len(rows) >= 3 and len(rows[0]) >= 2:  # a text table: its first row names the columns
        cols = [(float(c["x0"]), float(c["x1"]), str(c["text"])) for _, c in rows[0].iterrows()]
        first_data = 1
    rows = _merge_wrapped(rows[first_data:] if cols else rows, cols)
    first_data = 0
    left = min((a for a, _, _ in cols), default=0.0)
    out = []
    for r in rows:
        cells = []
        for _, c in r.iterrows():
            x0, x1 = float(c["x0"]), float(c["x1"])
            h = "" if (not cols or x1 <= left + 1) else _header_for(x0, x1, cols)
            cells.append(Cell(header=h, value=str(c["text"])))
        label = next((c.value for c in cells if not c.header), None)
        text = "; ".join(f"{c.header}: {c.value}" if c.header else c.value for c in cells)
        out.append(PassageLine(line_num=int(r["line_num"].min()), text=text, kind="table_row",
                               parsing_method=str(r["parsing_method"].iloc[0]), row_key=label, cells=cells))
    header = [PassageLine(line_num=int(table["line_num"].min()), text=" | ".join(h for _, _, h in cols),
                          kind="header", parsing_method="pymupdf")] if cols else []
    return header, out


def _merge_wrapped(rows: list[pd.DataFrame], cols: list[tuple[float, float, str]]) -> list[pd.DataFrame]:
    """Join a row with nothing in the first column to the row above (a wrapped cell)."""
    if not cols or not rows:
        return rows
    first_x1 = min(cols)[1]
    out: list[pd.DataFrame] = []
    for r in rows:
        if out and float(r["x0"].min()) > first_x1 + 2:
            prev = out[-1].copy()
            for _, c in r.iterrows():
                starts = prev["x0"].astype(float)
                left_of = starts[starts <= float(c["x0"]) + 2]
                k = left_of.idxmax() if not left_of.empty else starts.idxmin()  # the cell it wraps under
                prev.loc[k, "text"] = f"{prev.loc[k, 'text']} {c['text']}"
                prev.loc[k, "x1"] = max(float(prev.loc[k, "x1"]), float(c["x1"]))
            out[-1] = prev
        else:
            out.append(r)
    return out


def tabulate_runs(lines: pd.DataFrame, min_lines: int = 4) -> pd.DataFrame:
    """Replace runs of short flat lines that form a grid (a small table in a section: "Audit
    logs | 90 days") by table_row lines with header-paired cells; other lines stay."""
    if lines.empty or "kind" not in lines:
        return lines
    out: list[pd.DataFrame] = []
    for _, page in lines.groupby("page_num", sort=True):
        page = page.sort_values("line_num")
        short = [
            (k == "text" or k is None or k != k) and len(str(t).split()) <= 5 and not str(t).rstrip().endswith(".")
            for t, k in zip(page["text"], page["kind"])
        ]
        runs: list[tuple[int, int]] = []
        i = 0
        while i < len(page):
            if short[i]:
                j = i
                while j + 1 < len(page) and short[j + 1]:
                    j += 1
                if j - i + 1 >= min_lines:
                    runs.append((i, j))
                i = j + 1
            else:
                i += 1
        if not runs:
            out.append(page)
            continue
        pieces, last = [], 0
        for a, b in runs:
            pieces.append(page.iloc[last:a])
            pieces.append(_grid(page.iloc[a : b + 1]))
            last = b + 1
        pieces.append(page.iloc[last:])
        out.append(pd.concat([x for x in pieces if not x.empty], ignore_index=True))
    return pd.concat(out, ignore_index=True) if out else lines


def _grid(run: pd.DataFrame) -> pd.DataFrame:
    rows = cluster_rows(run)
    multi = [r for r in rows if len(r) >= 2]
    if len(multi) < 2 or len(multi) < 0.6 * len(rows):
        return run
    cols, first = header_columns(rows)
    if not cols:  # no numeric body: the first row names the columns
        cols = [(float(c["x0"]), float(c["x1"]), str(c["text"])) for _, c in rows[0].iterrows()]
        first = 1
    recs = []
    for r in rows[first:]:
        cells = [{"header": _header_for(float(c["x0"]), float(c["x1"]), cols), "value": str(c["text"])} for _, c in r.iterrows()]
        base = r.iloc[0].to_dict()
        base.update(
            line_num=int(r["line_num"].min()), kind="table_row", cells=json.dumps(cells),
            text=" | ".join(f"{c['header']}: {c['value']}" if c["header"] else c["value"] for c in cells),
            row_key=cells[0]["value"] if cells else None,
            x0=float(r["x0"].min()), x1=float(r["x1"].max()), y0=float(r["y0"].min()), y1=float(r["y1"].max()),
        )
        base.pop("_cy", None)
        recs.append(base)
    return pd.DataFrame(recs) if recs else run


def selected_rows(table: pd.DataFrame, sub: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows labelled ``sub``, first data row) of an escalated table (table_row lines)."""
    keys = table["row_key"] if "row_key" in table else pd.Series([None] * len(table), index=table.index)
    is_header = keys.astype(str).str.lower().eq("header")
    data = table[~is_header]
    if sub in ("first", "last") and not data.empty:  # "the bottom line of Table 3"
        hit = data.iloc[-1:] if sub == "last" else data.iloc[:1]
        return hit, (data.iloc[:1] if sub == "last" and len(data) > 1 else data.iloc[0:0])
    hit = data[[_label_match(rk, tx, sub) for rk, tx in zip(keys[~is_header], data["text"])]]
    first = data.iloc[:1]
    if not first.empty and int(first["line_num"].iloc[0]) in set(hit["line_num"].astype(int)):
        first = first.iloc[0:0]
    return hit, first


def header_rows(table: pd.DataFrame) -> pd.DataFrame:
    keys = table["row_key"] if "row_key" in table else pd.Series([None] * len(table), index=table.index)
    return table[keys.astype(str).str.lower().eq("header")]
