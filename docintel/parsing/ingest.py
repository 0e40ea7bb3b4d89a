"""`ingest`: find PDFs, skip what the store already holds, parse the rest, write atomically.

The parent process hashes files, holds the store lock and is the only writer; documents are
parsed in this process (``workers == 1``) or in a process pool (forked on Linux when this
process has no other thread, spawned otherwise; see :func:`start_method`) whose workers need
only :mod:`docintel.parsing.document`. One bad file never stops the run: it is recorded with a
one-line reason and the report's exit code becomes 1.
"""

from __future__ import annotations

import hashlib
import os
import time
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Iterable, Sequence

from docintel.errors import DocumentError, UsageError
from docintel.schemas.ingest import FileResult, FileStatus, IngestReport, PrunedDocument
from docintel.settings import Settings
from docintel.store.fingerprint import PARSE_CODE, code_fingerprint, parsed_by_other_code

Progress = Callable[[str, int, int], None]


def discover(paths: Sequence[Path | str], known: Sequence[str] = ()) -> tuple[list[Path], list[Path]]:
    """(PDF files under ``paths``, the other files their folders hold): folders walked recursively
    (*.pdf, any case; hidden files and folders left out of both), files as given.

    ``known`` (paths recorded in the store, for ``--prune``): a missing PATH or one holding no
    PDF is no error when stored documents lie under it (they are about to be pruned).
    """
    if not paths:
        raise UsageError("no PATH given: pass PDF files or folders, e.g. `docintel ingest corpora/`")
    found: dict[Path, None] = {}
    others: dict[Path, None] = {}
    for raw in paths:
        p = Path(raw).expanduser()
        if not p.exists():
            if any(under(k, [p]) for k in known):
                continue
            raise UsageError(f"{raw}: no such file or folder; check the path")
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts):
                    (found if f.suffix.lower() == ".pdf" else others).setdefault(f.resolve(), None)
        else:
            found.setdefault(p.resolve(), None)
    if not found and not any(under(k, paths) for k in known):
        held = f" (they hold {len(others)} other file(s), e.g. {others_named(list(others))})" if others else ""
        raise UsageError(f"no PDF files found under {', '.join(str(p) for p in paths)}{held}; pass a folder holding "
                         "*.pdf files, or a PDF named otherwise by its path")
    return list(found), [f for f in others if f not in found]


def others_named(files: Sequence[Path | str], n: int = 3) -> str:
    """The first ``n`` of ``files`` by name, and how many more ("a.txt, b.doc and 4 more")."""
    names = ", ".join(Path(f).name for f in files[:n])
    return names + (f" and {len(files) - n} more" if len(files) > n else "")


def under(path: str | Path, roots: Sequence[Path | str]) -> bool:
    """True when ``path`` is one of ``roots`` or lies inside one of them (both made absolute)."""
    p = Path(os.path.abspath(Path(path).expanduser()))
    for root in roots:
        r = Path(os.path.abspath(Path(root).expanduser()))
        if p == r or r in p.parents:
            return True
    return False


def prune(store, roots: Sequence[Path | str]) -> list[PrunedDocument]:
    """Remove stored documents whose recorded path lies under ``roots`` and no longer exists.

    Documents recorded outside ``roots`` are never touched. Call under the store lock, after
    the run's files were ingested (a moved file has been relocated by then).
    """
    gone = []
    for doc_id, entry in sorted(store.manifest()["documents"].items()):
        path = entry.get("path")
        if path and under(path, roots) and not os.path.exists(path):
            store.remove_document(doc_id)
            gone.append(PrunedDocument(doc_id=doc_id, path=path))
    return gone


VANISHED = "the file was deleted or moved while the ingest ran: nothing stored for it; run ingest again"
"""The one reason given for a file that went away mid-run, wherever that was noticed."""
STALE = ("unchanged, but parsed by other docintel parsing code (an older version): `ingest --force` re-parses it "
         "with this one, and `escalate` then re-runs its deeper methods")
"""The reason given for a stored document whose ``parsed_by`` is not this code's fingerprint."""


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def parse_file(path: str, doc_id: str, sha256: str, ocr_dpi: int, ocr_lang: str):
    """Worker entry point (top-level so a spawned process can unpickle it)."""
    from docintel.parsing.document import parse_document

    return parse_document(path, doc_id, sha256, ocr_dpi=ocr_dpi, ocr_lang=ocr_lang)


def run_ingest(paths: Sequence[Path | str], settings: Settings, progress: Progress | None = None) -> IngestReport:
    """Parse every new or changed PDF under ``paths`` into ``settings.store``."""
    from docintel.store import Store
    from docintel.store.store import check_store_path

    start = time.perf_counter()
    cfg = settings.ingest
    check_store_path(Path(settings.store))
    store = Store(settings.store)
    recorded = [e.get("path") or "" for e in store.manifest()["documents"].values()] if cfg.prune else []
    files, others = discover(paths, known=[p for p in recorded if p and not os.path.exists(p)])
    report = IngestReport(store=str(store.root), workers=cfg.workers, force=cfg.force, not_pdf=[str(f) for f in others])
    results: dict[Path, FileResult] = {}
    parsed_by = code_fingerprint(PARSE_CODE)
    with store.lock("ingest"):
        known = store.manifest()["documents"]
        older = parsed_by_other_code(known, parsed_by)
        on_disk = set(store.doc_ids())
        todo: list[tuple[Path, str, str]] = []
        seen: dict[str, Path] = {}
        for path in files:
            try:
                sha = file_sha256(path)
            except OSError as e:
                reason = VANISHED if not path.exists() else f"cannot read file: {e.strerror or e}"
                results[path] = FileResult(path=str(path), status=FileStatus.failed, reason=reason)
                continue
            doc_id = sha[:16]
            if doc_id in seen:
                results[path] = FileResult(path=str(path), status=FileStatus.duplicate, doc_id=doc_id, reason=f"same content as {seen[doc_id]}")
                continue
            seen[doc_id] = path
            if doc_id in on_disk and not cfg.force:
                stored = known.get(doc_id, {}).get("path")
                if stored != str(path) and not (stored and os.path.exists(stored)):
                    store.relocate(doc_id, path)  # renamed or moved: escalate reads it from here now
                stale = doc_id in older or doc_id not in known
                results[path] = FileResult(
                    path=str(path), status=FileStatus.unchanged, doc_id=doc_id,
                    n_pages=int(known.get(doc_id, {}).get("n_pages") or 0),
                    reason=STALE if stale else "unchanged since last ingest (use --force to re-parse)",
                    stale=stale,
                )
                continue
            todo.append((path, doc_id, sha))
        done = 0
        total = len(todo)
        if progress:
            progress("parsing", 0, total)
        for path, doc_id, sha, outcome in _parse_all(todo, cfg.workers, cfg.ocr_dpi, cfg.ocr_lang):
            results[path] = _store_result(store, path, doc_id, sha, outcome, parsed_by)
            done += 1
            if progress:
                progress(path.name, done, total)
        report.files = [results[p] for p in files if p in results]
        if cfg.prune:
            report.pruned = prune(store, paths)
        report.seconds = round(time.perf_counter() - start, 3)
        report.finish()
        report.run_report = str(store.write_run_report("ingest", report.model_dump(mode="json")))
    return report


def _parse_all(todo: list[tuple[Path, str, str]], workers: int, ocr_dpi: int, ocr_lang: str) -> Iterable[tuple[Path, str, str, object]]:
    """Yield (path, doc_id, sha, ParsedDocument | Exception) as documents finish.

    With N workers and forking, N forked processes parse, biggest files first, and this process
    writes. When spawning, N - 1 processes take the biggest files first while this process
    (otherwise idle between writes) parses the smallest ones: one slow process start-up fewer.
    """
    def here(path: Path, doc_id: str, sha: str) -> object:
        try:
            return parse_file(str(path), doc_id, sha, ocr_dpi, ocr_lang)
        except Exception as e:
            return e

    if workers <= 1 or len(todo) <= 1:
        for path, doc_id, sha in todo:
            yield path, doc_id, sha, here(path, doc_id, sha)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, wait

    from docintel.parsing.document import parse_document, worker_init

    # biggest files first: the pool works from the front of the queue, this process steals
    # from the back (a task the pool has not started yet can be cancelled and parsed here)
    order = sorted(todo, key=lambda t: t[0].stat().st_size, reverse=True)
    ctx = multiprocessing.get_context(start_method())
    forked = ctx.get_start_method() == "fork"
    # a forked worker starts in ~0.04 s: N of them parse while this process only writes (it
    # cannot steal a task the pool has already queued, so parsing here left it idle at the end);
    # a spawned worker costs ~0.9 s to start: N - 1 of them, and this process parses too
    n_procs = min(workers, len(todo)) if forked else min(workers - 1, len(todo) - 1)
    if forked:
        preload()  # the children inherit these modules instead of importing them again
    pool = ProcessPoolExecutor(max_workers=n_procs, mp_context=ctx, initializer=worker_init)
    try:
        futures: dict[Future, tuple[Path, str, str]] = {
            pool.submit(parse_document, str(p), d, s, ocr_dpi, ocr_lang): (p, d, s) for p, d, s in order
        }
        queue = list(futures)  # big -> small

        def harvest(done: Iterable[Future]) -> Iterable[tuple[Path, str, str, object]]:
            for fut in done:
                path, doc_id, sha = futures.pop(fut)
                try:
                    outcome: object = fut.result()
                except Exception as e:  # includes BrokenProcessPool when a worker dies
                    outcome = e
                yield path, doc_id, sha, outcome

        while futures:
            yield from harvest([f for f in list(futures) if f.done()])
            stolen = None
            while queue and stolen is None and not forked:
                fut = queue.pop()
                if fut in futures and fut.cancel():
                    stolen = fut
            if stolen is not None:
                path, doc_id, sha = futures.pop(stolen)
                yield path, doc_id, sha, here(path, doc_id, sha)
            elif futures:
                done, _ = wait(list(futures), return_when=FIRST_COMPLETED)
                yield from harvest(done)
    finally:
        # interrupted (Ctrl-C, a failed write): drop the files not started, wait only for the running
        pool.shutdown(wait=True, cancel_futures=True)


START_METHOD: str | None = None
"""Force a multiprocessing start method for the ingest pool (benchmarks compare them)."""


def start_method() -> str:
    """"fork" on Linux when this process runs no other thread, else "spawn".

    A forked worker inherits the parsing modules this process has imported (a spawned one spends
    ~0.9 s of CPU importing pymupdf, pyarrow and pandas before its first page). Forking is only
    safe without other threads (a lock held by one would stay locked in the child), so a run
    under a live progress bar, or on macOS / Windows, spawns.
    """
    import multiprocessing
    import sys
    import threading

    if START_METHOD:
        return START_METHOD
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return "fork"
    return "spawn"


def preload() -> None:
    """Import what a worker's parse needs (PyMuPDF, pandas, the parsing and structure modules)."""
    import importlib
    import pkgutil

    import pandas  # noqa: F401 (structure tables go through pandas)
    import pyarrow.pandas_compat  # noqa: F401

    from docintel.parsing import structure
    from docintel.parsing.fitz import pymupdf

    pymupdf()
    for mod in pkgutil.iter_modules(structure.__path__):
        importlib.import_module(f"{structure.__name__}.{mod.name}")
    for name in ("baseline", "columns", "grid", "signals", "images", "ocr", "page_labels"):
        importlib.import_module(f"docintel.parsing.{name}")


def _store_result(store, path: Path, doc_id: str, sha: str, outcome: object, parsed_by: str) -> FileResult:
    from docintel.parsing.document import ParsedDocument

    if not isinstance(outcome, ParsedDocument):
        if not path.exists():  # whatever the parse tripped over, the file going is the cause
            reason = VANISHED
        elif isinstance(outcome, DocumentError):
            reason = outcome.message
        elif type(outcome).__name__ == "BrokenProcessPool":
            reason = "the worker process parsing this file died (MuPDF crash?); retry with --workers 1"
        else:
            reason = f"unexpected {type(outcome).__name__}: {' '.join(str(outcome).split())[:200]}"
        return FileResult(path=str(path), status=FileStatus.failed, doc_id=doc_id, reason=reason)
    parsed = outcome
    entry = {
        "path": str(path),
        "file_name": path.name,
        "sha256": sha,
        "n_pages": parsed.n_pages,
        "n_ocr_pages": parsed.n_ocr_pages,
        "ingested_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "page_errors": len(parsed.page_errors),
        "parsed_by": parsed_by,  # the parsing code's fingerprint (docintel.store.fingerprint)
    }
    try:
        store.write_document(doc_id, parsed.tables, entry)
    except OSError as e:
        return FileResult(path=str(path), status=FileStatus.failed, doc_id=doc_id, reason=f"could not write the store: {e}")
    # a changed file replaces its old version(s)
    replaced = [
        old for old, e in store.manifest()["documents"].items() if old != doc_id and e.get("path") == str(path)
    ]
    for old in replaced:
        store.remove_document(old)
    problems = parsed.page_errors + parsed.warnings
    status = FileStatus.partial if problems else FileStatus.ingested
    reason = None
    if problems:
        reason = problems[0] if len(problems) == 1 else f"{problems[0]} (+{len(problems) - 1} more)"
    return FileResult(
        path=str(path),
        status=status,
        doc_id=doc_id,
        reason=reason,
        replaced=replaced,
        n_pages=parsed.n_pages,
        n_ocr_pages=parsed.n_ocr_pages,
        flagged=parsed.flagged,
        page_errors=parsed.page_errors,
        seconds=parsed.seconds,
    )
