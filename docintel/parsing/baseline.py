"""The cheap baseline: one line_df row per PyMuPDF text line, with geometry and font facts.

Image blocks are left out of the text walk (decoding them is most of ``get_text("dict")``'s
cost); image placements come from ``page.get_image_info()`` instead (see signals/images).
"""

from __future__ import annotations

from typing import Any

from docintel.glyphs import span_text
from docintel.parsing.columns import assign_columns
from docintel.parsing.fitz import pymupdf

METHOD = "pymupdf"
_BOLD = 16  # PyMuPDF span flag bit: bold


def text_flags() -> int:
    m = pymupdf()
    return (m.TEXTFLAGS_DICT & ~m.TEXT_PRESERVE_IMAGES) | m.TEXT_MEDIABOX_CLIP


def extract_lines(page: Any, doc_id: str, page_num: int) -> list[dict[str, Any]]:
    """line_df rows (parsing_method ``pymupdf``) for one page, in content-stream order.

    ``column`` is filled from the page's own x-distribution (:func:`assign_columns`).
    """
    return extract_page(page, doc_id, page_num)[0]


_SUPERSCRIPT = 1  # PyMuPDF span flag bit: superscript


def join_spans(spans: list[dict[str, Any]]) -> str:
    """A line's text from its spans, a superscript mark set off by a space.

    A footnote mark glued to the word before it makes a different word or number:
    "SP 800-53" + "2" read "SP 800-532" (SP 800-40r3 p9), "Program." + "1" read "Program.1".
    """
    parts: list[str] = []
    for s in spans:
        t = span_text(s)
        if parts and s["flags"] & _SUPERSCRIPT and len(t.strip()) <= 3 and not parts[-1][-1:].isspace():
            t = " " + t.lstrip()
        parts.append(t)
    return "".join(parts)


def extract_page(page: Any, doc_id: str, page_num: int, flags: int | None = None) -> tuple[list[dict[str, Any]], int]:
    """:func:`extract_lines` rows and the page's column count (table grids excluded).

    Coordinates are PyMuPDF's: unrotated page space, origin top-left.
    """
    data = page.get_text("dict", flags=text_flags() if flags is None else flags)
    rows: list[dict[str, Any]] = []
    for block in data["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for block_line, line in enumerate(block["lines"]):
            spans = line["spans"]
            if len(spans) == 1:  # the common case, without the weighting below
                span = spans[0]
                text = span_text(span).strip()
                if not text:
                    continue
                font = span["font"]
                bold = bool(span["flags"] & _BOLD) or "bold" in font.lower()
                size = span["size"]
            else:
                spans = [s for s in spans if s["text"]]
                text = join_spans(spans).strip()
                if not text:
                    continue
                weights = [len(s["text"].strip()) or 1 for s in spans]
                main = max(zip(weights, range(len(spans))))[1]
                bold_chars = sum(w for w, s in zip(weights, spans) if s["flags"] & _BOLD or "bold" in s["font"].lower())
                bold = bold_chars * 2 > sum(weights)
                font = spans[main]["font"]
                size = max(s["size"] for s in spans)
            x0, y0, x1, y1 = line["bbox"]
            rows.append(
                {
                    "doc_id": doc_id,
                    "page_num": page_num,
                    "line_num": len(rows) + 1,
                    "text": " ".join(text.split()),
                    "x0": x0,
                    "y0": y0,
                    "x1": x1,
                    "y1": y1,
                    "block_num": block["number"],
                    "block_line": block_line,
                    "font_size": round(size, 2),
                    "bold": bold,
                    "font": font,
                    "kind": "text",
                    "parsing_method": METHOD,
                }
            )
    labels, n_columns = assign_columns(rows, page.cropbox.width)
    for row, label in zip(rows, labels):
        row["column"] = label
    return rows, n_columns
