"""Sequencing of the structure steps: prepare lines once, then TOC, objects, references."""

from __future__ import annotations

from typing import Any, Sequence

from docintel.parsing.structure import lines as L
from docintel.parsing.structure.contents_page import list_entries
from docintel.parsing.structure.links import native_link_rows, object_anchor_rows, toc_anchor_rows
from docintel.parsing.structure.objects import appendix_rows, caption_rows
from docintel.parsing.structure.outline import outline_entries, read_outline
from docintel.parsing.structure.toc import finalize_toc

_REFERENCE_TITLES = ("references", "bibliography", "works cited", "literature cited", "references cited")


def assemble(doc: Any, doc_id: str, lines: Any, page_labels: Sequence[str]) -> tuple[list, list, list]:
    """(toc rows, object rows, cross-reference rows) of one document."""
    raw_lines = L.Lines.from_frame(lines)
    n_pages = int(getattr(doc, "page_count", 0) or 0) or (int(raw_lines.page.max()) if len(raw_lines) else 0)
    logical = L.logical_lines(raw_lines)
    furniture = L.furniture_mask(logical, n_pages)
    leaders = L.leader_mask(logical)
    contents = L.contents_pages(logical, leaders)
    on_contents = L.on_contents_mask(logical, leaders, contents)
    style = L.body_style(raw_lines)

    outline = read_outline(doc)
    if outline:
        entries = outline_entries(outline, logical, ~furniture & ~on_contents)
    else:
        from docintel.parsing.structure.headings import toc_without_outline

        entries = toc_without_outline(logical, raw_lines, furniture, on_contents, contents, page_labels, n_pages, style)
    toc_rows = finalize_toc(entries, doc_id, n_pages, L.first_content_y(logical, furniture), breaks=contents)

    objects = caption_rows(logical, raw_lines, style, furniture | on_contents)
    objects += list_entries(logical, on_contents, contents, page_labels, n_pages, objects)
    taken = {(o["object_type"], o["object_id"]) for o in objects}
    for o in appendix_rows(toc_rows, logical):
        if (o["object_type"], o["object_id"]) not in taken:
            objects.append(o)
            taken.add((o["object_type"], o["object_id"]))

    citation_pages = {
        p
        for r in toc_rows
        if r["page_start"] is not None and r["title"].strip().lower() in _REFERENCE_TITLES
        for p in range(r["page_start"], (r["page_end"] or r["page_start"]) + 1)
    }
    refs = native_link_rows(doc, raw_lines, citation_pages) + toc_anchor_rows(toc_rows) + object_anchor_rows(objects)
    for r in toc_rows:
        r.pop("kind", None)
    return toc_rows, objects, refs
