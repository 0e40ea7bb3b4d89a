"""The report of one `docintel ingest` run (``--json`` prints ``IngestReport.model_dump(mode="json")``)."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field


class FileStatus(str, Enum):
    ingested = "ingested"
    """Parsed and written to the store."""
    partial = "partial"
    """Written to the store, but some pages failed or the file needed repair (counts as a failure)."""
    unchanged = "unchanged"
    """Same content hash already in the store; skipped (use --force to re-parse)."""
    duplicate = "duplicate"
    """Same content as another file of this run; parsed once."""
    failed = "failed"
    """Nothing written: corrupt, encrypted, empty or not a PDF."""


class FileResult(BaseModel):
    """What happened to one input file."""

    path: str = Field(description="The file as found on disk (absolute).")
    status: FileStatus
    doc_id: str | None = Field(None, description="First 16 hex digits of the content sha256 (null if unreadable).")
    reason: str | None = Field(None, description="One line: why the file failed, was skipped or is partial.")
    replaced: list[str] = Field(default_factory=list, description="doc_ids of older versions of this path removed.")
    n_pages: int = 0
    n_ocr_pages: int = Field(0, description="Pages whose baseline came from Tesseract.")
    flagged: dict[str, int] = Field(default_factory=dict, description="Flagged pages by reason (flat_table, ...).")
    page_errors: list[str] = Field(default_factory=list, description="'page 7: <error>' for pages PyMuPDF could not parse.")
    seconds: float = 0.0
    stale: bool = Field(False, description="Unchanged, but parsed by other parsing code (an older docintel): "
                                           "`ingest --force` re-parses it, `escalate` then re-runs its methods.")

    @property
    def failed(self) -> bool:
        return self.status in (FileStatus.failed, FileStatus.partial)


class PrunedDocument(BaseModel):
    """A stored document removed by ``--prune``: its recorded file no longer exists."""

    doc_id: str
    path: str = Field(description="The path recorded at ingest (now missing).")


class IngestTotals(BaseModel):
    files: int = Field(0, description="PDF files found under the given paths.")
    ingested: int = Field(0, description="Documents parsed and written (partial ones included).")
    unchanged: int = 0
    stale: int = Field(0, description="Unchanged documents parsed by other parsing code (an older docintel).")
    duplicate: int = 0
    failed: int = Field(0, description="Files that failed outright or were stored with page errors.")
    pages: int = Field(0, description="Pages parsed in this run.")
    ocr_pages: int = 0
    flagged_pages: int = Field(0, description="Pages with at least one flag (escalate = true).")
    flagged_by_reason: dict[str, int] = Field(default_factory=dict)
    removed_versions: int = Field(0, description="Older versions of changed files removed from the store.")
    pruned: int = Field(0, description="Documents removed by --prune (their file is gone).")
    not_pdf: int = Field(0, description="Files in the folders given not named *.pdf, not read.")


class IngestReport(BaseModel):
    """One ingest run: per-file results, totals, wall time and the exit code it maps to."""

    store: str
    workers: int = 1
    force: bool = False
    files: list[FileResult] = Field(default_factory=list)
    pruned: list[PrunedDocument] = Field(default_factory=list, description="Documents removed by --prune.")
    not_pdf: list[str] = Field(default_factory=list, description="Files in the folders given that were not read: not "
                                                                "named *.pdf (hidden files left out). Pass one by its "
                                                                "path to ingest it.")
    totals: IngestTotals = Field(default_factory=IngestTotals)
    seconds: float = 0.0
    pages_per_second: float = 0.0
    exit_code: int = Field(0, description="0 all good; 1 some files failed (the rest was saved).")
    run_report: str | None = Field(None, description="Path of the JSON run report in <store>/runs/.")

    def finish(self) -> "IngestReport":
        """Compute totals and the exit code from ``files``."""
        t = IngestTotals(files=len(self.files))
        for f in self.files:
            if f.status in (FileStatus.ingested, FileStatus.partial):
                t.ingested += 1
                t.pages += f.n_pages
                t.ocr_pages += f.n_ocr_pages
                t.flagged_pages += f.flagged.get("any", 0)
                for reason, n in f.flagged.items():
                    if reason != "any":
                        t.flagged_by_reason[reason] = t.flagged_by_reason.get(reason, 0) + n
                t.removed_versions += len(f.replaced)
            if f.status == FileStatus.unchanged:
                t.unchanged += 1
                t.stale += f.stale
            if f.status == FileStatus.duplicate:
                t.duplicate += 1
            if f.failed:
                t.failed += 1
        t.pruned = len(self.pruned)
        t.not_pdf = len(self.not_pdf)
        self.totals = t
        self.exit_code = 1 if t.failed else 0
        self.pages_per_second = round(t.pages / self.seconds, 1) if self.seconds > 0 else 0.0
        return self
