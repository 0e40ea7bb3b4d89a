"""Tesseract helpers shared by the OCR methods: words -> lines in page coordinates."""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("OMP_THREAD_LIMIT", "1")


def ocr_lines(image: Any, scale: float, offset: tuple[float, float] = (0.0, 0.0), lang: str = "eng", psm: int = 3,
              min_conf: float = 30.0, split_gap: float | None = None) -> list[dict[str, Any]]:
    """Tesseract ``image_to_data`` on a PIL image, grouped into text lines.

    Pixel boxes are mapped to points with ``scale`` (points per pixel) plus ``offset``; each
    line carries the mean confidence of its words. Words below ``min_conf`` are dropped (they
    are mostly noise read from drawings). ``split_gap`` splits a line where the gap between two
    words exceeds that many line heights (labels side by side in a diagram).
    """
    import pytesseract

    data = pytesseract.image_to_data(image, lang=lang, config=f"--psm {psm}", output_type=pytesseract.Output.DICT)
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, text in enumerate(data["text"]):
        if not text or not text.strip():
            continue
        try:
            conf = float(data["conf"][i])
        except (TypeError, ValueError):
            conf = -1.0
        if conf < min_conf:
            continue
        key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        groups.setdefault(key, []).append(i)
    ox, oy = offset
    rows: list[dict[str, Any]] = []
    pieces: list[tuple[tuple[int, int, int], list[int]]] = []
    for key, idx in groups.items():
        idx = sorted(idx, key=lambda i: data["left"][i])
        if split_gap is None:
            pieces.append((key, idx))
            continue
        h = max(data["height"][i] for i in idx)
        cur = [idx[0]]
        for i in idx[1:]:
            prev = cur[-1]
            if data["left"][i] - (data["left"][prev] + data["width"][prev]) > split_gap * h:
                pieces.append((key, cur))
                cur = []
            cur.append(i)
        pieces.append((key, cur))
    for key, idx in sorted(pieces, key=lambda kv: (min(data["top"][i] for i in kv[1]), min(data["left"][i] for i in kv[1]))):
        words = [data["text"][i].strip() for i in idx]
        text = " ".join(words)
        if not any(ch.isalnum() for ch in text):
            continue
        x0 = min(data["left"][i] for i in idx)
        y0 = min(data["top"][i] for i in idx)
        x1 = max(data["left"][i] + data["width"][i] for i in idx)
        y1 = max(data["top"][i] + data["height"][i] for i in idx)
        confs = [float(data["conf"][i]) for i in idx]
        rows.append(
            {
                "text": text,
                "x0": ox + x0 * scale,
                "y0": oy + y0 * scale,
                "x1": ox + x1 * scale,
                "y1": oy + y1 * scale,
                "block_num": int(key[0]),
                "block_line": int(key[2]),
                "font_size": round((y1 - y0) * scale, 2),
                "confidence": round(sum(confs) / len(confs), 2),
            }
        )
    return rows


def pixmap_to_pil(pix: Any) -> Any:
    from PIL import Image

    mode = "L" if pix.n == 1 else "RGB"
    if pix.alpha:
        pix = type(pix)(pix, 0)  # drop alpha
    return Image.frombytes(mode, (pix.width, pix.height), pix.samples)
