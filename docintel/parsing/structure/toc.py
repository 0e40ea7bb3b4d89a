"""Finishing TOC rows: unique ids, reading order and page_end."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence


def finalize_toc(
    entries: Sequence[dict[str, Any]],
    doc_id: str,
    n_pages: int,
    first_content_y: Mapping[int, float] | None = None,
    breaks: Iterable[int] = (),
) -> list[dict[str, Any]]:
    """toc_df rows from entries in reading order.

    Bare entries get the synthetic id "#<toc_order>"; a repeated id keeps its first entry and the
    later ones become synthetic. ``page_end`` is the page where the next entry of the same or a
    higher level starts (the page before it when that heading is the first text on its page,
    per ``first_content_y``), else the last page. ``breaks`` are pages no section runs into
    from before (printed contents pages: the front matter before them ends there).
    """
    breaks = sorted(set(breaks))
    first_content_y = first_content_y or {}
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for order, e in enumerate(entries):
        ident = e.get("toc_id")
        if not ident or ident in seen:
            ident = f"#{order}"
        seen.add(ident)
        page = e.get("page_start")
        rows.append(
            {
                "doc_id": doc_id,
                "toc_id": ident,
                "level": int(e.get("level") or 1),
                "title": e.get("title") or "",
                "page_start": int(page) if page else None,
                "page_end": None,
                "line_num": e.get("line_num"),
                "y0": e.get("y0"),
                "toc_order": order,
                "source": e.get("source", "outline"),
                "kind": e.get("kind"),
            }
        )
    for i, row in enumerate(rows):
        start = row["page_start"]
        if start is None:
            continue
        end = n_pages
        for nxt in rows[i + 1 :]:
            if nxt["level"] <= row["level"] and nxt["page_start"] is not None:
                p = nxt["page_start"]
                y = nxt["y0"]
                top = first_content_y.get(p)
                if y is not None and top is not None and y <= top + 2.0 and p > start:
                    p -= 1
                end = p
                break
        for b in breaks:
            if start < b <= end:
                end = b - 1
                break
        row["page_end"] = max(start, min(end, n_pages))
    return rows
