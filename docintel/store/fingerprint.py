"""Which code built a store: a hash of the source that decides what it holds.

Ingest is incremental by file hash, so a newer docintel whose parsers read a page differently
(a table's column names, a symbol font's glyphs) would leave every stored document on the old
parse without a word. Each document's manifest entry records the parsing code that wrote it
(``parsed_by``); ingest reports the documents another version parsed. Eval's own stores are
rebuilt when the store-building code changes (``docintel.evaluation.runner``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PARSE_CODE = ("parsing", "glyphs.py", "schemas/tables.py")
"""What ingest and escalate write a document's rows with: the parsers (the deeper methods too),
the symbol-font glyphs they read lines with, and the table schemas: every module the parsers
import but the store they write to, their settings, errors and reports. The word helpers the
questions are read with (``docintel.text``) are not parse code: changing how a question's words
are stemmed leaves every stored document's rows as they were."""
STORE_CODE = PARSE_CODE + ("store", "retrieval/index.py", "text.py")
"""What an eval store holds: the parsed rows, the store, and the search index (which reads
bracket table rows with ``text.bracket_ranges``)."""


def code_files(parts: tuple[str, ...] = STORE_CODE) -> list[Path]:
    """The source files of ``parts`` (folders walked, files as named)."""
    import docintel

    pkg = Path(docintel.__file__).parent
    out: list[Path] = []
    for sub in parts:
        out.extend([pkg / sub] if sub.endswith(".py") else sorted((pkg / sub).rglob("*.py")))
    return out


def code_fingerprint(parts: tuple[str, ...] = STORE_CODE) -> str:
    """Hash of the source files of ``parts``: their paths and bytes."""
    import docintel

    pkg = Path(docintel.__file__).parent
    h = hashlib.sha256()
    for f in code_files(parts):
        h.update(str(f.relative_to(pkg)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def parsed_by_other_code(entries: dict[str, dict], current: str | None = None) -> set[str]:
    """The doc_ids of manifest ``entries`` that other parsing code wrote (an older docintel, or
    one from before documents recorded ``parsed_by``): their rows are not what this one reads.
    ``current``: this code's ``code_fingerprint(PARSE_CODE)``, when the caller has it already."""
    current = current or code_fingerprint(PARSE_CODE)
    return {doc_id for doc_id, entry in entries.items() if entry.get("parsed_by") != current}
