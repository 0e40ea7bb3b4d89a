"""`docintel ingest PATH...`: parse PDFs into the store, incrementally; exit 1 when a file failed."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.common import JsonOpt, StoreOpt, err_console, handle_errors, print_json, print_stale_remedy, progress_bar, progress_enabled


def register(app: typer.Typer) -> None:
    @app.command("ingest")
    def ingest(
        paths: List[Path] = typer.Argument(..., metavar="PATH", help="PDF files or folders (walked recursively for *.pdf; other files there are counted as not read).", show_default=False),
        store: Optional[Path] = StoreOpt,
        workers: Optional[int] = typer.Option(None, "--workers", min=1, help="Parse N documents in parallel processes. Default: 1 ($DOCINTEL_WORKERS)."),
        force: bool = typer.Option(False, "--force", help="Re-parse files whose content is already stored."),
        prune: bool = typer.Option(False, "--prune", help="After ingesting, remove stored documents whose file under the given PATHs no longer exists (documents elsewhere are kept)."),
        json_output: bool = JsonOpt,
        quiet: bool = typer.Option(False, "--quiet", help="No progress and no summary (failures still go to stderr)."),
    ) -> None:
        """Parse every page cheaply, flag the hard ones. Unchanged files are skipped.

        A stored document parsed by other docintel parsing code (an older
        version) is counted as "parsed by older code" until --force re-parses it;
        run escalate afterwards to re-run the deeper methods on its flagged pages.

        With --prune, stored documents whose file under the given PATHs
        was deleted are removed (store and search index); a gone or empty
        PATH is then fine if it held documents.

        Exit 0 when every file was ingested (or unchanged); 1 when some failed (the rest is saved);
        2 when a path does not exist or holds no PDF.
        """
        from docintel import api
        from docintel.settings import Settings

        with handle_errors():
            settings = Settings.load(store=store, json_output=json_output, quiet=quiet, ingest__workers=workers, ingest__force=force or None,
                                     ingest__prune=prune or None)
            with progress_bar("ingest", progress_enabled(quiet, json_output)) as progress:
                report = api.ingest(paths, settings, progress=progress)
        render(report, json_output, quiet)
        raise typer.Exit(report.exit_code)


def render(report, json_output: bool, quiet: bool) -> None:
    """JSON on stdout with --json; summary table on stderr unless --quiet; failures always."""
    from rich.markup import escape

    if json_output:
        print_json(report.model_dump(mode="json"))
    if not quiet:
        err_console.print(summary_table(report))
    if not quiet and not json_output:
        for p in report.pruned:
            err_console.print(f"pruned: {escape(p.path)} ({p.doc_id})", soft_wrap=True)
        if report.totals.stale:
            print_stale_remedy(f"{report.totals.stale} unchanged document(s)")
        if report.not_pdf:
            from docintel.parsing.ingest import others_named

            err_console.print(f"not read: {len(report.not_pdf)} file(s) in the folders given are not named *.pdf "
                              f"({escape(others_named(report.not_pdf))}); a PDF named otherwise is read when passed by its path",
                              soft_wrap=True)
    for f in report.files:
        if f.status.value in ("failed", "partial"):
            word = "failed" if f.status.value == "failed" else "partly failed"
            err_console.print(f"[red]{word}:[/] {escape(f.path)}: {escape(f.reason or '')}", soft_wrap=True)


def summary_table(report):
    from rich.markup import escape
    from rich.table import Table

    t = report.totals
    table = Table(title=f"docintel ingest -> {escape(report.store)}", title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("documents ingested", str(t.ingested))
    table.add_row("unchanged (skipped)", str(t.unchanged))
    if t.stale:
        table.add_row("  parsed by older code", f"[yellow]{t.stale}[/] (--force re-parses)")
    if t.duplicate:
        table.add_row("duplicates (skipped)", str(t.duplicate))
    table.add_row("failed", f"[red]{t.failed}[/]" if t.failed else "0")
    table.add_row("pages parsed", str(t.pages))
    table.add_row("OCR pages (tesseract)", str(t.ocr_pages))
    table.add_row("flagged pages", str(t.flagged_pages))
    for reason, n in sorted(t.flagged_by_reason.items()):
        table.add_row(f"  {reason}", str(n))
    if t.removed_versions:
        table.add_row("old versions replaced", str(t.removed_versions))
    if t.pruned:
        table.add_row("pruned (file deleted)", str(t.pruned))
    if t.not_pdf:
        table.add_row("not *.pdf (not read)", str(t.not_pdf))
    table.add_row("seconds", f"{report.seconds:.1f} ({report.pages_per_second:.0f} pages/s)")
    return table
