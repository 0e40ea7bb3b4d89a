"""cross_ref_df rows that are free at parse time: internal native links, toc anchors, objects.

Native links: LINK_GOTO and LINK_NAMED annotations resolved to a page of the same document
(external URI / GoToR / Launch links are skipped). ``anchor_text`` is the words under the link
rectangle; ``ref_type``/``ref_target`` come from that text ("Table 3", "Section 3.5", "[12]"),
or, when the text says nothing, from a LaTeX/hyperref destination name ("cite.x",
"subsection.3.2", "table.3"). Pages without annotations are never loaded for links.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from docintel.parsing.fitz import pymupdf
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


def _pages_with_annots(doc: Any) -> list[int]:
    """0-based pages whose /Annots is non-empty (cheap: reads one key per page object)."""
    pages = []
    for pno in range(doc.page_count):
        try:
            kind, _ = doc.xref_get_key(doc.page_xref(pno), "Annots")
        except Exception:
            pages.append(pno)  # unsure: look at the page
            continue
        if kind != "null":
            pages.append(pno)
    return pages


def anchor_words(words: Sequence[tuple], rect: Any) -> str:
    """Text of the words whose box overlaps ``rect`` by at least half of the word's area/width."""
    rx0, ry0, rx1, ry1 = rect
    picked = []
    for w in words:
        x0, y0, x1, y1 = w[0], w[1], w[2], w[3]
        ix = min(x1, rx1) - max(x0, rx0)
        iy = min(y1, ry1) - max(y0, ry0)
        if ix <= 0 or iy <= 0:
            continue
        if ix >= 0.5 * max(x1 - x0, 0.1) and iy >= 0.4 * max(y1 - y0, 0.1):
            picked.append(w)
    picked.sort(key=lambda w: (w[5], w[6], w[7]) if len(w) > 7 else (round(w[1]), w[0]))
    return " ".join(w[4] for w in picked)


def origin_line(page_lines: pd.DataFrame | None, rect: Any) -> int | None:
    """line_num of the line with the largest overlap with ``rect`` (None when nothing overlaps)."""
    if page_lines is None or page_lines.empty:
        return None
    rx0, ry0, rx1, ry1 = rect
    x0 = page_lines["x0"].to_numpy(float)
    y0 = page_lines["y0"].to_numpy(float)
    x1 = page_lines["x1"].to_numpy(float)
    y1 = page_lines["y1"].to_numpy(float)
    ix = np.clip(np.minimum(x1, rx1) - np.maximum(x0, rx0), 0, None)
    iy = np.clip(np.minimum(y1, ry1) - np.maximum(y0, ry0), 0, None)
    area = ix * iy
    if area.size == 0 or area.max() <= 0:
        return None
    return int(page_lines["line_num"].to_numpy()[int(area.argmax())])


def native_link_rows(doc: Any, lines: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per internal link (LINK_GOTO / LINK_NAMED with a target page)."""
    m = pymupdf()
    internal = {m.LINK_GOTO, m.LINK_NAMED}
    by_page = {int(p): g for p, g in lines.groupby("page_num", sort=False)} if not lines.empty else {}
    heights: dict[int, float] = {}
    rows: list[dict[str, Any]] = []
    for pno in _pages_with_annots(doc):
        try:
            page = doc[pno]
            links = [lk for lk in page.get_links() if lk.get("kind") in internal]
        except Exception:
            continue
        links = [lk for lk in links if isinstance(lk.get("page"), int) and 0 <= lk["page"] < doc.page_count]
        if not links:
            continue
        try:
            words = page.get_text("words", flags=0)
        except Exception:
            words = []
        page_lines = by_page.get(pno + 1)
        for lk in links:
            rect = tuple(lk["from"])
            text = anchor_words(words, rect)
            ref_type, ref_target, _sub = parse_link_anchor(text)
            hint = dest_hint(lk.get("nameddest") or lk.get("name"))
            if hint is not None and (ref_type == "other" or (hint[0] == "citation" and ref_type == "section")):
                ref_type, ref_target = hint[0], ref_target if hint[1] is None else hint[1]
                if hint[0] == "citation":
                    ref_target = text.strip("[]() ,;") or hint[1]
            target = lk["page"]
            y = None
            to = lk.get("to")
            if to is not None:
                y = float(to.y)
                if lk.get("kind") == m.LINK_NAMED:  # named destinations are in PDF coordinates
                    if target not in heights:
                        try:
                            heights[target] = float(doc.page_cropbox(target).y1)
                        except Exception:
                            heights[target] = float("nan")
                    y = heights[target] - y
                if not np.isfinite(y) or y < 0:
                    y = None
            rows.append(
                {
                    "origin_page": pno + 1,
                    "origin_line": origin_line(page_lines, rect),
                    "anchor_text": text,
                    "ref_type": ref_type,
                    "ref_target": ref_target,
                    "target_page": target + 1,
                    "target_y": y,
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
                "anchor_text": (f"{r['toc_id']} {r['title']}" if not r["toc_id"].startswith("#") else r["title"]),
                "ref_type": ref_type,
                "ref_target": r["toc_id"],
                "target_page": r["page_start"],
                "target_y": r.get("y0"),
                "source": "toc_anchor",
            }
        )
    return out


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
