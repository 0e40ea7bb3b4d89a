"""The `docintel` command. Each subcommand lives in its own module and registers itself here."""

from __future__ import annotations

from inspect import cleandoc

import typer

from cli import ask, escalate, evaluate, ingest, inspect

app = typer.Typer(
    name="docintel",
    help=(
        "Ask questions of a local PDF corpus and get finished answers.\n\n"
        "[bold]docintel ingest corpora/[/]: parse every page cheaply, flag the hard ones\n\n"
        "[bold]docintel escalate[/]: re-parse only the flagged pages with deeper methods\n\n"
        "[bold]docintel ask \"QUESTION\"[/]: answer with citations, following 'see Table 3' "
        "to the number\n\n"
        "[bold]docintel eval corpora/golden/*.yaml[/]: golden questions for CI\n\n"
        "The store is ./.docintel unless --store or $DOCINTEL_STORE says otherwise. "
        "Exit codes: 0 ok; 1 some inputs failed (the rest was saved) or an eval regressed; "
        "2 usage error (bad flag, unknown doc, empty store)."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)

for module in (ingest, escalate, ask, evaluate, inspect):
    module.register(app)


def _reflow(doc: str) -> str:
    """A command docstring with each paragraph on one line: rich help keeps the source's line
    breaks, which wrapped "2 for an empty store," onto a line of its own."""
    return "\n\n".join(" ".join(p.split()) for p in cleandoc(doc).split("\n\n"))


for command in app.registered_commands:
    if command.help is None and command.callback is not None and command.callback.__doc__:
        command.help = _reflow(command.callback.__doc__)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
