"""`docintel ingest`, `docs`, `pages`, `toc` through typer's CliRunner: exit codes, messages, JSON."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from docintel.store import Store

from parsing_pdfs import make_prose_page, save, torture_files

runner = CliRunner()


def ingest(*args):
    return runner.invoke(app, ["ingest", *map(str, args)], env={"DOCINTEL_STORE": ""})


def test_ingest_json_then_unchanged(tmp_path, good_pdfs):
    store = tmp_path / "store"
    res = ingest(good_pdfs[0].parent, "--store", store, "--json", "--quiet")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)  # stdout is one JSON document and nothing else
    assert data["exit_code"] == 0 and data["totals"]["ingested"] == 2 and data["totals"]["pages"] == 5
    assert res.stderr == ""  # --quiet: nothing on stderr when all is well
    again = ingest(good_pdfs[0].parent, "--store", store)
    assert again.exit_code == 0 and again.stdout == ""
    assert "unchanged (skipped)" in again.stderr and "documents ingested" in again.stderr


def test_nonexistent_path_exits_2(tmp_path):
    res = ingest(tmp_path / "missing", "--store", tmp_path / "store")
    assert res.exit_code == 2
    assert "no such file or folder" in res.stderr and "Traceback" not in res.output


def test_no_pdfs_exits_2(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("x")
    res = ingest(tmp_path / "docs", "--store", tmp_path / "store")
    assert res.exit_code == 2 and "no PDF files found" in res.stderr and "a.txt" in res.stderr


def test_files_not_named_pdf_are_counted_and_named(tmp_path, good_pdfs):
    (good_pdfs[0].parent / "notes.txt").write_text("x")
    res = ingest(good_pdfs[0].parent, "--store", tmp_path / "store")
    assert res.exit_code == 0
    assert "not *.pdf (not read)" in res.stderr
    assert "not read: 1 file(s) in the folders given are not named *.pdf (notes.txt)" in " ".join(res.stderr.split())


def test_bad_workers_flag_exits_2(tmp_path, good_pdfs):
    assert ingest(good_pdfs[0], "--store", tmp_path / "s", "--workers", "0").exit_code == 2


@pytest.mark.parametrize("value, message", [("abc", "valid integer"), ("0", "greater than or equal to 1")])
def test_bad_workers_environment_variable_exits_2_in_one_line(tmp_path, good_pdfs, value, message):
    """A cron line with DOCINTEL_WORKERS=abc gets a message naming the variable, not a traceback."""
    res = runner.invoke(app, ["ingest", str(good_pdfs[0]), "--store", str(tmp_path / "s")],
                        env={"DOCINTEL_STORE": "", "DOCINTEL_WORKERS": value})
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"DOCINTEL_WORKERS='{value}'" in res.stderr and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_torture_files_one_line_each_exit_1_earlier_documents_intact(tmp_path, good_pdfs):
    store = tmp_path / "store"
    assert ingest(good_pdfs[0].parent, "--store", store, "--quiet").exit_code == 0
    before = Store(store).doc_ids()
    bad = torture_files(tmp_path / "bad", good_pdfs[1])
    res = ingest(tmp_path / "bad", "--store", store, "--quiet")
    assert res.exit_code == 1
    failure_lines = [ln for ln in res.stderr.splitlines() if "failed:" in ln]
    for path in bad.values():
        assert sum(str(path) in ln for ln in failure_lines) == 1, (path, res.stderr)
    assert set(before) <= set(Store(store).doc_ids())
    for doc_id in before:  # earlier documents are whole and readable
        assert len(Store(store).read_table("page_df", [doc_id])) > 0


def test_lock_conflict_exit_1_with_message(tmp_path, good_pdfs):
    store = Store(tmp_path / "store")
    with store.lock("ingest"):
        res = ingest(good_pdfs[0], "--store", store.root)
    assert res.exit_code == 1 and "being written by docintel ingest" in res.stderr


def test_docs_pages_toc(tmp_path, good_pdfs):
    store = tmp_path / "store"
    assert ingest(good_pdfs[0].parent, "--store", store, "--quiet").exit_code == 0
    docs = runner.invoke(app, ["docs", "--store", str(store), "--json"])
    assert docs.exit_code == 0 and {d["file_name"] for d in json.loads(docs.stdout)} == {"a.pdf", "b.PDF"}
    pages = runner.invoke(app, ["pages", "b.PDF", "--store", str(store), "--json"])
    assert pages.exit_code == 0
    data = json.loads(pages.stdout)
    assert [p["page_num"] for p in data["pages"]] == [1, 2, 3]
    assert all("reasons" in p and "escalate" in p for p in data["pages"])
    table = runner.invoke(app, ["pages", "b.PDF", "--store", str(store)])
    assert table.exit_code == 0 and "pymupdf" in table.stdout
    toc = runner.invoke(app, ["toc", "a.pdf", "--store", str(store), "--json"])
    assert toc.exit_code == 0 and json.loads(toc.stdout)["file_name"] == "a.pdf"
    # "Section 1", "Section 2": set larger than the body, one per page, in a PDF without an outline
    assert [(e["title"], e["source"]) for e in json.loads(toc.stdout)["toc"]] == [("Section 1", "typeset"), ("Section 2", "typeset")]
    prose = tmp_path / "prose"
    prose.mkdir()
    save(make_prose_page, prose / "c.pdf")
    assert ingest(prose, "--store", store, "--quiet").exit_code == 0
    no_toc = runner.invoke(app, ["toc", "c.pdf", "--store", str(store)])
    assert no_toc.exit_code == 0 and "c.pdf: no table of contents found" in no_toc.stdout  # not an empty table
    unknown = runner.invoke(app, ["pages", "nope.pdf", "--store", str(store)])
    assert unknown.exit_code == 2 and "unknown document" in unknown.stderr
    empty = runner.invoke(app, ["docs", "--store", str(tmp_path / "empty")])
    assert empty.exit_code == 2 and "holds no documents" in empty.stderr


def test_docs_says_which_documents_older_parsing_code_wrote(tmp_path, good_pdfs, monkeypatch):
    """A nightly ingest skips unchanged files, so after an upgrade `docintel docs` is where a user
    looks for what the store holds: each document says whether this docintel's parsers wrote it,
    and the listing ends with the remedy when one did not."""
    import docintel.store.fingerprint as fingerprint

    store = tmp_path / "store"
    assert ingest(good_pdfs[0].parent, "--store", store, "--quiet").exit_code == 0
    docs = runner.invoke(app, ["docs", "--store", str(store), "--json"])
    assert all(d["parse_current"] and d["parsed_by"] for d in json.loads(docs.stdout))
    table = runner.invoke(app, ["docs", "--store", str(store)])
    assert "current" in table.stdout and "older code" not in table.stdout and "--force" not in table.stderr
    monkeypatch.setattr(fingerprint, "code_fingerprint", lambda parts: "newer-parsers")  # an upgrade
    docs = runner.invoke(app, ["docs", "--store", str(store), "--json"])
    assert docs.exit_code == 0 and not any(d["parse_current"] for d in json.loads(docs.stdout))
    table = runner.invoke(app, ["docs", "--store", str(store)])
    assert table.exit_code == 0 and table.stdout.count("older code") == 2
    assert "2 stored document(s) were parsed by other docintel parsing code" in table.stderr
    assert "ingest --force" in table.stderr


def test_file_and_store_names_are_printed_verbatim_not_as_markup(tmp_path, good_pdfs):
    """Brackets in a file name ("[draft] report.pdf") or store path are text, not rich markup."""
    import shutil

    pdf = shutil.copy(good_pdfs[0], tmp_path / "[bold]draft [v2].pdf")
    store = tmp_path / "[red]store"
    res = ingest(pdf, "--store", store)
    assert res.exit_code == 0 and "[red]s" in res.stderr
    for command in ("pages", "toc"):
        out = runner.invoke(app, [command, "[bold]draft [v2].pdf", "--store", str(store)])
        assert out.exit_code == 0 and "[bold]draft [v2].pdf" in out.stdout


def test_prune_flag_reports_pruned_documents_and_drops_them_from_the_index(tmp_path, good_pdfs):
    import shutil

    from docintel.retrieval.index import connect

    folder = tmp_path / "pdfs"
    shutil.copytree(good_pdfs[0].parent, folder)
    store = tmp_path / "store"
    assert ingest(folder, "--store", store, "--quiet").exit_code == 0
    victim = sorted(folder.glob("*.pdf"))[0]
    victim.unlink()
    res = ingest(folder, "--store", store, "--prune", "--json", "--quiet")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [p["path"] for p in data["pruned"]] == [str(victim.resolve())] and data["totals"]["pruned"] == 1
    pruned_id = data["pruned"][0]["doc_id"]
    assert pruned_id not in Store(store).doc_ids()
    conn = connect(Store(store))
    try:
        assert pruned_id not in {d for (d,) in conn.execute("SELECT doc_id FROM docs")}
    finally:
        conn.close()
    assert "--prune" in runner.invoke(app, ["ingest", "--help"]).stdout
