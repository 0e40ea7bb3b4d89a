"""A small, independent store builder for the ask tests: baseline lines (docintel.parsing.baseline)
plus simple toc_df / object_registry / cross_ref_df rows made here (outline + numbered headings,
"Table N:" captions, native links). It lets the ask bricks be tested without depending on the
full ingest pipeline; the end-to-end tests use docintel.api.ingest instead."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa

from docintel.parsing.baseline import extract_lines
from docintel.parsing.fitz import pymupdf
from docintel.schemas.tables import TABLES, to_arrow
from docintel.store import Store

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"
TRANSFORMER = SHARED / "papers" / "1706.03762v7.pdf"
Q_PE = "Do learned positional embeddings give similar results to sinusoidal ones in the Transformer paper?"

_CAPTION = re.compile(r"^(Table|Figure|Fig\.|Appendix|Annex|Exhibit|Schedule)\s+([A-Z]?[\d]+(?:[.\-]\d+)*|[A-Z])\s*[:.\-—]")
_NUM = re.compile(r"^(\d+(?:\.\d+)*|[A-Z](?:\.\d+)*)\.?$")


def build_store(root: Path, pdfs: list[Path], extra_rows: dict | None = None) -> Store:
    store = Store(root)
    m = pymupdf()
    with store.lock("test"):
        for pdf in pdfs:
            data = Path(pdf).read_bytes()
            sha = hashlib.sha256(data).hexdigest()
            doc_id = sha[:16]
            doc = m.open(stream=data, filetype="pdf")
            pages, lines, toc, objs, xrefs = [], [], [], [], []
            for i, page in enumerate(doc):
                pn = i + 1
                rows = extract_lines(page, doc_id, pn)
                lines.extend(rows)
                pages.append(
                    {"doc_id": doc_id, "page_num": pn, "page_label": page.get_label() or str(pn),
                     "parsing_method": "pymupdf", "n_lines": len(rows), "coverage": "page",
                     "width": page.rect.width, "height": page.rect.height}
                )
                for r in rows:
                    cm = _CAPTION.match(r["text"])
                    if cm:
                        otype = {"fig.": "figure"}.get(cm.group(1).lower(), cm.group(1).lower())
                        oid = cm.group(2)
                        if any(o["object_type"] == otype and o["object_id"] == oid for o in objs):
                            continue
                        objs.append(
                            {"doc_id": doc_id, "object_type": otype, "object_id": oid,
                             "object_key": f"{otype}:{oid}", "caption": r["text"], "page_num": pn,
                             "bbox": [r["x0"], r["y0"], r["x1"], r["y1"]], "line_start": r["line_num"],
                             "line_end": r["line_num"], "source": "caption"}
                        )
                for link in page.get_links():
                    if link.get("kind") != 1 and link.get("kind") != 4:
                        continue
                    tp = link.get("page")
                    if tp is None or tp < 0:
                        continue
                    rect = link["from"]
                    anchor = page.get_textbox(rect).strip()
                    cy = (rect.y0 + rect.y1) / 2
                    origin = next((r for r in rows if r["y0"] - 1 <= cy <= r["y1"] + 1 and r["x0"] - 2 <= rect.x0 <= r["x1"]), None)
                    if origin is None:
                        continue
                    xrefs.append(
                        {"doc_id": doc_id, "origin_page": pn, "origin_line": origin["line_num"],
                         "anchor_text": anchor, "ref_type": (link.get("nameddest") or "").split(".")[0] or "other",
                         "ref_target": (link.get("nameddest") or ".").split(".", 1)[-1], "target_page": tp + 1,
                         "target_y": float(link["to"].y) if link.get("to") is not None else None,
                         "source": "native_link"}
                    )
            outline = doc.get_toc()
            for order, (level, title, pn) in enumerate(outline):
                toc_id, line_num, y0 = f"#{order}", None, None
                for r in [r for r in lines if r["page_num"] == pn]:
                    if r["text"].strip().lower() == title.strip().lower() or r["text"].lower().endswith(title.lower()):
                        line_num, y0 = r["line_num"], r["y0"]
                        prev = [q for q in lines if q["page_num"] == pn and q["line_num"] < r["line_num"] and abs(q["y0"] - r["y0"]) < 3]
                        nm = _NUM.match(prev[-1]["text"]) if prev else _NUM.match(r["text"].split()[0])
                        if nm:
                            toc_id = nm.group(1)
                        break
                toc.append({"doc_id": doc_id, "toc_id": toc_id, "level": level, "title": title, "page_start": pn,
                            "line_num": line_num, "y0": y0, "toc_order": order, "source": "outline"})
            for k, t in enumerate(toc):
                nxt = next((u for u in toc[k + 1:] if u["level"] <= t["level"]), None)
                t["page_end"] = nxt["page_start"] if nxt else len(doc)
            extra = (extra_rows or {}).get(Path(pdf).name, {})
            tables = {
                "documents": to_arrow([{"doc_id": doc_id, "path": str(pdf), "file_name": Path(pdf).name, "sha256": sha,
                                        "n_pages": len(doc), "baseline_method": "pymupdf", "schema_version": 1,
                                        "ingested_at": datetime.now(timezone.utc)}], TABLES["documents"]),
                "page_df": to_arrow(pages, TABLES["page_df"]),
                "line_df": to_arrow(lines + extra.get("line_df", []), TABLES["line_df"]),
                "toc_df": to_arrow(toc + extra.get("toc_df", []), TABLES["toc_df"]),
                "object_registry": to_arrow(objs + extra.get("object_registry", []), TABLES["object_registry"]),
                "cross_ref_df": to_arrow(xrefs, TABLES["cross_ref_df"]),
                "image_df": TABLES["image_df"].empty_table(),
            }
            store.write_document(doc_id, tables, {"path": str(pdf), "file_name": Path(pdf).name, "sha256": sha,
                                                   "n_pages": len(doc), "ingested_at": datetime.now(timezone.utc).isoformat()})
    return store


def add_table_rows(store: Store, doc_id: str, page_num: int, object_key: str, rows: list[dict], method: str = "test_tables") -> None:
    """Add escalated table_row lines (as an escalate method would) for one object."""
    with store.lock("test"):
        store.add_rows(doc_id, "line_df", to_arrow(
            [dict(doc_id=doc_id, page_num=page_num, line_num=i + 1, kind="table_row", parsing_method=method,
                  object_key=object_key, **{**r, "cells": json.dumps(r.get("cells", []))}) for i, r in enumerate(rows)],
            TABLES["line_df"]))
        store.add_rows(doc_id, "page_df", to_arrow(
            [dict(doc_id=doc_id, page_num=page_num, parsing_method=method, coverage="region")], TABLES["page_df"]))


def text_pdf(path: Path, pages: list[list[str]], top: float = 72, step: float = 16, size: float = 10) -> Path:
    """A PDF of plain Helvetica lines, one list of lines per page, written with PyMuPDF. A line
    written with four leading spaces is set 12 pt right (an indent)."""
    doc = pymupdf().open()
    for lines in pages:
        page = doc.new_page(width=612, height=792)
        for i, text in enumerate(lines):
            x = 84 if text.startswith("    ") else 72
            page.insert_text((x, top + step * i), text.strip(), fontsize=size, fontname="helv")
    doc.save(path)
    return path


__all__ = ["build_store", "add_table_rows", "pa", "text_pdf"]
