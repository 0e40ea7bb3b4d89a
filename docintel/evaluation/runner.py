"""Run golden questions through `ask` and check every expectation.

Without an explicit store (``settings.eval.own_store``), the documents a golden file lists are
ingested and escalated into a store of eval's own, ``<golden dir>/.docintel-eval`` (shared by
the golden files of that folder). Both steps are incremental, so a re-run only pays for what
changed. Each question then runs in one mode:

- ``loop``: the default pipeline (the settings' top_k and max_loops),
- ``naive``: top-1 page, one pass, no reference loop,
- ``topk``: top-3 pages, one pass, no reference loop.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from docintel.errors import DocintelError, ExitCode, UsageError
from docintel.evaluation.checks import ANSWER_CHECKS, check
from docintel.evaluation.golden import load_golden_files
from docintel.schemas.answers import AskResult, Completeness
from docintel.schemas.evaluation import (
    CompareReport,
    EvalMode,
    EvalReport,
    GoldenFile,
    GoldenQuestion,
    ModeSummary,
    QuestionResult,
)
from docintel.settings import Settings
from docintel.store.fingerprint import STORE_CODE, code_files, code_fingerprint

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
AskFn = Callable[[str, Settings], AskResult]

EVAL_STORE_DIR = ".docintel-eval"
CHARS_PER_TOKEN = 4
"""Token estimate for text read without an LLM (the usual ~4 characters per token)."""


def run_eval(
    golden_files: Sequence[Path | str],
    settings: Settings,
    mode: str | EvalMode = "loop",
    progress: Progress | None = None,
    ask: AskFn | None = None,
) -> EvalReport:
    """Run every question of ``golden_files`` in ``mode``; returns an EvalReport.

    ``ask`` replaces :func:`docintel.api.ask` (tests); it is called as ``ask(question, settings)``.
    """
    mode = _mode(mode)
    files = load_golden_files(golden_files)
    t0 = time.perf_counter()
    stores = prepare_stores(files, settings, progress)
    setup = time.perf_counter() - t0
    return _run_mode(files, stores, settings, mode, progress, ask, setup)


def run_compare(
    golden_files: Sequence[Path | str],
    settings: Settings,
    progress: Progress | None = None,
    ask: AskFn | None = None,
) -> CompareReport:
    """The same questions in every mode (loop, naive, topk): the measured case for the loop."""
    files = load_golden_files(golden_files)
    t0 = time.perf_counter()
    stores = prepare_stores(files, settings, progress)
    setup = time.perf_counter() - t0
    reports = [_run_mode(files, stores, settings, m, progress, ask, setup) for m in EvalMode]
    return CompareReport(reports=reports)


def _mode(mode: str | EvalMode) -> EvalMode:
    try:
        return EvalMode(mode)
    except ValueError:
        raise UsageError(f"unknown eval mode {mode!r}; use one of: {', '.join(m.value for m in EvalMode)}")


# -- stores ---------------------------------------------------------------------------------


def eval_store_root(golden: GoldenFile) -> Path:
    """Eval's own store for a golden file: beside it, shared by its folder."""
    assert golden.path is not None
    return golden.path.parent / EVAL_STORE_DIR


def prepare_stores(files: Sequence[GoldenFile], settings: Settings, progress: Progress | None = None) -> dict[Path, Path]:
    """golden file path -> store root; ingests and escalates into eval's own stores if needed."""
    if not settings.eval.own_store:
        return {g.path: settings.store for g in files}  # type: ignore[misc]
    by_root: dict[Path, list[GoldenFile]] = defaultdict(list)
    for g in files:
        by_root[eval_store_root(g)].append(g)
    out: dict[Path, Path] = {}
    for root, group in by_root.items():
        paths: list[Path] = []
        for g in group:
            out[g.path] = root  # type: ignore[index]
            paths.extend(p for p in g.document_paths() if p not in paths and p.is_file())
        if paths:
            _build_store(root, paths, settings, progress)
    return out


FINGERPRINT_FILE = "eval-fingerprint.json"


def store_files() -> list[Path]:
    """The files :func:`code_fingerprint` hashes: the code that decides what an eval store holds
    (``docintel.store.fingerprint.STORE_CODE``). Ask-time code (search, the loop, generation,
    question schemas) is not cached, so changing it does not rebuild the eval stores."""
    return code_files(STORE_CODE)


def _parse_settings(settings: Settings) -> dict:
    """The settings that change what ingest and escalate write (a new OCR resolution rebuilds)."""
    keep_ingest = ("ocr_lang", "ocr_dpi")
    keep_escalate = ("method", "max_pages", "ocr_dpi", "vision_model")
    return {"ingest": {k: getattr(settings.ingest, k) for k in keep_ingest},
            "escalate": {k: getattr(settings.escalate, k) for k in keep_escalate}}


def _stamp(settings: Settings) -> dict:
    return {"code": code_fingerprint(), "settings": _parse_settings(settings)}


def _reset_if_stale(root: Path, settings: Settings) -> None:
    """Drop eval's own store when the store-building code or settings changed since it was built."""
    import json
    import shutil

    stamp = root / FINGERPRINT_FILE
    if not root.exists():
        return
    try:
        built = json.loads(stamp.read_text())
    except (OSError, ValueError):
        built = None
    if built != _stamp(settings) and root.name == EVAL_STORE_DIR:
        log.info("eval store %s was built by other parsing code or settings: rebuilding it", root)
        shutil.rmtree(root)


def _build_store(root: Path, paths: list[Path], settings: Settings, progress: Progress | None) -> None:
    import json

    from docintel import api
    from docintel.store.atomic import write_bytes

    _reset_if_stale(root, settings)
    s = settings.model_copy(update={"store": root, "json_output": False, "quiet": True}, deep=True)
    s.ingest.force = False
    s.escalate.force = False
    s.escalate.dry_run = False
    log.info("eval store %s: ingest + escalate %d documents (incremental)", root, len(paths))
    report = api.ingest(paths, s, progress=progress)
    failed = _failed_inputs(report)
    if failed:
        raise UsageError(
            f"eval could not ingest {', '.join(failed)} into {root}; fix or drop them from the golden file"
        )
    api.escalate(s, docs=[p.name for p in paths], progress=progress)
    write_bytes(root / FINGERPRINT_FILE, json.dumps(_stamp(settings)).encode())


def _failed_inputs(report: object) -> list[str]:
    """Names of the documents ingest could not store at all (an IngestReport's failed files).

    A "partial" file (some pages failed) is stored and still usable, so eval goes on with it.
    """
    out = []
    for f in getattr(report, "files", None) or []:
        status = getattr(getattr(f, "status", None), "value", getattr(f, "status", None))
        if status == "failed":
            out.append(f"{Path(f.path).name} ({f.reason})" if getattr(f, "reason", None) else Path(f.path).name)
    return out


# -- running --------------------------------------------------------------------------------


def question_settings(settings: Settings, store: Path, golden: GoldenFile, q: GoldenQuestion, mode: EvalMode) -> Settings:
    """The Settings one question runs with: its store, its doc scope, the mode's budget."""
    s = settings.model_copy(update={"store": store, "json_output": False, "quiet": True}, deep=True)
    if q.doc:
        s.ask.docs = [q.doc]
    elif golden.documents:  # a shared (or explicit) store may hold more than this file is about
        s.ask.docs = [Path(d).name for d in golden.documents]
    s.ask.trace = None
    s.ask.top_k, s.ask.max_loops = mode_budget(mode, settings)
    return s


MODE_BUDGETS = {EvalMode.naive: (1, 0), EvalMode.topk: (3, 0)}
"""(top_k, max_loops) of the comparison modes; loop mode keeps the settings' own budget."""


def mode_budget(mode: EvalMode, settings: Settings) -> tuple[int, int]:
    return MODE_BUDGETS.get(mode, (settings.ask.top_k, settings.ask.max_loops))


def _run_mode(
    files: Sequence[GoldenFile],
    stores: dict[Path, Path],
    settings: Settings,
    mode: EvalMode,
    progress: Progress | None,
    ask: AskFn | None,
    setup_seconds: float,
) -> EvalReport:
    if ask is None:
        from docintel import api

        ask = api.ask
    todo = [(g, q) for g in files for q in g.questions]
    results: list[QuestionResult] = []
    for i, (g, q) in enumerate(todo):
        if progress:
            progress(f"{mode.value} {q.id}", i, len(todo))
        missing = g.missing_documents()
        if missing:  # only possible with skip_missing_documents (the loader refuses otherwise)
            results.append(QuestionResult(id=q.id, golden_file=str(g.path), question=q.question, tags=q.tags,
                                          mode=mode, passed=True, skipped=f"missing document {missing[0]}"))
            continue
        store = stores[g.path]  # type: ignore[index]
        results.append(run_question(q, g, question_settings(settings, store, g, q, mode), mode, ask))
    if progress:
        progress(mode.value, len(todo), len(todo))
    budget = mode_budget(mode, settings)
    return EvalReport(
        mode=mode,
        store=", ".join(sorted({str(s) for s in stores.values()})),
        golden_files=[str(g.path) for g in files],
        generator=settings.ask.generator,
        top_k=budget[0],
        max_loops=budget[1],
        results=results,
        summary=summarise(mode, results),
        setup_seconds=round(setup_seconds, 3),
    )


def run_question(q: GoldenQuestion, golden: GoldenFile, s: Settings, mode: EvalMode, ask: AskFn) -> QuestionResult:
    """Ask one question and check it. An error with the usage exit code (unknown doc, empty
    store, unreachable LLM endpoint) aborts the run (exit 2); any other failure of ask fails this
    question with the error as its message."""
    import tempfile

    base = dict(id=q.id, golden_file=str(golden.path), question=q.question, tags=q.tags, mode=mode, known_gap=q.known_gap)
    with tempfile.TemporaryDirectory(prefix="docintel-eval-") as tmp:
        s.ask.trace = Path(tmp) / "trace.json"  # what the generator read: the cost columns
        t0 = time.perf_counter()
        try:
            result = ask(q.question, s)
        except DocintelError as e:
            if e.exit_code == ExitCode.USAGE:
                # the run is misconfigured (unknown doc, empty store, unreachable endpoint): exit 2, say where
                raise UsageError(f"{Path(str(golden.path)).name}: question {q.id}: {e.message}") from e
            log.warning("%s: ask failed: %s", q.id, e)  # e.g. an LLM timeout: this question fails, the run goes on
            return QuestionResult(**base, passed=False, error=f"{type(e).__name__}: {e}",
                                  seconds=round(time.perf_counter() - t0, 3))
        except Exception as e:  # a crash inside ask is a regression of this question, not of eval
            log.warning("%s: ask failed: %s: %s", q.id, type(e).__name__, e)
            return QuestionResult(**base, passed=False, error=f"{type(e).__name__}: {e}",
                                  seconds=round(time.perf_counter() - t0, 3))
        seconds = time.perf_counter() - t0
        read = _read_from_trace(s.ask.trace)
    pages_read, tokens_read, page_text = reading_cost(s.store, result, read)
    checks = check(q.expect, result, grounding_text=page_text)
    return QuestionResult(
        **base,
        passed=all(c.passed for c in checks),
        checks=checks,
        answer=result.answer,
        answer_completeness=result.answer_completeness,
        verdict=result.verdict,
        passes=result.passes,
        pages_read=pages_read,
        tokens_read=tokens_read,
        llm_calls=result.llm_calls,
        seconds=round(seconds, 3),
    )


def _read_from_trace(path: Path) -> tuple[set[tuple[str, int]], int] | None:
    """(distinct pages, characters) of the passages handed to the generator, over all passes.

    Read from ask's ``--trace`` record (passes[].generator_input.passages[].lines[].text); None
    when there is no trace or it has another shape (the caller then falls back to citations).
    """
    import json

    try:
        trace = json.loads(Path(path).read_text())
        pages: set[tuple[str, int]] = set()
        chars = 0
        for p in trace["passes"]:
            for passage in p["generator_input"]["passages"]:
                pages.add((passage["doc_id"], int(passage["page"])))
                chars += sum(len(line.get("text") or "") for line in passage.get("lines") or [])
        return pages, chars
    except (OSError, ValueError, KeyError, TypeError):
        return None


def reading_cost(
    store_root: Path, result: AskResult, read: tuple[set[tuple[str, int]], int] | None = None
) -> tuple[int, int, str]:
    """(pages read, tokens read, text of the cited pages).

    Pages read are the distinct pages whose lines reached the generator (from ask's trace; else
    the cited pages). Tokens read are the LLM's prompt tokens when an LLM answered, else an
    estimate (characters / 4) of the text handed to the generator over all passes: what a model
    would have had to read to give this answer.
    """
    cited = sorted({(c.doc_id, c.page) for c in result.citations})
    text = ""
    if cited:
        try:
            from docintel.store import Store
            from docintel.store.view import best_lines

            store = Store(store_root)
            by_doc: dict[str, list[int]] = defaultdict(list)
            for doc_id, page in cited:
                by_doc[doc_id].append(page)
            chunks = []
            for doc_id, doc_pages in by_doc.items():
                lines = best_lines(store, doc_id, doc_pages)
                if not lines.empty:
                    chunks.append("\n".join(str(t) for t in lines["text"]))
            text = "\n".join(chunks)
        except Exception as e:  # cost accounting must never fail a question
            log.debug("reading cost: %s", e)
    if read is not None:
        pages, chars = len(read[0]), read[1]
    else:
        pages, chars = len(cited), len(text)
    tokens = result.tokens.prompt if result.llm_calls else chars // CHARS_PER_TOKEN
    return pages, tokens, text


def summarise(mode: EvalMode, results: Sequence[QuestionResult]) -> ModeSummary:
    """Aggregates over the questions that ran (skipped ones are left out)."""
    skipped = sum(1 for r in results if r.skipped)
    results = [r for r in results if not r.skipped]
    n = len(results) or 1

    def answer_ok(r: QuestionResult) -> bool:
        return r.error is None and all(c.passed for c in r.checks if c.name in ANSWER_CHECKS)

    def complete(r: QuestionResult) -> bool:
        return r.answer_completeness == Completeness.complete

    by_tag: dict[str, dict[str, float]] = {}
    tags = sorted({t for r in results for t in r.tags})
    for t in tags:
        rs = [r for r in results if t in r.tags]
        by_tag[t] = {
            "questions": len(rs),
            "pass_rate": round(sum(r.passed for r in rs) / len(rs), 4),
            "answer_pass_rate": round(sum(answer_ok(r) for r in rs) / len(rs), 4),
            "completeness_rate": round(sum(complete(r) for r in rs) / len(rs), 4),
            # the answer checks hold and the answer is complete, whichever page it came from
            "answered_rate": round(sum(answer_ok(r) and complete(r) for r in rs) / len(rs), 4),
        }
    return ModeSummary(
        mode=mode,
        questions=len(results),
        skipped=skipped,
        passed=sum(r.passed for r in results),
        completeness_rate=round(sum(complete(r) for r in results) / n, 4),
        answer_pass_rate=round(sum(answer_ok(r) for r in results) / n, 4),
        pass_rate=round(sum(r.passed for r in results) / n, 4),
        pages_per_question=round(sum(r.pages_read for r in results) / n, 2),
        tokens_per_question=round(sum(r.tokens_read for r in results) / n, 1),
        llm_calls=sum(r.llm_calls for r in results),
        seconds=round(sum(r.seconds for r in results), 3),
        by_tag=by_tag,
    )
