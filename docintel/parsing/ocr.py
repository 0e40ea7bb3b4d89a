"""Tesseract baseline for scanned pages (parsing_method ``tesseract``).

The page is rendered as displayed (its /Rotate applied) at ``dpi``; word boxes are mapped back
to PyMuPDF's unrotated page space so line_df coordinates mean the same thing for every method.
Each line carries the mean confidence of its words; the page gets the mean word confidence.
"""

from __future__ import annotations

import os
from typing import Any

METHOD = "tesseract"


def ocr_page(page: Any, doc_id: str, page_num: int, dpi: int = 300, lang: str = "eng") -> tuple[list[dict[str, Any]], float | None]:
    """line_df rows and the page's mean word confidence (0-100; None when no words)."""
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # one core per Tesseract; workers parallelise
    import pytesseract
    from PIL import Image

    from docintel.parsing.fitz import pymupdf

    fitz = pymupdf()
    pix = page.get_pixmap(dpi=dpi, colorspace=fitz.csGRAY, alpha=False)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    data = pytesseract.image_to_data(image, lang=lang, config="--psm 3", output_type=pytesseract.Output.DICT)
    scale = 72.0 / dpi
    derotate = page.derotation_matrix
    lines: dict[tuple[int, int, int], list[int]] = {}
    for k, word in enumerate(data["text"]):
        if word and word.strip() and float(data["conf"][k]) >= 0:
            lines.setdefault((data["block_num"][k], data["par_num"][k], data["line_num"][k]), []).append(k)
    rows: list[dict[str, Any]] = []
    confs: list[float] = []
    for (block, _par, line_in_block), ks in lines.items():
        words = [data["text"][k].strip() for k in ks]
        conf = [float(data["conf"][k]) for k in ks]
        confs.extend(conf)
        x0 = min(data["left"][k] for k in ks) * scale
        y0 = min(data["top"][k] for k in ks) * scale
        x1 = max(data["left"][k] + data["width"][k] for k in ks) * scale
        y1 = max(data["top"][k] + data["height"][k] for k in ks) * scale
        r = fitz.Rect(x0, y0, x1, y1) * derotate
        heights = sorted(data["height"][k] for k in ks)
        rows.append(
            {
                "doc_id": doc_id,
                "page_num": page_num,
                "line_num": len(rows) + 1,
                "text": " ".join(words),
                "x0": r.x0,
                "y0": r.y0,
                "x1": r.x1,
                "y1": r.y1,
                "block_num": int(block),
                "block_line": int(line_in_block),
                "column": "single",
                "font_size": round(heights[len(heights) // 2] * scale, 2),
                "bold": False,
                "font": None,
                "kind": "text",
                "parsing_method": METHOD,
                "confidence": round(sum(conf) / len(conf), 2),
            }
        )
    page_conf = round(sum(confs) / len(confs), 2) if confs else None
    return rows, page_conf
