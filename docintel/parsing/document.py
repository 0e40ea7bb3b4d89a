"""Parse one PDF into the seven store tables (baseline lines, signals, labels, images, structure).

This module is what an ingest worker process imports: it pulls in PyMuPDF (without the layout
model), pyarrow and the parsing helpers, nothing from the store, retrieval or the CLI.
A page that throws inside PyMuPDF becomes a page_df row with ``error`` set; the rest of the
document is kept. Whole-file problems (empty, not a PDF, encrypted, no pages) raise
:class:`DocumentError` with a one-line reason.
"""

from __future__ import annotations

import gc
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa

from docintel.errors import DocumentError
from docintel.parsing import baseline, images, ocr, page_labels, rules, signals
from docintel.parsing.columns import assign_columns
from docintel.parsing.fitz import pymupdf
from docintel.schemas import tables as T

_SCANNER = re.compile(
    r"scan|epson|canon|xerox|kodak|fujitsu|ricoh|konica|minolta|brother|lexmark|sharp mx|kyocera|"
    r"hp digital sending|laserjet|officejet|naps2|paperport|omnipage|abbyy|image capture|twain",
    re.I,
)


@dataclass
class ParsedDocument:
    """The tables of one document and the facts the run report needs."""

    doc_id: str
    tables: dict[str, pa.Table]
    n_pages: int
    n_ocr_pages: int
    flagged: dict[str, int] = field(default_factory=dict)  # reason -> pages; "any" -> pages flagged
    page_errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # damaged file repaired, structure failed
    seconds: float = 0.0


def worker_init() -> None:
    """Ingest pool initializer: one core per worker (parallelism comes from the processes)."""
    import os

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)


def is_scanner_output(producer: str | None, creator: str | None) -> bool:
    return bool(_SCANNER.search(f"{producer or ''} {creator or ''}"))


def open_pdf(path: Path) -> tuple[Any, list[str]]:
    """Open ``path`` as a PDF or raise DocumentError with a one-line reason; also MuPDF repairs."""
    fitz = pymupdf()
    fitz.TOOLS.mupdf_warnings()  # clear
    try:
        doc = fitz.open(str(path), filetype="pdf")
    except fitz.EmptyFileError:
        raise DocumentError("empty file (0 bytes): re-copy it or remove it") from None
    except (fitz.FileDataError, RuntimeError, ValueError) as e:
        detail = _one_line(e)
        detail = "" if detail.startswith("Failed to open file") else f" ({detail})"
        raise DocumentError(f"not a PDF or damaged beyond repair{detail}: replace or remove the file") from None
    if doc.needs_pass:
        doc.close()
        raise DocumentError("encrypted PDF needs a password: decrypt it (e.g. `qpdf --decrypt`) or remove it")
    warnings = []
    log = fitz.TOOLS.mupdf_warnings()
    if "repair" in log:
        first = next((ln for ln in log.splitlines() if "error" in ln or "repair" in ln), "repaired")
        warnings.append(f"damaged PDF repaired by MuPDF ({first.strip()}): re-download the file to be sure nothing is missing")
    try:
        n_pages = doc.page_count  # a truncated file can open and still have no page tree
    except RuntimeError:
        n_pages = 0
    if n_pages == 0:
        doc.close()
        raise DocumentError("PDF has no readable pages (truncated or damaged): re-download or remove it")
    return doc, warnings


def parse_document(
    path: Path | str,
    doc_id: str,
    sha256: str,
    ocr_dpi: int = 300,
    ocr_lang: str = "eng",
) -> ParsedDocument:
    """All seven tables of one PDF (see module docstring for the failure rules)."""
    start = time.perf_counter()
    path = Path(path)
    doc, warnings = open_pdf(path)
    # the line dicts are acyclic garbage freed by reference counting; the cyclic collector
    # would only rescan them (~10% of the parse), so it sleeps while one document is parsed
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(doc, path, doc_id, sha256, ocr_dpi, ocr_lang, warnings, start)
    finally:
        doc.close()
        if gc_was_enabled:
            gc.enable()


def _parse(doc: Any, path: Path, doc_id: str, sha256: str, ocr_dpi: int, ocr_lang: str, warnings: list[str], start: float) -> ParsedDocument:
    flags = baseline.text_flags()
    n = doc.page_count
    meta = doc.metadata or {}
    pages: list[dict[str, Any]] = []  # per page: lines, images, page row skeleton
    page_errors: list[str] = []
    for i in range(n):
        t0 = time.perf_counter()
        page_num = i + 1
        try:
            page = doc[i]
            lines, n_cols = baseline.extract_page(page, doc_id, page_num, flags)
            imgs = images.image_rows(page, doc_id, page_num, lines)
            rect = page.rect
            # a ruled table's rules, read where a table may be: a "Table N" caption on the page,
            # or a ruled grid on the page before (drawings cost ~1.5 ms a page; most pages have neither)
            ruled = not page.rotation and (signals.caption_lines(lines) or (pages and pages[-1].get("grids")))
            info = {
                "lines": lines,
                "grids": rules.ruled_grids(*rules.page_rules(page)[:2], float(rect.height)) if ruled else [],
                "images": imgs,
                "n_columns": n_cols,
                "width": float(rect.width),
                "height": float(rect.height),
                "band_height": float(page.cropbox.height),
                "rotation": int(page.rotation),
                "method": baseline.METHOD,
                "text_layer_chars": None,
                "ocr_confidence": None,
                "error": None,
            }
            layer_chars = signals.char_count(lines)
            if signals.scanned(layer_chars, signals.image_coverage(imgs)):
                try:
                    ocr_lines, conf = ocr.ocr_page(page, doc_id, page_num, dpi=ocr_dpi, lang=ocr_lang)
                except Exception as e:  # Tesseract missing or crashed: keep the (empty) text layer
                    raise RuntimeError(f"OCR failed ({_one_line(e)}); is tesseract installed? (apt-get install tesseract-ocr)") from e
                info.update(lines=ocr_lines, method=ocr.METHOD, text_layer_chars=layer_chars, ocr_confidence=conf)
            if info["rotation"] or info["method"] == ocr.METHOD:
                # layout is judged as displayed: columns, grids and header bands of a /Rotate page
                geo = displayed(info["lines"], page)
                labels, info["n_columns"] = assign_columns(geo, float(rect.width))
                for row, g, label in zip(info["lines"], geo, labels):
                    row["column"] = g["column"] = label
                info.update(geo=geo, band_height=float(rect.height))
        except Exception as e:
            message = f"page {page_num}: {_one_line(e)}"
            page_errors.append(message)
            info = {"lines": [], "images": [], "error": message, "method": baseline.METHOD}
        info["duration_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        pages.append(info)

    ok = [p for p in pages if p["error"] is None]
    norm = signals.column_norm((p["n_columns"], len(p["lines"])) for p in ok)
    labels, label_sources = page_labels.page_labels(
        doc,
        [page_labels.band_candidates(p.get("geo", p["lines"]), p.get("band_height", 0.0)) if p["error"] is None else [] for p in pages],
    )

    page_rows: list[dict[str, Any]] = []
    line_rows: list[dict[str, Any]] = []
    image_rows: list[dict[str, Any]] = []
    flagged: dict[str, int] = {}
    n_ocr = 0
    previous_table = None  # (table id, header texts) of a table that may run on to the next page
    for i, p in enumerate(pages):
        row: dict[str, Any] = {
            "doc_id": doc_id,
            "page_num": i + 1,
            "page_label": labels[i],
            "page_label_source": label_sources[i],
            "parsing_method": p["method"],
            "coverage": "page",
            "context_structured": False,
            "duration_ms": p["duration_ms"],
            "error": p["error"],
        }
        if p["error"] is None:
            geo = p.get("geo", p["lines"])
            grids = p["grids"] if p["method"] == baseline.METHOD else []  # an OCR page's lines are the scan's
            sig = signals.evaluate(geo, p["images"], p["n_columns"], norm, p["text_layer_chars"], previous_table, grids)
            # a captioned table may run on to the next page; a continued one keeps its header
            previous_table = (signals.table_header(geo, grids) or previous_table) if sig["flat_table"] else None
            row.update(sig)
            row.update(width=p["width"], height=p["height"], rotation=p["rotation"], ocr_confidence=p["ocr_confidence"])
            for f in signals.FLAGS:
                if sig[f]:
                    flagged[f] = flagged.get(f, 0) + 1
            if sig["escalate"]:
                flagged["any"] = flagged.get("any", 0) + 1
            n_ocr += p["method"] == ocr.METHOD
            line_rows.extend(p["lines"])
            image_rows.extend(p["images"])
        else:
            previous_table = None
        page_rows.append(row)

    line_table = pa.Table.from_pylist(line_rows, schema=T.LINE_DF)
    structure = _structure(doc, doc_id, line_table, labels, warnings)
    producer, creator = meta.get("producer") or None, meta.get("creator") or None
    elapsed = time.perf_counter() - start
    stat = path.stat()
    documents = {
        "doc_id": doc_id,
        "path": str(path.resolve()),
        "file_name": path.name,
        "sha256": sha256,
        "size_bytes": stat.st_size,
        "n_pages": n,
        "title": (meta.get("title") or "").strip() or None,
        "producer": producer,
        "creator": creator,
        "is_scanner_output": is_scanner_output(producer, creator),
        "baseline_method": "tesseract" if n_ocr == len(ok) and n_ocr else ("mixed" if n_ocr else baseline.METHOD),
        "n_ocr_pages": n_ocr,
        "has_outline": bool(_safe(lambda: doc.get_toc(simple=True), [])),
        "ingested_at": datetime.now(timezone.utc),
        "schema_version": T.SCHEMA_VERSION,
        "duration_ms": round(elapsed * 1000, 2),
    }
    tables = {
        "documents": pa.Table.from_pylist([documents], schema=T.DOCUMENTS),
        "page_df": pa.Table.from_pylist(page_rows, schema=T.PAGE_DF),
        "line_df": line_table,
        "image_df": pa.Table.from_pylist(image_rows, schema=T.IMAGE_DF),
        **structure,
    }
    return ParsedDocument(
        doc_id=doc_id,
        tables=tables,
        n_pages=n,
        n_ocr_pages=n_ocr,
        flagged=flagged,
        page_errors=page_errors,
        warnings=warnings,
        seconds=round(elapsed, 3),
    )


def displayed(lines: list[dict[str, Any]], page: Any) -> list[dict[str, Any]]:
    """Copies of ``lines`` with their boxes in displayed (rotated) page space; same list if upright."""
    if not page.rotation:
        return lines
    fitz = pymupdf()
    mat = page.rotation_matrix
    out = []
    for r in lines:
        b = fitz.Rect(r["x0"], r["y0"], r["x1"], r["y1"]) * mat
        out.append({**r, "x0": b.x0, "y0": b.y0, "x1": b.x1, "y1": b.y1})
    return out


def _structure(doc: Any, doc_id: str, lines: pa.Table, labels: list[str], warnings: list[str]) -> dict[str, pa.Table]:
    """toc_df, object_registry, cross_ref_df from :mod:`docintel.parsing.structure`."""
    from docintel.parsing.structure import build_structure

    empty = {name: T.empty(T.TABLES[name]) for name in ("toc_df", "object_registry", "cross_ref_df")}
    try:
        out = build_structure(doc, doc_id, lines.to_pandas(), labels)
        return {name: out.get(name, table) for name, table in empty.items()}
    except Exception as e:  # a structure bug must not lose the document's lines
        warnings.append(f"structure tables not built ({type(e).__name__}: {_one_line(e)})")
        return empty


def _safe(fn: Any, default: Any) -> Any:
    try:
        return fn()
    except Exception:
        return default


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:200]
