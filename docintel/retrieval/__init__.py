"""Retrieval: the persistent page index, page ranking, and region fetch.

- :func:`retrieve` ranks pages (FTS5 bm25 merged with TOC-title matches), re-ranks the best
  candidates by their best sentence window and that window's section title, and returns the
  top-k pages as primary :class:`Passage` records (the answer-bearing line span of each page).
- :func:`fetch_target` returns the lines a resolved pointer designates, as a reference passage
  tagged with where it came from.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from docintel.retrieval.index import ranked_toc
from docintel.schemas.answers import RefType, RetrievedVia
from docintel.schemas.generation import Passage, PassageLine
from docintel.schemas.questions import ParsedQuestion
from docintel.schemas.references import TargetRegion
from docintel.store.store import Store
from docintel.store.values import as_float as _num
from docintel.store.values import as_int as _int
from docintel.text import holds, money_amounts, stem, stems

if TYPE_CHECKING:
    import pandas as pd

RERANK_POOL = 10
"""Candidate pages re-ranked by their best sentence window. Ten, not eight: SP 800-63B's AAL2
page ("... the performance requirements stated in Section 5.2.3 SHALL be met"), the way in to
the biometric requirements, sat ninth by bm25 once the rows of Table 8-2 were escalated (a small
shift in the page statistics), out of the pool and so out of reach as a way in."""
POOL_FLOOR = 0.45
"""A candidate whose normalised bm25 is below this cannot overtake (window + title add < 1)."""
EXTREME_TABLE = 0.25
"""Added to a page holding a table whose column the question's superlative names ("Which
dataset has the longest summaries?" and a "|summary| (words)" column): the answer is read off
that table's rows. LONGEVAL's Table 1 page ranked eighth (0.42 against the introduction's 0.58)
among pages that all say "summarization" and "dataset"."""
DEFINES = 1.5
"""Added to a page that defines the term a definition question asks about (a glossary entry,
"X means ..."): "What does purge mean in SP 800-88?" ranked first the section "When Not To Use CE
To Purge Media", whose words it shares. It outweighs a section title holding the whole question
(up to 1): "What is cryptographic erase?" ranked first Appendix D, "Example Statement of
Cryptographic Erase Features", above the glossary's "Cryptographic Erase: A method of ..."."""


class Candidate(BaseModel):
    """A ranked page with the parts of its score (for the trace)."""

    doc_id: str
    page_num: int
    page_label: str
    score: float
    bm25: float
    window: float = Field(0.0, description="Share of the question's idf mass in the best 3-sentence window.")
    sentence: float = Field(0.0, description="Share of the question's idf mass in the best single sentence.")
    section: str | None = Field(None, description="Title of the section holding that window.")
    section_match: float = Field(0.0, description="Share of the question's idf mass in that title.")
    bracket: float = Field(0.0, description="1 when a row of a bracket table on the page holds an amount the question names.")
    defines: float = Field(0.0, description="1 when the page defines the term a definition question asks about.")
    line_start: int | None = None
    line_end: int | None = None


def retrieve(
    store: Store, parsed: ParsedQuestion, doc_ids: list[str], top_k: int = 1,
    loaded: dict[str, pd.DataFrame] | None = None,
) -> tuple[list[Passage], list[Candidate], dict[str, float], list[str]]:
    """Top-k primary passages, the scored candidates, the idf of each keyword among the pages
    of the best page's document (weights for choosing sentences), and the keywords that
    document never uses. ``loaded``, when given, is filled with the page lines read (doc_id ->
    :func:`page_lines` of its candidate pages), for :func:`candidate_passages` to reuse."""
    from docintel.retrieval.region import answer_span, extreme_tables
    from docintel.retrieval.search import ensure_index, rank_pages

    ensure_index(store, doc_ids)
    hits, idf = rank_pages(store, parsed, doc_ids, top_k=max(RERANK_POOL, top_k))
    if not hits:
        return [], [], idf, []
    total = sum(idf.values()) or 1.0
    # "What does Table 1 in FIPS 199 say?": a document the question names in full is where to look
    named = [h for h in hits if h.hint >= 1.0]
    if named:
        hits = named
    # re-rank only pages that could still win: bm25 within reach of the best one
    hits = [h for i, h in enumerate(hits) if i < top_k or h.bm25 + h.toc * 0.5 >= POOL_FLOOR or h.defines]
    by_doc: dict[str, list[int]] = {}
    for h in hits:
        by_doc.setdefault(h.doc_id, []).append(h.page_num)
    lines = {d: page_lines(store, d, pages) for d, pages in by_doc.items()}
    if loaded is not None:
        loaded.update(lines)
    tocs = {d: _toc(store, d) for d in by_doc}
    tables: dict[tuple, pd.DataFrame] = {}  # what _group_of has read, for the next candidate
    cands: list[Candidate] = []
    for h in hits:
        page = lines[h.doc_id]
        page = page[page["page_num"] == h.page_num]
        if page.empty:
            continue
        span = answer_span(page, parsed, idf)
        cov, lo, hi, centre = span
        title = _section_of(tocs[h.doc_id], h.page_num, page, centre)
        match = _title_share(title, idf) / total if title else 0.0
        group = _group_of(store, h.doc_id, page, lo, tables)
        if group:  # a table row's group label is its innermost heading
            match = max(match, _title_share(group, idf) / total)
        extreme = EXTREME_TABLE if extreme_tables(page, parsed.asked or parsed.text) else 0.0
        score = 0.5 * h.bm25 + 0.5 * cov + match + extreme + DEFINES * h.defines
        cands.append(
            Candidate(doc_id=h.doc_id, page_num=h.page_num, page_label=h.page_label, score=round(score, 6),
                      bm25=h.bm25, window=round(cov, 6), sentence=round(span.sentence, 6), section=title, section_match=round(match, 6),
                      bracket=h.bracket, defines=h.defines, line_start=lo, line_end=hi)
        )
    cands.sort(key=lambda c: (-c.score, c.doc_id, c.page_num))
    unused: list[str] = []
    if cands:  # sentence weights inside the answer's document
        from docintel.retrieval.search import doc_idf

        in_doc, unused = doc_idf(store, parsed, cands[0].doc_id)
        if in_doc:
            idf = in_doc
            # the pages read: the top k, and the runner-up the loop may add
            cands = [_span_in_doc(c, lines[c.doc_id], parsed, in_doc) if i <= top_k and c.doc_id == cands[0].doc_id else c
                     for i, c in enumerate(cands)]
    passages = candidate_passages(store, cands[:top_k], lines, asked=parsed.asked or parsed.text)
    return passages, cands, idf, unused


def _span_in_doc(cand: Candidate, lines: pd.DataFrame, parsed: ParsedQuestion, idf: dict[str, float]) -> Candidate:
    """``cand`` with the line span handed to the generator chosen by the keywords' weight inside
    its own document: on a long page of the 737 MAX AD, "737" and "MAX" (on every page) must not
    pull the span to the first lines that name the airplane, away from the paragraph asked about."""
    from docintel.retrieval.region import answer_span

    page = lines[lines["page_num"] == cand.page_num]
    if page.empty:
        return cand
    span = answer_span(page, parsed, idf)
    first, last = span.first, span.last
    # a question of several asks: the span also takes in each ask's own best window ("How many
    # characters can the account number have, what must the first two digits of the routing
    # number be, and how soon ...?": the account number's line lay 50 lines below the window
    # the three asks' words chose together). An ask holds a keyword as the stems read both, so a
    # number ("1,000") or a possessive ("user's") in the ask is one of its keywords
    for ask in parsed.asks if len(parsed.asks) > 1 else []:
        have = stems(ask)
        keywords = [k for k in parsed.keywords if holds(have, stem(k))]
        if keywords:
            part = answer_span(page, parsed.model_copy(update={"keywords": keywords, "asked": ask, "asks": [ask]}), idf)
            first, last = min(first, part.first), max(last, part.last)
    return cand.model_copy(update={"line_start": first, "line_end": last})


def candidate_passages(
    store: Store, cands: list[Candidate], loaded: dict[str, pd.DataFrame] | None = None, first: int = 1,
    asked: str = "",
) -> list[Passage]:
    """Primary passages P<first>, P<first+1>, ... for ranked candidates: each one's answer span
    (``line_start``-``line_end``), with the lines a page break cut (P<k>a / P<k>z).
    ``loaded``: doc_id -> page lines already read (page_lines); others are read here. ``asked``:
    the question, whose superlative may name a table's column (the whole table is then taken)."""
    from docintel.retrieval.region import span_rows, tabulate_runs, to_passage_lines, with_extreme_table

    loaded = dict(loaded or {})
    for d in {c.doc_id for c in cands} - set(loaded):
        loaded[d] = page_lines(store, d, [c.page_num for c in cands if c.doc_id == d])
    names = _file_names(store)
    passages = []
    for i, c in enumerate(cands, start=first):
        page = loaded[c.doc_id]
        page = page[page["page_num"] == c.page_num]
        if page.empty:
            page = page_lines(store, c.doc_id, [c.page_num])
        lo, hi = c.line_start, c.line_end
        plines = to_passage_lines(with_extreme_table(tabulate_runs(span_rows(page, lo, hi)), page, asked))
        passages.append(
            Passage(
                passage_id=f"P{i}", doc_id=c.doc_id, doc=names.get(c.doc_id, c.doc_id), page=c.page_num,
                page_label=c.page_label, line_start=lo, line_end=hi, parsing_method=_methods(plines),
                retrieved_via=RetrievedVia.primary, score=c.score, lines=plines,
            )
        )
    return _across_page_breaks(store, passages, names, loaded)


def _across_page_breaks(
    store: Store, passages: list[Passage], names: dict[str, str], loaded: dict[str, pd.DataFrame]
) -> list[Passage]:
    """Each primary passage with the rest of a sentence a page break cut: when its page opens
    mid-sentence, the paragraph that sentence starts on the page before ("... notionally
    illustrated in Appendix B ... from informal, ad hoc responses to approaches that are agile,
    risk-informed, and" | "continuously improving."); when it ends mid-sentence, the lines that
    finish it on the next page. Neighbour pages already retrieved are not read twice.
    ``loaded``: doc_id -> the candidate pages' lines retrieval already read (page_lines)."""
    from docintel.retrieval.region import (
        ends_mid_sentence,
        head_sentence,
        opens_mid_sentence,
        tail_paragraph,
        to_passage_lines,
    )

    def lines_of(doc_id: str, page_num: int):
        have_lines = loaded.get(doc_id)
        if have_lines is not None and (have_lines["page_num"] == page_num).any():
            return have_lines[have_lines["page_num"] == page_num]
        return page_lines(store, doc_id, [page_num])

    have = {(p.doc_id, p.page) for p in passages}
    out: list[Passage] = []
    for p in passages:
        nums = [ln.line_num for ln in p.lines]
        page = lines_of(p.doc_id, p.page)
        before: Passage | None = None
        after: Passage | None = None
        for step, edge, part, suffix in ((-1, opens_mid_sentence, tail_paragraph, "a"), (1, ends_mid_sentence, head_sentence, "z")):
            line = edge(page)
            other = p.page + step
            if line is None or line not in nums or other < 1 or (p.doc_id, other) in have:
                continue
            near = lines_of(p.doc_id, other)
            rows = part(near)
            if rows.empty:
                continue
            have.add((p.doc_id, other))
            plines = to_passage_lines(rows.sort_values("line_num"))
            got = [ln.line_num for ln in plines]
            where = "starts on" if step < 0 else "ends on"
            extra = Passage(
                passage_id=f"{p.passage_id}{suffix}", doc_id=p.doc_id, doc=names.get(p.doc_id, p.doc_id), page=other,
                page_label=_page_label(store, p.doc_id, other), line_start=min(got), line_end=max(got),
                parsing_method=_methods(plines), retrieved_via=RetrievedVia.primary, score=p.score, lines=plines,
                note=f"the sentence at page {p.page} line {line} {where} page {other}",
            )
            if step < 0:
                before = extra
            else:
                after = extra
        out.extend(x for x in (before, p, after) if x is not None)
    return out


OCR_NOISE_CONFIDENCE = 30.0
"""A page OCR's line whose words Tesseract trusts less than this (mean word confidence, 0-100)
is noise read from a picture ("RCT RRA TRF RA CRETE SILOS ..." under a scanned article's
photo, 17.9), not text: passages leave it out. On the four shared scans, lines of prose (25
characters or more) score 68-97; one noise line of the ingest OCR (31.8) still gets through."""


def page_lines(store: Store, doc_id: str, pages: list[int]) -> pd.DataFrame:
    """The best-parse lines of ``pages`` without running headers and footers, footnotes marked
    (:func:`docintel.retrieval.region.drop_margins`), and without a page OCR's noise lines
    (OCR_NOISE_CONFIDENCE; a figure's OCR labels are kept), each marked with how its type sets
    it (``set_as``, :func:`docintel.retrieval.region.mark_type`): what every passage is cut from."""
    from docintel.retrieval.region import drop_margins, mark_type
    from docintel.store.view import BASELINE_METHODS, best_lines

    wanted = sorted({int(p) for p in pages})
    # the pages two either side show which lines of the margin band every page repeats (odd
    # and even pages may carry different running heads); their first parse's lines suffice
    around = sorted({q for p in wanted for q in range(p - 2, p + 3) if q >= 1} - set(wanted))
    heights = _heights(store, doc_id, wanted + around)
    nearby = store.read_table("line_df", [doc_id], columns=["page_num", "text", "kind", "y0", "y1", "parsing_method"],
                              filters=[("page_num", "in", around)]) if around else None
    if nearby is not None and not nearby.empty:
        nearby = nearby[nearby["parsing_method"].isin(BASELINE_METHODS)]
        nearby = nearby.assign(height=nearby["page_num"].map(heights))
    lines = best_lines(store, doc_id, wanted)
    if "confidence" in lines and "in_base" in lines:
        noise = (lines["confidence"] < OCR_NOISE_CONFIDENCE) & lines["in_base"].fillna(True).astype(bool)
        lines = lines[~noise.fillna(False).to_numpy()]
    return mark_type(drop_margins(lines, {p: h for p, h in heights.items() if p in wanted}, nearby=nearby))


def _heights(store: Store, doc_id: str, pages: list[int]) -> dict[int, float]:
    df = store.read_table("page_df", [doc_id], filters=[("page_num", "in", sorted(set(pages)))], columns=["page_num", "height"])
    out: dict[int, float] = {}
    for p, h in zip(df["page_num"], df["height"]):
        if h is not None and h == h and h > 0:
            out[int(p)] = float(h)
    return out


def _methods(lines: list[PassageLine]) -> str:
    seen: list[str] = []
    for line in lines:
        if line.parsing_method and line.parsing_method not in seen:
            seen.append(line.parsing_method)
    return "+".join(seen) or "pymupdf"


def _file_names(store: Store) -> dict[str, str]:
    return {d: e.get("file_name") or d for d, e in store.manifest()["documents"].items()}


def _toc(store: Store, doc_id: str):
    return ranked_toc(store.read_table("toc_df", [doc_id]))


def _section_of(toc, page_num: int, page, line_num: int | None) -> str | None:
    """Title of the innermost section whose heading precedes (page_num, line_num)."""
    if toc is None or toc.empty:
        return None
    y = None
    if line_num is not None:
        hit = page[page["line_num"] == line_num]
        if not hit.empty:
            y = float(hit["y0"].iloc[0])
    best = None
    for r in toc.sort_values("toc_order" if "toc_order" in toc else "page_start").itertuples(index=False):
        ps = _int(r.page_start)
        if ps is None or ps > page_num:
            continue
        if ps == page_num and y is not None:
            hy = _num(getattr(r, "y0", None))
            if hy is not None and hy > y:
                continue
        key = (ps, _num(getattr(r, "y0", None)) or 0.0, _int(r.level) or 0)
        if best is None or key >= best[0]:
            best = (key, r.title)
    return best[1] if best else None


def _group_of(store: Store, doc_id: str, page: pd.DataFrame, line_num: int | None,
              read: dict[tuple, pd.DataFrame]) -> str | None:
    """The group label over the table row ``line_num`` of ``page`` (its lines), looked for on
    this page and, when none is above the row there, on the page before, where a table running
    on may have set it (:func:`docintel.retrieval.region.group_label`); the keys that recur are
    those of the whole table, over all its pages. ``read`` keeps each table's rows read from the
    store for the next call."""
    import pandas as pd

    from docintel.retrieval.region import group_label

    if line_num is None or "object_key" not in page or page.empty:
        return None
    page_num = int(page["page_num"].iloc[0])
    hit = page[page["line_num"] == line_num]
    if hit.empty or hit["kind"].iloc[0] != "table_row" or not isinstance(hit["object_key"].iloc[0], str):
        return None
    key = hit["object_key"].iloc[0]
    rows = page[(page["object_key"] == key) & (page["kind"] == "table_row")]
    if (doc_id, key) not in read:
        read[(doc_id, key)] = store.read_table(
            "line_df", [doc_id], filters=[("object_key", "=", key)],
            columns=["page_num", "line_num", "text", "row_key", "x0", "kind", "parsing_method"])
    table = read[(doc_id, key)]
    table = table[(table["parsing_method"] == rows["parsing_method"].iloc[-1]) & (table["kind"] == "table_row")]
    label = group_label(rows.sort_values("line_num").reset_index(drop=True), line_num, table["row_key"])
    if label is not None or page_num <= 1:
        return label
    rows = pd.concat([table[table["page_num"] == page_num - 1], rows])
    return group_label(rows.sort_values(["page_num", "line_num"]).reset_index(drop=True), line_num, table["row_key"])


def _title_share(title: str, idf: dict[str, float]) -> float:
    words = {stem(w) for w in re.findall(r"[A-Za-z0-9]+", title or "")}
    return sum(v for k, v in idf.items() if stem(k) in words)




# -- reference targets -------------------------------------------------------------------------


MAX_SECTION_PAGES = 3
"""A section target is read over at most this many pages."""


def fetch_target(
    store: Store, region: TargetRegion, passage_id: str,
    next_section: tuple[int, float] | tuple[int, float, int] | None = None, parsed: ParsedQuestion | None = None,
) -> list[Passage]:
    """The lines ``region`` designates, as reference passages (one per page; a section or a table
    may run over several pages) tagged with their provenance. A part longer than MAX_SECTION_PAGES
    is read on its first page and, given the question (``parsed``, with its weights), on the
    later pages that match it best ("Section 2" of SP 800-61 runs 18 pages; law enforcement is
    on its fifteenth); without it, on the pages that follow."""
    runs_on = None
    if parsed is not None and region.ref_type == RefType.page and region.page_start == region.page_end:
        from docintel.retrieval.search import bracket_page_from

        # "use the Tax Table that begins on page 34" for "$71,420": the table's row that holds
        # the amount is on a later page of it
        runs_on = bracket_page_from(store, region.doc_id, region.page_start, money_amounts(parsed.text))
        if runs_on is not None:
            region = region.model_copy(update={"page_start": runs_on, "page_end": runs_on, "y_start": None, "y_end": None,
                                               "line_start": None, "line_end": None, "by_line": False})
            next_section = None
    first, more = _fetch(store, region, passage_id, next_section)
    if runs_on is not None:
        first = first.model_copy(update={"note": f"{first.note}; the table it begins runs on to page {first.page_label}, "
                                                 "whose row holds the question's amount"})
    out = [first]
    if more is not None and not more.empty:
        from docintel.retrieval.region import best_window, to_passage_lines

        names = _file_names(store)
        pages = sorted(more["page_num"].unique())
        if parsed is not None and parsed.weights and len(pages) >= MAX_SECTION_PAGES:
            cover = {p: best_window(more[more["page_num"] == p], parsed, parsed.weights).coverage for p in pages}
            pages = sorted(sorted(pages, key=lambda p: (-cover[p], p))[: MAX_SECTION_PAGES - 1])
        for k, (page_num, g) in enumerate(more[more["page_num"].isin(pages)].groupby("page_num", sort=True)):
            if k + 1 >= MAX_SECTION_PAGES:
                break
            plines = to_passage_lines(g.sort_values("line_num"))
            if not plines:
                continue
            nums = [p.line_num for p in plines]
            out.append(first.model_copy(update={
                "passage_id": f"{passage_id}.{k + 2}", "page": int(page_num),
                "page_label": _page_label(store, region.doc_id, int(page_num)), "doc": names.get(region.doc_id, region.doc_id),
                "line_start": min(nums), "line_end": max(nums), "parsing_method": _methods(plines), "lines": plines,
                "note": _continued_note(first.note, int(page_num)),
            }))
    return out


def _continued_note(note: str | None, page_num: int) -> str:
    """The note of a later page of a target: the first page's, but for how the first page's
    rows were read. A later page's rows are escalation's table rows (or a section's lines),
    never rebuilt from flat lines: Table A-4 of SP 800-88 is captioned at the foot of a flat
    page, and its Clear/Purge rows on the next page are the table parse's."""
    kept = [bit for bit in (note or "").split("; ") if bit and "rebuilt from flat baseline lines" not in bit]
    return "; ".join([*kept, f"continued on page {page_num}"])


def _fetch(
    store: Store, region: TargetRegion, passage_id: str,
    next_section: tuple[int, float] | tuple[int, float, int] | None = None
):
    """(first page's passage, the target's lines on later pages or None)."""
    from docintel.retrieval.region import (
        header_rows,
        rebuild_row,
        rebuild_table,
        section_lines,
        selected_rows,
        subject_lines,
        table_lines,
        tabulate_runs,
        to_passage_lines,
    )

    pages = list(range(region.page_start, region.page_end + 1))
    lines = page_lines(store, region.doc_id, pages)
    note_bits = []
    plines: list[PassageLine] = []
    more = None
    if region.ref_type in (RefType.table,) and not lines.empty:
        page = lines[lines["page_num"] == region.page_start]
        table, how = table_lines(page, region)
        later = _continued_rows(lines, region)
        if region.sub_selector:
            if how == "table_rows":
                hit, first = selected_rows(table, region.sub_selector)
                if not later.empty and (hit.empty or region.sub_selector == "last"):
                    # the row (or "the bottom line") may be on a page the table runs on to
                    more = selected_rows(later, region.sub_selector)[0]
                    hit = hit if more.empty else hit.iloc[0:0]
                plines = [p.model_copy(update={"kind": "header"}) for p in to_passage_lines(header_rows(table))]
                plines += to_passage_lines(hit)
                if not first.empty:
                    plines += [p.model_copy(update={"kind": "table_row", "row_key": "first row"}) for p in to_passage_lines(first)]
                if hit.empty and (more is None or more.empty):
                    note_bits.append(f"row ({region.sub_selector}) not found among the table's rows")
            else:
                header, rows, note = rebuild_row(table, region.sub_selector)
                plines = header + rows
                note_bits.append(note)
        elif how == "flat":
            header, rows = rebuild_table(table)
            plines = header + rows if rows else to_passage_lines(table)
            note_bits.append("rows rebuilt from flat baseline lines by vertical position (no table structure parse)")
        else:
            plines = to_passage_lines(table)
        cap = page[page["line_num"] == region.line_start] if region.line_start is not None else page.iloc[0:0]
        if not cap.empty and how == "flat":
            plines = to_passage_lines(cap) + plines
        if not plines:
            plines = to_passage_lines(page)
        if not region.sub_selector and not later.empty:
            more = later
        if more is not None and not more.empty:
            note_bits.append(f"the table runs to page {int(more['page_num'].max())}")
    elif region.ref_type in (RefType.section, RefType.appendix, RefType.annex, RefType.schedule,
                             RefType.exhibit, RefType.clause, RefType.page) and not lines.empty:
        if region.ref_type != RefType.page:
            sel = section_lines(lines, region, next_section)
        else:  # "see Services performed partly inside ... on page 10": from where that part begins
            sel = subject_lines(lines, region.sub_selector) if region.sub_selector else lines
        sel = tabulate_runs(sel)
        first = sel[sel["page_num"] == region.page_start].sort_values("line_num")
        plines = to_passage_lines(first)
        if (sel["page_num"] > region.page_start).any():
            more = sel[sel["page_num"] > region.page_start]
            note_bits.append(f"the section runs to page {int(more['page_num'].max())}")
    elif region.ref_type == RefType.citation and not lines.empty:  # a reference-list entry's lines
        page = lines[lines["page_num"] == region.page_start]
        lo, hi = region.line_start or 0, region.line_end or region.line_start or 0
        plines = to_passage_lines(page[page["line_num"].between(lo, hi)].sort_values("line_num"))
    elif not lines.empty:  # figure, equation, other: the object's lines or the page
        page = lines[lines["page_num"] == region.page_start]
        if region.object_key and "object_key" in page:
            obj = page[page["object_key"] == region.object_key]
            if not obj.empty:
                import pandas as pd

                page = pd.concat([obj, _text_under(page, obj)])
        plines = to_passage_lines(page.sort_values("line_num"))
    nums = [p.line_num for p in plines] or [0]
    origin = region.origin
    where = f" on page {origin.page} line {origin.line}" if origin else " in the question"
    note = f"pulled in because of {region.raw_text!r}{where}"
    if note_bits:
        note += "; " + "; ".join(note_bits)
    names = _file_names(store)
    label = _page_label(store, region.doc_id, region.page_start)
    return Passage(
        passage_id=passage_id, doc_id=region.doc_id, doc=names.get(region.doc_id, region.doc_id),
        page=region.page_start, page_label=label, line_start=min(nums), line_end=max(nums),
        parsing_method=_methods(plines), retrieved_via=RetrievedVia.reference,
        referenced_from=origin, reference_text=region.raw_text, ref_type=region.ref_type,
        sub_selector=region.sub_selector if region.ref_type != RefType.page else None, note=note, lines=plines,
    ), more


def _continued_rows(lines: pd.DataFrame, region: TargetRegion) -> pd.DataFrame:
    """A table's rows on the pages after its caption's that it runs on to (the region's later
    pages): the rows escalation keyed with the table's key, or a further grid region of it."""
    if region.page_end <= region.page_start or not region.object_key or "object_key" not in lines:
        return lines.iloc[0:0]
    keys = lines["object_key"].fillna("").astype(str)
    own = keys.eq(region.object_key) | keys.str.startswith(region.object_key + ".")
    return lines[own & lines["kind"].eq("table_row") & (lines["page_num"] > region.page_start)].sort_values(["page_num", "line_num"])


TEXT_UNDER_LINES = 8
"""Body lines read under a figure: the caption and the paragraph that discusses it."""


def _text_under(page: pd.DataFrame, obj: pd.DataFrame) -> pd.DataFrame:
    """The body lines right below a figure, up to the next heading or TEXT_UNDER_LINES lines:
    its caption and the paragraph explaining it ("... data breaches could lead to identity
    theft. However, privacy risks can also arise by means that are unrelated to cybersecurity
    incidents."), which its labels alone do not say."""
    from docintel.retrieval.region import kinds_of
    from docintel.text import is_heading

    if "y0" not in page or obj.empty:
        return page.iloc[0:0]
    bottom = obj["y1"].astype(float).max()
    below = page[(page["y0"].astype(float) > bottom) & kinds_of(page).eq("text")
                 & ~page.index.isin(obj.index)].sort_values("y0")
    keep, prev = [], ""
    for i, (idx, r) in enumerate(below.iterrows()):
        text = str(r["text"])
        if i >= TEXT_UNDER_LINES or (keep and is_heading(text, prev)):
            break
        keep.append(idx)
        prev = text
    return below.loc[keep]


def _page_label(store: Store, doc_id: str, page_num: int) -> str:
    df = store.read_table("page_df", [doc_id], filters=[("page_num", "=", page_num)], columns=["page_label"])
    for v in df["page_label"]:
        if isinstance(v, str) and v:
            return v
    return str(page_num)


__all__ = ["Candidate", "candidate_passages", "fetch_target", "retrieve"]
