"""Document structure at ingest: toc_df, object_registry and cross_ref_df.

Entry point: :func:`build_structure`. Everything works from the open PyMuPDF document (outline,
link annotations) and the baseline ``line_df`` of the whole document; it never re-extracts text
except the words of pages that carry internal links (for the anchor text).
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


__all__ = ["build_structure"]
