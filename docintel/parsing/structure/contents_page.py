"""A printed contents page: "5.1.3 Out-of-Band Devices ........ 26" -> (id, title, page).

Entries are the lines of contents pages (or any line with dotted leaders) that end in a page
label. Printed labels become physical pages through the document's page labels; a plain number
missing from them is shifted by the offset that the labels (or the headings found in the text)
show between printed and physical numbers.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

import numpy as np

from docintel.parsing.structure.lines import Lines, has_leader
from docintel.parsing.structure.numbering import number_depth
from docintel.parsing.structure.outline import id_from_text

_ENTRY = re.compile(
    r"^(?P<body>.*?\S)\s*(?:(?:\.\s?){2,}|…+|(?:_\s?){4,}|\s{2,}|\s)\s*(?P<label>[ivxlcdmIVXLCDM]{1,7}|[A-Z]{0,2}-?\d{1,4})$"
)
_LIST_ENTRY = re.compile(r"^(?:table|figure|fig\.|exhibit)\s", re.IGNORECASE)


def parse_entry(text: str) -> tuple[str, str] | None:
    """(body, printed page label) of a contents line, or None.

    >>> parse_entry("5.1.3 Out-of-Band Devices .......... 26")
    ('5.1.3 Out-of-Band Devices', '26')
    """
    m = _ENTRY.match(" ".join(text.split()))
    if not m:
        return None
    body = m.group("body").rstrip(" .…_")
    if not body or body.replace(".", "").strip() == "":
        return None
    return body, m.group("label")


def label_to_page(page_labels: Sequence[str], n_pages: int) -> dict[str, int]:
    """Printed label (lower-case) -> physical page (1-based) that carries it.

    A label printed on several pages (a cover numbered "1" and the body's page 1) goes to the
    page inside the longest run of consecutive numbers, i.e. the body.
    """
    labels = [str(lab).strip().lower() if lab else "" for lab in (page_labels[:n_pages] if page_labels else [])]
    run = [1] * len(labels)
    for i in range(len(labels) - 2, -1, -1):  # length of the consecutive-number run from i on
        a, b = labels[i], labels[i + 1]
        if a.isdigit() and b.isdigit() and int(b) == int(a) + 1:
            run[i] = run[i + 1] + 1
    for i in range(1, len(labels)):  # propagate run lengths forward inside a run
        a, b = labels[i - 1], labels[i]
        if a.isdigit() and b.isdigit() and int(b) == int(a) + 1:
            run[i] = run[i - 1]
    out: dict[str, int] = {}
    best: dict[str, int] = {}
    for i, lab in enumerate(labels):
        if lab and run[i] > best.get(lab, 0):
            out[lab], best[lab] = i + 1, run[i]
    return out


def numeric_offset(labels: dict[str, int]) -> int | None:
    """The most common (physical - printed) difference over plain-number labels."""
    diffs = Counter(p - int(lab) for lab, p in labels.items() if lab.isdigit())
    if not diffs:
        return None
    off, n = diffs.most_common(1)[0]
    return off if n >= 2 else None


def contents_entries(
    logical: Lines,
    on_contents: np.ndarray,
    contents: set[int],
    page_labels: Sequence[str],
    n_pages: int,
    headings: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """TOC entries (source contents_page) from the printed contents, in printed order."""
    if not contents and not on_contents.any():
        return []
    raw = []
    for i in np.flatnonzero(on_contents).tolist():
        t = logical.text[i]
        if not (int(logical.page[i]) in contents or has_leader(t)):
            continue
        parsed = parse_entry(t)
        if parsed is None:
            continue
        body, label = parsed
        if _LIST_ENTRY.match(body):
            continue  # list of tables / figures: objects, not sections
        ident, title, kind = id_from_text(body)
        raw.append((ident, title, kind, label))
    if not raw:
        return []
    labels = label_to_page(page_labels, n_pages)
    offset = _offset(labels, raw, headings)
    out = []
    for ident, title, kind, label in raw:
        page = labels.get(label.lower())
        if label.isdigit():
            identity_labels = not labels or all(k == str(v) for k, v in labels.items())
            if (page is None or identity_labels) and offset is not None:
                page = int(label) + offset
        if page is not None and not (1 <= page <= n_pages):
            page = None
        level = 1 if ident is None or kind != "section" else number_depth(ident)
        out.append(
            {
                "toc_id": ident,
                "kind": kind if ident is not None else None,
                "title": title,
                "level": level,
                "page_start": page,
                "line_num": None,
                "y0": None,
                "source": "contents_page",
            }
        )
    return out


def _offset(labels: dict[str, int], raw: list[tuple], headings: Sequence[dict[str, Any]]) -> int | None:
    """Printed-to-physical offset: from headings found in the text when they agree, else from
    the page labels."""
    found = {h["toc_id"]: h["page_start"] for h in headings if h.get("toc_id")}
    diffs = Counter(found[i] - int(lab) for i, _, _, lab in raw if i in found and lab.isdigit())
    if diffs:
        off, n = diffs.most_common(1)[0]
        if n >= 2 or len(diffs) == 1:
            return off
    return numeric_offset(labels)


def list_entries(
    logical: Lines,
    on_contents: np.ndarray,
    contents: set[int],
    page_labels: Sequence[str],
    n_pages: int,
    found: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Objects of a printed list of tables / figures that no caption in the text registered (a
    caption inside an image), placed on the page the list gives (source contents_page).

    The printed page becomes physical through the page labels, or through the offset that the
    listed objects whose captions were found show; without either the entry is dropped.
    """
    from docintel.parsing.structure.numbering import parse_object_label

    if not contents and not on_contents.any():
        return []
    entries = []
    for i in np.flatnonzero(on_contents).tolist():
        t = logical.text[i]
        if not (int(logical.page[i]) in contents or has_leader(t)):
            continue
        parsed = parse_entry(t)
        if parsed is None or not _LIST_ENTRY.match(parsed[0]):
            continue
        label = parse_object_label(parsed[0])
        if label is not None:
            entries.append((label[0], label[1], parsed[0], parsed[1]))
    if not entries:
        return []
    have = {(o["object_type"], o["object_id"]): o["page_num"] for o in found}
    diffs = Counter(have[(k, i)] - int(lab) for k, i, _, lab in entries if (k, i) in have and lab.isdigit())
    offset = None
    if diffs:
        off, n = diffs.most_common(1)[0]
        offset = off if n >= 2 and n * 2 > sum(diffs.values()) else None
    labels = label_to_page(page_labels, n_pages)
    identity = not labels or all(k == str(v) for k, v in labels.items())
    out = []
    for kind, ident, text, lab in entries:
        if (kind, ident) in have:
            continue
        page = None if identity else labels.get(lab.lower())
        if page is None and offset is not None and lab.isdigit():
            page = int(lab) + offset
        if page is None or not 1 <= page <= n_pages:
            continue
        have[(kind, ident)] = page
        out.append(
            {
                "object_type": kind,
                "object_id": ident,
                "object_key": f"{kind}:{ident}",
                "caption": text,
                "page_num": page,
                "bbox": None,
                "line_start": None,
                "line_end": None,
                "source": "contents_page",
            }
        )
    return out
