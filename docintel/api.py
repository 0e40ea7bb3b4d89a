"""The library's public entry points. The CLI calls exactly one of these per command.

Each function takes a Settings and returns a typed report; nothing here prints. Long runs
report progress through an optional ``progress(label, done, total)`` callback.

This module sequences bricks that do not know each other: parsing writes the store, then the
retrieval index is brought up to date from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from docintel.settings import Settings

if TYPE_CHECKING:
    from docintel.schemas.answers import AskResult

Progress = Callable[[str, int, int], None]


def ingest(paths: Sequence[Path], settings: Settings, progress: Progress | None = None):
    """Parse every PDF under ``paths`` into the store (incremental); returns an IngestReport."""
    from docintel.parsing.ingest import run_ingest
    from docintel.retrieval.index import update_index
    from docintel.store import Store

    report = run_ingest(paths, settings, progress=progress)
    update_index(Store(settings.store))
    return report


def escalate(
    settings: Settings,
    docs: Sequence[str] = (),
    pages: Sequence[int] | None = None,
    progress: Progress | None = None,
):
    """Re-parse flagged pages with deeper methods, adding rows; returns an EscalateReport."""
    from docintel.parsing.escalate import run_escalate
    from docintel.retrieval.index import update_index
    from docintel.store import Store

    report = run_escalate(settings, docs=docs, pages=pages, progress=progress)
    if not settings.escalate.dry_run:
        update_index(Store(settings.store))
    return report


def escalate_methods() -> list[dict]:
    """The registered escalation methods: name, reasons routed to it, coverage, description."""
    from docintel.parsing import methods

    out = []
    for name in methods.names():
        m = methods.get(name)
        out.append({"name": name, "reasons": list(m.reasons), "coverage": m.coverage,
                    "structured": m.structured, "description": m.description})
    return out


def ask(question: str, settings: Settings) -> "AskResult":
    """Answer ``question`` from the store with the cross-reference loop."""
    from docintel.orchestrator.loop import answer

    return answer(question, settings)


def evaluate(golden_files: Sequence[Path], settings: Settings, mode: str = "loop", progress: Progress | None = None):
    """Run golden questions; returns an EvalReport (``mode``: loop | naive | topk)."""
    from docintel.evaluation.runner import run_eval

    return run_eval(golden_files, settings, mode=mode, progress=progress)


def evaluate_compare(golden_files: Sequence[Path], settings: Settings, progress: Progress | None = None):
    """Run golden questions in every mode (loop, naive, topk); returns a CompareReport."""
    from docintel.evaluation.runner import run_compare

    return run_compare(golden_files, settings, progress=progress)


def documents(settings: Settings) -> list[dict]:
    """Stored documents (one record per document version), for `docintel docs`."""
    from docintel.store.overview import list_documents

    return list_documents(settings)


def stale_files(settings: Settings, doc_ids: set[str]) -> list[str]:
    """File names of the stored documents among ``doc_ids`` that an older docintel parsed."""
    from docintel.store.overview import stale_files

    return stale_files(settings, doc_ids)


def pages(settings: Settings, doc: str) -> dict:
    """Per-page signals and reasons of one document, for `docintel pages DOC`."""
    from docintel.store.overview import page_signals

    return page_signals(settings, doc)


def toc(settings: Settings, doc: str) -> dict:
    """The table of contents (toc_df) of one document, for `docintel toc DOC`."""
    from docintel.store.overview import table_of_contents

    return table_of_contents(settings, doc)
