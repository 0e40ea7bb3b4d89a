"""The resolver ladder, cheapest first: toc_df -> object_registry -> native links -> regex over
the document's lines -> an LLM guess (only when an LLM is configured).

A pointer resolves only to a page of a document already in the store (the origin's document);
one the corpus does not hold ("Section 99") stays unresolved. External pointers are marked
external and never fetched.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from docintel.references.detect import (
    DESIGNATOR,
    FORM_LINE_ID,
    FORM_LINE_TARGET,
    find_citations,
    form_line_page,
    is_designator,
)
from docintel.schemas.answers import (
    Origin,
    PendingReference,
    RefStatus,
    RefType,
    ResolvedReference,
)
from docintel.schemas.references import TargetRegion
from docintel.store.store import Store
from docintel.store.values import as_float as _num
from docintel.store.values import as_int as _int
from docintel.text import IDENTIFIER, REFERENCE_ENTRY, folded

LLMGuess = Callable[[str, list[str], str], "tuple[int | None, int, int, int]"]
"""(pointer text, candidate labels, context) -> (chosen index or None, llm_calls, prompt tokens,
completion tokens). Supplied by the orchestrator only when an LLM generator is configured."""

_SECTION_LIKE = (RefType.section, RefType.appendix, RefType.annex, RefType.schedule, RefType.exhibit, RefType.clause)
_OBJECT_LIKE = (RefType.table, RefType.figure, RefType.appendix, RefType.annex, RefType.schedule, RefType.exhibit,
                RefType.equation)
MIN_LIST_ENTRIES = 3
"""Entries ("[n] ...") a page must open to be read as a page of a reference list."""
HANGING_INDENT = (4.0, 30.0)
"""How far (points) the second line of an entry by author sits right of its first."""
MAX_ENTRY_LINES = 10
"""Lines read of one reference-list entry (an entry with a long author list runs to four or five)."""
MAX_FORM_LINE_PAGES = 2
"""Pages past its heading a form line's instructions may run before a heading ends them."""
_FORM_LINE_HEAD = re.compile(
    rf"^Lines?\s+(?P<ids>{FORM_LINE_ID}(?:\s*(?:,|,?\s*and|,?\s*or|(?i:through)|-|\u2013)\s*{FORM_LINE_ID})*)"
    r"(?:,\s*column\s*\(\w{1,2}\))?\s*(?:[\u2014\u2013:]|\.(?:\s|$)|$)"
)
"""A line of a form's instructions heading its part: "Line 55\u2014Additional tax on IRAs,",
"Lines 16a and 16b\u2014IRA", "Lines 72a through 72d\u2014Direct", "Line 72b. The routing number
must", "Line 7c, column (2). You must", or "Line 17" on a line of its own."""
_RELATIVE_TARGETS = ("previous", "next", "here")
"""Targets of a part named by where it sits from the mention ("the chart below": next)."""


@dataclass
class Resolution:
    """The ladder's verdict on one pointer, with its audit trail."""

    resolved: ResolvedReference
    region: TargetRegion | None = None
    next_section: tuple[int, float] | tuple[int, float, int] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: int = 0
    tokens: tuple[int, int] = (0, 0)


def norm_id(value: Any) -> str:
    s = str(value or "").strip().rstrip(".").lower()
    s = re.sub(r"\s+", "", s)
    return s


class Resolver:
    """Resolves pointers against one store's tables (read once per document, cached)."""

    def __init__(self, store: Store, llm_guess: LLMGuess | None = None):
        self.store = store
        self.llm_guess = llm_guess
        self._cache: dict[tuple[str, str], Any] = {}
        self._n_pages: dict[str, int] = {}
        self.llm_calls = 0
        self.tokens = [0, 0]

    # -- tables ----------------------------------------------------------------------------

    def table(self, doc_id: str, name: str) -> pd.DataFrame:
        key = (doc_id, name)
        if key not in self._cache:
            self._cache[key] = self.store.read_table(name, [doc_id])
        return self._cache[key]

    def n_pages(self, doc_id: str) -> int:
        if doc_id not in self._n_pages:
            entry = self.store.manifest()["documents"].get(doc_id, {})
            n = entry.get("n_pages")
            if not n:
                pages = self.table(doc_id, "page_df")
                n = int(pages["page_num"].max()) if not pages.empty else 0
            self._n_pages[doc_id] = int(n)
        return self._n_pages[doc_id]

    # -- the ladder ------------------------------------------------------------------------

    def resolve(self, ref: PendingReference, doc_id: str | None = None) -> Resolution:
        doc = ref.doc_id or doc_id
        base = dict(raw_text=ref.raw_text, ref_type=ref.ref_type, ref_target=ref.ref_target,
                    sub_selector=ref.sub_selector, doc_id=doc, origin=ref.origin)
        steps: list[dict[str, Any]] = []
        if ref.ref_type == RefType.external:
            steps.append({"rung": "external", "result": "named, not fetched"})
            return Resolution(ResolvedReference(**base, status=RefStatus.external), steps=steps)
        if doc is None or doc not in self.store.doc_ids():
            steps.append({"rung": "scope", "result": f"document {doc!r} is not in the store"})
            return Resolution(ResolvedReference(**base, status=RefStatus.unresolved), steps=steps)
        rungs: list[tuple[str, Callable[[PendingReference, str], Resolution | None]]] = [
            ("toc_df", self._toc),
            ("object_registry", self._objects),
            ("reference_list", self._reference_list),
            ("native_link", self._native_link),
            ("regex", self._regex),
            ("heading_text", self._heading_text),
            ("page_label", self._page_label),
        ]
        if ref.ref_type == RefType.section and FORM_LINE_TARGET.fullmatch(str(ref.ref_target or "")):
            rungs.insert(0, ("form_line", self._form_line))  # "the instructions for line 55": its heading first
        if ref.ref_type == RefType.section and IDENTIFIER.fullmatch(str(ref.ref_target or "")):
            rungs.insert(0, ("identifier", self._identifier))  # "[GV.SC]": the line defining it
        if self.llm_guess is not None:
            rungs.append(("llm", self._llm))
        for name, rung in rungs:
            t0 = time.perf_counter()
            try:
                res = rung(ref, doc)
            except Exception as e:  # a rung failing is a miss, logged in the trace
                steps.append({"rung": name, "result": f"error: {type(e).__name__}: {e}"})
                if name == "llm":
                    raise
                continue
            ms = round((time.perf_counter() - t0) * 1000, 2)
            if res is None:
                steps.append({"rung": name, "result": "miss", "ms": ms})
                continue
            region = res.region
            if region is not None and not (1 <= region.page_start <= self.n_pages(doc)):
                steps.append({"rung": name, "result": f"target page {region.page_start} outside the document", "ms": ms})
                continue
            steps.append({"rung": name, "result": "hit", "target_page": region.page_start if region else None, "ms": ms})
            res.resolved = ResolvedReference(
                **base, target_page=region.page_start if region else None, source=name, status=RefStatus.resolved
            )
            res.steps = steps
            return res
        return Resolution(ResolvedReference(**base, status=RefStatus.unresolved), steps=steps)

    # -- rungs -----------------------------------------------------------------------------

    def _region(self, ref: PendingReference, doc: str, **kw: Any) -> TargetRegion:
        return TargetRegion(doc_id=doc, ref_type=ref.ref_type, ref_target=ref.ref_target,
                            sub_selector=ref.sub_selector, raw_text=ref.raw_text, origin=ref.origin, **kw)

    def _toc_rows(self, doc: str) -> pd.DataFrame:
        toc = self.table(doc, "toc_df")
        if toc.empty:
            return toc
        order = "toc_order" if "toc_order" in toc and toc["toc_order"].notna().any() else "page_start"
        return toc.sort_values([order]).reset_index(drop=True)

    def _section_region(self, ref: PendingReference, doc: str, toc: pd.DataFrame, i: int) -> Resolution:
        row = toc.iloc[i]
        start = int(row["page_start"])
        end = _int(row.get("page_end")) or start
        y0 = _num(row.get("y0"))
        if y0 is None and _int(row.get("line_num")) is not None:
            y0 = self._line_y(doc, start, int(row["line_num"]))
        nxt = None
        nxt_title: tuple[str, ...] = ()
        level = _int(row.get("level")) or 1
        for j in range(i + 1, len(toc)):
            r = toc.iloc[j]
            if (_int(r.get("level")) or 1) <= level and _int(r.get("page_start")) is not None:
                ny = _num(r.get("y0"))
                if ny is None and _int(r.get("line_num")) is not None:
                    ny = self._line_y(doc, int(r["page_start"]), int(r["line_num"]))
                nxt = (int(r["page_start"]), ny if ny is not None else 0.0)
                nxt_title = (str(r["title"] or ""), f"{r['toc_id']} {r['title']}")
                end = max(start, min(end, nxt[0]))
                break
        title = f"{row['toc_id']} {row['title']}".strip()
        head = self._read_line(doc, start, y0, (str(row["title"] or ""), title))
        if head is not None:
            # the page is read in columns: a region cut by height would run across them (a
            # heading at the foot of the second column, the next at the top of the third)
            after = self._read_line(doc, nxt[0], nxt[1], nxt_title) if nxt is not None else None
            if nxt is None or after is not None:
                region = self._region(ref, doc, page_start=start, page_end=end, y_start=y0, title=title,
                                      line_start=int(head["line_num"]), by_line=True)
                nxt_line = (nxt[0], nxt[1], int(after["line_num"])) if after is not None else None
                return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved),
                                  region=region, next_section=nxt_line)
        region = self._region(ref, doc, page_start=start, page_end=end, y_start=y0,
                              title=title, line_start=_int(row.get("line_num")))
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved),
                          region=region, next_section=nxt)

    def _read_line(self, doc: str, page: int, y0: float | None, titles: tuple[str, ...]) -> pd.Series | None:
        """The line of a heading (its top ``y0``; its title, bare or after its number) in the
        best parse of ``page`` when that page is set in columns (its lines are numbered column by
        column, in reading order), else None, as when no line there starts the title."""
        wants = [folded(t) for t in titles if t.strip()]
        if y0 is None or not wants:
            return None
        lines = self._doc_lines(doc)
        on_page = lines[lines["page_num"] == page] if not lines.empty else lines
        if on_page.empty or "column" not in on_page or not on_page["column"].fillna("single").ne("single").any():
            return None
        near = on_page[(on_page["y0"].astype(float) - y0).abs() <= 2.0]
        for _, r in near.iterrows():
            text = folded(r["text"])
            if text and any(want.startswith(text) or text.startswith(want) for want in wants):
                return r
        return None

    def _line_y(self, doc: str, page: int, line_num: int) -> float | None:
        lines = self._baseline_lines(doc, page)
        hit = lines[lines["line_num"] == line_num]
        return float(hit["y0"].iloc[0]) if not hit.empty else None

    def _origin_y(self, doc: str, page: int, line_num: int) -> float | None:
        """The top of a mention's line: numbered in the page's best parse, which is what passages
        quote (a page in columns is read in its reading order, numbered anew), else the baseline's."""
        from docintel.store.view import best_lines

        key = (doc, f"view:{page}")
        if key not in self._cache:
            view = best_lines(self.store, doc, [page])
            self._cache[key] = view[view["in_base"].fillna(True).astype(bool)] if "in_base" in view else view
        view = self._cache[key]
        hit = view[view["line_num"] == line_num] if not view.empty else view
        return float(hit["y0"].iloc[0]) if not hit.empty else self._line_y(doc, page, line_num)

    def _baseline_lines(self, doc: str, page: int) -> pd.DataFrame:
        key = (doc, f"lines:{page}")
        if key not in self._cache:
            df = self.store.read_table("line_df", [doc], filters=[("page_num", "=", page)])
            base = df[df["parsing_method"].isin(["pymupdf", "tesseract"])] if not df.empty else df
            self._cache[key] = base if not base.empty else df
        return self._cache[key]

    def _toc(self, ref: PendingReference, doc: str) -> Resolution | None:
        if ref.ref_type not in _SECTION_LIKE:
            return None
        toc = self._toc_rows(doc)
        if toc.empty:
            return None
        target = norm_id(ref.ref_target)
        if target in ("previous", "next"):
            if ref.origin is None:
                return None
            cur = self._section_index(toc, ref.origin.page, ref.origin.line, doc)
            if cur is None:
                return None
            level = _int(toc.iloc[cur].get("level")) or 1
            step = -1 if target == "previous" else 1
            j = cur + step
            while 0 <= j < len(toc) and (_int(toc.iloc[j].get("level")) or 1) > level:
                j += step
            if not 0 <= j < len(toc):
                return None
            return self._section_region(ref, doc, toc, j)
        ids = toc["toc_id"].map(norm_id)
        hits = list(toc.index[ids == target])
        if not hits and ref.ref_type in (RefType.appendix, RefType.annex, RefType.schedule, RefType.exhibit):
            word = ref.ref_type.value
            pat = re.compile(rf"^\s*{word}\s+{re.escape(str(ref.ref_target))}\b", re.IGNORECASE)
            hits = [i for i, t in zip(toc.index, toc["title"]) if isinstance(t, str) and pat.match(t)]
        if not hits and is_title(str(ref.ref_target)):
            # "as described in the Verify Methods subsection": the TOC entry "4.7 Verify Methods";
            # of several entries with that title, the one nearest the mention
            def key(title: str) -> str:
                return " ".join(title.split()).casefold()

            want = key(str(ref.ref_target))
            hits = [i for i, t in zip(toc.index, toc["title"]) if isinstance(t, str) and key(t) == want]
            if ref.origin is not None:
                hits.sort(key=lambda i: abs((_int(toc.at[i, "page_start"]) or 0) - ref.origin.page))
        if not hits:
            return None
        return self._section_region(ref, doc, toc, hits[0])

    def _section_index(self, toc: pd.DataFrame, page: int, line: int | None, doc: str) -> int | None:
        y = self._origin_y(doc, page, line) if line is not None else None
        best = None
        for i, r in toc.iterrows():
            ps = _int(r.get("page_start"))
            if ps is None or ps > page:
                continue
            hy = _num(r.get("y0"))
            if hy is None and _int(r.get("line_num")) is not None:
                hy = self._line_y(doc, ps, int(r["line_num"]))
            if ps == page and y is not None and hy is not None and hy > y:
                continue
            best = i
        return best

    def _objects(self, ref: PendingReference, doc: str) -> Resolution | None:
        if ref.ref_type not in _OBJECT_LIKE:
            return None
        target = norm_id(ref.ref_target)
        if target in _RELATIVE_TARGETS:
            return self._nearby_object(ref, doc)
        reg = self.table(doc, "object_registry")
        if reg.empty:
            return None
        rows = reg[(reg["object_type"].astype(str).str.lower() == ref.ref_type.value) & (reg["object_id"].map(norm_id) == target)]
        if rows.empty:
            return None
        row = rows.sort_values("page_num").iloc[0]
        page = int(row["page_num"])
        bbox = row.get("bbox")
        y0 = float(bbox[1]) if bbox is not None and len(bbox) == 4 else None
        y1 = float(bbox[3]) if bbox is not None and len(bbox) == 4 else None
        key = row.get("object_key") or f"{ref.ref_type.value}:{row['object_id']}"
        end = self._continued_to(doc, key, page) if ref.ref_type == RefType.table else page
        region = self._region(ref, doc, page_start=page, page_end=end, y_start=y0, y_end=y1,
                              object_key=key,
                              line_start=_int(row.get("line_start")), line_end=_int(row.get("line_end")),
                              title=row.get("caption") if isinstance(row.get("caption"), str) else None)
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved), region=region)

    def _continued_to(self, doc: str, key: str, page: int) -> int:
        """The last page a table captioned on ``page`` runs to: the pages right after it that hold
        rows of the same table (the tables escalation keys a continued table's rows, under the
        running header "Table 8-1 Authenticator Threats" on page 51 and on to page 54, with its
        caption's key)."""
        cache = (doc, "table_pages")
        if cache not in self._cache:  # only the table rows are read, once per document
            rows = self.store.read_table("line_df", [doc], filters=[("kind", "=", "table_row")],
                                         columns=["page_num", "object_key"]).dropna(subset=["object_key"])
            self._cache[cache] = {k: set(g.astype(int)) for k, g in rows.groupby("object_key")["page_num"]}  # type: ignore[assignment]
        pages = self._cache[cache].get(key, set())  # type: ignore[union-attr]
        end = page
        while end + 1 in pages:
            end += 1
        return end

    def _nearby_object(self, ref: PendingReference, doc: str) -> Resolution | None:
        """"the chart below" / "the table above" / "the chart on this page": the first table or
        figure under the mention on its page (else the first on the next page), the last one over
        it (else the last on the page before), or the one on its page. Tables and figures are those
        the registry holds and the tables escalation read (a chart without a caption has no entry
        in the registry, only rows)."""
        if ref.origin is None:
            return None
        page, where = ref.origin.page, norm_id(ref.ref_target)
        pages = {"next": (page, page + 1), "previous": (page - 1, page), "here": (page,)}[where]
        found = self._objects_on(doc, pages, ref.ref_type.value)
        y = self._origin_y(doc, page, ref.origin.line) if ref.origin.line is not None else None
        if where == "here":
            here = [o for o in found if o[0] == page]
            pick = min(here, key=lambda o: abs(o[1] - y) if y is not None else 0.0) if here else None
        elif where == "next":
            after = [o for o in found if o[0] > page or y is None or o[1] >= y]
            pick = min(after, key=lambda o: (o[0], o[1])) if after else None
        else:
            before = [o for o in found if o[0] < page or y is None or o[2] <= y]
            pick = max(before, key=lambda o: (o[0], o[1])) if before else None
        if pick is None:
            return None
        p, y0, y1, key, caption = pick
        region = self._region(ref, doc, page_start=p, page_end=p, y_start=y0, y_end=y1, object_key=key, title=caption)
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved), region=region)

    def _objects_on(self, doc: str, pages: tuple[int, ...], kind: str) -> list[tuple[int, float, float, str, str | None]]:
        """(page, top, bottom, object key, caption) of the ``kind`` objects ("table", "figure") on
        ``pages``: the registry's, then the tables escalation read that the registry lacks."""
        out: list[tuple[int, float, float, str, str | None]] = []
        reg = self.table(doc, "object_registry")
        if not reg.empty:
            rows = reg[(reg["object_type"].astype(str).str.lower() == kind) & reg["page_num"].isin(pages)]
            for _, r in rows.iterrows():
                bbox = r.get("bbox")
                if bbox is None or len(bbox) != 4:
                    continue
                key = r.get("object_key") or f"{kind}:{r['object_id']}"
                out.append((int(r["page_num"]), float(bbox[1]), float(bbox[3]), key,
                            r.get("caption") if isinstance(r.get("caption"), str) else None))
        if kind == "table":
            lines = self.store.read_table("line_df", [doc], filters=[("page_num", "in", list(pages))])
            if not lines.empty and "kind" in lines:
                rows = lines[lines["kind"].eq("table_row") & lines["object_key"].notna()]
                have = {o[3] for o in out}
                for (p, key), g in rows.groupby(["page_num", "object_key"]):
                    if key not in have:
                        out.append((int(p), float(g["y0"].min()), float(g["y1"].max()), str(key), None))
        return out

    def _reference_list(self, ref: PendingReference, doc: str) -> Resolution | None:
        """A citation: its entry in the document's reference list, from the line that opens it to
        the line before the next entry. "[11]": the line opening with "[11]" on a page that opens
        at least MIN_LIST_ENTRIES numbered entries (the list, not a table row that cites it).
        "Fabbri 2021" (from "(Fabbri et al., 2021)"): an entry of the list under the last
        "References" heading, opened by a hanging indent (:func:`_entry_openings`), whose first
        author is Fabbri and that says 2021 anywhere. Of several such entries (a
        second list, two Fabbri papers of 2021), the one the PDF's own link from the mention lands
        on, else the last numbered or the first by author."""
        if ref.ref_type != RefType.citation or not ref.ref_target:
            return None
        lines = self._doc_lines(doc)
        if lines.empty:
            return None
        target = _citation_target(ref)
        if target is None:
            return None
        openings = self._entry_openings(doc, lines)
        opens, numbered = openings["opens"], openings["numbered"]
        if target.isdigit():
            hits = list(lines.index[openings["listed"] & (openings["entry"] == target)])
        else:
            name, _, year = target.rpartition(" ")
            heads = lines.index[lines["text"].str.strip().str.fullmatch(r"(?i)(?:\d+\.?\s*)?(?:references|bibliography|works cited|literature cited)")]
            after = lines.index >= (heads[-1] if len(heads) else len(lines))
            hits = [i for i in lines.index[opens & after]
                    if _first_author(entry := _entry(lines, opens, i), name) and year in entry]
        if not hits:
            return None
        link = self._link_target(ref, doc)
        on_link = [i for i in hits if link and int(lines.at[i, "page_num"]) == link[0]]
        if on_link:
            i = min(on_link, key=lambda i: abs(float(lines.at[i, "y0"]) - link[1]))
        else:
            i = hits[-1] if target.isdigit() else hits[0]
        last = _entry_end(lines, numbered, i, numbered=True) if target.isdigit() else _entry_end(lines, opens, i)
        row = lines.loc[i]
        page = int(row["page_num"])
        region = self._region(ref, doc, page_start=page, page_end=page, y_start=float(row["y0"]),
                              line_start=int(row["line_num"]), line_end=int(lines.at[last, "line_num"]), by_line=True)
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved), region=region)

    def _entry_openings(self, doc: str, lines: pd.DataFrame) -> pd.DataFrame:
        """:func:`_entry_openings` of the document's lines, read once per document: columns
        opens, numbered, entry (the "n" of a "[n]" line) and listed (a "[n]" line on a page that
        opens at least MIN_LIST_ENTRIES of them: the list, not a table row that cites it)."""
        key = (doc, "entry_openings")
        if key not in self._cache:
            opens, numbered = _entry_openings(lines)
            entry = lines["text"].str.extract(REFERENCE_ENTRY, expand=False)
            listed = numbered & (numbered.groupby(lines["page_num"]).transform("sum") >= MIN_LIST_ENTRIES)
            self._cache[key] = pd.DataFrame({"opens": opens, "numbered": numbered, "entry": entry, "listed": listed})
        return self._cache[key]

    def _link_target(self, ref: PendingReference, doc: str) -> tuple[int, float] | None:
        """(page, height) a citation's own link goes to (cross_ref_df, native_link), or None. Its
        anchor is "[11]", or a piece of "(Kryscinski et al., 2019; ...)" holding the name."""
        if ref.origin is None:
            return None
        near = self._links_near(doc, ref.origin)
        near = near[near["ref_type"] == "citation"] if not near.empty else near
        target = str(ref.ref_target)
        name = target.rpartition(" ")[0].casefold()
        for _, r in near.iterrows():
            anchor = str(r.get("anchor_text") or "")
            if (anchor.strip("[](),;. ") == target or (name and name in anchor.casefold())) and _int(r.get("target_page")):
                return int(r["target_page"]), _num(r.get("target_y")) or 0.0
        return None

    def _links_near(self, doc: str, origin: Origin) -> pd.DataFrame:
        """The PDF's own links (cross_ref_df, native_link) drawn from the mention's line or the
        lines either side of it."""
        xr = self.table(doc, "cross_ref_df")
        if xr.empty:
            return xr
        return xr[(xr["source"] == "native_link") & (xr["origin_page"] == origin.page)
                  & ((xr["origin_line"] - origin.line).abs() <= 1)]

    def _native_link(self, ref: PendingReference, doc: str) -> Resolution | None:
        if ref.ref_type == RefType.citation:
            return None  # a citation's link is read with its reference list (_reference_list)
        if ref.origin is None or not norm_id(ref.ref_target) or norm_id(ref.ref_target) in _RELATIVE_TARGETS:
            return None
        near = self._links_near(doc, ref.origin)
        if near.empty:
            return None
        target = norm_id(ref.ref_target)
        best = None
        for _, r in near.iterrows():
            anchor = norm_id(r.get("anchor_text"))
            rt = str(r.get("ref_type") or "").lower()
            if norm_id(r.get("ref_target")) == target or (anchor and (anchor == target or target in anchor)):
                if rt in ("cite", "citation"):
                    continue
                best = r
                break
        if best is None or _int(best.get("target_page")) is None:
            return None
        page = int(best["target_page"])
        region = self._region(ref, doc, page_start=page, page_end=page, y_start=_num(best.get("target_y")),
                              object_key=f"{ref.ref_type.value}:{ref.ref_target}" if ref.ref_type in _OBJECT_LIKE else None)
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved), region=region)

    def _regex(self, ref: PendingReference, doc: str) -> Resolution | None:
        """A caption or heading line naming the target ("Table 3:", "7.2 Title", "Appendix A")."""
        if not ref.ref_target or norm_id(ref.ref_target) in _RELATIVE_TARGETS or ref.ref_type in (RefType.page, RefType.citation):
            return None
        if is_designator(str(ref.ref_target)):  # "(q)(1)": a paragraph, found by position (heading_text)
            return None
        tid = re.escape(str(ref.ref_target))
        # the word in any case, the title after the id capitalised: "401(k) plan and your
        # employer" (prose about a tax-code section) is not a heading
        if ref.ref_type in (RefType.section, RefType.clause):
            pat = rf"^\s*(?:(?i:section|clause|§)\s*)?{tid}\.?\s+[A-Z]"
        else:
            word = {"figure": "(?:figure|fig\\.)"}.get(ref.ref_type.value, ref.ref_type.value)
            pat = rf"^\s*(?i:{word})\s+{tid}(?![\w.\-]\d)\s*(?:[:.\-—]|$|\s+[A-Z])"
        lines = self.store.read_table("line_df", [doc], columns=["page_num", "line_num", "text", "y0", "parsing_method", "font_size"])
        if lines.empty:
            return None
        lines = lines[lines["parsing_method"].isin(["pymupdf", "tesseract"])] if lines["parsing_method"].isin(["pymupdf", "tesseract"]).any() else lines
        m = lines[lines["text"].astype(str).str.contains(pat, case=True, regex=True)]
        if ref.origin is not None:
            m = m[~((m["page_num"] == ref.origin.page) & (m["line_num"] == ref.origin.line))]
        if m.empty:
            return None
        row = m.sort_values(["page_num", "line_num"]).iloc[0]
        page = int(row["page_num"])
        region = self._region(ref, doc, page_start=page, page_end=page, y_start=float(row["y0"]),
                              line_start=int(row["line_num"]), title=str(row["text"]),
                              object_key=f"{ref.ref_type.value}:{ref.ref_target}" if ref.ref_type in _OBJECT_LIKE else None)
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved), region=region)

    # -- parts named by their heading's text: "the ADDRESSES section", "paragraph (q)(1)" ----

    def _doc_lines(self, doc: str) -> pd.DataFrame:
        """The document's best-parse lines in reading order (what a fetched region is cut from)."""
        key = (doc, "best_lines")
        if key not in self._cache:
            from docintel.store.view import best_lines

            df = best_lines(self.store, doc)
            if not df.empty:
                df = df[df["kind"].fillna("text").eq("text")].sort_values(["page_num", "line_num"]).reset_index(drop=True)
                df = df.assign(text=df["text"].astype(str), bold=df["bold"].fillna(False).astype(bool))
            self._cache[key] = df
        return self._cache[key]

    def _heading_text(self, ref: PendingReference, doc: str) -> Resolution | None:
        """A part no TOC or caption numbers, found by its heading's text: a lettered paragraph of a
        rule ("(q) Related Information" / "(1) For more information ...") or a titled heading
        ("Flightcrew Training" on a line of its own, "ADDRESSES: You may send ..." run in)."""
        target = str(ref.ref_target or "")
        if ref.ref_type != RefType.section or not target:
            return None
        lines = self._doc_lines(doc)
        if lines.empty:
            return None
        if ref.origin is not None:
            lines = lines[~((lines["page_num"] == ref.origin.page) & (lines["line_num"] == ref.origin.line))]
        if is_designator(target):
            span = _paragraph_span(lines, DESIGNATOR.findall(target))
        elif is_title(target):
            span = _titled_span(lines, target)
        else:
            return None
        if span is None:
            return None
        return self._lines_region(ref, doc, lines.iloc[span[0]], lines.iloc[span[1]] if span[1] is not None else None)

    def _lines_region(self, ref: PendingReference, doc: str, start: pd.Series, end: pd.Series | None) -> Resolution:
        """A part cut by line: from the line ``start`` up to the line ``end`` (the next part's
        first, or None: to the end of its page)."""
        page = int(start["page_num"])
        nxt = (int(end["page_num"]), float(end["y0"]), int(end["line_num"])) if end is not None else None
        region = self._region(ref, doc, page_start=page, page_end=max(page, nxt[0]) if nxt else page,
                              y_start=float(start["y0"]), line_start=int(start["line_num"]), title=str(start["text"]),
                              by_line=True)
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved),
                          region=region, next_section=nxt)

    def _identifier(self, ref: PendingReference, doc: str) -> Resolution | None:
        """An outcome named by its identifier ("[GV.SC]", "GV.SC-06"): the line that defines it
        ("Cybersecurity Supply Chain Risk Management (GV.SC): ...", "o GV.SC-06: Planning and
        ..."), read to the next definition that is not of one of its own parts (GV.SC runs over
        GV.SC-01 ... GV.SC-10 to "IDENTIFY (ID):"; GV.SC-06 to GV.SC-07)."""
        target = str(ref.ref_target or "")
        lines = self._doc_lines(doc)
        defined = self._definitions(doc)
        at = [i for i, ident in defined if ident == target
              and not (ref.origin is not None and (int(lines.at[i, "page_num"]), int(lines.at[i, "line_num"]))
                       == (ref.origin.page, ref.origin.line))]
        if not at:
            return None
        after = [i for i, ident in defined if i > at[0] and ident != target and not ident.startswith(f"{target}-")]
        return self._lines_region(ref, doc, lines.iloc[at[0]], lines.iloc[after[0]] if after else None)

    def _definitions(self, doc: str) -> list[tuple[int, str]]:
        """(row of :meth:`_doc_lines`, identifier) of each line defining an outcome or its
        function, in reading order: "GOVERN (GV): ...", "... (GV.SC): ...", "o GV.SC-06: ..."."""
        key = (doc, "definitions")
        if key not in self._cache:
            lines = self._doc_lines(doc)
            found: list[tuple[int, str]] = []
            if not lines.empty:
                heads = lines["text"].str.extract(_DEFINES_ID, expand=False)
                found = [(i, str(h)) for i, h in enumerate(heads) if isinstance(h, str)]
            self._cache[key] = found
        return self._cache[key]

    def _form_line(self, ref: PendingReference, doc: str) -> Resolution | None:
        """A form line's instructions ("the instructions for line 55 on page 22"): from the heading
        that opens them ("Line 55\u2014Additional tax on IRAs,", "Lines 16a and 16b\u2014IRA ...",
        "Line 17" in a schedule's part) to the next line's heading or a larger heading.
        Of several headings for that line (the form's line 8 and Schedule A's), the one on the
        page the pointer names, else the one nearest the mention, else the first. A line id
        without a letter ("line 17") finds "Lines 17a and 17b" when no heading has it as is.
        Without a heading, the page the pointer names, read whole; else a miss."""
        target = FORM_LINE_TARGET.fullmatch(str(ref.ref_target or ""))
        if ref.ref_type != RefType.section or target is None:
            return None
        origin = ref.origin
        hint = form_line_page(ref.raw_text, origin.page if origin else None)
        lines = self._doc_lines(doc)
        heads = self._form_line_heads(doc, lines)
        want = _line_key(target.group(1))
        hits = [i for i, keys in heads.items() if any(lo <= want <= hi for lo, hi in keys)]
        if not hits:
            hits = [i for i, keys in heads.items() if any(lo[0] == want[0] and not want[1] for lo, _ in keys)]
        if origin is not None:
            hits = [i for i in hits if (int(lines.at[i, "page_num"]), int(lines.at[i, "line_num"])) != (origin.page, origin.line)]
        if hint is not None:
            hits = [i for i in hits if int(lines.at[i, "page_num"]) == hint]
            if not hits:
                return self._page_label(ref.model_copy(update={"ref_type": RefType.page, "ref_target": str(hint)}), doc)
        elif origin is not None and hits:
            hits.sort(key=lambda i: abs(int(lines.at[i, "page_num"]) - origin.page))
        if not hits:
            return None
        at = lines.index.get_loc(hits[0])
        keys = heads[hits[0]]
        # its own bold subheadings ("Qualifying child for child tax credit.") go on; a larger
        # heading ("Other Taxes", not a caution sign's "!") ends it
        text, bold, pages = lines["text"].tolist(), lines["bold"].tolist(), lines["page_num"].tolist()
        size = lines["font_size"].astype(float).fillna(0.0).tolist()
        end = next((j for j in range(at + 1, len(lines))
                    if pages[j] > pages[at] + MAX_FORM_LINE_PAGES
                    or (lines.index[j] in heads and heads[lines.index[j]] != keys)
                    or (bold[j] and size[j] > size[at] + 1.0 and _alone_heading(text[j]) and is_title(text[j]))), None)
        start = lines.iloc[at]
        page = int(start["page_num"])
        nxt = None
        if end is not None:
            stop = lines.iloc[end]
            nxt = (int(stop["page_num"]), float(stop["y0"]), int(stop["line_num"]))
        region = self._region(ref, doc, page_start=page, page_end=max(page, nxt[0]) if nxt else page,
                              y_start=float(start["y0"]), line_start=int(start["line_num"]), title=str(start["text"]),
                              by_line=True)
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved),
                          region=region, next_section=nxt)

    def _form_line_heads(self, doc: str, lines: pd.DataFrame) -> dict[Any, list[tuple[tuple[int, str], tuple[int, str]]]]:
        """The document's form-line headings, read once: line index -> the (first, last) line
        keys each covers ("Lines 72a through 72d": [((72, "a"), (72, "d"))])."""
        key = (doc, "form_line_heads")
        if key not in self._cache:
            heads: dict[Any, list[tuple[tuple[int, str], tuple[int, str]]]] = {}
            if not lines.empty:
                for i, t in lines["text"][lines["text"].str.match(r"Lines?\s+\d")].items():
                    m = _FORM_LINE_HEAD.match(t)
                    if m:
                        heads[i] = _line_ranges(m.group("ids"))
            self._cache[key] = heads  # type: ignore[assignment]
        return self._cache[key]  # type: ignore[return-value]

    def _page_label(self, ref: PendingReference, doc: str) -> Resolution | None:
        if ref.ref_type != RefType.page or not ref.ref_target:
            return None
        pages = self.table(doc, "page_df")
        lab = pages[pages["page_label"].astype(str).str.lower() == str(ref.ref_target).lower()]
        if lab.empty:
            return None
        page = int(lab["page_num"].min())
        return Resolution(ResolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type, status=RefStatus.resolved),
                          region=self._region(ref, doc, page_start=page, page_end=page))

    def _llm(self, ref: PendingReference, doc: str) -> Resolution | None:
        """Only for vague pointers ("the previous section", "the table above"): a pointer with
        an explicit id the document lacks ("Section 99") is never guessed."""
        if norm_id(ref.ref_target) not in ("", *_RELATIVE_TARGETS):
            return None
        toc = self._toc_rows(doc)
        reg = self.table(doc, "object_registry")
        cands: list[tuple[str, Any]] = []
        want_sections = ref.ref_type in _SECTION_LIKE or ref.ref_type == RefType.other
        want_objects = ref.ref_type in _OBJECT_LIKE or ref.ref_type == RefType.other
        if want_sections:
            for i, r in toc.iterrows():
                cands.append((f"section {r['toc_id']} '{r['title']}' (pages {r['page_start']}-{r['page_end']})", ("toc", i)))
        if want_objects:
            for i, r in reg.iterrows():
                if ref.ref_type != RefType.other and str(r["object_type"]) != ref.ref_type.value and ref.ref_type not in _SECTION_LIKE:
                    continue
                cands.append((f"{r['object_type']} {r['object_id']} '{str(r.get('caption') or '')[:80]}' (page {r['page_num']})", ("obj", i)))
        if not cands:
            return None
        context = ""
        if ref.origin is not None:
            lines = self._baseline_lines(doc, ref.origin.page)
            hit = lines[lines["line_num"] == ref.origin.line]
            context = str(hit["text"].iloc[0]) if not hit.empty else ""
            cur = self._section_index(toc, ref.origin.page, ref.origin.line, doc) if not toc.empty else None
            if cur is not None:
                context += f" (in section {toc.iloc[cur]['toc_id']} '{toc.iloc[cur]['title']}')"
        assert self.llm_guess is not None
        index, calls, tp, tc = self.llm_guess(ref.raw_text, [c for c, _ in cands], context)
        self.llm_calls += calls
        self.tokens[0] += tp
        self.tokens[1] += tc
        if index is None or not 0 <= index < len(cands):
            return None
        kind, i = cands[index][1]
        if kind == "toc":
            res = self._section_region(ref, doc, toc, int(i))
        else:
            r = reg.loc[i]
            sub = PendingReference(raw_text=ref.raw_text, ref_type=RefType(str(r["object_type"])) if str(r["object_type"]) in RefType._value2member_map_ else ref.ref_type,
                                   ref_target=str(r["object_id"]), sub_selector=ref.sub_selector, origin=ref.origin)
            res = self._objects(sub, doc)
        if res is not None:
            res.llm_calls, res.tokens = calls, (tp, tc)
        return res


_TITLE = re.compile(r"[A-Za-z]{3,}")


_DEFINES_ID = re.compile(r"(?:^\W{0,2}\s*(?:o\s+)?|\()([A-Z]{2}(?:\.[A-Z]{2}(?:-\d{1,3})?)?)\)?\s*:")
"""A line defining an identifier, where a framework's core lists it: "GOVERN (GV): The
organization's ...", "\u2022 Cybersecurity Supply Chain Risk Management (GV.SC): ...", "o GV.SC-06:
Planning ..." (the group is the identifier)."""


def is_title(target: str) -> bool:
    """A pointer target that is a heading's words ("Flightcrew Training", "ADDRESSES"), not an
    id ("7.2", "A-1", "IV")."""
    return bool(_TITLE.search(target)) and not re.fullmatch(r"(?i)[ivxlc]+", target)


def _is_level(text: str, kind: str) -> bool:
    """Whether ``text`` opens a paragraph numbered like ``kind`` ("q" a letter, "1" a number)."""
    m = DESIGNATOR.match(text)
    return bool(m) and text[m.end():m.end() + 1].isspace() and m.group(1).isdigit() == kind.isdigit()


def _paragraph_span(lines: pd.DataFrame, chain: list[str]) -> tuple[int, int | None] | None:
    """(first line, line ending it or None) of paragraph ``chain`` (["q", "1"] for (q)(1)), by
    position in ``lines``: the top level is a heading ("(q) Related Information", bold when
    any of its kind is), each deeper level the first line opening it after its parent's, and a
    paragraph ends where the next one of its level (or its parent's) starts."""
    text = lines["text"].tolist()
    bold = lines["bold"].tolist()
    top = [i for i, t in enumerate(text) if re.match(rf"^\({re.escape(chain[0])}\)\s+[A-Z]", t)]
    if any(bold[i] for i in top):
        top = [i for i in top if bold[i]]
    if not top:
        return None
    start = top[0]
    ends = [_next_at_level(text, bold, start, chain[0], heading=True)]
    for d in chain[1:]:
        stop = ends[-1] if ends[-1] is not None else len(text)
        hit = next((i for i in range(start + 1, stop) if text[i].startswith(f"({d}) ")), None)
        if hit is None:
            return None
        start = hit
        ends.append(_next_at_level(text, bold, start, d, heading=False, stop=stop))
    end = next((e for e in reversed(ends) if e is not None), None)
    return start, end


def _next_at_level(text: list[str], bold: list[bool], start: int, kind: str, heading: bool, stop: int | None = None) -> int | None:
    """The next line after ``start`` (before ``stop``) opening a paragraph of ``kind``'s level."""
    for i in range(start + 1, stop if stop is not None else len(text)):
        if _is_level(text[i], kind) and (not heading or bold[i] == bold[start]) and not text[i].startswith(f"({kind}) "):
            return i
    return stop


def _titled_span(lines: pd.DataFrame, title: str) -> tuple[int, int | None] | None:
    """(heading line, next heading of its kind or None) of the first heading reading ``title``:
    a line of its own ("Flightcrew Training") or a run-in heading opening a paragraph
    ("ADDRESSES: You may send comments")."""
    text = lines["text"].tolist()
    bold = lines["bold"].tolist()
    t = re.escape(title)
    alone = re.compile(rf"^{t}\s*[:.\u2014]?$")
    run_in = re.compile(rf"^{t}\s*[:.\u2014]\s+\S")
    start = next((i for i, s in enumerate(text) if alone.match(s) or run_in.match(s)), None)
    if start is None:
        return None
    if alone.match(text[start]):
        end = next((i for i in range(start + 1, len(text)) if bold[i] and _alone_heading(text[i])), None)
        return start, end
    # the next run-in heading of the same kind ("FOR FURTHER INFORMATION CONTACT:") when the
    # title is in capitals, else the next heading on a line of its own
    caps = re.compile(r"^[A-Z][A-Z ,&'\u2019\-]{2,}:\s") if title.isupper() else None
    end = next((i for i in range(start + 1, len(text))
                if (caps is not None and caps.match(text[i])) or (bold[i] and _alone_heading(text[i]))), None)
    return start, end


def _line_key(ident: str) -> tuple[int, str]:
    """A form line's id as a sortable key: "16a" -> (16, "a")."""
    m = re.match(r"(\d+)([a-z]?)", ident.strip().lower())
    return (int(m.group(1)), m.group(2)) if m else (0, "")


def _line_ranges(ids: str) -> list[tuple[tuple[int, str], tuple[int, str]]]:
    """The (first, last) line keys a heading's ids cover: "16a and 16b" -> two single lines,
    "72a through 72d" or "1 Through 3" -> one range."""
    out: list[tuple[tuple[int, str], tuple[int, str]]] = []
    parts = re.split(r"\s*(?:,|\band\b|\bor\b)\s*", ids)
    for part in filter(None, (p.strip() for p in parts)):
        ends = [_line_key(x) for x in re.split(r"(?i)\s*(?:through|-|\u2013)\s*", part) if x.strip()]
        if ends:
            out.append((ends[0], ends[-1]))
    return out


def _alone_heading(text: str) -> bool:
    """A short line with no sentence end: a heading on a line of its own."""
    return len(text.split()) <= 10 and not text.rstrip().endswith((".", ",", ";"))


def _entry_openings(lines: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """(lines that open a reference-list entry, those of them numbered "[n]"). An entry opens
    numbered, or where a hanging indent says so: the first line of a row whose next row starts a
    few points right of it ("Manik Bhandari, Pranav ..." / "    faq, Pengfei Liu, ..."), or whose
    previous row did (a one-line entry after an indented one). A row is the lines at one height
    (a justified line may be read as several pieces: "James" "Thorne," "Andreas" ...); column
    labels are not used, as a reference list's second column is not always told apart."""
    numbered = lines["text"].str.match(REFERENCE_ENTRY.pattern)
    page = lines["page_num"]
    y = lines["y0"].astype(float)
    first = (page != page.shift()) | ((y - y.shift()).abs() > 2)
    rows = lines[first].assign(x=lines.loc[first, "x0"].astype(float))
    same_next = rows["page_num"].shift(-1) == rows["page_num"]
    same_prev = rows["page_num"].shift(1) == rows["page_num"]
    lo, hi = HANGING_INDENT
    hangs = (same_next & (rows["x"].shift(-1) - rows["x"]).between(lo, hi)) | (
        same_prev & (rows["x"].shift(1) - rows["x"]).between(lo, hi))
    hanging = pd.Series(False, index=lines.index)
    hanging.loc[rows.index] = hangs
    return numbered | hanging, numbered


def _entry_end(lines: pd.DataFrame, opens: pd.Series, i: Any, numbered: bool = False) -> Any:
    """The index of the last line of the entry opening at index ``i``: the line before the next
    opening or another page; for an entry by author, also before a line back at the column's
    edge (a heading after the list). ``numbered``: ``opens`` are the "[n]" lines, and lines
    between them need no indent."""
    at = lines.index.get_loc(i)
    x0 = lines["x0"].astype(float).to_numpy()
    flags = opens.to_numpy()
    pages = lines["page_num"].to_numpy()
    end = at
    while (end + 1 < len(lines) and end + 1 - at < MAX_ENTRY_LINES and not flags[end + 1]
           and pages[end + 1] == pages[at] and (numbered or x0[end + 1] > x0[at] + 2)):
        end += 1
    return lines.index[end]


def _entry(lines: pd.DataFrame, opens: pd.Series, i: Any) -> str:
    """The text of the entry opening at index ``i``."""
    return " ".join(lines.loc[i:_entry_end(lines, opens, i), "text"].astype(str))


def _citation_target(ref: PendingReference) -> str | None:
    """A citation's target as :func:`find_citations` writes it ("11", "Dou 2021"), also when an
    LLM named it otherwise ("[11]", "Dou et al., 2021"); None when it reads as no citation."""
    target = " ".join(str(ref.ref_target or "").split()).strip("[]() ")
    if re.fullmatch(r"\d{1,3}|\S+ (?:19|20)\d\d[a-z]?", target):
        return target
    for text in (f"[{target}]", target, ref.raw_text):
        found = find_citations(text) or find_citations(f"({text})")
        if found:
            return str(found[0][0].ref_target)
    return None


def _first_author(entry: str, name: str) -> bool:
    """Whether ``name`` is the first author of a reference-list ``entry``: it is among the words
    before the first comma or "and" ("James Thorne, Andreas Vlachos, ..." is Thorne's, not
    Vlachos's; "Vaswani, A., ..." is Vaswani's; "OGC of Harvard. 2016. ..." is Harvard's)."""
    head = re.split(r",|\band\b|&", entry[:60], maxsplit=1)[0]
    return name.casefold() in (w.casefold() for w in re.findall(r"[^\W\d_][\w'\u2019\-]*", head))
