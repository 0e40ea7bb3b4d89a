"""Synthetic pages made with PyMuPDF for exact layouts, and stores built by the real ingest."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

LABELS = ["Encoder Stack", "Feed Forward", "Softmax Output"]
SCAN_TEXT = [
    "The quick brown fox jumps over the lazy dog.",
    "Adaptive parsing pays for a heavy parser only",
    "on the pages whose cheap signals fire, and it",
    "keeps the cheap parse beside the deep one.",
    "Tesseract reads this page after it is turned",
    "upright and the remaining skew is removed.",
]


def _pymupdf():
    from docintel.parsing.fitz import pymupdf

    return pymupdf()


def draw_ruled_table(page, xs: list[float], y: float, rows: list[list[str]], inset: float = 5,
                     bold_header: bool = False) -> None:
    """A fully ruled grid on ``page``: column edges ``xs``, top ``y``, rows 22 pt high."""
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            page.insert_text((xs[c] + inset, y + 22 * r + 15), text, fontsize=10,
                             fontname="hebo" if bold_header and r == 0 else "helv")
    for k in range(len(rows) + 1):
        page.draw_line((xs[0], y + 22 * k), (xs[-1], y + 22 * k), width=0.6)
    for x in xs:
        page.draw_line((x, y), (x, y + 22 * len(rows)), width=0.6)


def ruled_table_pdf(path: Path) -> Path:
    """A fully ruled 3x4 grid under a 'Table 1:' caption; the first row is the header."""
    m = _pymupdf()
    doc = m.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), "Table 1: Resource limits per tier", fontsize=11)
    rows = [["Tier", "Memory", "Storage"], ["Basic", "2 GB", "10 GB"], ["Standard", "8 GB", "100 GB"], ["Premium", "32 GB", "1 TB"]]
    draw_ruled_table(page, [72, 222, 372, 522], 110, rows, inset=6, bold_header=True)
    page.insert_text((72, 260), "The text under the table talks about Table 1 and its tiers.", fontsize=10)
    doc.save(path)
    return path


def booktabs_pdf(path: Path) -> Path:
    """A booktabs table: three horizontal rules, no vertical ones, a two-line header."""
    m = _pymupdf()
    doc = m.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((100, 80), "Table 2: Scores of the models on the dev set.", fontsize=10)
    page.draw_line((100, 92), (500, 92), width=0.8)
    header1 = [(100, "Model"), (260, "Accuracy"), (360, "Latency"), (450, "Size")]
    header2 = [(260, "(dev)"), (360, "(ms)"), (450, "(MB)")]
    for x, t in header1:
        page.insert_text((x, 106), t, fontsize=10)
    for x, t in header2:
        page.insert_text((x, 118), t, fontsize=10)
    page.draw_line((100, 123), (500, 123), width=0.5)
    body = [("baseline", "71.2", "12", "40"), ("small", "74.9", "18", "85"), ("large", "79.3", "55", "410")]
    y = 137
    for row in body:
        for (x, _), t in zip(header1, row):
            page.insert_text((x, y), t, fontsize=10)
        y += 14
    page.draw_line((100, y - 8), (500, y - 8), width=0.8)
    page.insert_text((100, y + 20), "We compare three model sizes in Table 2; larger models are slower.", fontsize=10)
    doc.save(path)
    return path


def _text_image(lines: list[str], size=(1400, 500), font_size=44, spacing=70, boxed=False):
    """A PIL image of ``lines`` (rendered by PyMuPDF, so no font files are needed)."""
    from PIL import Image

    m = _pymupdf()
    doc = m.open()
    w, h = size[0] * 72 / 200, size[1] * 72 / 200
    page = doc.new_page(width=w, height=h)
    for i, text in enumerate(lines):
        y = 30 + i * spacing * 72 / 200
        page.insert_text((20, y), text, fontsize=font_size * 72 / 200)
        if boxed:
            page.draw_rect(m.Rect(12, y - font_size * 72 / 200 - 4, w - 12, y + 8), width=1)
    pix = page.get_pixmap(dpi=200, colorspace=m.csGRAY)
    return Image.frombytes("L", (pix.width, pix.height), pix.samples)


def figure_pdf(path: Path) -> Path:
    """A page with a raster 'diagram' whose labels exist only as pixels, captioned Figure 1."""
    m = _pymupdf()
    img = _text_image(LABELS, size=(1100, 700), font_size=60, spacing=200, boxed=True)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    doc = m.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 70), "Section 2 describes the architecture in Figure 1.", fontsize=10)
    page.insert_image(m.Rect(120, 90, 120 + 330, 90 + 210), stream=buf.getvalue())
    page.insert_text((120, 320), "Figure 1: The model architecture.", fontsize=10)
    doc.save(path)
    return path


def rotated_scan_pdf(path: Path, angle: float = 2.5) -> Path:
    """A scanned page (image only, no text layer) turned 90 degrees and skewed by ``angle``."""
    m = _pymupdf()
    img = _text_image(SCAN_TEXT, size=(1600, 2000), font_size=40, spacing=90)
    img = img.rotate(90, expand=True, fillcolor=255).rotate(angle, expand=True, fillcolor=255)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    doc = m.open()
    page = doc.new_page(width=img.width * 72 / 200, height=img.height * 72 / 200)
    page.insert_image(page.rect, stream=buf.getvalue())
    doc.save(path)
    return path


def page_input(pdf: Path, page_num: int = 1, settings=None):
    from docintel.parsing.methods.base import PageInput
    from docintel.settings import Settings

    doc = _pymupdf().open(pdf)
    return PageInput("testdoc", page_num, doc[page_num - 1], settings or Settings())


def ingest_into(store_dir: Path, *pdfs: Path):
    from docintel.parsing.ingest import run_ingest
    from docintel.settings import Settings

    settings = Settings.load(env={}, store=store_dir)
    run_ingest(list(pdfs), settings)
    return settings


