"""Page ranking: FTS5 bm25 over pages merged with TOC-title matches; top-k pages."""

from __future__ import annotations

import math
import re
import sqlite3

from pydantic import BaseModel, Field

from docintel.retrieval.index import connect, is_current, update_index
from docintel.schemas.questions import ParsedQuestion
from docintel.store.store import Store
from docintel.text import defining, money_amounts

TOC_WEIGHT = 1.0
"""Weight of the TOC-title signal: the share of the question's idf mass a section title holds,
added to the section's first page (half on its other pages)."""
DOC_HINT_WEIGHT = 0.1
ABSENT_WORD_WEIGHT = 1.5
"""Sentence weight of a question word the answer's document never uses, relative to its
rarest used word (:func:`doc_idf`)."""
SMALL_DOC_PAGES = 3
"""A document of this many pages or fewer has no page counts to weigh its words by: they weigh
as across the corpus (:func:`doc_idf`)."""
CANDIDATES = 200


class PageHit(BaseModel):
    """One ranked page."""

    doc_id: str
    page_num: int
    page_label: str
    score: float = Field(description="Merged score (higher is better).")
    bm25: float = Field(0.0, description="Normalised page bm25 (0-1).")
    toc: float = Field(0.0, description="Normalised TOC-title match of the page's section (0-1).")
    toc_title: str | None = None
    methods: str = ""
    hint: float = Field(0.0, description="Share of the question's document-naming words its document's name or title holds.")
    bracket: float = Field(0.0, description="1 when a row of a bracket table on the page holds an amount the question names.")
    defines: float = Field(0.0, description="1 when the page defines the term a definition question asks about.")


def fts_query(parsed: ParsedQuestion) -> str:
    """An FTS5 MATCH expression: any keyword, plus each two-word term as a phrase (longer runs
    of question words are rarely real terms and would count the same words again)."""
    parts: list[str] = []
    for t in parsed.keywords + [t for t in parsed.terms if len(t.split()) == 2]:
        words = re.findall(r"[^\W_]+", t)
        if not words:
            continue
        q = '"' + " ".join(words) + '"'
        if q not in parts:
            parts.append(q)
    return " OR ".join(parts)


def ensure_index(store: Store, doc_ids: list[str]) -> None:
    """Index documents a reader needs that were stored without an index update."""
    if not is_current(store, doc_ids):
        try:
            update_index(store)
        except (sqlite3.Error, OSError) as e:  # a read-only store: search what is indexed
            import logging

            logging.getLogger("docintel.retrieval").warning(
                "page index of %s could not be brought up to date (%s); searching the existing index", store.root, e
            )


def search_pages(store: Store, parsed: ParsedQuestion, doc_ids: list[str], top_k: int = 1) -> list[PageHit]:
    """Top ``top_k`` pages of ``doc_ids`` for the question, best first."""
    return rank_pages(store, parsed, doc_ids, top_k)[0]


def rank_pages(
    store: Store, parsed: ParsedQuestion, doc_ids: list[str], top_k: int = 1
) -> tuple[list[PageHit], dict[str, float]]:
    """(top pages, corpus idf of each question keyword)."""
    query = fts_query(parsed)
    conn = connect(store)
    if conn is None:
        from docintel.errors import DocintelError

        raise DocintelError(
            f"store {store.root} has no page index and it could not be built here; "
            "run `docintel ingest` on it once with write access (it builds <store>/index/)"
        )
    if not query:
        conn.close()
        return [], {}
    try:
        idf = _idf(conn, parsed)
        return _search(conn, query, parsed, doc_ids, top_k, idf), idf
    finally:
        conn.close()


def _search(
    conn: sqlite3.Connection, query: str, parsed: ParsedQuestion, doc_ids: list[str], top_k: int, idf: dict[str, float]
) -> list[PageHit]:
    scope = sorted(set(doc_ids))
    marks = ",".join("?" * len(scope))
    rows = conn.execute(
        f"SELECT p.doc_id, p.page_num, bm25(page_fts) AS s, p.text_hash, p.page_label, p.methods "
        f"FROM page_fts JOIN pages p ON p.fts_rowid = page_fts.rowid WHERE page_fts MATCH ? "
        f"AND page_fts.doc_id IN ({marks}) ORDER BY s LIMIT {CANDIDATES}",
        [query, *scope],
    ).fetchall()
    pages: dict[tuple[str, int], dict] = {}
    meta: dict[tuple[str, int], tuple[str, str]] = {}
    best = max((-r[2] for r in rows), default=0.0) or 1.0
    seen: dict[str, tuple[str, int]] = {}  # text hash -> the page kept
    for d, p, s, h, label, methods in rows:
        if h in seen:
            continue  # the same page text in another copy or version of a document: keep one
        seen[h] = (d, int(p))
        pages[(d, int(p))] = {"bm25": max(0.0, -s) / best, "toc": 0.0, "toc_title": None}
        meta[(d, int(p))] = (label or str(p), methods or "")
    toc_rows = conn.execute(
        f"SELECT doc_id, title, page_start, page_end, bm25(toc_fts) AS s FROM toc_fts WHERE toc_fts MATCH ? "
        f"AND doc_id IN ({marks}) ORDER BY s LIMIT 20",
        [query, *scope],
    ).fetchall()
    total = sum(idf.values()) or 1.0
    for d, title, start, end, s in toc_rows:
        val = _title_idf(title, idf) / total
        # the section's first page carries its title; later pages get a little less
        for k, p in enumerate(range(int(start), int(end) + 1)):
            key = (d, p)
            if key not in pages:
                continue
            v = val if k == 0 else val * 0.5
            if v > pages[key]["toc"]:
                pages[key]["toc"] = v
                pages[key]["toc_title"] = title
    # pages found by what they hold rather than by their words: candidates even below the bm25 cut
    for flag, found in (("bracket", _bracketing_pages(conn, query, parsed, scope, best)),
                        ("defines", _defining_pages(conn, query, parsed, scope, best, seen))):
        for key, v in found.items():
            pages.setdefault(key, {"bm25": v, "toc": 0.0, "toc_title": None})[flag] = 1.0
            meta.setdefault(key, tuple(conn.execute("SELECT page_label, methods FROM pages WHERE doc_id=? AND page_num=?",
                                                    key).fetchone() or (str(key[1]), "")))
    hints = _doc_hint_scores(conn, parsed, scope)
    if not pages:
        return []
    keys = list(pages)
    hits = []
    for key in keys:
        v = pages[key]
        label, methods = meta.get(key, (str(key[1]), ""))
        score = v["bm25"] + TOC_WEIGHT * v["toc"] + DOC_HINT_WEIGHT * hints.get(key[0], 0.0)
        hits.append(
            PageHit(doc_id=key[0], page_num=key[1], page_label=label, score=round(score, 6),
                    bm25=round(v["bm25"], 6), toc=round(v["toc"], 6), toc_title=v["toc_title"], methods=methods,
                    hint=round(hints.get(key[0], 0.0), 6), bracket=v.get("bracket", 0.0), defines=v.get("defines", 0.0))
        )
    hits.sort(key=lambda h: (-h.score, h.doc_id, h.page_num))
    # a page whose bracket row holds the question's amount stays a candidate: every page of a
    # tax table shares its words, and the row that answers is on one of them
    # ... and so does a page defining the term a definition question asks about: a glossary
    # names it once among a hundred other terms
    return (hits[: max(top_k, 1)] + [h for h in hits[max(top_k, 1):] if h.bracket or h.defines]) if top_k else hits


def _bracketing_pages(
    conn: sqlite3.Connection, query: str, parsed: ParsedQuestion, scope: list[str], best: float
) -> dict[tuple[str, int], float]:
    """(doc_id, page) -> normalised bm25 of the pages whose bracket rows hold an amount the
    question names, among those that match its words. Such a page need not be among the bm25
    candidates: on a long tax table, the first page, with its title and worked example, and
    the pages before and after the one asked share the same words."""
    amounts = money_amounts(parsed.text)
    if not amounts:
        return {}
    marks = ",".join("?" * len(scope))
    keys: set[tuple[str, int]] = set()
    try:
        for x in amounts:
            keys |= {(d, int(p)) for d, p in conn.execute(
                f"SELECT DISTINCT doc_id, page_num FROM brackets WHERE lo <= ? AND ? < hi AND doc_id IN ({marks})",
                [x, x, *scope])}
    except sqlite3.OperationalError:  # an index built before bracket rows, read where it cannot be rebuilt
        return {}
    return _scored(conn, query, keys, best)


def bracket_page_from(store: Store, doc_id: str, page: int, amounts: tuple[float, ...]) -> int | None:
    """The page whose bracket row holds one of ``amounts``, of the bracket table that starts on
    ``page`` and runs on over the pages after it ("use the Tax Table that begins on page 34": the
    1040NR instructions' Tax Table runs to page 45, and the "71,400 | 71,450" row is on page 42);
    None when ``page``'s own rows hold one, or it holds no bracket rows, or no page of the run
    does."""
    conn = connect(store) if amounts else None
    if conn is None:
        return None
    try:
        rows = conn.execute("SELECT page_num, lo, hi FROM brackets WHERE doc_id = ? AND page_num >= ? ORDER BY page_num",
                            [doc_id, page]).fetchall()
    except sqlite3.OperationalError:  # an index built before bracket rows
        return None
    finally:
        conn.close()
    ranges: dict[int, list[tuple[float, float]]] = {}
    for p, lo, hi in rows:
        ranges.setdefault(int(p), []).append((lo, hi))
    at = page
    while at in ranges:  # the table's pages, one after the other
        if any(lo <= x < hi for lo, hi in ranges[at] for x in amounts):
            return at if at != page else None
        at += 1
    return None


def _scored(conn: sqlite3.Connection, query: str, keys: set[tuple[str, int]], best: float) -> dict[tuple[str, int], float]:
    """(doc_id, page) -> normalised bm25 under ``query`` of the pages ``keys`` that match it."""
    out = {}
    for d, p in sorted(keys):
        row = conn.execute(
            "SELECT bm25(page_fts) FROM page_fts JOIN pages p ON p.fts_rowid = page_fts.rowid "
            "WHERE page_fts MATCH ? AND p.doc_id = ? AND p.page_num = ?", [query, d, p]).fetchone()
        if row is not None:
            out[(d, p)] = max(0.0, -row[0]) / best
    return out


DEFINING_PAGES = 100
"""Pages holding a definition question's term that are checked for its definition."""


def _defining_pages(
    conn: sqlite3.Connection, query: str, parsed: ParsedQuestion, scope: list[str], best: float,
    seen: dict[str, tuple[str, int]],
) -> dict[tuple[str, int], float]:
    """(doc_id, page) -> normalised bm25 of the pages that define the term a definition
    question asks about (:func:`docintel.text.defining`: a glossary entry, "X means ..."), among
    the pages holding it. "What does purge mean in SP 800-88?": its glossary names "Purge" once,
    and the pages of its sanitization tables name it a hundred times. ``seen``: text hash -> the
    page kept of the copies of a page text (filled in here too): one copy is a candidate."""
    words = re.findall(r"[^\W_]+", parsed.defines or "")
    if not words:
        return {}
    marks = ",".join("?" * len(scope))
    rows = conn.execute(
        f"SELECT p.doc_id, p.page_num, p.text_hash, page_fts.body FROM page_fts JOIN pages p ON p.fts_rowid = page_fts.rowid "
        f"WHERE page_fts MATCH ? AND page_fts.doc_id IN ({marks}) ORDER BY bm25(page_fts) LIMIT {DEFINING_PAGES}",
        ['"' + " ".join(words) + '"', *scope]).fetchall()
    keys = {seen.setdefault(h, (d, int(p))) for d, p, h, body in rows if defining(body or "", parsed.defines)}
    return _scored(conn, query, keys, best)


def _idf(conn: sqlite3.Connection, parsed: ParsedQuestion) -> dict[str, float]:
    """Corpus idf of each question keyword (how rare it is across indexed pages)."""
    n = conn.execute("SELECT count(*) FROM pages").fetchone()[0] or 1
    out = {}
    for k in parsed.keywords:
        words = re.findall(r"[^\W_]+", k)
        if not words:
            continue
        df = conn.execute("SELECT count(*) FROM page_fts WHERE page_fts MATCH ?", ['"' + " ".join(words) + '"']).fetchone()[0]
        out[k] = math.log((n + 1) / (df + 0.5))
    return out


def doc_idf(store: Store, parsed: ParsedQuestion, doc_id: str) -> tuple[dict[str, float], list[str]]:
    """Idf of each keyword among the pages of one document: a word on every page of it (its
    name, "Acme", "information system") says little about which of its sentences answers. And
    the keywords the document never uses. A short document's page counts say nothing (on a
    two-page notice, a word on one page weighed 3.8 times one on both): up to SMALL_DOC_PAGES
    pages, a word it uses is weighed by its pages across the whole index."""
    conn = connect(store)
    if conn is None:
        return {}, []
    try:
        n = conn.execute("SELECT count(*) FROM pages WHERE doc_id=?", (doc_id,)).fetchone()[0] or 1
        everywhere = n <= SMALL_DOC_PAGES
        if everywhere:
            n = conn.execute("SELECT count(*) FROM pages").fetchone()[0] or 1

        def df_of(words: list[str], in_doc: bool) -> int:
            where = " AND doc_id=?" if in_doc else ""
            return conn.execute(f"SELECT count(*) FROM page_fts WHERE page_fts MATCH ?{where}",
                                ['"' + " ".join(words) + '"'] + ([doc_id] if in_doc else [])).fetchone()[0]

        # the index holds "1040NR" as one token, the question's keywords split it ("1040", "nr")
        # and so do the sentences an answer is chosen from: "nr" is wherever "1040NR" is
        compounds = {c.lower() for c in re.findall(r"[^\W_]+", parsed.text)
                     if re.search(r"\d", c) and re.search(r"[^\W\d_]", c)}
        compound_df: dict[tuple[str, bool], int] = {}

        def pages_with(k: str, words: list[str], in_doc: bool) -> int:
            df = df_of(words, in_doc)
            for c in compounds:
                if c != k and k in re.findall(r"[^\W\d_]+|\d+", c):
                    if (c, in_doc) not in compound_df:  # "1040" and "nr" both look "1040nr" up
                        compound_df[(c, in_doc)] = df_of([c], in_doc)
                    df = max(df, compound_df[(c, in_doc)])
            return df

        out: dict[str, float | None] = {}
        for k in parsed.keywords:
            words = re.findall(r"[^\W_]+", k)
            if not words:
                continue
            df = pages_with(k, words, in_doc=True)
            if df and everywhere:
                df = pages_with(k, words, in_doc=False)
            out[k] = math.log((n + 1) / (df + 0.5)) if df else None
        # a word the document never uses weighs a half more than its rarest used word: it may be
        # a vocabulary mismatch ("paid" / "payable"), but it is also a sign the answer is not
        # there ("the capital of France" must not be answered by "the capital letter O")
        cap = max((v for v in out.values() if v is not None), default=1.0)
        weights = {k: (ABSENT_WORD_WEIGHT * cap if v is None else v) for k, v in out.items()}
        return weights, [k for k, v in out.items() if v is None]
    finally:
        conn.close()


def _title_idf(title: str, idf: dict[str, float]) -> float:
    """Sum of the idf of question keywords the title holds (prefix match stands in for stemming)."""
    words = {w.lower()[:6] for w in re.findall(r"[A-Za-z0-9]+", title)}
    return sum(v for k, v in idf.items() if k[:6] in words)


def _doc_hint_scores(conn: sqlite3.Connection, parsed: ParsedQuestion, scope: list[str]) -> dict[str, float]:
    if not parsed.doc_hints:
        return {}
    out = {}
    for d, name, title in conn.execute("SELECT doc_id, file_name, title FROM docs"):
        if d not in scope:
            continue
        hay = f"{name or ''} {title or ''}".lower()
        n = sum(1 for h in parsed.doc_hints if h in hay)
        if n:
            out[d] = n / len(parsed.doc_hints)
    return out
