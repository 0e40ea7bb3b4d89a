"""Internal link annotations read straight from the PDF objects, without loading pages.

``page.get_links()`` loads the page and wraps every link in Python objects; for a document with
hundreds of links that costs a third of the baseline text extraction. Here each annotation is one
``xref_object`` string: its /Rect, and a /Dest or /A GoTo action whose destination is an explicit
array ([page /XYZ left top zoom]) or a name resolved by MuPDF. Anything unusual (a rotated page,
an inherited MediaBox, an unreadable object) falls back to ``page.get_links()`` for that page, so
the result is always the same as PyMuPDF's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

_REFS = re.compile(r"(\d+)\s+0\s+R")
_RECT = re.compile(r"/Rect\s*\[\s*([-\d.eE+\s]+)\]")
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)"
_DEST_VALUE = r"(\[[^\]]*\]|\((?:[^()\\]|\\.)*\)|/[^\s/<>\[\]()]+|<[0-9A-Fa-f\s]*>)"
_DIRECT_DEST = re.compile(r"/Dest\s*" + _DEST_VALUE)
_ACTION_INLINE = re.compile(r"/A\s*<<(.*?)>>", re.S)
_ACTION_REF = re.compile(r"/A\s+(\d+)\s+0\s+R")
_ACTION_DEST = re.compile(r"/D\s*" + _DEST_VALUE)
_ACTION_KIND = re.compile(r"/S\s*/(\w+)")
_ANNOTS = re.compile(r"/Annots\s*(\[[^\]]*\]|\d+\s+0\s+R)")
_ROTATE = re.compile(r"/Rotate\s*(-?\d+(?:\.\d*)?)")
_MEDIABOX = re.compile(r"/MediaBox\s*\[([^\]]*)\]")
_PARENT = re.compile(r"/Parent\s+(\d+)\s+0\s+R")


class _Unusual(Exception):
    """This page needs PyMuPDF's own link reader."""


@dataclass
class RawLink:
    rect: tuple[float, float, float, float]  # top-left page coordinates of the origin page
    page: int  # 0-based target page
    y: float | None  # target point, top-left coordinates of the target page
    name: str | None  # named destination, when the link used one


class LinkReader:
    """Reads internal links page by page; caches page objects and geometry."""

    def __init__(self, doc: Any):
        self.doc = doc
        self.n = doc.page_count
        self.page_xrefs = [doc.page_xref(p) for p in range(self.n)]
        self.xref_to_page = {x: p for p, x in enumerate(self.page_xrefs)}
        self._page_obj: dict[int, str] = {}
        self._flip: dict[int, tuple[float, float] | None] = {}
        self._parent_rot: dict[int, bool] = {}
        self._names: dict[str, tuple[int, float | None, str | None] | None] = {}

    def page_object(self, pno: int) -> str:
        obj = self._page_obj.get(pno)
        if obj is None:
            obj = self._page_obj[pno] = self.doc.xref_object(self.page_xrefs[pno], compressed=True)
        return obj

    def pages_with_annots(self) -> list[int]:
        out = []
        for pno in range(self.n):
            try:
                if _ANNOTS.search(self.page_object(pno)):
                    out.append(pno)
            except Exception:
                out.append(pno)
        return out

    def links(self, pno: int, internal_kinds: set[int]) -> list[RawLink]:
        """Internal links of page ``pno`` (0-based)."""
        try:
            return self._raw_links(pno)
        except Exception:  # _Unusual or a surprise in the objects: PyMuPDF's reader
            return self._pymupdf_links(pno, internal_kinds)

    # -- the fast path -------------------------------------------------------------------
    def _geometry(self, pno: int) -> tuple[float, float]:
        """(x shift, y flip) so that top-left = (x - shift, flip - y) for an unrotated page."""
        if pno in self._flip:
            g = self._flip[pno]
            if g is None:
                raise _Unusual
            return g
        obj = self.page_object(pno)
        g: tuple[float, float] | None = None
        rot = _ROTATE.search(obj)
        mb = _MEDIABOX.search(obj)
        if (rot is None or float(rot.group(1)) == 0) and mb is not None and not self._inherits_rotation(obj):
            vals = [float(v) for v in re.findall(_NUM, mb.group(1))]
            if len(vals) == 4:
                cb = self.doc.page_cropbox(pno)
                g = (float(cb.x0), max(vals[1], vals[3]) - float(cb.y0))
        self._flip[pno] = g
        if g is None:
            raise _Unusual
        return g

    def _inherits_rotation(self, page_obj: str) -> bool:
        m = _PARENT.search(page_obj)
        if not m:
            return False
        parent = int(m.group(1))
        if parent not in self._parent_rot:
            rot = _ROTATE.search(self.doc.xref_object(parent, compressed=True))
            self._parent_rot[parent] = rot is not None and float(rot.group(1)) != 0
        return self._parent_rot[parent]

    def _raw_links(self, pno: int) -> list[RawLink]:
        doc = self.doc
        m = _ANNOTS.search(self.page_object(pno))
        if not m:
            return []
        value = m.group(1)
        if not value.startswith("["):
            value = doc.xref_object(int(value.split()[0]), compressed=True)
        out: list[RawLink] = []
        shift, flip = None, None
        for ref in _REFS.findall(value):
            obj = doc.xref_object(int(ref), compressed=True)
            if "/Subtype/Link" not in obj and not ("/Link" in obj and re.search(r"/Subtype\s*/Link\b", obj)):
                continue
            dest = self._dest_of(obj)
            if dest is None:
                continue  # URI, GoToR, Launch, Named action: not an internal target
            m = _RECT.search(obj)
            if not m:
                raise _Unusual
            vals = [float(v) for v in m.group(1).split()]
            if len(vals) != 4:
                raise _Unusual
            if shift is None:
                shift, flip = self._geometry(pno)
            x0, x1 = sorted((vals[0], vals[2]))
            ya, yb = sorted((vals[1], vals[3]))
            rect = (x0 - shift, flip - yb, x1 - shift, flip - ya)
            target = self._resolve(dest)
            if target is None:
                continue
            out.append(RawLink(rect, target[0], target[1], target[2]))
        return out

    def _dest_of(self, obj: str) -> str | None:
        if "/Dest" in obj:
            m = _DIRECT_DEST.search(obj)
            if m:
                return m.group(1)
        if "/A" not in obj:
            return None
        m = _ACTION_REF.search(obj)
        if m:
            action = self.doc.xref_object(int(m.group(1)), compressed=True)
        else:
            m = _ACTION_INLINE.search(obj)
            if not m:
                return None
            action = m.group(1)
        if "/URI" in action or "/GoToR" in action or "/Launch" in action:
            return None
        kind = _ACTION_KIND.search(action)
        if not kind or kind.group(1) != "GoTo":
            return None
        d = _ACTION_DEST.search(action)
        if not d:
            raise _Unusual
        return d.group(1)

    def _resolve(self, dest: str) -> tuple[int, float | None, str | None] | None:
        if dest.startswith("["):
            parts = dest.strip("[]").split()
            if len(parts) < 3 or parts[1] != "0" or not parts[2].startswith("R"):
                raise _Unusual  # a page number instead of a page reference: GoToR style
            page = self.xref_to_page.get(int(parts[0]))
            if page is None:
                return None
            rest = " ".join(parts[2:])[1:].strip()  # after "R"
            m = re.match(r"/(\w+)\s*(.*)", rest)
            if not m:
                return page, None, None
            fit, args = m.group(1), m.group(2).split()
            top = None
            idx = {"XYZ": 1, "FitH": 0, "FitBH": 0, "FitR": 3}.get(fit)
            if idx is not None and len(args) > idx and re.fullmatch(_NUM, args[idx]):
                try:
                    top = self._geometry(page)[1] - float(args[idx])
                except _Unusual:
                    top = None
            return page, top, None
        if dest.startswith("("):
            name = _unescape(dest[1:-1])
        elif dest.startswith("<"):
            name = bytes.fromhex("".join(dest[1:-1].split())).decode("latin-1")
        else:
            name = dest[1:]
        if name in self._names:
            return self._names[name]
        page, _x, y = self.doc.resolve_link("#nameddest=" + quote(name, safe=""))
        out = None
        if page is not None and 0 <= page < self.n:
            out = (page, (float(y) if y is not None and y == y else None), name)
        self._names[name] = out
        return out

    # -- the fallback --------------------------------------------------------------------
    def _pymupdf_links(self, pno: int, internal_kinds: set[int]) -> list[RawLink]:
        try:
            page = self.doc[pno]
            links = page.get_links()
        except Exception:
            return []
        out = []
        for lk in links:
            if lk.get("kind") not in internal_kinds:
                continue
            target = lk.get("page")
            if not isinstance(target, int) or not 0 <= target < self.n:
                continue
            y = None
            to = lk.get("to")
            name = lk.get("nameddest") or lk.get("name")
            if to is not None:
                y = float(to.y)
                if name:  # PyMuPDF leaves named destinations in PDF coordinates
                    try:
                        y = float(self.doc[target].transformation_matrix.f) - y
                    except Exception:
                        y = None
            out.append(RawLink(tuple(lk["from"]), target, y, name))
        return out


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    return re.sub(r"\\(\d{1,3}|.)", lambda m: chr(int(m.group(1), 8)) if m.group(1).isdigit() else m.group(1), s)
