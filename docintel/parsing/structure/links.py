"""cross_ref_df rows that are free at parse time: internal native links, toc anchors, objects.

Native links: LINK_GOTO and LINK_NAMED annotations resolved to a page of the same document
(external URI / GoToR / Launch links are skipped). ``anchor_text`` is the words under the link
rectangle, estimated from the baseline lines (no second text extraction); ``ref_type`` and
``ref_target`` come from that text ("Table 3", "Section 3.5", "[12]"),
or from a LaTeX/hyperref destination name ("cite.x" -> citation "x", "subsection.3.2",
"table.3") when the text says nothing; a link into the reference list is a citation. Links are
read from the annotation objects (see annots.py); pages are loaded only when an annotation is
unusual.
"""

from __future__ import annotations

import re
from itertools import accumulate, repeat
from typing import Any, Iterable, Sequence

import numpy as np

from docintel.parsing.fitz import pymupdf
from docintel.parsing.structure.annots import LinkReader
from docintel.parsing.structure.lines import Lines
from docintel.parsing.structure.numbering import parse_link_anchor

_DEST = re.compile(
    r"^(?P<kind>section|subsection|subsubsection|paragraph|chapter|appendix|table|figure|equation|cite|Hfootnote|footnote|page|item|lstlisting|algorithm)\*?\.(?P<id>.+)$",
    re.IGNORECASE,
)
_DEST_TYPE = {
    "section": "section",
    "subsection": "section",
    "subsubsection": "section",
    "paragraph": "section",
    "chapter": "section",
    "appendix": "appendix",
    "table": "table",
    "figure": "figure",
    "equation": "equation",
    "cite": "citation",
    "page": "page",
}


def dest_hint(name: str | None) -> tuple[str, str | None] | None:
    """(ref_type, ref_target) from a hyperref destination name, e.g. "subsection.3.2" ->
    ("section", "3.2"), "cite.vaswani" -> ("citation", "vaswani"), "table.3" -> ("table", "3")."""
    if not name:
        return None
    m = _DEST.match(name)
    if not m:
        return None
    kind = _DEST_TYPE.get(m.group("kind").lower())
    if kind is None:
        return None
    ident = m.group("id")
    if kind in ("table", "figure", "equation") and not re.fullmatch(r"[A-Za-z]?\d+(?:[.\-]\d+)*", ident):
        return kind, None
    return kind, ident


def anchor_words(words: Sequence[tuple], rect: Any, boxes: np.ndarray | None = None) -> str:
    """Text of the words (PyMuPDF "words" tuples) whose box lies at least half inside ``rect``
    horizontally and mostly inside it vertically. Exact, but needs the page's words (a text
    extraction of its own); :func:`anchor_from_lines` is the cheap default."""
    if not words:
        return ""
    if boxes is None:
        boxes = np.array([w[:4] for w in words], dtype=float)
    rx0, ry0, rx1, ry1 = rect
    ix = np.minimum(boxes[:, 2], rx1) - np.maximum(boxes[:, 0], rx0)
    iy = np.minimum(boxes[:, 3], ry1) - np.maximum(boxes[:, 1], ry0)
    w = np.maximum(boxes[:, 2] - boxes[:, 0], 0.1)
    h = np.maximum(boxes[:, 3] - boxes[:, 1], 0.1)
    hit = np.flatnonzero((ix >= 0.5 * w) & (iy >= 0.4 * h))
    return " ".join(words[i][4] for i in hit)  # words come in reading order


# rough advance widths (1/1000 em) by character class; proportional fonts are close enough to
# place a word inside its line to within a character or two
_WIDTH = {**{c: 260 for c in "il.,:;'|!jI"}, **{c: 320 for c in "ftr()[]-/ "}, **{c: 850 for c in "mwMW"},
          **{c: 680 for c in "ABCDEFGHJKLNOPQRSTUVXYZ"}, **{c: 556 for c in "0123456789"}}
_WIDTH_OF = _WIDTH.get
_LABEL_WORD = re.compile(r"^\(?(?:table|tables|tab\.|figure|figures|fig\.|figs\.|appendix|appendices|annex|schedule|exhibit|section|sections|sec\.|§|chapter|eq\.|equation)$", re.IGNORECASE)
_WORD = re.compile(r"\S+")


def word_spans(text: str, x0: float, x1: float) -> list[tuple[str, float, float]]:
    """(word, estimated x0, estimated x1) for the words of a line spanning [x0, x1]."""
    cum = list(accumulate(map(_WIDTH_OF, text, repeat(520)), initial=0))
    scale = (x1 - x0) / cum[-1] if cum[-1] else 0.0
    return [(m.group(), x0 + cum[m.start()] * scale, x0 + cum[m.end()] * scale) for m in _WORD.finditer(text)]


class PageText:
    """The baseline lines of one page, with word estimates cached per line."""

    def __init__(self, texts: Sequence[str], boxes: np.ndarray, line_nums: np.ndarray):
        self.texts, self.boxes, self.line_nums = texts, boxes, line_nums
        self._spans: dict[int, list[tuple[str, float, float]]] = {}

    def spans(self, k: int) -> list[tuple[str, float, float]]:
        s = self._spans.get(k)
        if s is None:
            x0, _, x1, _ = self.boxes[k]
            s = self._spans[k] = word_spans(self.texts[k], float(x0), float(x1))
        return s


def anchor_from_lines(texts: Sequence[str], boxes: np.ndarray, rect: Any, parse: bool = False):
    """Anchor text of ``rect`` from the page's line texts and boxes, without a text extraction.

    Word positions are estimated from character widths inside each line the rect overlaps;
    words at least half inside are kept. A label word at the edge ("Table", "Appendix") pulls
    in its number, since a reference is never the bare word. With ``parse=True`` returns
    (text, parse_link_anchor(text)); a one-word pick that says nothing is then nudged one word
    left or right when that neighbour reads as a reference (estimates drift on long lines).
    """
    page = PageText(texts, boxes, np.arange(len(texts)))
    text, parsed, _ = anchor_on_page(page, rect)
    return (text, parsed) if parse else text


def anchor_on_page(page: PageText, rect: Any) -> tuple[str, tuple[str, str | None, str | None], int | None]:
    """(anchor text, parsed reference, line_num of the most-overlapped line) for ``rect``."""
    return anchors_on_page(page, [rect])[0]


def anchors_on_page(page: PageText, rects: Sequence[Any]) -> list[tuple[str, tuple[str, str | None, str | None], int | None]]:
    """:func:`anchor_on_page` for all link rects of a page at once (one overlap matrix)."""
    boxes = page.boxes
    if not len(rects):
        return []
    if not len(boxes):
        return [("", parse_link_anchor(""), None) for _ in rects]
    r = np.asarray(rects, dtype=float).reshape(-1, 4)
    iy = np.minimum(boxes[None, :, 3], r[:, None, 3]) - np.maximum(boxes[None, :, 1], r[:, None, 1])
    ix = np.minimum(boxes[None, :, 2], r[:, None, 2]) - np.maximum(boxes[None, :, 0], r[:, None, 0])
    area = np.clip(ix, 0, None) * np.clip(iy, 0, None)
    best = area.argmax(axis=1).tolist()
    has = (area.max(axis=1) > 0).tolist()
    hit = (iy >= 0.4 * (boxes[None, :, 3] - boxes[None, :, 1])) & (ix > 0)
    out = []
    line_nums = page.line_nums
    for j, (rx0, _, rx1, _) in enumerate(r.tolist()):
        origin = int(line_nums[best[j]]) if has[j] else None
        picks: list[tuple[list[tuple[str, float, float]], int, int]] = []
        for k in np.flatnonzero(hit[j]).tolist():
            spans = page.spans(k)
            picked = [i for i, (_, a, b) in enumerate(spans) if min(b, rx1) - max(a, rx0) >= 0.5 * (b - a)]
            if not picked:  # a tiny rect (a page number, a superscript): the most-overlapped word
                ov = [min(b, rx1) - max(a, rx0) for _, a, b in spans]
                if ov and max(ov) > 0:
                    picked = [ov.index(max(ov))]
            if picked:
                picks.append((spans, picked[0], picked[-1]))
        out.append(_read_picks(picks, rx0) + (origin,))
    return out


def _read_picks(picks: list[tuple[list[tuple[str, float, float]], int, int]], rx0: float):
    text = " ".join(_widen(spans, lo, hi, rx0) for spans, lo, hi in picks)
    parsed = parse_link_anchor(text)
    if parsed[0] == "other" and len(picks) == 1 and picks[0][1] == picks[0][2] and not _FOOTNOTE_MARK.match(text):
        spans, lo, _ = picks[0]
        for k in (lo - 1, lo + 1):
            if 0 <= k < len(spans):
                alt = _widen(spans, k, k, rx0)
                alt_parsed = parse_link_anchor(alt)
                if alt_parsed[0] in _NUDGE_OK:
                    return alt, alt_parsed
    return text, parsed


_NUDGE_OK = {"section", "table", "figure", "appendix", "annex", "schedule", "exhibit", "equation"}
_FOOTNOTE_MARK = re.compile(r"^\S*[^\d\s.\-]\d{1,3}[.,;:)]?$")


def _widen(spans: list[tuple[str, float, float]], lo: int, hi: int, rx0: float) -> str:
    if _LABEL_WORD.match(spans[hi][0]) and hi + 1 < len(spans):
        hi += 1
    if lo > 0 and not _LABEL_WORD.match(spans[lo][0]) and _LABEL_WORD.match(spans[lo - 1][0]):
        lo -= 1
    if hi > lo and spans[lo][1] < rx0 and spans[lo][0].lower() in {"in", "see", "of", "and", "to", "the", "(see"}:
        lo += 1
    return " ".join(w for w, _, _ in spans[lo : hi + 1])


def native_link_rows(doc: Any, arrays: Lines, citation_pages: set[int] | frozenset = frozenset()) -> list[dict[str, Any]]:
    """One row per internal link (GoTo / named destination with a target page in ``doc``).

    ``citation_pages``: 1-based pages of the reference list; an otherwise unreadable link that
    lands there is a citation."""
    m = pymupdf()
    internal = {m.LINK_GOTO, m.LINK_NAMED}
    try:
        reader = LinkReader(doc)
    except Exception:  # not an open PDF (closed, or no document at all): no links to read
        return []
    rows: list[dict[str, Any]] = []
    for pno in reader.pages_with_annots():
        links = reader.links(pno, internal)
        if not links:
            continue
        sl = arrays.page_slice(pno + 1)
        page = PageText(arrays.text[sl.start : sl.stop], arrays.box[sl], arrays.line_num[sl])
        for lk, (text, (ref_type, ref_target, _sub), origin) in zip(links, anchors_on_page(page, [lk.rect for lk in links])):
            hint = dest_hint(lk.name)
            if hint is not None and (ref_type == "other" or (hint[0] == "citation" and ref_type == "section")):
                ref_type, ref_target = hint[0], ref_target if hint[1] is None else hint[1]
            if ref_type == "other" and lk.page + 1 in citation_pages:
                ref_type, ref_target = "citation", text.strip("[]() ,;.") or None
            rows.append(
                {
                    "origin_page": pno + 1,
                    "origin_line": origin,
                    "anchor_text": text,
                    "ref_type": ref_type,
                    "ref_target": ref_target,
                    "target_page": lk.page + 1,
                    "target_y": lk.y if lk.y is not None and lk.y >= 0 else None,
                    "source": "native_link",
                }
            )
    return rows


def toc_anchor_rows(toc_rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in toc_rows:
        if r["page_start"] is None:
            continue
        kind = r.get("kind")
        ref_type = kind if kind in ("appendix", "annex", "schedule", "exhibit") else (
            "appendix" if kind in ("attachment", "supplement") else "section"
        )
        out.append(
            {
                "origin_page": r["page_start"],
                "origin_line": r.get("line_num"),
                "anchor_text": _toc_anchor_text(r, ref_type),
                "ref_type": ref_type,
                "ref_target": r["toc_id"],
                "target_page": r["page_start"],
                "target_y": r.get("y0"),
                "source": "toc_anchor",
            }
        )
    return out


def _toc_anchor_text(r: dict[str, Any], ref_type: str) -> str:
    if r["toc_id"].startswith("#"):
        return r["title"]
    if ref_type != "section":
        return f"{ref_type.capitalize()} {r['toc_id']} {r['title']}"
    return f"{r['toc_id']} {r['title']}"


def object_anchor_rows(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for o in objects:
        bbox = o.get("bbox")
        out.append(
            {
                "origin_page": o["page_num"],
                "origin_line": o.get("line_start"),
                "anchor_text": o.get("caption"),
                "ref_type": o["object_type"],
                "ref_target": o["object_id"],
                "target_page": o["page_num"],
                "target_y": float(bbox[1]) if bbox else None,
                "source": "object_registry",
            }
        )
    return out
