"""Document structure at ingest: toc_df, object_registry and cross_ref_df.

Entry point: :func:`build_structure` (called by ingest for every document). It works from the
open PyMuPDF document (outline, link annotation objects) and the baseline ``line_df``; it never
extracts text again, so it stays a small fraction of the baseline parse.

Modules, in the order :mod:`.assemble` runs them:

- ``lines``: the line table as arrays; same-baseline fragments joined ("3.5" + "Positional
  Encoding"); running headers/footers; dotted leaders; contents pages; the body style.
- ``outline``: TOC from the PDF outline, numbers recovered from the heading on the page or from
  numbered neighbours in the outline ("Positional Encoding" -> "3.5").
- ``headings`` + ``contents_page``: TOC without an outline, from numbered headings (style,
  increasing numbers, lost numbers inferred) completed by a printed contents page whose labels
  are mapped to physical pages.
- ``toc``: unique ids, reading order, page_end.
- ``objects``: tables / figures / exhibits from captions, appendices / annexes / schedules from
  the TOC.
- ``annots`` + ``links``: internal link annotations read from the PDF objects, anchor text
  estimated from the baseline lines, ``ref_type``/``ref_target`` from that text
  (:func:`parse_link_anchor`) or from hyperref destination names.
- ``numbering``: the pure string functions (section numbers, appendix and object labels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas
    import pyarrow


def build_structure(doc: Any, doc_id: str, lines: "pandas.DataFrame", page_labels: list[str]) -> dict[str, "pyarrow.Table"]:
    """toc_df, object_registry and cross_ref_df of one document, as Arrow tables.

    ``lines``: the baseline line_df (LINE_DF columns); ``page_labels``: printed label per
    physical page (index 0 = page 1), used to map a printed contents page to physical pages.
    """
    from docintel.parsing.structure.assemble import assemble
    from docintel.schemas.tables import CROSS_REF_DF, OBJECT_REGISTRY, TOC_DF, to_arrow

    toc_rows, objects, refs = assemble(doc, doc_id, lines, page_labels)
    for r in objects:
        r["doc_id"] = doc_id
    for r in refs:
        r["doc_id"] = doc_id
    return {
        "toc_df": to_arrow(toc_rows, TOC_DF),
        "object_registry": to_arrow(objects, OBJECT_REGISTRY),
        "cross_ref_df": to_arrow(refs, CROSS_REF_DF),
    }


def parse_link_anchor(text: str) -> tuple[str, "str | None", "str | None"]:
    """(ref_type, ref_target, sub_selector) of a short pointer text: "Table 3 row (E)" ->
    ("table", "3", "E"); "Section 3.5" -> ("section", "3.5", None); "[12]" -> ("citation",
    "12", None); anything else -> ("other", None, None). See numbering.parse_link_anchor."""
    from docintel.parsing.structure.numbering import parse_link_anchor as parse

    return parse(text)


__all__ = ["build_structure", "parse_link_anchor"]
