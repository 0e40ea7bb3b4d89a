"""Synthetic PDFs with exact layouts, made by PyMuPDF, and torture files (for tests/parsing)."""

from __future__ import annotations

from pathlib import Path

from docintel.parsing.fitz import pymupdf

PROSE = (
    "The committee reviewed the quarterly results and found that the revised procedure "
    "reduced processing time across every regional office without any loss of accuracy. "
)


def _paragraph(page, rect, text: str, fontsize: float = 10) -> None:
    rc = page.insert_textbox(rect, text, fontsize=fontsize, fontname="helv")
    assert rc >= 0, "text did not fit the box"


def make_table_page(doc, caption: str = "Table 1: Measured throughput per site", grid: bool = True) -> None:
    """A caption above a 5 x 8 grid of short cells, then a paragraph of prose."""
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), caption, fontsize=10, fontname="helv")
    if grid:
        headers = ["Site", "Runs", "Mean", "Max", "Errors"]
        for c, h in enumerate(headers):
            page.insert_text((90 + c * 95, 110), h, fontsize=9, fontname="helv")
        for r in range(8):
            cells = [f"S{r + 1}", str(10 + r), f"{4.1 + r / 10:.2f}", f"{7.3 + r / 7:.2f}", str(r % 3)]
            for c, v in enumerate(cells):
                page.insert_text((90 + c * 95, 126 + r * 14), v, fontsize=9, fontname="helv")
    _paragraph(page, (72, 260, 540, 700), PROSE * 6)


def make_prose_page(doc) -> None:
    """Body text alone: no title, no heading."""
    page = doc.new_page(width=612, height=792)
    _paragraph(page, (72, 72, 540, 700), PROSE * 4)


def make_two_column_page(doc) -> None:
    """A full-width title over two columns of justified prose."""
    page = doc.new_page(width=612, height=792)
    page.insert_text((150, 70), "A Study of Regional Processing Times", fontsize=16, fontname="helv")
    _paragraph(page, (60, 100, 296, 740), PROSE * 9)
    _paragraph(page, (316, 100, 552, 740), PROSE * 9)


def make_image_page(doc, with_text_inside: bool = False) -> None:
    """A 300 x 220 pt raster figure (no text inside unless asked) with a caption and prose."""
    fitz = pymupdf()
    page = doc.new_page(width=612, height=792)
    pix = fitz.Pixmap(fitz.csRGB, fitz.IRect(0, 0, 200, 150), False)
    pix.set_rect(pix.irect, (200, 120, 40))
    rect = fitz.Rect(150, 80, 450, 300)
    page.insert_image(rect, pixmap=pix)
    if with_text_inside:
        for k in range(4):
            page.insert_text((170, 120 + k * 40), "Label inside the figure area", fontsize=10, fontname="helv")
    page.insert_text((150, 320), "Figure 1: Processing pipeline", fontsize=10, fontname="helv")
    _paragraph(page, (72, 350, 540, 720), PROSE * 5)


def make_scanned_pdf(path: Path) -> Path:
    """A prose page rendered to a 200-dpi image and placed alone on a page: no text layer."""
    fitz = pymupdf()
    src = fitz.open()
    page = src.new_page(width=612, height=792)
    page.insert_text((72, 90), "Quarterly Processing Report", fontsize=18, fontname="helv")
    _paragraph(page, (72, 120, 540, 700), PROSE * 5, fontsize=12)
    pix = page.get_pixmap(dpi=200, colorspace=fitz.csGRAY)
    out = fitz.open()
    scan = out.new_page(width=612, height=792)
    scan.insert_image(scan.rect, pixmap=pix)
    out.save(path)
    return path


def save(build, path: Path, *args) -> Path:
    doc = pymupdf().open()
    build(doc, *args)
    doc.save(path)
    return path


def multi_page_pdf(path: Path, pages: int = 3) -> Path:
    doc = pymupdf().open()
    for k in range(pages):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 72), f"Section {k + 1}", fontsize=14, fontname="helv")
        _paragraph(page, (72, 100, 540, 700), PROSE * 4)
        page.insert_text((300, 760), str(k + 1), fontsize=9, fontname="helv")
    doc.save(path)
    return path



def torture_files(folder: Path, source: Path) -> dict[str, Path]:
    """corrupt, truncated, encrypted, zero-byte and non-PDF files, all named *.pdf."""
    fitz = pymupdf()
    folder.mkdir(parents=True, exist_ok=True)
    data = source.read_bytes()
    files = {
        "zero": folder / "zero.pdf",
        "notpdf": folder / "notes.pdf",
        "corrupt": folder / "corrupt.pdf",
        "truncated": folder / "truncated.pdf",
        "encrypted": folder / "encrypted.pdf",
    }
    files["zero"].write_bytes(b"")
    files["notpdf"].write_text("meeting notes, not a PDF\n" * 20)
    files["corrupt"].write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    files["truncated"].write_bytes(data[: len(data) // 2])
    doc = fitz.open(source)
    doc.save(files["encrypted"], encryption=fitz.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    return files


def make_landscape_table_page(doc) -> None:
    """A /Rotate 90 page whose caption and grid read upright when displayed (a landscape table)."""
    fitz = pymupdf()
    page = doc.new_page(width=612, height=792)
    page.set_rotation(90)

    def put(x: float, y: float, text: str, size: float) -> None:  # (x, y) in displayed space
        page.insert_text(fitz.Point(x, y) * page.derotation_matrix, text, fontsize=size, fontname="helv", rotate=90)

    put(72, 80, "Table 4: Results by region and quarter", 10)
    for c in range(7):
        put(90 + c * 95, 110, f"Q{c}", 9)
        for r in range(10):
            put(90 + c * 95, 126 + r * 14, f"{r * 7 + c}.{r}", 9)
    for k in range(12):
        put(72, 300 + k * 14, "Regional results were consistent with the earlier surveys of every office.", 10)


def make_continued_table_pdf(path: Path) -> Path:
    """A captioned table of paragraph cells that runs on to page 2, where its header row repeats
    and no caption stands (NIST SP 800-63B Table 8-1, CSWP 29 Table 2), then a prose page."""
    doc = pymupdf().open()
    cell = "The organization reviews the risk decisions of each tier and records them. " * 3

    def header_and_rows(page, y: float, rows: int) -> None:
        for x, h in ((72, "Tier"), (150, "Cybersecurity Risk Governance"), (360, "Cybersecurity Risk Management")):
            page.insert_text((x, y), h, fontsize=9, fontname="helv")
        for r in range(rows):
            top = y + 14 + r * 110
            page.insert_text((72, top + 10), f"Tier {r + 1}", fontsize=9, fontname="helv")
            _paragraph(page, (150, top, 340, top + 100), cell, fontsize=9)
            _paragraph(page, (360, top, 540, top + 100), cell, fontsize=9)

    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 70), "Table 2: Risk management tiers", fontsize=10, fontname="helv")
    header_and_rows(page, 100, 3)
    _paragraph(page, (72, 560, 540, 740), PROSE * 3)
    header_and_rows(doc.new_page(width=612, height=792), 80, 6)
    _paragraph(doc.new_page(width=612, height=792), (72, 72, 540, 740), PROSE * 9)
    doc.save(path)
    return path
