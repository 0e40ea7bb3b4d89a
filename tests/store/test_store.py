"""The store: atomic document writes, add-only escalation rows, the write lock, doc lookup."""

from __future__ import annotations

import ast
import multiprocessing as mp
from pathlib import Path

import pandas as pd
import pytest

import docintel
from docintel.errors import EmptyStoreError, StoreLockedError, UnknownDocumentError
from docintel.schemas.tables import TABLES, to_arrow
from docintel.store import Store
from docintel.store import atomic
from docintel.store.view import combine


def _line(page, n, text, method="pymupdf", **kw):
    row = dict(doc_id="d1", page_num=page, line_num=n, text=text, x0=10.0, y0=10.0 * n, x1=200.0,
               y1=10.0 * n + 8, kind="text", parsing_method=method)
    row.update(kw)
    return row


def _tables(doc_id="d1", lines=None):
    lines = lines or [_line(1, 1, "hello"), _line(1, 2, "world")]
    tables = {name: to_arrow([], schema) for name, schema in TABLES.items()}
    tables["documents"] = to_arrow([{"doc_id": doc_id, "file_name": f"{doc_id}.pdf", "n_pages": 1}], TABLES["documents"])
    tables["line_df"] = to_arrow(lines, TABLES["line_df"])
    tables["page_df"] = to_arrow([{"doc_id": doc_id, "page_num": 1, "parsing_method": "pymupdf", "coverage": "page"}], TABLES["page_df"])
    return tables


def test_write_and_read_roundtrip(tmp_path):
    store = Store(tmp_path)
    with store.lock("test"):
        store.write_document("d1", _tables(), {"file_name": "d1.pdf", "path": "/x/d1.pdf"})
    assert store.doc_ids() == ["d1"]
    lines = store.read_table("line_df")
    assert list(lines["text"]) == ["hello", "world"]
    assert set(lines.columns) >= {"doc_id", "page_num", "line_num", "parsing_method", "kind"}


def test_rewrite_replaces_whole_version_and_leaves_no_staging(tmp_path):
    store = Store(tmp_path)
    with store.lock("test"):
        store.write_document("d1", _tables(), {"file_name": "d1.pdf"})
        store.write_document("d1", _tables(lines=[_line(1, 1, "new")]), {"file_name": "d1.pdf"})
    assert list(store.read_table("line_df")["text"]) == ["new"]
    assert [p.name for p in store.docs_dir.iterdir()] == ["d1"]


def test_killed_swap_is_recovered(tmp_path):
    store = Store(tmp_path)
    with store.lock("test"):
        store.write_document("d1", _tables(), {"file_name": "d1.pdf"})
    # simulate a run killed between renaming the old version aside and moving the new one in
    (store.docs_dir / "d1").rename(store.docs_dir / ".old-d1")
    (store.docs_dir / ".tmp-d1-dead").mkdir()
    atomic.recover_dir(store.docs_dir)
    assert store.doc_ids() == ["d1"]
    assert not (store.docs_dir / ".tmp-d1-dead").exists()


def test_add_rows_is_idempotent_and_keeps_other_methods(tmp_path):
    store = Store(tmp_path)
    with store.lock("test"):
        store.write_document("d1", _tables(), {"file_name": "d1.pdf"})
        deep = to_arrow([_line(1, 1, "row A", method="deep")], TABLES["line_df"])
        store.add_rows("d1", "line_df", deep)
        store.add_rows("d1", "line_df", deep)
    lines = store.read_table("line_df")
    assert sorted(lines["parsing_method"]) == ["deep", "pymupdf", "pymupdf"]


def _hold_lock(root, ready, release):
    with Store(root).lock("ingest"):
        ready.set()
        release.wait(10)


def test_second_writer_gets_a_clear_message(tmp_path):
    ctx = mp.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold_lock, args=(str(tmp_path), ready, release))
    proc.start()
    try:
        assert ready.wait(20)
        with pytest.raises(StoreLockedError, match="being written by docintel ingest"):
            with Store(tmp_path).lock("ingest"):
                pass
    finally:
        release.set()
        proc.join(10)
    with Store(tmp_path).lock("ingest"):  # free again
        pass


def test_turned_away_writer_leaves_the_running_writers_staging_alone(tmp_path):
    """A second ingest that finds the store locked must not clean up the first run's
    half-written (staging) folders: only the lock holder may recover."""
    ctx = mp.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hold_lock, args=(str(tmp_path), ready, release))
    proc.start()
    staging = tmp_path / "docs" / ".tmp-d1-inflight"
    try:
        assert ready.wait(20)
        staging.mkdir(parents=True)
        with pytest.raises(StoreLockedError):
            with Store(tmp_path).lock("ingest"):
                pass
        assert staging.exists()
    finally:
        release.set()
        proc.join(10)
    with Store(tmp_path).lock("ingest"):  # the holder is gone: now leftovers are recovered
        assert not staging.exists()


def test_unwritable_store_is_a_one_line_usage_error(tmp_path, monkeypatch):
    import errno
    import os

    from docintel.errors import UsageError
    from docintel.store import lock as lock_module

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(lock_module.os, "open", read_only)
    with pytest.raises(UsageError, match="not writable .*Read-only file system.*--store"):
        with Store(tmp_path).lock("ingest"):
            pass


def test_store_that_is_a_file_says_so(tmp_path):
    """$DOCINTEL_STORE pointing at a file (typer's --store check does not see it): every
    reader says it is a file, not that the store is empty."""
    from docintel.errors import UsageError

    path = tmp_path / "notes.pdf"
    path.write_bytes(b"%PDF-1.4")
    with pytest.raises(UsageError, match="is a file, not a folder"):
        Store(path).require_documents()


def test_atomic_writes_are_readable_by_others_as_umask_allows(tmp_path):
    """A store built by a cron user must be readable by the people who ask it: the manifest
    and rewritten tables get the umask's permissions, not mkstemp's 0600."""
    import os

    old = os.umask(0o022)
    try:
        atomic.write_json(tmp_path / "manifest.json", {"documents": {}})
        atomic.write_parquet(tmp_path / "t.parquet", TABLES["page_df"].empty_table())
    finally:
        os.umask(old)
    for name in ("manifest.json", "t.parquet"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644


def test_resolve_docs(tmp_path):
    store = Store(tmp_path)
    with pytest.raises(EmptyStoreError, match="docintel ingest"):
        store.resolve_docs([])
    with store.lock("test"):
        store.write_document("abcdef0123456789", _tables("abcdef0123456789"), {"file_name": "fips.pdf", "path": "/c/fips.pdf"})
    assert store.resolve_docs(["fips.pdf"]) == ["abcdef0123456789"]
    assert store.resolve_docs(["/elsewhere/fips.pdf"]) == ["abcdef0123456789"]
    assert store.resolve_docs(["abcdef01"]) == ["abcdef0123456789"]
    with pytest.raises(UnknownDocumentError, match="fips.pdf"):
        store.resolve_docs(["nope.pdf"])
    with store.lock("test"):
        for k in range(11):
            doc = f"{k:02d}" + "0" * 14
            store.write_document(doc, _tables(doc), {"file_name": f"doc{k:02d}.pdf", "path": f"/c/doc{k:02d}.pdf"})
    with pytest.raises(UnknownDocumentError, match=r"doc09\.pdf and 2 more \("):  # a long list says it is cut
        store.resolve_docs(["nope.pdf"])


def test_view_prefers_region_rows_inside_their_box_only():
    lines = pd.DataFrame(
        [
            _line(9, 1, "Table 3: caption", y0=10, y1=18),
            _line(9, 2, "base 6 512", y0=30, y1=38),
            _line(9, 3, "(E) 4.92 25.7", y0=40, y1=48),
            _line(9, 4, "prose after the table", y0=80, y1=88),
            _line(9, 1, "(E) | PPL (dev): 4.92", method="tables", y0=28, y1=50, kind="table_row", object_key="table:3"),
        ]
    )
    pages = pd.DataFrame(
        [
            {"page_num": 9, "parsing_method": "pymupdf", "coverage": "page", "error": None},
            {"page_num": 9, "parsing_method": "tables", "coverage": "region", "error": None},
        ]
    )
    view = combine(lines, pages)
    assert list(view["text"]) == ["Table 3: caption", "(E) | PPL (dev): 4.92", "prose after the table"]
    assert list(view["parsing_method"]) == ["pymupdf", "tables", "pymupdf"]


def test_view_ignores_failed_methods():
    lines = pd.DataFrame([_line(2, 1, "baseline"), _line(2, 1, "garbage", method="ocr_hires")])
    pages = pd.DataFrame(
        [
            {"page_num": 2, "parsing_method": "pymupdf", "coverage": "page", "error": None},
            {"page_num": 2, "parsing_method": "ocr_hires", "coverage": "page", "error": "boom"},
        ]
    )
    assert list(combine(lines, pages)["text"]) == ["baseline"]


def test_a_span_of_a_long_page_takes_the_table_rows_set_between_its_lines():
    """A region's rows are numbered in their own parse (1, 2, ...): a span of the page parse's
    lines 40-43 holds the chart set between lines 41 and 42 (1040NR p7's rows 1..9 sat under
    lines 36-130), and not a figure's text set elsewhere whose numbers fall in 40-43."""
    from docintel.retrieval.region import span_rows

    base = [_line(9, n, f"prose {n}", y0=10.0 * n, y1=10.0 * n + 8) for n in range(1, 60)]
    rows = [_line(9, n, f"199{n} | {n}00,000", method="tables", y0=416.0 + 4 * n, y1=419.0 + 4 * n, kind="table_row",
                  object_key="table:p9.1", x0=250.0, x1=500.0) for n in range(1, 4)]
    fig = [_line(9, 41, "label read from a figure", method="figure_ocr", y0=550, y1=558, object_key="figure:1")]
    lines = pd.DataFrame(base + rows + fig)
    lines.loc[lines["text"].eq("prose 42"), ["x0", "x1"]] = [250.0, 500.0]  # under the chart's box
    pages = pd.DataFrame([
        {"page_num": 9, "parsing_method": "pymupdf", "coverage": "page", "error": None},
        {"page_num": 9, "parsing_method": "tables", "coverage": "region", "error": None},
        {"page_num": 9, "parsing_method": "figure_ocr", "coverage": "addition", "error": None},
    ])
    view = combine(lines, pages)
    got = list(span_rows(view, 40, 43)["text"])
    assert got == ["prose 40", "prose 41", "1991 | 100,000", "1992 | 200,000", "1993 | 300,000", "prose 43"]
    whole = list(span_rows(view, 1, 59)["text"])  # the whole page: everything, in page order
    assert len(whole) == len(view) and whole.index("1991 | 100,000") < whole.index("prose 43")


def test_the_span_round_a_chart_asked_about_holds_the_chart():
    """A chart's rows are numbered 1.. in their own parse. The best window of a page on which only
    the chart answers (IRS Notice 1036 p1: "Weekly | One Withholding Allowance: $71.15", set
    under the page parse's line 120) was taken for the page's first lines, and the span handed
    to the generator held every line but the chart."""
    from docintel.questions import parse_question
    from docintel.retrieval.region import answer_span, span_rows

    base = [_line(3, n, f"Employers read the notice on prose line {n}.", y0=5.0 * n, y1=5.0 * n + 4) for n in range(1, 151)]
    rows = [_line(3, n, f"{period} | One Withholding Allowance: {amount}", method="tables", y0=602.0 + 4 * n,
                  y1=605.0 + 4 * n, kind="table_row", object_key="table:p3.1", x0=250.0, x1=500.0, row_key=period,
                  cells=f'[{{"header": "Payroll Period", "value": "{period}"}}, '
                        f'{{"header": "One Withholding Allowance", "value": "{amount}"}}]')
            for n, (period, amount) in enumerate([("Weekly", "$71.15"), ("Monthly", "308.33")], start=1)]
    pages = pd.DataFrame([
        {"page_num": 3, "parsing_method": "pymupdf", "coverage": "page", "error": None},
        {"page_num": 3, "parsing_method": "tables", "coverage": "region", "error": None},
    ])
    lines = pd.DataFrame(base + rows)
    lines.loc[lines["text"].eq("Employers read the notice on prose line 121."), ["x0", "x1"]] = [250.0, 500.0]  # the chart's text
    view = combine(lines, pages)
    assert view["text"].tolist().index("Weekly | One Withholding Allowance: $71.15") == 120  # under line 120
    span = answer_span(view, parse_question("What is the weekly withholding allowance amount?"))
    assert span.first <= 120 <= span.last
    assert "Weekly | One Withholding Allowance: $71.15" in span_rows(view, span.first, span.last)["text"].tolist()


def test_a_span_cut_from_a_long_table_keeps_its_header_rows():
    """A 1040NR Tax Table page is one table of 64 rows, all escalated: a span of rows 45-64 (the
    window round the row asked, grown 40 lines) cut off row 1, the header that says what the
    columns are ("2007 Tax Table ... Single Your tax is—"). The span keeps it; a span of prose
    takes no header of a table it holds no row of."""
    from docintel.retrieval.region import span_rows

    head = _line(37, 1, "At least | But less than | Single", method="tables", kind="table_row", row_key="header",
                 object_key="table:p37.1")
    rows = [_line(37, n, f"{25000 + 50 * n} | {25050 + 50 * n} | 3,4{n:02d}", method="tables", kind="table_row",
                  row_key=str(25000 + 50 * n), object_key="table:p37.1") for n in range(2, 65)]
    pages = pd.DataFrame([{"page_num": 37, "parsing_method": "tables", "coverage": "page", "error": None}])
    view = combine(pd.DataFrame([head] + rows), pages)
    got = list(span_rows(view, 45, 64)["text"])
    assert got[0] == "At least | But less than | Single" and len(got) == 21 and got[1].startswith("27250")
    prose = combine(pd.DataFrame([_line(5, n, f"prose {n}") for n in range(1, 9)]), pd.DataFrame(
        [{"page_num": 5, "parsing_method": "pymupdf", "coverage": "page", "error": None}]))
    assert list(span_rows(prose, 3, 4)["text"]) == ["prose 3", "prose 4"]


def _module(f: Path) -> str:
    """The dotted name of docintel's source file ``f`` ("docintel.store" for its ``__init__``)."""
    root = Path(docintel.__file__).parent
    return ".".join(("docintel", *f.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")


def _imported_by(package: str) -> set[str]:
    """The docintel modules ``package``'s modules import, at the top or inside a function,
    followed through what those import in turn (a package's ``__init__`` counts when a module
    inside it is imported)."""
    files = {_module(f): f for f in Path(docintel.__file__).parent.rglob("*.py")}
    todo, seen = [m for m in files if m == package or m.startswith(package + ".")], set()
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        for node in ast.walk(ast.parse(files[mod].read_text())):
            names = ([node.module] + [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom)
                     and node.module else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                parts = name.split(".")
                todo += [p for p in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if p in files]
    return seen


def test_parse_code_is_what_the_parsers_import():
    """A document records the hash of the code that parsed it (``parsed_by``), and ingest reports
    every stored document another hash wrote as 'parsed by older code', to be re-parsed with
    --force. So the hash must cover every module the parsers import (a changed glyph table reads
    pages differently) and nothing else: the word helpers questions are read with
    (``docintel.text``) were hashed too, so changing how a question's words are stemmed called
    every stored document stale though no row would change. The store the parsers write to, their
    settings, errors and report schemas decide no row's content."""
    from docintel.store.fingerprint import PARSE_CODE, STORE_CODE, code_files

    hashed = {_module(f) for f in code_files(PARSE_CODE)}
    not_rows = {"docintel", "docintel.errors", "docintel.settings", "docintel.schemas", "docintel.schemas.ingest",
                "docintel.schemas.escalate"}
    imported = {m for m in _imported_by("docintel.parsing") if not m.startswith("docintel.store")} - not_rows
    assert imported == hashed
    assert "docintel.text" not in hashed and "text.py" in STORE_CODE  # the index reads table rows with it
