"""TOC entries from the PDF outline (bookmarks), with the section numbers a reader would cite.

Outline titles are often bare ("Positional Encoding"); the number is then read from the heading
line on the target page ("3.5 Positional Encoding"), else inferred from the numbered siblings
around it in the outline; entries that stay unnumbered get a synthetic id "#n".
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from docintel.parsing.structure.lines import Lines
from docintel.parsing.structure.numbering import (
    is_unnumbered_title,
    number_depth,
    parent_number,
    split_appendix,
    split_section_number,
)

_DROP = {c: None for c in range(128) if not chr(c).isalnum()}
_DROP.update({ord(c): None for c in "\u00a0\u2013\u2014\u2019\u201c\u201d\u2022\u00b7\u2010\u2011"})


def norm(text: str) -> str:
    """Lowercase letters and digits only: the key used to match titles with heading lines."""
    return text.lower().translate(_DROP)


_NUMBER_ONLY = re.compile(r"^\W*\d{1,3}(?:\.\d{1,3})*\W*$")


def _has_words(title: str, seen_appendix: set[str]) -> bool:
    """False for bookmark debris: a bare number ("1.", "1.1.1"), or an appendix label without a
    title ("Appendix A—") when the outline names that appendix elsewhere."""
    t = title.strip()
    if not t or _NUMBER_ONLY.match(t):
        return False
    app = split_appendix(t)
    return not (app is not None and not app[2] and app[1] in seen_appendix)


def read_outline(doc: Any) -> list[dict[str, Any]]:
    """Raw outline entries: level, title, page (1-based or None), y (top-left points or None)."""
    try:
        toc = doc.get_toc(simple=False)
    except Exception:  # a broken outline is no outline
        return []
    out = []
    for item in toc:
        level, title, page = item[0], item[1], item[2]
        dest = item[3] if len(item) > 3 and isinstance(item[3], dict) else {}
        y = None
        to = dest.get("to")
        if to is not None and page and page > 0:
            y = float(to.y)
            if dest.get("kind") == 4 or dest.get("nameddest"):  # named dests come in PDF coordinates
                try:
                    y = float(doc.page_cropbox(page - 1).y1) - y
                except Exception:
                    y = None
        title = " ".join(str(title).replace("\x00", "").split())
        n_pages = getattr(doc, "page_count", 0) or 0
        valid = bool(page) and 0 < page <= (n_pages or page)
        out.append({"level": int(level), "title": title, "page": int(page) if valid else None, "y": y if valid else None})
    return out


def id_from_text(text: str) -> tuple[str | None, str, str | None]:
    """(id, title, kind) from a heading or outline title; kind is "appendix"/"annex"/... or
    "section"; id None when the text carries no number."""
    app = split_appendix(text)
    if app is not None:
        word, ident, rest = app
        return ident, rest or text, word
    num, rest = split_section_number(text)
    if num is not None and rest:
        return num, rest, "section"
    return None, text, None


def match_heading_line(title: str, page_lines: Sequence[tuple], y: float | None) -> dict[str, Any] | None:
    """The line on the page that shows the outline title, preferring the one nearest ``y``.

    ``page_lines``: (text, line_num, y0[, norm(text)]) of the page's logical lines. A
    match is equal text, the title behind a number ("3.5 " + title), or, for a heading wrapped
    over two lines, a long enough prefix of the title.
    """
    key = norm(title)
    _, bare_title, _ = id_from_text(title)
    bare_key = norm(bare_title)
    if not key:
        return None
    best, best_score = None, None
    words = re.findall(r"[^\W_]+", bare_title.lower())
    probe = words[0] if words else ""  # the first word: also on the first line of a wrapped title
    for row in page_lines:
        text, line_num, y0 = row[0], row[1], row[2]
        if probe and probe not in text.lower() and len(text) >= 8:
            continue  # cheap test first
        t = row[3] if len(row) > 3 else norm(text)
        if not t or len(t) > 3 * len(key) + 20:
            continue
        if key not in t and bare_key not in t and not (len(t) >= 8 and (key.startswith(t) or t[:8] in key)):
            continue
        ident, rest, _ = id_from_text(text)
        r = norm(rest)
        if t == key or (r and (r == key or r == bare_key)):
            quality = 0
        elif len(t) >= 8 and (key.startswith(t) or (r and len(r) >= 8 and bare_key.startswith(r))):
            quality = 1
        else:
            continue
        score = (quality, abs(y0 - y) if y is not None else 0.0)
        if best_score is None or score < best_score:
            best, best_score = (text, line_num, y0), score
    if best is None:
        return None
    ident, rest, kind = id_from_text(best[0])
    return {"line_num": int(best[1]), "y0": float(best[2]), "id": ident, "kind": kind, "text": best[0]}


def outline_entries(raw: Sequence[dict[str, Any]], logical: Lines, usable: np.ndarray | None = None) -> list[dict[str, Any]]:
    """TOC entries (before finalize_toc) from raw outline entries and the document's logical
    lines (``usable``: mask of lines that may be headings, e.g. not running headers)."""
    pages = {item["page"] for item in raw if item["page"] is not None}
    by_page: dict[int, list[tuple[str, int, float]]] = {}
    for p in pages:
        sl = logical.page_slice(p)
        rows = []
        for i in range(sl.start, sl.stop):
            if (usable is None or usable[i]) and len(logical.text[i]) < 300:
                rows.append((logical.text[i], int(logical.line_num[i]), float(logical.box[i, 1])))
        by_page[p] = rows
    entries: list[dict[str, Any]] = []
    titled_appendices = {a[1] for a in map(split_appendix, (i["title"] for i in raw)) if a is not None and a[2]}
    for item in raw:
        if not _has_words(item["title"], titled_appendices):
            continue  # "1.", "1.1.1", "Appendix A—": bookmark debris without a title
        ident, title, kind = id_from_text(item["title"])
        page = item["page"]
        hit = None
        if page is not None and by_page.get(page):
            hit = match_heading_line(item["title"], by_page[page], item["y"])
        if ident is None and hit is not None and hit["id"] is not None:
            ident, kind = hit["id"], hit["kind"]
        if hit is not None and title.islower():  # "appendix a terms and definitions"
            shown = id_from_text(hit["text"])[1]
            if norm(shown) == norm(title):
                title = shown
        entries.append(
            {
                "toc_id": ident,
                "kind": kind,
                "outline_level": item["level"],
                "title": title,
                "page_start": page,
                "line_num": hit["line_num"] if hit else None,
                "y0": hit["y0"] if hit else item["y"],
                "source": "outline",
            }
        )
    _infer_missing_numbers(entries)
    _assign_levels(entries)
    return entries


def _infer_missing_numbers(entries: list[dict[str, Any]]) -> None:
    """Number bare entries from numbered outline neighbours: the next sibling of "3.4" is "3.5",
    the first child of "3.2" is "3.2.1". Only where most of the outline is numbered, and never for
    front/back matter titles (Abstract, References, ...)."""
    numbered = sum(1 for e in entries if e["toc_id"] is not None)
    if numbered == 0 or numbered < 0.5 * len(entries):
        return
    used = {e["toc_id"] for e in entries if e["toc_id"]}
    last_at_level: dict[int, str | None] = {}
    for k, e in enumerate(entries):
        lvl = e["outline_level"]
        for deeper in [k for k in last_at_level if k > lvl]:
            del last_at_level[deeper]
        if e["toc_id"] is None and not is_unnumbered_title(e["title"]):
            prev = last_at_level.get(lvl)
            parent = last_at_level.get(lvl - 1)
            guess = _from_children(entries, k)
            if guess is not None:
                pass
            elif prev and prev[0].isdigit() and (lvl == 1 or (parent and prev.startswith(parent + "."))):
                head, _, tail = prev.rpartition(".")
                guess = f"{head}.{int(tail) + 1}" if head else str(int(tail) + 1)
            elif prev is None and parent and parent[0].isdigit():
                guess = f"{parent}.1"
            elif prev is None and lvl == 1 and not any(k < lvl for k in last_at_level):
                guess = None  # the first top-level entry: no evidence
            if guess and guess not in used and (
                number_depth(guess) == (number_depth(parent) + 1 if parent else 1) or guess == _from_children(entries, k)
            ):
                e["toc_id"], e["kind"] = guess, "section"
                used.add(guess)
        last_at_level[lvl] = e["toc_id"]


def _from_children(entries: list[dict[str, Any]], k: int) -> str | None:
    """The number the children imply: an entry whose first numbered child is "2.1" is "2"
    ("CHAPTER TWO" headings spell their number out)."""
    lvl = entries[k]["outline_level"]
    for child in entries[k + 1 :]:
        if child["outline_level"] <= lvl:
            return None
        ident = child["toc_id"]
        if ident and child["kind"] == "section" and child["outline_level"] == lvl + 1:
            parent = parent_number(ident)
            return parent if parent and parent[0].isdigit() and number_depth(parent) <= lvl else None
    return None


def _assign_levels(entries: list[dict[str, Any]]) -> None:
    for e in entries:
        ident = e["toc_id"]
        if ident is None:
            e["level"] = e["outline_level"]
        elif e["kind"] not in (None, "section"):
            e["level"] = 1
        else:
            e["level"] = number_depth(ident)


__all__ = ["read_outline", "outline_entries", "match_heading_line", "id_from_text", "norm", "parent_number"]
