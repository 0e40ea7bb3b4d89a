"""Arrow schemas of the store's Parquet tables (DESIGN.md, "The store").

Column names are the public contract; more columns are welcome, renames are not. Every table
carries ``doc_id``; every row says what produced it (``parsing_method`` or ``source``).
Bump :data:`SCHEMA_VERSION` when a column changes meaning or type.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pyarrow as pa

SCHEMA_VERSION = 1

BBOX = pa.list_(pa.float64())
"""[x0, y0, x1, y1] in PDF points, origin top-left (PyMuPDF's convention)."""

DOCUMENTS = pa.schema(
    [
        ("doc_id", pa.string()),  # first 16 hex digits of sha256
        ("path", pa.string()),  # absolute path at ingest time
        ("file_name", pa.string()),
        ("sha256", pa.string()),
        ("size_bytes", pa.int64()),
        ("n_pages", pa.int32()),
        ("title", pa.string()),
        ("producer", pa.string()),
        ("creator", pa.string()),
        ("is_scanner_output", pa.bool_()),
        ("baseline_method", pa.string()),  # pymupdf | tesseract | mixed
        ("n_ocr_pages", pa.int32()),
        ("has_outline", pa.bool_()),
        ("ingested_at", pa.timestamp("us", tz="UTC")),
        ("schema_version", pa.int32()),
        ("duration_ms", pa.float64()),
    ]
)

PAGE_DF = pa.schema(
    [
        ("doc_id", pa.string()),
        ("page_num", pa.int32()),  # 1-based physical page
        ("page_label", pa.string()),  # printed label: "iv", "7", "A-3"
        ("page_label_source", pa.string()),  # pdf_labels | printed | physical
        ("parsing_method", pa.string()),
        ("width", pa.float64()),
        ("height", pa.float64()),
        ("rotation", pa.int32()),
        ("char_count", pa.int32()),
        ("image_count", pa.int32()),
        ("image_coverage", pa.float64()),  # share of the page area covered by images
        ("n_lines", pa.int32()),
        ("n_columns", pa.int32()),
        ("flat_table", pa.bool_()),
        ("opaque_figure", pa.bool_()),
        ("col_anomaly", pa.bool_()),
        ("scanned", pa.bool_()),
        ("reasons", pa.list_(pa.string())),  # "flat_table: 'Table 3' caption + 41 short cells"
        ("escalate", pa.bool_()),
        ("context_structured", pa.bool_()),
        ("coverage", pa.string()),  # page | region | addition: how the view combines this parse
        ("ocr_confidence", pa.float64()),  # mean word confidence 0-100, OCR methods only
        ("duration_ms", pa.float64()),
        ("error", pa.string()),  # set when this method failed on the page
    ]
)

LINE_DF = pa.schema(
    [
        ("doc_id", pa.string()),
        ("page_num", pa.int32()),
        ("line_num", pa.int32()),  # 1-based, per page and parsing_method, in reading order
        ("text", pa.string()),
        ("x0", pa.float64()),
        ("y0", pa.float64()),
        ("x1", pa.float64()),
        ("y1", pa.float64()),
        ("block_num", pa.int32()),
        ("block_line", pa.int32()),  # line index inside its block
        ("column", pa.string()),  # left | right | single | col1..colN (3+ columns)
        ("font_size", pa.float64()),
        ("bold", pa.bool_()),
        ("font", pa.string()),
        ("kind", pa.string()),  # text | table_row | figure_text | image
        ("parsing_method", pa.string()),
        ("object_key", pa.string()),  # "table:3", "figure:1" when the line belongs to an object
        ("row_key", pa.string()),  # table_row sub-selector: "(E)", "base", "Confidentiality"
        ("cells", pa.string()),  # table_row: JSON [{"header": "PPL (dev)", "value": "4.92"}, ...]
        ("confidence", pa.float64()),  # OCR word confidence 0-100; null for text layers
    ]
)

TOC_DF = pa.schema(
    [
        ("doc_id", pa.string()),
        ("toc_id", pa.string()),  # "3.5", "A", "7.2"; a bare title gets a synthetic "#n"
        ("level", pa.int32()),
        ("title", pa.string()),
        ("page_start", pa.int32()),
        ("page_end", pa.int32()),
        ("line_num", pa.int32()),  # heading line on page_start (baseline parse), when found
        ("y0", pa.float64()),  # heading top on page_start, when known
        ("toc_order", pa.int32()),  # reading order of sections, 0-based
        ("source", pa.string()),  # outline | heading | typeset | contents_page
    ]
)

OBJECT_REGISTRY = pa.schema(
    [
        ("doc_id", pa.string()),
        ("object_type", pa.string()),  # table | figure | appendix | annex | schedule | exhibit | equation
        ("object_id", pa.string()),  # "3", "A", "2-1", "A-1"
        ("object_key", pa.string()),  # "table:3"
        ("caption", pa.string()),
        ("page_num", pa.int32()),
        ("bbox", BBOX),  # caption bbox, grown to the object's region where known
        ("line_start", pa.int32()),
        ("line_end", pa.int32()),
        ("source", pa.string()),  # caption | heading | contents_page
    ]
)

CROSS_REF_DF = pa.schema(
    [
        ("doc_id", pa.string()),
        ("origin_page", pa.int32()),
        ("origin_line", pa.int32()),
        ("anchor_text", pa.string()),
        ("ref_type", pa.string()),  # section | table | figure | appendix | annex | schedule | page | equation | citation | external | other
        ("ref_target", pa.string()),  # joins toc_df.toc_id for sections, object_registry.object_id otherwise
        ("target_page", pa.int32()),
        ("target_y", pa.float64()),
        ("source", pa.string()),  # native_link | toc_anchor | object_registry | regex | llm
    ]
)

IMAGE_DF = pa.schema(
    [
        ("doc_id", pa.string()),
        ("page_num", pa.int32()),
        ("image_idx", pa.int32()),  # 0-based on the page
        ("xref", pa.int32()),
        ("bbox", BBOX),
        ("width_px", pa.int32()),
        ("height_px", pa.int32()),
        ("area_ratio", pa.float64()),  # bbox area / page area
        ("text_chars_inside", pa.int32()),
        ("parsing_method", pa.string()),  # "not_parsed" until a method reads it
        ("description", pa.string()),
    ]
)

TABLES: dict[str, pa.Schema] = {
    "documents": DOCUMENTS,
    "page_df": PAGE_DF,
    "line_df": LINE_DF,
    "toc_df": TOC_DF,
    "object_registry": OBJECT_REGISTRY,
    "cross_ref_df": CROSS_REF_DF,
    "image_df": IMAGE_DF,
}


def to_arrow(rows: Iterable[Mapping[str, Any]] | Any, schema: pa.Schema) -> pa.Table:
    """Build a table of ``schema`` from dict rows or a DataFrame.

    Missing columns become nulls and unknown keys are dropped, so producers may emit partial
    rows; a wrong type raises (a producer bug, caught by the contract tests).
    """
    import pandas as pd

    if isinstance(rows, pd.DataFrame):
        records = rows.to_dict("records")
    else:
        records = list(rows)
    columns = {f.name: [_clean(r.get(f.name)) for r in records] for f in schema}
    return pa.table(columns, schema=schema)


def empty(schema: pa.Schema) -> pa.Table:
    return schema.empty_table()


def _clean(value: Any) -> Any:
    # pandas NaN / NaT in an object column means "missing"
    try:
        if value is None or value != value:  # NaN
            return None
    except (TypeError, ValueError):  # arrays, lists
        return list(value) if not isinstance(value, (str, bytes)) else value
    return value
