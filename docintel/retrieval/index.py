"""The persistent page index: SQLite FTS5 (bm25) over each page's best parse, plus TOC titles.

``<store>/index/pages.sqlite`` holds:

- ``docs``: doc_id -> signature of the files the index was built from (a changed signature
  means ingest or escalate rewrote the document: its pages are re-checked);
- ``pages``: doc_id, page_num, page_label, parsing methods and a hash of the indexed text, so a
  page is re-indexed only when its best view changed;
- ``page_fts``: the FTS5 table (porter stemming) over page text, table cells with their headers;
- ``toc_fts``: section titles with their page range, for TOC-title matches (:func:`ranked_toc`);
- ``brackets``: the ranges of the rows of bracket tables (a tax table's "25,300 | 25,350"),
  so that a question naming an amount ("my income is $25,320") finds the page whose row holds it.

:func:`update_index` is incremental: new doc_ids are added, removed ones dropped, changed ones
re-checked page by page. Readers never lock: SQLite transactions keep them consistent.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import unicodedata
from pathlib import Path
from typing import Any

from docintel.store.store import Store
from docintel.text import bracket_ranges

INDEX_FILE = "pages.sqlite"
INDEX_VERSION = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS docs(doc_id TEXT PRIMARY KEY, signature TEXT, file_name TEXT, title TEXT);
CREATE TABLE IF NOT EXISTS pages(
    doc_id TEXT, page_num INTEGER, page_label TEXT, methods TEXT, text_hash TEXT, n_chars INTEGER,
    fts_rowid INTEGER, PRIMARY KEY (doc_id, page_num));
CREATE INDEX IF NOT EXISTS pages_rowid ON pages(fts_rowid);
CREATE VIRTUAL TABLE IF NOT EXISTS page_fts USING fts5(
    body, doc_id UNINDEXED, page_num UNINDEXED, tokenize='porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS toc_fts USING fts5(
    title, doc_id UNINDEXED, toc_id UNINDEXED, page_start UNINDEXED, page_end UNINDEXED,
    tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS brackets(doc_id TEXT, page_num INTEGER, lo REAL, hi REAL);
CREATE INDEX IF NOT EXISTS brackets_doc ON brackets(doc_id);
"""


def index_path(store: Store) -> Path:
    return store.index_dir / INDEX_FILE


def connect(store: Store, create: bool = False) -> sqlite3.Connection | None:
    """Open the index (None if it does not exist and ``create`` is False)."""
    path = index_path(store)
    if not path.exists() and not create:
        return None
    if not create and not os.access(path.parent, os.W_OK):
        # a read-only store (ro mount, another user's folder): WAL readers need to create the
        # -shm file beside the index, so read the file as it is instead
        return sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30)
    if create:
        try:
            conn.execute("PRAGMA journal_mode=WAL")  # readers go on while an index update runs
        except sqlite3.DatabaseError:
            pass
        conn.executescript(_SCHEMA)
        if _version(conn) != str(INDEX_VERSION):
            conn.executescript(
                "DELETE FROM docs; DELETE FROM pages; DELETE FROM page_fts; DELETE FROM toc_fts; DELETE FROM brackets;"
            )
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),))
            conn.commit()
    return conn


def _version(conn: sqlite3.Connection) -> str | None:
    """The index format the file was written in (:data:`INDEX_VERSION`), None if unrecorded."""
    row = conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()
    return None if row is None else str(row[0])


def doc_signature(store: Store, doc_id: str, entry: dict[str, Any] | None = None) -> str:
    """Changes whenever ingest or escalate rewrites the tables the index reads."""
    parts = [str((entry or {}).get("sha256")), str((entry or {}).get("ingested_at"))]
    folder = os.path.join(store.docs_dir, doc_id)
    for name in ("line_df", "page_df", "toc_df"):
        try:
            st = os.stat(os.path.join(folder, name + ".parquet"))
            parts.append(f"{name}:{st.st_mtime_ns}:{st.st_size}")
        except FileNotFoundError:
            parts.append(f"{name}:-")
    return hashlib.sha1("|".join(parts).encode()).hexdigest()


UNRANKED_TOC_SOURCES = ("typeset",)
"""TOC rows ranking does not weigh: headings guessed from type alone, in a document that numbers
none. Measured (evaluation.md, thirty-first session): with the 1040NR's 257 such titles ("Line
39\u2014Deduction for exemptions", "Filing for an estate or trust") weighed as section titles, the
read held-out sets gained routes but lost a passing answer, and the blind sets lost two."""


def ranked_toc(toc: Any) -> Any:
    """The rows of a ``toc_df`` whose titles ranking weighs (the TOC-title match, the section a
    page's answer span sits in)."""
    if toc is None or toc.empty or "source" not in toc:
        return toc
    return toc[~toc["source"].isin(UNRANKED_TOC_SOURCES)]


def is_current(store: Store, doc_ids: list[str] | None = None) -> bool:
    """True when every (given) stored document is indexed with its current signature."""
    conn = connect(store)
    if conn is None:
        return False
    try:
        version = _version(conn)
        indexed = dict(conn.execute("SELECT doc_id, signature FROM docs").fetchall())
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()
    if version != str(INDEX_VERSION):  # built by an older docintel: rebuild
        return False
    docs = store.manifest()["documents"]
    wanted = store.doc_ids() if doc_ids is None else doc_ids
    return all(indexed.get(d) == doc_signature(store, d, docs.get(d)) for d in wanted)


def update_index(store: Store) -> dict[str, int]:
    """Bring the index up to date with the store; returns counts of what changed."""
    conn = connect(store, create=True)
    assert conn is not None
    stats = {"docs_added": 0, "docs_removed": 0, "docs_checked": 0, "pages_indexed": 0, "pages_removed": 0}
    try:
        manifest = store.manifest()["documents"]
        current = set(store.doc_ids())
        indexed = dict(conn.execute("SELECT doc_id, signature FROM docs").fetchall())
        for doc_id in sorted(set(indexed) - current):
            with conn:
                stats["pages_removed"] += _drop_doc(conn, doc_id)
            stats["docs_removed"] += 1
        for doc_id in sorted(current):
            entry = manifest.get(doc_id, {})
            sig = doc_signature(store, doc_id, entry)
            if indexed.get(doc_id) == sig:
                continue
            # the write lock first, then re-read: a concurrent ask / ingest may have just indexed it
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute("SELECT signature FROM docs WHERE doc_id=?", (doc_id,)).fetchone()
                if row is not None and row[0] == sig:
                    conn.rollback()
                    continue
                n_new, n_gone = _index_doc(conn, store, doc_id, entry)
                conn.execute(
                    "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?)",
                    (doc_id, sig, entry.get("file_name") or "", entry.get("title") or ""),
                )
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            stats["docs_added" if doc_id not in indexed else "docs_checked"] += 1
            stats["pages_indexed"] += n_new
            stats["pages_removed"] += n_gone
    finally:
        conn.close()
    return stats


def _drop_doc(conn: sqlite3.Connection, doc_id: str) -> int:
    n = conn.execute("SELECT count(*) FROM pages WHERE doc_id=?", (doc_id,)).fetchone()[0]
    conn.execute("DELETE FROM page_fts WHERE rowid IN (SELECT fts_rowid FROM pages WHERE doc_id=?)", (doc_id,))
    conn.execute("DELETE FROM toc_fts WHERE doc_id=?", (doc_id,))
    conn.execute("DELETE FROM brackets WHERE doc_id=?", (doc_id,))
    conn.execute("DELETE FROM pages WHERE doc_id=?", (doc_id,))
    conn.execute("DELETE FROM docs WHERE doc_id=?", (doc_id,))
    return n


_UNCAPTIONED = re.compile(r"^table:p\d+\.\d+")
"""The object key of a table without a caption ("table:p36.1"): found by its grid (a tax table)."""


def page_text(lines) -> str:
    """Indexed text of one page: its lines, plus each table cell as 'header value'. A table
    without a caption (a page of the 1040NR Tax Table: 64 rows of 15 numbers) is indexed by its
    header once and each row's values: its header words on every cell of every row would count
    them about 1,000 times a page, swamping the page's other words and the corpus statistics."""
    parts: list[str] = []
    cells_col = "cells" in lines.columns
    keys = lines["object_key"] if "object_key" in lines.columns else [None] * len(lines)
    rows = lines["row_key"] if "row_key" in lines.columns else [None] * len(lines)
    for text, cells, key, row in zip(lines["text"], lines["cells"] if cells_col else [None] * len(lines), keys, rows):
        if isinstance(key, str) and _UNCAPTIONED.match(key) and row != "header" and isinstance(cells, str) and cells:
            try:
                parts.append(" ".join(str(c.get("value") or "") for c in json.loads(cells)))
                continue
            except (ValueError, AttributeError, TypeError):
                pass
        pairs = []
        if isinstance(cells, str) and cells:
            try:
                pairs = [(str(c.get("header") or ""), str(c.get("value") or "")) for c in json.loads(cells)]
            except (ValueError, AttributeError, TypeError):
                pairs = []
        if any(_is_mark(v) for _, v in pairs):
            # a row of marks (SP 800-63B Table 10-1: a diamond under each authenticator type it
            # applies to) is its label and its words: its columns' names are in the header row,
            # once, as the page prints them; on every mark they tripled the page's length
            pairs = [(h, v) for h, v in pairs if v and not _is_mark(v)]
            text = " | ".join(f"{h}: {v}" if h and k else v for k, (h, v) in enumerate(pairs))
        if isinstance(text, str) and text:
            parts.append(text)
        parts += [f"{h} {v}" for h, v in pairs if h and v]
    return "\n".join(parts)


def _is_mark(value: str) -> bool:
    """A cell holding marks alone, symbols with no word or number ("\u2b25", "\u2713", a
    private-use glyph); not a dash or a currency sign standing for a value."""
    return bool(value.strip()) and all(c.isspace() or unicodedata.category(c) in ("So", "Co") for c in value)


CHAIN_SHARE = 0.5
"""Share of a bracket column's consecutive rows that must chain (one row's high is the next
row's low) for its rows to be indexed as ranges."""


def bracket_rows(lines) -> list[tuple[int, float, float]]:
    """(page, low, high) of each row of a bracket table: a pair of columns whose rows chain,
    each row's high being the next one's low ("25,300 | 25,350", "25,350 | 25,400"). The chain
    tells a bracket from any two increasing numbers side by side (a year and an amount)."""
    if lines.empty or "cells" not in lines.columns or "object_key" not in lines.columns:
        return []
    tables = lines[lines["object_key"].notna() & lines["cells"].notna()]
    out: list[tuple[int, float, float]] = []
    for (page, _key), g in tables.groupby(["page_num", "object_key"], sort=False):
        columns: dict[int, list[tuple[float, float]]] = {}
        for cells in g.sort_values("line_num")["cells"]:
            try:
                row = [(str(c.get("header") or ""), str(c.get("value") or "")) for c in json.loads(cells)]
            except (ValueError, AttributeError, TypeError):
                continue
            for k, lo, hi in bracket_ranges(row):
                columns.setdefault(k, []).append((lo, hi))
        for ranges in columns.values():
            links = sum(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
            if links >= 2 and links >= CHAIN_SHARE * (len(ranges) - 1):
                out.extend((int(page), lo, hi) for lo, hi in ranges)
    return out


def _index_doc(conn: sqlite3.Connection, store: Store, doc_id: str, entry: dict[str, Any]) -> tuple[int, int]:
    from docintel.store.view import best_lines

    lines = best_lines(store, doc_id)
    page_rows = store.read_table("page_df", [doc_id], columns=["page_num", "page_label", "parsing_method"])
    labels: dict[int, str] = {}
    for p, label in zip(page_rows["page_num"], page_rows["page_label"]):
        if isinstance(label, str) and label and int(p) not in labels:
            labels[int(p)] = label
    old: dict[int, tuple[str, int]] = {
        int(p): (h, rid)
        for p, h, rid in conn.execute("SELECT page_num, text_hash, fts_rowid FROM pages WHERE doc_id=?", (doc_id,))
    }
    seen: set[int] = set()
    n_new = 0
    if not lines.empty:
        for page_num, g in lines.groupby("page_num", sort=True):
            page_num = int(page_num)
            seen.add(page_num)
            body = page_text(g)
            methods = ",".join(sorted(set(g["parsing_method"].astype(str))))
            h = hashlib.sha1(body.encode()).hexdigest()
            if page_num in old:
                if old[page_num][0] == h:
                    continue
                conn.execute("DELETE FROM page_fts WHERE rowid=?", (old[page_num][1],))
            cur = conn.execute(
                "INSERT INTO page_fts(body, doc_id, page_num) VALUES (?, ?, ?)", (body, doc_id, page_num)
            )
            conn.execute(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?, ?, ?)",
                (doc_id, page_num, labels.get(page_num, str(page_num)), methods, h, len(body), cur.lastrowid),
            )
            n_new += 1
    gone = set(old) - seen
    for page_num in gone:
        conn.execute("DELETE FROM page_fts WHERE rowid=?", (old[page_num][1],))
        conn.execute("DELETE FROM pages WHERE doc_id=? AND page_num=?", (doc_id, page_num))
    # TOC titles: small, rewritten whole
    conn.execute("DELETE FROM toc_fts WHERE doc_id=?", (doc_id,))
    toc = ranked_toc(store.read_table("toc_df", [doc_id]))
    for r in toc.itertuples(index=False):
        title = r.title if isinstance(r.title, str) else ""
        if not title or r.page_start is None or r.page_start != r.page_start:
            continue
        end = r.page_end if r.page_end is not None and r.page_end == r.page_end else r.page_start
        conn.execute(
            "INSERT INTO toc_fts(title, doc_id, toc_id, page_start, page_end) VALUES (?, ?, ?, ?, ?)",
            (title, doc_id, str(r.toc_id or ""), int(r.page_start), int(end)),
        )
    # bracket rows: few, rewritten whole
    conn.execute("DELETE FROM brackets WHERE doc_id=?", (doc_id,))
    conn.executemany("INSERT INTO brackets VALUES (?, ?, ?, ?)",
                     [(doc_id, p, lo, hi) for p, lo, hi in bracket_rows(lines)])
    return n_new, len(gone)
