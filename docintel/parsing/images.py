"""image_df rows: one per image placement, from ``page.get_image_info()`` (no pixel decoding)."""

from __future__ import annotations

from typing import Any, Sequence

METHOD = "not_parsed"


def image_rows(page: Any, doc_id: str, page_num: int, lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """image_df rows for one page; bbox in unrotated page space (like line_df), clipped to it.

    ``text_chars_inside`` counts the characters of ``lines`` whose centre lies in the bbox.
    """
    listed = page.get_images()  # cheap: the page's image XObjects
    if not listed and sum(len(r["text"]) for r in lines) >= 50:
        # no image XObject; only a text-poor page is worth the walk that finds inline images
        return []
    box = page.cropbox
    pw, ph = float(box.width), float(box.height)
    area = pw * ph or 1.0
    # xref by pixel size when unambiguous (get_image_info(xrefs=True) costs a second page walk)
    by_size: dict[tuple[int, int], list[int]] = {}
    for item in listed:
        by_size.setdefault((int(item[2]), int(item[3])), []).append(int(item[0]))
    rows = []
    for k, info in enumerate(page.get_image_info()):
        xrefs = by_size.get((int(info.get("width") or 0), int(info.get("height") or 0)), [])
        x0, y0, x1, y1 = (float(v) for v in info["bbox"])
        x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(pw, x1), min(ph, y1)
        if x1 <= x0 or y1 <= y0:
            continue  # placed off the page
        rows.append(
            {
                "doc_id": doc_id,
                "page_num": page_num,
                "image_idx": k,
                "xref": xrefs[0] if len(set(xrefs)) == 1 else None,
                "bbox": [x0, y0, x1, y1],
                "width_px": int(info.get("width") or 0),
                "height_px": int(info.get("height") or 0),
                "area_ratio": round((x1 - x0) * (y1 - y0) / area, 4),
                "text_chars_inside": text_chars_inside((x0, y0, x1, y1), lines),
                "parsing_method": METHOD,
                "description": None,
            }
        )
    return rows


def text_chars_inside(bbox: tuple[float, float, float, float], lines: Sequence[dict[str, Any]]) -> int:
    x0, y0, x1, y1 = bbox
    n = 0
    for r in lines:
        cx, cy = (r["x0"] + r["x1"]) / 2, (r["y0"] + r["y1"]) / 2
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            n += len(r["text"])
    return n
