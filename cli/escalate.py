"""`docintel escalate`: re-parse only the flagged pages with deeper methods (rows are added)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.common import DocOpt, JsonOpt, StoreOpt, err_console, handle_errors, out_console, print_json, progress_bar, progress_enabled


def register(app: typer.Typer) -> None:
    @app.command("escalate")
    def escalate(
        store: Optional[Path] = StoreOpt,
        doc: Optional[List[str]] = DocOpt,
        pages: Optional[str] = typer.Option(None, "--pages", help="Pages to escalate, e.g. 3,9-10 (even unflagged ones)."),
        method: Optional[str] = typer.Option(None, "--method", help="Use this method for every page (see --list-methods)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan (pages, reasons, method, cost); run nothing."),
        max_pages: Optional[int] = typer.Option(None, "--max-pages", min=0, help="Escalate at most N pages in this run."),
        force: bool = typer.Option(False, "--force", help="Re-run a method on pages it already parsed."),
        list_methods: bool = typer.Option(False, "--list-methods", help="List the methods and the reasons routed to them."),
        json_output: bool = JsonOpt,
        quiet: bool = typer.Option(False, "--quiet", help="No progress and no table (failures still go to stderr)."),
    ) -> None:
        """Re-parse flagged pages with deeper methods. Exit 0 ok; 1 a method failed on some page
        (that page keeps its baseline, the rest is saved); 2 usage error."""
        from docintel import api
        from docintel.settings import Settings

        with handle_errors():
            if list_methods:
                return render_methods(api.escalate_methods(), json_output)
            settings = Settings.load(store=store, json_output=json_output, quiet=quiet, escalate__method=method, escalate__dry_run=dry_run or None,
                                     escalate__max_pages=max_pages, escalate__force=force or None)
            with progress_bar("escalate", progress_enabled(quiet, json_output) and not dry_run) as progress:
                report = api.escalate(settings, docs=doc or [], pages=parse_pages(pages), progress=progress)
        render(report, json_output, quiet)
        raise typer.Exit(report.exit_code)


def parse_pages(spec: Optional[str]) -> Optional[list[int]]:
    """"3,9-10" -> [3, 9, 10]; a malformed spec is a usage error."""
    from docintel.errors import UsageError

    if not spec:
        return None
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.strip().partition("-")
        try:
            lo, hi = int(a), int(b or a)
        except ValueError:
            raise UsageError(f"--pages {spec!r}: use page numbers and ranges like 3,9-10") from None
        if lo < 1 or hi < lo:
            raise UsageError(f"--pages {spec!r}: pages are 1-based and ranges go up (9-10, not 10-9)")
        out.extend(range(lo, hi + 1))
    return sorted(set(out))


def render_methods(rows: list[dict], json_output: bool) -> None:
    if json_output:
        return print_json(rows)
    from rich.table import Table

    table = Table("method", "reasons", "coverage", "what it does", title="escalation methods", title_justify="left")
    for r in rows:
        table.add_row(r["name"], ", ".join(r["reasons"]), r["coverage"], r["description"])
    out_console.print(table)


def render(report, json_output: bool, quiet: bool = False) -> None:
    """JSON on stdout with --json; otherwise the plan / outcome table on stdout; failures on stderr."""
    from rich.markup import escape
    from rich.table import Table

    if json_output:
        print_json(report.model_dump(mode="json"))
    elif not quiet or report.dry_run:
        title = "escalate plan (dry run)" if report.dry_run else f"escalate -> {escape(report.store)}"
        table = Table("doc", "page", "reasons", "method", "status", "est. s", "s", "lines", title=title, title_justify="left")
        for i in report.items:
            est = f"{i.est_seconds:.1f}" + (f" +{i.est_tokens} tok" if i.est_tokens else "")
            table.add_row(escape(i.doc), str(i.page), escape("; ".join(i.reasons) or "-"), i.method or "-", i.status.value, est,
                          "" if i.seconds is None else f"{i.seconds:.2f}", "" if i.n_lines is None else str(i.n_lines))
        console = out_console
        if not console.is_terminal:  # logs and pipes: keep each page on one line
            from rich.console import Console

            console = Console(highlight=False, width=160)
        console.print(table)
        console.print(f"planned {report.planned}, done {report.done}, failed {report.failed}, skipped {report.skipped} "
                          f"(already parsed; --force re-runs), capped {report.capped}; est. {report.est_seconds:.1f} s"
                          + (f", {report.est_tokens} tokens" if report.est_tokens else "") + f"; took {report.seconds:.1f} s")
    # one line per document and reason: a file that is gone fails every flagged page of it alike
    failed: dict[tuple[str, str], list] = {}
    for i in report.items:
        if i.status.value == "failed":
            failed.setdefault((i.doc, i.error or ""), []).append(i)
    for (doc, error), items in failed.items():
        if len(items) == 1:
            where, keeps = f"p{items[0].page} {items[0].method}", "page keeps its baseline"
        else:
            methods = ", ".join(dict.fromkeys(i.method or "-" for i in items))
            where, keeps = f"{len(items)} pages (p{', p'.join(str(i.page) for i in items)}) {methods}", "pages keep their baseline"
        err_console.print(f"[red]failed:[/] {escape(doc)} {where}: {escape(error)} ({keeps})", soft_wrap=True)
