"""Helpers for the structure tests: baseline lines of a PDF, and synthetic PDFs made with PyMuPDF.

Real PDFs are read the way ingest feeds build_structure: the baseline line_df of every page
(docintel.parsing.baseline.extract_lines) and one printed label per page (here the PDF's own
page labels, else the physical number).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from docintel.parsing.baseline import extract_lines
from docintel.parsing.fitz import pymupdf


def baseline_frame(doc: Any, doc_id: str = "doc") -> pd.DataFrame:
    rows: list[dict] = []
    for pno in range(doc.page_count):
        rows.extend(extract_lines(doc[pno], doc_id, pno + 1))
    return pd.DataFrame(rows)


def labels_of(doc: Any) -> list[str]:
    try:
        if doc.get_page_labels():
            return [doc[i].get_label() or str(i + 1) for i in range(doc.page_count)]
    except Exception:
        pass
    return [str(i + 1) for i in range(doc.page_count)]


def structure(path: Path | str, doc_id: str = "doc") -> dict[str, pd.DataFrame]:
    """build_structure of a PDF file, as DataFrames."""
    from docintel.parsing.structure import build_structure

    doc = pymupdf().open(str(path))
    try:
        tables = build_structure(doc, doc_id, baseline_frame(doc, doc_id), labels_of(doc))
    finally:
        doc.close()
    return {name: t.to_pandas() for name, t in tables.items()}


def save(doc: Any, path: Path) -> Path:
    doc.save(str(path))
    doc.close()
    return path


def report_pdf(path: Path, with_outline: bool = False) -> Path:
    """A 5-page report without (or with) an outline:

    p1 title + a printed contents page (dotted leaders, a list of tables entry);
    p2 "1 Introduction" (bold) with a numbered list item in body font, a prose mention
       "Table 1 shows ..." at a line start, and a link over "Section 2.1" to page 3;
    p3 "2 Method", "2.1 Data" (bold), caption "Table 1: Results by year" and a table;
    p4 "2.2 Results" and "Table 1 (continued)";
    p5 "Appendix A — Glossary".
    Every page has the running header "ACME Report 2024" and a page number footer.
    """
    m = pymupdf()
    doc = m.open()
    for _ in range(5):
        doc.new_page(width=612, height=792)
    pages = [doc[i] for i in range(5)]
    for i, page in enumerate(pages):
        page.insert_text((72, 40), "ACME Report 2024", fontname="helv", fontsize=9)
        page.insert_text((300, 760), str(i + 1), fontname="helv", fontsize=9)

    p = pages[0]
    p.insert_text((72, 100), "Quarterly Widget Report", fontname="hebo", fontsize=18)
    p.insert_text((72, 140), "Table of Contents", fontname="hebo", fontsize=12)
    entries = [("1 Introduction", "2"), ("2 Method", "3"), ("2.1 Data", "3"), ("2.2 Results", "4"),
               ("Appendix A — Glossary", "5"), ("Table 1: Results by year", "3")]
    y = 170
    for title, label in entries:
        p.insert_text((72, y), f"{title} {'.' * 60} {label}", fontname="helv", fontsize=10)
        y += 16

    body = "helv"
    p = pages[1]
    p.insert_text((72, 80), "1 Introduction", fontname="hebo", fontsize=14)
    p.insert_text((72, 110), "This report explains how widgets were counted in 2024 and", fontname=body, fontsize=10)
    p.insert_text((72, 124), "what changed since the last quarter.", fontname=body, fontsize=10)
    p.insert_text((72, 150), "1. Count every widget once.", fontname=body, fontsize=10)
    p.insert_text((72, 164), "2. Report the total.", fontname=body, fontsize=10)
    p.insert_text((72, 190), "Table 1 shows the totals per year, and the method is in", fontname=body, fontsize=10)
    p.insert_text((72, 204), "Section 2.1 of this report.", fontname=body, fontsize=10)
    words = [w for w in p.get_text("words") if w[4] in ("Section", "2.1") and w[1] > 192]
    rect = m.Rect(words[0][:4]) | m.Rect(words[1][:4])
    p.insert_link({"kind": m.LINK_GOTO, "from": rect, "page": 2, "to": m.Point(72, 130)})

    p = pages[2]
    p.insert_text((72, 80), "2 Method", fontname="hebo", fontsize=14)
    p.insert_text((72, 110), "We counted widgets in three plants.", fontname=body, fontsize=10)
    p.insert_text((72, 140), "2.1 Data", fontname="hebo", fontsize=12)
    p.insert_text((72, 170), "The data come from the plant ledgers.", fontname=body, fontsize=10)
    p.insert_text((72, 210), "Table 1: Results by year", fontname="hebo", fontsize=10)
    for r, (year, count) in enumerate([("Year", "Count"), ("2022", "10"), ("2023", "12"), ("2024", "15")]):
        p.insert_text((90, 230 + 14 * r), year, fontname=body, fontsize=9)
        p.insert_text((200, 230 + 14 * r), count, fontname=body, fontsize=9)

    p = pages[3]
    p.insert_text((72, 80), "2.2 Results", fontname="hebo", fontsize=12)
    p.insert_text((72, 110), "Totals grew every year.", fontname=body, fontsize=10)
    p.insert_text((72, 150), "Table 1 (continued)", fontname="hebo", fontsize=10)
    p.insert_text((90, 170), "2025", fontname=body, fontsize=9)
    p.insert_text((200, 170), "18", fontname=body, fontsize=9)

    p = pages[4]
    p.insert_text((72, 80), "Appendix A \u2014 Glossary", fontname="hebo", fontsize=14)
    p.insert_text((72, 110), "Widget: a small device.", fontname=body, fontsize=10)

    if with_outline:
        doc.set_toc([[1, "Introduction", 2], [1, "Method", 3], [2, "Data", 3], [2, "Results", 4], [1, "Glossary", 5]])
    return save(doc, path)
