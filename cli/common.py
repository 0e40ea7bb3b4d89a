"""What every command shares: stderr console, JSON printing, error -> exit code mapping."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import typer
from rich.console import Console
from rich.markup import escape

from docintel.errors import DocintelError, ExitCode

err_console = Console(stderr=True, highlight=False)
"""Logs, progress and summaries: stderr only. stdout carries results."""

out_console = Console(highlight=False)
"""Human-readable results (tables, panels) on stdout."""

StoreOpt = typer.Option(
    None,
    "--store",
    help="Store folder. Default: $DOCINTEL_STORE, else ./.docintel",
    show_default=False,
    file_okay=False,
)
JsonOpt = typer.Option(False, "--json", help="Print one JSON document on stdout and nothing else there.")
DocOpt = typer.Option(None, "--doc", help="Limit to a document: doc_id or file name. Repeatable.")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fail(message: str, code: ExitCode = ExitCode.USAGE) -> None:
    # escape: messages quote server replies and file names, where "[/x]" would be rich markup
    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(int(code))


@contextmanager
def handle_errors() -> Iterator[None]:
    """Map library exceptions to a one-line message and their exit code; never a traceback."""
    try:
        yield
    except DocintelError as e:
        fail(e.message, e.exit_code)
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/]: nothing half-written was kept; re-run to finish")
        raise typer.Exit(130)


def progress_enabled(quiet: bool, json_output: bool = False) -> bool:
    """Progress bars only on a terminal, never with --quiet."""
    return not quiet and err_console.is_terminal


@contextmanager
def progress_bar(name: str, enabled: bool) -> Iterator[Optional[Callable[[str, int, int], None]]]:
    """A transient progress bar on stderr, as the ``progress(label, done, total)`` callback
    that docintel.api functions take; ``None`` when disabled (not a terminal, --quiet)."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task(name, total=None)

        def update(label: str, done: int, total: int) -> None:
            bar.update(task, description=label[:50], completed=done, total=total or None)

        yield update


def print_stale_remedy(subject: str) -> None:
    """What to do about stored documents that other (older) parsing code wrote; ``subject``
    names them ("2 unchanged document(s)")."""
    err_console.print(f"[yellow]{escape(subject)} were parsed by other docintel parsing code "
                      "(an older version): `docintel ingest --force PATH...` re-parses them with this one, "
                      "and `docintel escalate` then re-runs the deeper methods on their flagged pages.[/]", soft_wrap=True)


def store_path(store: Optional[Path]) -> Optional[Path]:
    return store
