"""`docintel ask "QUESTION"`: answer from the store, following pointers to the number."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.common import DocOpt, JsonOpt, StoreOpt, handle_errors, out_console, print_json, print_stale_remedy


def register(app: typer.Typer) -> None:
    @app.command("ask")
    def ask(
        question: str = typer.Argument(..., help="The question, in quotes.", show_default=False),
        store: Optional[Path] = StoreOpt,
        doc: Optional[List[str]] = DocOpt,
        top_k: Optional[int] = typer.Option(None, "--top-k", min=1, help="Pages retrieved in the first pass. Default: 1."),
        max_loops: Optional[int] = typer.Option(None, "--max-loops", min=0, help="Reference-following passes; 0 disables the loop (and the runner-up page read after a partial first answer). Default: 1."),
        generator: Optional[str] = typer.Option(None, "--generator", help="extractive (default, offline) or openai ($DOCINTEL_GENERATOR)."),
        model: Optional[str] = typer.Option(None, "--model", help="Model name for the openai generator ($DOCINTEL_MODEL)."),
        json_output: bool = JsonOpt,
        trace: Optional[Path] = typer.Option(None, "--trace", help="Write every pass (parse, candidates, generator I/O, resolver steps, timings) as JSON here.", dir_okay=False),
    ) -> None:
        """Answer a question with citations; follow "see Table 3 row (E)" inside the corpus.

        Exit 0 with an answer (complete or not: see answer_completeness); 2 for an empty store,
        an unknown --doc or generator; 1 when the generator endpoint failed.
        """
        from docintel import api
        from docintel.settings import Settings

        with handle_errors():
            settings = Settings.load(store=store, json_output=json_output, ask__top_k=top_k, ask__max_loops=max_loops,
                                     ask__generator=generator, ask__docs=doc or None, ask__trace=trace, llm__model=model)
            result = api.ask(question, settings)
            older = api.stale_files(settings, {c.doc_id for c in result.citations})
        print_json(result.to_json_dict()) if json_output else render(result)
        if older:  # the answer quotes a parse this docintel would read differently
            print_stale_remedy(f"The cited document(s) {', '.join(older)}")


def render(result) -> None:
    """A panel with the answer and completeness, then the citations table."""
    from rich.markup import escape
    from rich.panel import Panel
    from rich.table import Table

    colour = {"complete": "green", "references_unresolved": "yellow", "partial": "red"}[result.answer_completeness.value]
    head = f"[{colour}]{result.answer_completeness.value}[/] · {result.verdict.value} · passes {result.passes} · {result.generator}"
    out_console.print(Panel(escape(result.answer), title=escape(result.question), subtitle=head, expand=True))
    if result.citations:
        table = Table("doc", "page", "label", "lines", "via", "referenced from", "parse", box=None, pad_edge=False)
        for c in result.citations:
            ref = f"{c.reference_text!r} p{c.referenced_from.page} l{c.referenced_from.line}" if c.referenced_from else (c.reference_text or "")
            table.add_row(escape(c.doc), str(c.page), escape(c.page_label), f"{c.line_start}-{c.line_end}",
                          c.retrieved_via.value, escape(ref), escape(c.parsing_method))
        out_console.print(table)
    for r in result.pending_references:
        where = f" (page {r.origin.page} line {r.origin.line})" if r.origin else ""
        out_console.print(f"[yellow]not followed:[/] {escape(r.raw_text)}{where}")
