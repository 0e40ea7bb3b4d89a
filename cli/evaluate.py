"""`docintel eval GOLDEN...`: golden questions for CI, and the measured case for the loop."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer
from rich.console import Console

from cli.common import (
    JsonOpt,
    err_console,
    handle_errors,
    out_console,
    print_json,
    progress_bar,
    progress_enabled,
)
from docintel.errors import ExitCode


class Mode(str, Enum):
    loop = "loop"
    naive = "naive"
    topk = "topk"


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_cmd(
        golden: list[Path] = typer.Argument(..., help="Golden files (YAML), e.g. corpora/golden/*.yaml.", dir_okay=False),
        store: Path | None = typer.Option(
            None, "--store", file_okay=False,
            help="Use this store as is (nothing ingested). Default: eval's own store, <golden dir>/.docintel-eval.",
        ),
        junit: Path | None = typer.Option(None, "--junit", help="Write JUnit XML here (one testcase per question).", dir_okay=False),
        json_output: bool = JsonOpt,
        generator: str | None = typer.Option(None, "--generator", help="extractive (default) or openai."),
        model: str | None = typer.Option(None, "--model", help="Model name for the openai generator."),
        mode: Mode = typer.Option(Mode.loop, "--mode", help="loop (default pipeline), naive (top-1, no loop) or topk (top-3, no loop)."),
        compare: bool = typer.Option(False, "--compare", help="Run loop, naive and topk; print one comparison table."),
        quiet: bool = typer.Option(False, "--quiet", help="No progress and no summary on stderr."),
    ) -> None:
        """Run golden questions; exit 1 when any regresses (2 on a malformed golden file).

        Without --store, the golden files' documents are ingested and escalated (incrementally) into
        <golden dir>/.docintel-eval. With --compare the exit code follows the loop mode.
        """
        from docintel import api
        from docintel.settings import Settings

        with handle_errors():
            settings = Settings.load(store=store, json_output=json_output, quiet=quiet, ask__generator=generator,
                                     llm__model=model, eval__own_store=store is None)
            with progress_bar("eval", progress_enabled(quiet, json_output)) as progress:
                if compare:
                    reports = api.evaluate_compare(golden, settings, progress=progress).reports
                else:
                    reports = [api.evaluate(golden, settings, mode=mode.value, progress=progress)]
        if junit:
            from docintel.evaluation.junit import write_junit

            write_junit(junit, reports)
        render(reports, compare, json_output, quiet)
        if not reports[0].ok:
            raise typer.Exit(int(ExitCode.PARTIAL))


def render(reports, compare: bool, json_output: bool, quiet: bool) -> None:
    if json_output:
        data = [r.model_dump(mode="json") for r in reports]
        print_json({"compare": data} if compare else data[0])
        return
    console = out_console if out_console.is_terminal else Console(highlight=False, width=200)  # CI logs: no wrap
    console.print(compare_table(reports) if compare else results_table(reports[0]))
    if not quiet:
        for r in reports:
            err_console.print(summary_line(r), soft_wrap=True)


def results_table(report):
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"docintel eval: {report.mode.value} mode, {report.generator} generator", title_justify="left")
    for col, kw in [("id", {}), ("result", {}), ("failed check", {"overflow": "fold", "max_width": 60}),
                    ("passes", {"justify": "right"}), ("pages", {"justify": "right"}),
                    ("tokens", {"justify": "right"}), ("seconds", {"justify": "right"})]:
        t.add_column(col, **kw)
    for r in report.results:
        if r.skipped:
            t.add_row(escape(r.id), "[yellow]skip[/]", escape(r.skipped), "", "", "", "")
            continue
        result = "[green]pass[/]" if r.passed else ("[red]error[/]" if r.error else "[red]FAIL[/]")
        detail = escape(r.failure_message()) if not r.passed else ""
        if r.known_gap:
            result = "[green]pass[/] (gap closed: remove known_gap)" if r.passed else "[yellow]known gap[/]"
            detail = (detail + " [known gap: " + escape(r.known_gap) + "]") if not r.passed else ""
        t.add_row(escape(r.id), result, detail, str(r.passes), str(r.pages_read),
                  str(r.tokens_read), f"{r.seconds:.2f}")
    return t


def compare_table(reports):
    from rich.table import Table

    t = Table(title="docintel eval --compare (same questions, three retrieval budgets)", title_justify="left")
    cols = ["mode", "questions", "all checks", "answer checks", "complete", "pointer: complete",
            "pointer: answered", "pointer: all checks", "pages/q", "tokens/q", "LLM calls", "seconds"]
    t.caption = ("complete = answer_completeness 'complete'; answer checks = answer_contains/numbers/"
                 "not_contains/grounded; pointer = questions tagged pointer; answered = answer checks "
                 "hold and complete, whichever page the answer came from; all checks also needs the "
                 "expected pages (the pointer followed)")
    for c in cols:
        t.add_column(c, justify="left" if c == "mode" else "right")
    for r in reports:
        s = r.summary
        ptr = s.by_tag.get("pointer", {})
        pct = lambda x: f"{100 * x:.0f}%"
        t.add_row(
            {"loop": "loop (top-1 + references)", "naive": "naive (top-1)", "topk": "topk (top-3)"}[s.mode.value],
            str(s.questions), pct(s.pass_rate), pct(s.answer_pass_rate), pct(s.completeness_rate),
            pct(ptr["completeness_rate"]) if ptr else "-", pct(ptr.get("answered_rate", 0.0)) if ptr else "-",
            pct(ptr["pass_rate"]) if ptr else "-",
            f"{s.pages_per_question:.2f}", f"{s.tokens_per_question:.0f}", str(s.llm_calls), f"{s.seconds:.1f}",
        )
    return t


def summary_line(report) -> str:
    s = report.summary
    tags = ", ".join(f"{t} {round(v['pass_rate'] * v['questions'])}/{int(v['questions'])}" for t, v in s.by_tag.items()
                     if t in ("pointer", "no-pointer", "unanswerable", "injection"))
    colour = "green" if report.ok else "red"
    skipped = f", {s.skipped} skipped" if s.skipped else ""
    gaps = sum(1 for r in report.results if r.known_gap and not r.passed and not r.skipped)
    regressed = sum(1 for r in report.results if r.regressed and not r.skipped)
    known = f", {gaps} known gap{'s' if gaps != 1 else ''}, {regressed} regressed" if gaps else ""
    return (f"[{colour}]{s.passed}/{s.questions} passed[/]{known}{skipped} ({s.mode.value}, {report.generator})"
            f"{' · ' + tags if tags else ''} · complete {100 * s.completeness_rate:.0f}% · "
            f"{s.pages_per_question:.2f} pages/q · {s.tokens_per_question:.0f} tokens/q · "
            f"{s.llm_calls} LLM calls · {s.seconds:.1f} s (+{report.setup_seconds:.1f} s store setup)")
