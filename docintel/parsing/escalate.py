"""`escalate`: re-parse only the flagged pages with deeper methods, adding rows.

The plan comes from page_df: every baseline page row with ``escalate`` set (or the pages asked
for with ``pages``), routed by the name of each reason ("flat_table: ..." -> the method that
lists ``flat_table``), or to ``settings.escalate.method`` for every page. A page already parsed
by a method is skipped unless ``settings.escalate.force``; ``max_pages`` caps the pages run.

Each run adds, per page x method, the method's line_df rows and one page_df row
(``parsing_method``, ``coverage``, ``context_structured``, ``duration_ms``; ``error`` when the
method raised, in which case the page keeps its baseline and the run reports a failure). Figure
methods also update image_df. Nothing of the baseline is removed.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from docintel.errors import UsageError
from docintel.parsing import methods as registry
from docintel.parsing.fitz import pymupdf
from docintel.parsing.ingest import file_sha256
from docintel.parsing.methods.base import PageInput
from docintel.schemas.escalate import EscalateReport, ItemStatus, PlanItem
from docintel.schemas.tables import LINE_DF, PAGE_DF, to_arrow
from docintel.settings import Settings
from docintel.store import Store
from docintel.store.view import BASELINE_METHODS

log = logging.getLogger("docintel.escalate")
Progress = Callable[[str, int, int], None]


def run_escalate(
    settings: Settings,
    docs: Sequence[str] = (),
    pages: Sequence[int] | None = None,
    progress: Progress | None = None,
) -> EscalateReport:
    """Plan, then (unless dry-run) run and write; returns the report (exit_code 1 on failures)."""
    started = time.perf_counter()
    store = Store(settings.store)
    doc_ids = store.resolve_docs(list(docs))
    esc = settings.escalate
    if esc.method:
        registry.get(esc.method)  # unknown name -> UsageError listing the valid ones
    manifest = store.manifest()["documents"]
    page_df = store.read_table("page_df", doc_ids)
    items = plan(page_df, manifest, doc_ids, pages, settings)
    report = EscalateReport(store=str(store.root), dry_run=esc.dry_run, items=items)
    if not esc.dry_run:
        runnable = [i for i in items if i.status == ItemStatus.planned]
        if runnable:
            with store.lock("escalate"):
                _execute(store, runnable, page_df, manifest, settings, progress)
    _totals(report)
    report.seconds = round(time.perf_counter() - started, 3)
    if not esc.dry_run:
        store.write_run_report("escalate", report.model_dump(mode="json"))
    return report


# -- planning ----------------------------------------------------------------------------------


def base_rows(page_df: pd.DataFrame) -> pd.DataFrame:
    """One baseline page_df row per (doc_id, page_num)."""
    if page_df.empty:
        return page_df
    base = page_df[page_df["parsing_method"].isin(BASELINE_METHODS)]
    missing = page_df[~page_df.set_index(["doc_id", "page_num"]).index.isin(base.set_index(["doc_id", "page_num"]).index)]
    base = pd.concat([base, missing]).drop_duplicates(["doc_id", "page_num"], keep="first")
    return base.sort_values(["doc_id", "page_num"])


def plan(
    page_df: pd.DataFrame,
    manifest: dict[str, Any],
    doc_ids: Sequence[str],
    pages: Sequence[int] | None,
    settings: Settings,
) -> list[PlanItem]:
    """Plan items in document/page order, with skip / cap decisions made."""
    esc = settings.escalate
    done = set()
    if not page_df.empty:
        ok = page_df[page_df["error"].isna()] if "error" in page_df else page_df
        done = set(zip(ok["doc_id"], ok["page_num"].astype(int), ok["parsing_method"]))
    wanted = set(int(p) for p in pages) if pages else None
    items: list[PlanItem] = []
    base = base_rows(page_df)
    for doc_id in doc_ids:
        rows = base[base["doc_id"] == doc_id]
        name = manifest.get(doc_id, {}).get("file_name", doc_id)
        for row in rows.to_dict("records"):
            page_num = int(row["page_num"])
            if wanted is not None:
                if page_num not in wanted:
                    continue
            elif not row.get("escalate"):
                continue
            reasons = [str(r) for r in (row.get("reasons") if row.get("reasons") is not None else [])]
            if esc.method:
                chosen = [esc.method]
            else:
                chosen = list(OrderedDict.fromkeys(m for m in (registry.route(r) for r in reasons) if m))
            common = dict(doc_id=doc_id, doc=name, page=page_num, page_label=row.get("page_label"), reasons=reasons)
            if not chosen:
                items.append(PlanItem(**common, status=ItemStatus.no_method))
                continue
            for method_name in chosen:
                method = registry.get(method_name)
                secs, tokens = method.estimate(row, settings)
                item = PlanItem(**common, method=method_name, est_seconds=secs, est_tokens=tokens)
                if (doc_id, page_num, method_name) in done and not esc.force:
                    item.status = ItemStatus.skipped
                items.append(item)
    if wanted is not None and not items:
        sizes = ", ".join(f"{manifest.get(d, {}).get('file_name', d)}: {int((base['doc_id'] == d).sum())} pages" for d in doc_ids)
        raise UsageError(f"--pages {','.join(map(str, sorted(wanted)))}: no such page in the selected documents ({sizes})")
    if esc.max_pages is not None:
        seen: list[tuple[str, int]] = []
        for item in items:
            if item.status != ItemStatus.planned:
                continue
            key = (item.doc_id, item.page)
            if key not in seen:
                seen.append(key)
            if len(seen) > esc.max_pages:
                item.status = ItemStatus.capped
    return items


# -- running -----------------------------------------------------------------------------------


def _execute(
    store: Store,
    items: list[PlanItem],
    page_df: pd.DataFrame,
    manifest: dict[str, Any],
    settings: Settings,
    progress: Progress | None,
) -> None:
    m = pymupdf()
    base = base_rows(page_df).set_index(["doc_id", "page_num"], drop=False)
    total = len(items)
    counter = 0
    by_doc: dict[str, list[PlanItem]] = OrderedDict()
    for item in items:
        by_doc.setdefault(item.doc_id, []).append(item)
    for doc_id, doc_items in by_doc.items():
        path = manifest.get(doc_id, {}).get("path")
        try:
            if not path or not Path(path).exists():
                raise FileNotFoundError(f"{path or doc_id} is gone; re-ingest it or pass its new path to `docintel ingest`")
            sha = manifest.get(doc_id, {}).get("sha256")
            if sha and file_sha256(Path(path)) != sha:  # its pages are another document's now
                raise ValueError(f"{path} changed since it was ingested; run `docintel ingest {path}` first")
            pdf = m.open(path)
        except Exception as e:  # the whole document fails, the others go on
            for item in doc_items:
                item.status, item.error = ItemStatus.failed, f"cannot open: {e}"
            counter += len(doc_items)
            continue
        lines = store.read_table("line_df", [doc_id], filters=[("page_num", "in", sorted({i.page for i in doc_items}))])
        images = store.read_table("image_df", [doc_id])
        new_lines: list[dict[str, Any]] = []
        new_pages: list[dict[str, Any]] = []
        image_updates: list[dict[str, Any]] = []
        emptied: set[tuple[str, int]] = set()
        for item in doc_items:
            if progress:
                progress(f"{item.doc} p{item.page} {item.method}", counter, total)
            method = registry.get(item.method)
            row = dict(base.loc[(doc_id, item.page)]) if (doc_id, item.page) in base.index else {"doc_id": doc_id, "page_num": item.page}
            baseline = lines[(lines["page_num"] == item.page) & lines["parsing_method"].isin(BASELINE_METHODS)]
            page_images = images[images["page_num"] == item.page] if not images.empty else None
            t0 = time.perf_counter()
            try:
                if item.page < 1 or item.page > pdf.page_count:
                    raise ValueError(f"page {item.page} is outside the document (1-{pdf.page_count})")
                page_input = PageInput(doc_id, item.page, pdf[item.page - 1], settings, baseline, page_images, tuple(item.reasons))
                result = method.run(page_input)
                rows = result.lines
                to_arrow(rows, LINE_DF)  # validate before anything is written
            except Exception as e:  # noqa: BLE001 - a method bug must not stop the run
                ms = (time.perf_counter() - t0) * 1000
                item.status, item.error, item.seconds = ItemStatus.failed, f"{type(e).__name__}: {e}", round(ms / 1000, 3)
                log.warning("%s p%d: %s failed: %s", item.doc, item.page, item.method, e)
                new_pages.append(_page_row(row, method, 0, ms, error=item.error))
                counter += 1
                continue
            ms = (time.perf_counter() - t0) * 1000
            new_lines.extend(rows)
            if not rows:
                emptied.add((item.method, item.page))
            new_pages.append(_page_row(row, method, len(rows), ms, ocr_confidence=result.ocr_confidence,
                                       chars=sum(len(r.get("text") or "") for r in rows), structured=result.structured))
            for im in result.images:
                image_updates.append({"page_num": item.page, **im})
            item.status, item.seconds, item.n_lines = ItemStatus.done, round(ms / 1000, 3), len(rows)
            item.tokens, item.notes = result.tokens, list(result.notes)
            counter += 1
        pdf.close()
        _write(store, doc_id, new_lines, new_pages, image_updates, emptied, images)
    if progress:
        progress("done", total, total)


def _page_row(base: dict[str, Any], method: Any, n_lines: int, ms: float, error: str | None = None,
              ocr_confidence: float | None = None, chars: int | None = None,
              structured: bool | None = None) -> dict[str, Any]:
    row = {k: base.get(k) for k in PAGE_DF.names}
    structured = method.structured if structured is None else structured
    row.update(
        parsing_method=method.name,
        n_lines=n_lines,
        escalate=False,
        context_structured=bool(structured and n_lines and not error),
        coverage=method.coverage,
        ocr_confidence=ocr_confidence,
        duration_ms=round(ms, 2),
        error=error,
    )
    if chars is not None:
        row["char_count"] = chars
    return row


def _write(store: Store, doc_id: str, lines: list[dict[str, Any]], pages: list[dict[str, Any]],
           image_updates: list[dict[str, Any]], emptied: set[tuple[str, int]], images: pd.DataFrame) -> None:
    if emptied:  # a re-run that found nothing must not leave the method's old rows behind
        old = store.read_table("line_df", [doc_id])
        stale = pd.Series([(m, int(p)) in emptied for m, p in zip(old["parsing_method"], old["page_num"])], dtype=bool)
        if stale.any():
            store.replace_rows(doc_id, "line_df", to_arrow(old[~stale.to_numpy()], LINE_DF))
    if lines:
        store.add_rows(doc_id, "line_df", to_arrow(lines, LINE_DF))
    if pages:
        store.add_rows(doc_id, "page_df", to_arrow(pages, PAGE_DF))
    if image_updates and not images.empty:
        from docintel.schemas.tables import IMAGE_DF

        df = images.copy()
        for up in image_updates:
            hit = (df["page_num"] == up["page_num"]) & (df["image_idx"] == up["image_idx"])
            df.loc[hit, "parsing_method"] = up.get("parsing_method")
            if up.get("description") is not None:
                df.loc[hit, "description"] = up["description"]
        store.replace_rows(doc_id, "image_df", to_arrow(df, IMAGE_DF))


def _totals(report: EscalateReport) -> None:
    s = ItemStatus
    items = report.items
    attempted = [i for i in items if i.status in (s.planned, s.done, s.failed)]
    report.planned = len(attempted)
    report.done = sum(1 for i in items if i.status == s.done)
    report.failed = sum(1 for i in items if i.status == s.failed)
    report.skipped = sum(1 for i in items if i.status == s.skipped)
    report.capped = sum(1 for i in items if i.status == s.capped)
    report.est_seconds = round(sum(i.est_seconds for i in attempted), 2)
    report.est_tokens = sum(i.est_tokens for i in attempted)
    report.tokens = sum(i.tokens for i in items)
