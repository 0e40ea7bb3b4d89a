"""`docintel docs`, `docintel pages DOC`, `docintel toc DOC`: look at what ingest stored."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import JsonOpt, StoreOpt, handle_errors, out_console, print_json, print_stale_remedy


def register(app: typer.Typer) -> None:
    @app.command("docs")
    def docs(store: Optional[Path] = StoreOpt, json_output: bool = JsonOpt) -> None:
        """List the stored documents: doc_id, file, pages, OCR pages, parse, producer.

        parse is "current" when this docintel's parsers wrote the document, "older code" when an
        earlier version did (`docintel ingest --force PATH` re-parses it, then `escalate`).
        """
        from docintel import api
        from docintel.settings import Settings

        with handle_errors():
            rows = api.documents(Settings.load(store=store))
        if json_output:
            return print_json(rows)
        for r in rows:
            r["parse"] = "current" if r["parse_current"] else "older code"
        cols = [("doc_id", "doc_id"), ("file", "file_name"), ("pages", "n_pages"), ("ocr", "n_ocr_pages"),
                ("baseline", "baseline_method"), ("parse", "parse"), ("producer", "producer")]
        _console().print(_table("documents", cols, rows))
        stale = sum(not r["parse_current"] for r in rows)
        if stale:
            print_stale_remedy(f"{stale} stored document(s)")

    @app.command("pages")
    def pages(doc: str = typer.Argument(..., help="doc_id or file name."), store: Optional[Path] = StoreOpt,
              json_output: bool = JsonOpt) -> None:
        """Per-page signals of one document and the reasons each flag fired."""
        from docintel import api
        from docintel.settings import Settings

        with handle_errors():
            data = api.pages(Settings.load(store=store), doc)
        if json_output:
            return print_json(data)
        for r in data["pages"]:
            r["reasons"] = "; ".join(r.get("reasons") or []) or (r.get("error") or "")
            r["esc"] = "yes" if r.get("escalate") else ""
        cols = [("page", "page_num"), ("label", "page_label"), ("method", "parsing_method"), ("chars", "char_count"),
                ("lines", "n_lines"), ("imgs", "image_count"), ("cols", "n_columns"), ("esc", "esc"), ("reasons", "reasons")]
        _console().print(_table(f"{data['file_name']} ({data['doc_id']})", cols, data["pages"]))

    @app.command("toc")
    def toc(doc: str = typer.Argument(..., help="doc_id or file name."), store: Optional[Path] = StoreOpt,
            json_output: bool = JsonOpt) -> None:
        """The table of contents found at ingest: the outline, else numbered headings and a contents
        page, else headings told by type (source "typeset")."""
        from docintel import api
        from docintel.settings import Settings

        with handle_errors():
            data = api.toc(Settings.load(store=store), doc)
        if json_output:
            return print_json(data)
        if not data["toc"]:
            _console().print(f"{data['file_name']}: no table of contents found "
                             "(no outline, no numbered headings, no contents page)", markup=False)
            return
        for r in data["toc"]:
            r["title"] = "  " * max(0, (r.get("level") or 1) - 1) + str(r.get("title") or "")
        cols = [("id", "toc_id"), ("title", "title"), ("start", "page_start"), ("end", "page_end"), ("source", "source")]
        _console().print(_table(f"{data['file_name']} ({data['doc_id']})", cols, data["toc"]))


def _console():
    if out_console.is_terminal:
        return out_console
    from rich.console import Console

    return Console(highlight=False, width=200)  # piped output: do not wrap at 80 columns


def _table(title: str, cols: list[tuple[str, str]], rows: list[dict]):
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=escape(title), title_justify="left")
    for header, key in cols:
        t.add_column(header, overflow="fold", no_wrap=key in ("doc_id", "file_name", "page_label"))
    for r in rows:
        t.add_row(*(escape("" if r.get(key) is None else str(r.get(key))) for _, key in cols))
    return t
