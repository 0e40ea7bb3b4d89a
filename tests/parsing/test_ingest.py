"""run_ingest on real files in tmp: incremental skip, replacement, --force, bad files, lock, page errors."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from docintel.errors import StoreLockedError, UsageError
from docintel.parsing import document
from docintel.parsing.ingest import run_ingest
from docintel.schemas.ingest import FileStatus
from docintel.settings import Settings
from docintel.store import Store

from parsing_pdfs import multi_page_pdf, torture_files


def settings(store, **kw):
    return Settings.load(env={}, store=store, **kw)


def by_name(report):
    return {f.path.rsplit("/", 1)[-1]: f for f in report.files}


def test_ingest_writes_all_tables_and_skips_unchanged(tmp_path, good_pdfs):
    store = tmp_path / "store"
    first = run_ingest([good_pdfs[0].parent], settings(store))
    assert first.exit_code == 0 and first.totals.ingested == 2 and first.totals.pages == 5
    s = Store(store)
    assert len(s.doc_ids()) == 2
    docs = s.documents()
    assert set(docs["file_name"]) == {"a.pdf", "b.PDF"}  # *.pdf matched case-insensitively
    pages = s.read_table("page_df")
    assert len(pages) == 5 and set(pages["parsing_method"]) == {"pymupdf"}
    assert pages.sort_values(["doc_id", "page_num"])["page_label"].tolist()[:2] in (["1", "2"],)
    for table in ("line_df", "toc_df", "object_registry", "cross_ref_df", "image_df"):
        assert (s.doc_dir(s.doc_ids()[0]) / f"{table}.parquet").exists()
    assert first.run_report and (store / "runs").exists()

    again = run_ingest([good_pdfs[0].parent], settings(store))
    assert again.exit_code == 0 and again.totals.ingested == 0 and again.totals.unchanged == 2

    forced = run_ingest([good_pdfs[0].parent], settings(store, ingest__force=True))
    assert forced.totals.ingested == 2 and len(Store(store).doc_ids()) == 2


def test_a_document_parsed_by_other_parsing_code_is_reported_until_re_parsed(tmp_path, good_pdfs, monkeypatch):
    """Ingest skips a file whose content is stored; after an upgrade whose parsers read pages
    differently, every stored document kept the old parse without a word. Each document records
    the parsing code that wrote it; an unchanged one written by other code is reported (and
    counted) until --force re-parses it. A store written before the record counts as other code."""
    from docintel.parsing import ingest as ingest_module
    from docintel.store.fingerprint import PARSE_CODE, code_fingerprint

    store = tmp_path / "store"
    run_ingest([good_pdfs[0].parent], settings(store))
    assert {e["parsed_by"] for e in Store(store).manifest()["documents"].values()} == {code_fingerprint(PARSE_CODE)}
    assert run_ingest([good_pdfs[0].parent], settings(store)).totals.stale == 0
    monkeypatch.setattr(ingest_module, "code_fingerprint", lambda parts: "newer-parsers")
    report = run_ingest([good_pdfs[0].parent], settings(store))
    assert report.exit_code == 0 and report.totals.unchanged == 2 and report.totals.stale == 2
    assert all(f.stale and "--force" in f.reason for f in report.files)
    assert run_ingest([good_pdfs[0].parent], settings(store, ingest__force=True)).totals.ingested == 2
    assert run_ingest([good_pdfs[0].parent], settings(store)).totals.stale == 0
    manifest = json.loads((store / "manifest.json").read_text())
    for entry in manifest["documents"].values():
        del entry["parsed_by"]  # as written before documents recorded it
    (store / "manifest.json").write_text(json.dumps(manifest))
    assert run_ingest([good_pdfs[0].parent], settings(store)).totals.stale == 2


def test_changed_file_replaces_its_old_version(tmp_path):
    store = tmp_path / "store"
    pdf = multi_page_pdf(tmp_path / "doc.pdf", 2)
    old = run_ingest([pdf], settings(store)).files[0].doc_id
    multi_page_pdf(pdf, 4)  # same path, new content
    report = run_ingest([pdf], settings(store))
    new = report.files[0]
    assert new.status == FileStatus.ingested and new.doc_id != old and new.replaced == [old]
    s = Store(store)
    assert s.doc_ids() == [new.doc_id]
    assert int(s.documents()["n_pages"].iloc[0]) == 4


def test_renamed_file_is_unchanged_and_its_new_path_is_recorded(tmp_path):
    """A renamed (or moved) file is the same document: not re-parsed, but the store follows it,
    so escalate can still open the PDF and `--doc NEW_NAME` finds it."""
    store = tmp_path / "store"
    pdf = multi_page_pdf(tmp_path / "old-name.pdf", 2)
    doc_id = run_ingest([pdf], settings(store)).files[0].doc_id
    moved = pdf.rename(tmp_path / "new-name.pdf")
    report = run_ingest([moved], settings(store))
    assert report.files[0].status == FileStatus.unchanged and report.exit_code == 0
    s = Store(store)
    entry = s.manifest()["documents"][doc_id]
    assert entry["path"] == str(moved.resolve()) and entry["file_name"] == "new-name.pdf"
    assert s.documents()["file_name"].tolist() == ["new-name.pdf"]
    assert s.resolve_docs(["new-name.pdf"]) == [doc_id]


def test_copy_elsewhere_keeps_the_original_path(tmp_path):
    store = tmp_path / "store"
    pdf = multi_page_pdf(tmp_path / "orig.pdf", 2)
    doc_id = run_ingest([pdf], settings(store)).files[0].doc_id
    (tmp_path / "copies").mkdir()
    copy = shutil.copy(pdf, tmp_path / "copies" / "copy.pdf")
    assert run_ingest([copy], settings(store)).files[0].status == FileStatus.unchanged
    assert Store(store).manifest()["documents"][doc_id]["path"] == str(pdf.resolve())


def test_duplicate_content_is_parsed_once(tmp_path, good_pdfs):
    shutil.copy(good_pdfs[0], good_pdfs[0].parent / "copy.pdf")
    report = run_ingest([good_pdfs[0].parent], settings(tmp_path / "store"))
    assert report.exit_code == 0
    assert by_name(report)["copy.pdf"].status == FileStatus.duplicate or by_name(report)["a.pdf"].status == FileStatus.duplicate


def test_torture_files_fail_one_line_each_and_the_rest_is_kept(tmp_path, good_pdfs):
    store = tmp_path / "store"
    assert run_ingest([good_pdfs[0].parent], settings(store)).exit_code == 0
    before = Store(store).doc_ids()
    bad = torture_files(tmp_path / "bad", good_pdfs[1])
    report = run_ingest([tmp_path / "bad", good_pdfs[0].parent], settings(store))
    assert report.exit_code == 1
    results = by_name(report)
    expect = {"zero.pdf": "empty file", "notes.pdf": "not a PDF", "corrupt.pdf": "not a PDF",
              "encrypted.pdf": "encrypted", "truncated.pdf": "re-download"}  # repaired or unreadable
    for name, words in expect.items():
        r = results[name]
        assert r.status in (FileStatus.failed, FileStatus.partial), name
        assert r.reason and "\n" not in r.reason and words in r.reason, (name, r.reason)
    assert results["encrypted.pdf"].status == FileStatus.failed
    assert report.totals.failed == 5
    assert Store(store).doc_ids() == sorted(set(before) | {r.doc_id for r in report.files if r.status == FileStatus.partial})
    assert results["a.pdf"].status == FileStatus.unchanged


def test_a_file_cut_after_its_header_says_re_download(tmp_path, shared_corpora):
    """The first 5,000 bytes of a real PDF open, but asking for the page count raises
    "code=7: Invalid number of pages": a one-line reason, not "unexpected RuntimeError"."""
    from docintel.errors import DocumentError

    cut = tmp_path / "cut.pdf"
    cut.write_bytes((shared_corpora / "crossref" / "SP800-61rev2.pdf").read_bytes()[:5000])
    with pytest.raises(DocumentError, match="no readable pages .* re-download"):
        document.open_pdf(cut)


def test_page_exception_keeps_the_document(tmp_path, monkeypatch):
    pdf = multi_page_pdf(tmp_path / "three.pdf", 3)
    real = document.baseline.extract_page

    def flaky(page, doc_id, page_num, flags=None):
        if page_num == 2:
            raise RuntimeError("code=2: cannot parse content stream")
        return real(page, doc_id, page_num, flags)

    monkeypatch.setattr(document.baseline, "extract_page", flaky)
    report = run_ingest([pdf], settings(tmp_path / "store"))
    f = report.files[0]
    assert report.exit_code == 1 and f.status == FileStatus.partial
    assert f.page_errors == ["page 2: code=2: cannot parse content stream"]
    pages = Store(tmp_path / "store").read_table("page_df").sort_values("page_num")
    assert pages["error"].isna().tolist() == [True, False, True]
    assert Store(tmp_path / "store").read_table("line_df")["page_num"].nunique() == 2


def test_lock_conflict_message(tmp_path, good_pdfs):
    store = Store(tmp_path / "store")
    with store.lock("ingest"):
        with pytest.raises(StoreLockedError, match="being written by docintel ingest"):
            run_ingest([good_pdfs[0]], settings(store.root))


def test_missing_path_and_no_pdfs_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="no such file or folder"):
        run_ingest([tmp_path / "nope"], settings(tmp_path / "store"))
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("x")
    with pytest.raises(UsageError, match="no PDF files found"):
        run_ingest([tmp_path / "empty"], settings(tmp_path / "store"))


def test_files_of_a_folder_not_named_pdf_are_listed_as_not_read(tmp_path, good_pdfs):
    """A folder ingest reads *.pdf only; what else the folder holds is named in the report (a PDF
    saved without its extension would otherwise go unread without a word), hidden files are not,
    and the same file passed by its path is read."""
    folder = good_pdfs[0].parent
    (folder / "notes.txt").write_text("x")
    (folder / "sub").mkdir()
    misnamed = folder / "sub" / "scan-no-extension"
    misnamed.write_bytes(good_pdfs[0].read_bytes() + b"\n")  # other content: not a duplicate
    (folder / ".DS_Store").write_text("x")
    report = run_ingest([folder], settings(tmp_path / "store"))
    assert report.exit_code == 0 and report.totals.ingested == 2
    assert sorted(report.not_pdf) == [str(folder / "notes.txt"), str(misnamed)] and report.totals.not_pdf == 2
    again = run_ingest([misnamed], settings(tmp_path / "store"))
    assert again.totals.ingested == 1 and again.not_pdf == []
    only = tmp_path / "only"
    only.mkdir()
    (only / "a.txt").write_text("x")
    with pytest.raises(UsageError, match=r"no PDF files found under .*only \(they hold 1 other file\(s\), e.g. a.txt\)"):
        run_ingest([only], settings(tmp_path / "store"))


@pytest.mark.parametrize("method", [None, "spawn"])
def test_two_workers_give_the_same_tables(tmp_path, good_pdfs, monkeypatch, method):
    from docintel.parsing import ingest

    monkeypatch.setattr(ingest, "START_METHOD", method)  # None: fork on Linux
    one = run_ingest([good_pdfs[0].parent], settings(tmp_path / "s1"))
    two = run_ingest([good_pdfs[0].parent], settings(tmp_path / "s2", ingest__workers=2))
    assert two.exit_code == 0 and two.totals.pages == one.totals.pages
    cols = ["doc_id", "page_num", "line_num", "text", "column"]
    a = Store(tmp_path / "s1").read_table("line_df", columns=cols).sort_values(cols[:3]).reset_index(drop=True)
    b = Store(tmp_path / "s2").read_table("line_df", columns=cols).sort_values(cols[:3]).reset_index(drop=True)
    assert a.equals(b)


@pytest.mark.parametrize("workers", [1, 2])
def test_killed_run_keeps_whole_documents_and_the_rerun_finishes(tmp_path, good_pdfs, monkeypatch, workers):
    store = tmp_path / "store"
    multi_page_pdf(good_pdfs[0].parent / "c.pdf", 2)
    multi_page_pdf(good_pdfs[0].parent / "d.pdf", 5)
    real = Store.write_document
    calls = []

    def dies_on_second(self, doc_id, tables, entry):
        calls.append(doc_id)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process is stopped in the middle of the second write
        return real(self, doc_id, tables, entry)

    monkeypatch.setattr(Store, "write_document", dies_on_second)
    with pytest.raises(KeyboardInterrupt):
        run_ingest([good_pdfs[0].parent], settings(store, ingest__workers=workers))
    monkeypatch.setattr(Store, "write_document", real)
    s = Store(store)
    assert s.doc_ids() == [calls[0]]  # the first document is complete, nothing half-written
    assert not [p for p in (store / "docs").iterdir() if p.name.startswith(".")]
    rerun = run_ingest([good_pdfs[0].parent], settings(store))
    assert rerun.exit_code == 0 and rerun.totals.ingested == 3 and rerun.totals.unchanged == 1
    assert len(Store(store).doc_ids()) == 4


def test_prune_removes_deleted_files_under_the_given_paths_only(tmp_path):
    store = tmp_path / "store"
    (tmp_path / "nightly" / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    keep = multi_page_pdf(tmp_path / "nightly" / "keep.pdf", 2)
    gone = multi_page_pdf(tmp_path / "nightly" / "sub" / "gone.pdf", 3)
    other = multi_page_pdf(tmp_path / "elsewhere" / "other.pdf", 4)
    ids = {f.path.rsplit("/", 1)[-1]: f.doc_id for f in run_ingest([tmp_path / "nightly", other], settings(store)).files}
    gone.unlink()
    other.unlink()  # deleted too, but not under the PATH given below: kept
    plain = run_ingest([tmp_path / "nightly"], settings(store))
    assert plain.pruned == [] and set(Store(store).doc_ids()) == set(ids.values())  # no --prune: nothing removed
    report = run_ingest([tmp_path / "nightly"], settings(store, ingest__prune=True))
    assert [(p.doc_id, p.path) for p in report.pruned] == [(ids["gone.pdf"], str(gone.resolve()))]
    assert report.totals.pruned == 1 and report.exit_code == 0
    assert set(Store(store).doc_ids()) == {ids["keep.pdf"], ids["other.pdf"]}
    assert ids["gone.pdf"] not in Store(store).manifest()["documents"]


def test_prune_accepts_a_deleted_folder_that_held_stored_documents(tmp_path):
    store = tmp_path / "store"
    folder = tmp_path / "old"
    folder.mkdir()
    multi_page_pdf(folder / "a.pdf", 2)
    run_ingest([folder], settings(store))
    shutil.rmtree(folder)
    with pytest.raises(UsageError):  # without --prune a missing path is still a usage error
        run_ingest([folder], settings(store))
    report = run_ingest([folder], settings(store, ingest__prune=True))
    assert report.totals.pruned == 1 and report.files == [] and Store(store).doc_ids() == []
    with pytest.raises(UsageError):  # nothing stored under it any more: a typo, say so
        run_ingest([folder], settings(store, ingest__prune=True))


def test_workers_fork_only_from_a_single_threaded_process():
    """A forked child inherits the imports (no ~0.9 s start-up) but must not inherit a lock
    another thread holds: with a live thread (the progress bar), workers are spawned."""
    import sys
    import threading

    from docintel.parsing.ingest import start_method

    if threading.active_count() == 1:
        assert start_method() == ("fork" if sys.platform.startswith("linux") else "spawn")
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert start_method() == "spawn"
    finally:
        stop.set()
        t.join()


def test_files_deleted_while_the_ingest_runs_get_one_message_and_the_rest_is_kept(tmp_path, monkeypatch):
    """A cron ingest over a folder that another job cleans up: a file can go before it is hashed,
    before MuPDF opens it, or while it is parsed. Each says the same thing."""
    from docintel.parsing import ingest

    (tmp_path / "in").mkdir()
    for name, n in [("before_hash", 1), ("before_open", 2), ("mid_parse", 3), ("kept", 4)]:
        multi_page_pdf(tmp_path / "in" / f"{name}.pdf", n)
    real_hash, real_parse = ingest.file_sha256, ingest.parse_file

    def hash_after_delete(path):
        if path.name == "before_hash.pdf":
            path.unlink()
        return real_hash(path)

    def parse_after_delete(path, *args):
        name = path.rsplit("/", 1)[-1]
        if name == "before_open.pdf":
            os.unlink(path)
        elif name == "mid_parse.pdf":
            os.unlink(path)
            raise OSError(f"[Errno 2] No such file or directory: {path!r}")
        return real_parse(path, *args)

    monkeypatch.setattr(ingest, "file_sha256", hash_after_delete)
    monkeypatch.setattr(ingest, "parse_file", parse_after_delete)
    report = run_ingest([tmp_path / "in"], settings(tmp_path / "store", ingest__workers=1))
    files = by_name(report)
    assert report.exit_code == 1 and files["kept.pdf"].status == FileStatus.ingested
    for name in ("before_hash.pdf", "before_open.pdf", "mid_parse.pdf"):
        assert files[name].status == FileStatus.failed and files[name].reason == ingest.VANISHED, name
    assert "deleted or moved" in ingest.VANISHED
    assert len(Store(tmp_path / "store").doc_ids()) == 1
