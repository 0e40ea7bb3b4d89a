"""High-resolution OCR (reasons ``scanned`` and low OCR confidence), upright and deskewed.

The page is rendered at ``settings.escalate.ocr_dpi`` (400 by default); Tesseract's orientation
and script detection (``--psm 0`` through ``pytesseract.image_to_osd``) gives the rotation that
makes the text upright; the remaining skew is the angle that makes the rows' ink profile
sharpest (projection profile over -6..6 degrees, on a downscaled copy). Line boxes are in points
of the corrected (upright, deskewed) page image, and every line carries its OCR confidence.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from docintel.parsing.fitz import pymupdf
from docintel.parsing.methods.base import MethodResult, PageInput, number_lines
from docintel.parsing.methods.ocr_common import ocr_lines, pixmap_to_pil
from docintel.settings import Settings

METHOD = "ocr_hires"
OSD_DPI = 150
SKEW_RANGE = 6.0  # degrees either way
SKEW_STEP = 0.2


def orientation(image: Any) -> int:
    """Clockwise degrees (0/90/180/270) to rotate ``image`` by so its text is upright; 0 if unsure."""
    import pytesseract

    try:
        osd = pytesseract.image_to_osd(image, config="--psm 0")
    except pytesseract.TesseractError:  # too little text to decide
        return 0
    m = re.search(r"Rotate:\s*(\d+)", osd)
    conf = re.search(r"Orientation confidence:\s*([\d.]+)", osd)
    if not m or (conf and float(conf.group(1)) < 1.0):
        return 0
    return int(m.group(1)) % 360


def skew_angle(image: Any) -> float:
    """Counter-clockwise degrees that straighten the text rows (projection-profile search)."""
    import numpy as np

    small = image.convert("L")
    scale = 800 / max(small.size)
    if scale < 1:
        small = small.resize((max(1, int(small.width * scale)), max(1, int(small.height * scale))))
    best, best_score = 0.0, -1.0
    steps = int(2 * SKEW_RANGE / SKEW_STEP) + 1
    for k in range(steps):
        angle = -SKEW_RANGE + k * SKEW_STEP
        rotated = small.rotate(angle, expand=False, fillcolor=255)
        ink = (np.asarray(rotated, dtype=np.uint8) < 128).sum(axis=1).astype(float)
        score = float(np.square(np.diff(ink)).sum())
        if score > best_score:
            best, best_score = angle, score
    return round(best, 2)


def upright(image: Any) -> tuple[Any, int, float]:
    """(corrected image, rotation applied, skew removed)."""
    probe = image.copy()
    probe.thumbnail((int(image.width * OSD_DPI / 400) or 1, int(image.height * OSD_DPI / 400) or 1))
    rot = orientation(probe)
    if rot:
        # Tesseract's "Rotate" is clockwise; PIL rotates counter-clockwise
        image = image.rotate(-rot, expand=True, fillcolor=255)
    angle = skew_angle(image)
    if abs(angle) >= SKEW_STEP:
        image = image.rotate(angle, expand=True, fillcolor=255, resample=3)
    return image, rot, angle


class OCRHiresMethod:
    """scanned / low-confidence OCR -> Tesseract at higher DPI, upright and deskewed."""

    name: ClassVar[str] = METHOD
    reasons: ClassVar[tuple[str, ...]] = ("scanned", "low_ocr_confidence", "ocr_confidence")
    coverage: ClassVar[str] = "page"
    structured: ClassVar[bool] = False
    description: ClassVar[str] = "Tesseract at settings.escalate.ocr_dpi with orientation (OSD) and deskew"

    def estimate(self, page_row: dict[str, Any], settings: Settings) -> tuple[float, int]:
        area = float(page_row.get("width") or 612) * float(page_row.get("height") or 792) / (612 * 792)
        return round(6.0 * area * (settings.escalate.ocr_dpi / 300) ** 2, 1), 0

    def run(self, page: PageInput) -> MethodResult:
        m = pymupdf()
        dpi = page.settings.escalate.ocr_dpi
        pix = page.page.get_pixmap(dpi=dpi, colorspace=m.csGRAY)
        image, rot, angle = upright(pixmap_to_pil(pix))
        rows = ocr_lines(image, 72.0 / dpi, lang=page.settings.ingest.ocr_lang, psm=3, min_conf=0)
        rows = [r for r in rows if r["confidence"] > 0 or len(r["text"]) > 2]
        for r in rows:
            r["kind"] = "text"
        confs = [r["confidence"] for r in rows]
        mean = round(sum(confs) / len(confs), 2) if confs else None
        _assign_columns(rows, image.width * 72.0 / dpi)
        notes = [f"rotated {rot} deg, deskewed {angle:+.2f} deg, {len(rows)} lines at {dpi} dpi"]
        return MethodResult(lines=number_lines(rows, page.doc_id, page.page_num, METHOD), ocr_confidence=mean, notes=notes)


def _assign_columns(rows: list[dict[str, Any]], width: float) -> None:
    from docintel.parsing.columns import assign_columns

    labels, _ = assign_columns(rows, width)
    for r, label in zip(rows, labels):
        r["column"] = label
