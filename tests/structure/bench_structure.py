"""Cost of build_structure next to the baseline parse, per document (not a test; run by hand).

    .venv/bin/python tests/structure/bench_structure.py [PDF ...]

For each PDF (default: the born-digital PDFs of ../shared/corpora) it runs the ingest parse
(docintel.parsing.document.parse_document, which calls build_structure itself) and, on the same
inputs, build_structure alone, and bare PyMuPDF get_text("dict") over the same pages. CPU time,
best of a few runs, measured in the same process so the ratios hold on a busy machine.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from docintel.parsing import document as D  # noqa: E402
import docintel.parsing.structure as S  # noqa: E402
from docintel.parsing.baseline import text_flags  # noqa: E402
from docintel.parsing.fitz import pymupdf  # noqa: E402


def best(fn, runs: int = 3) -> float:
    out = float("inf")
    for _ in range(runs):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


def main(paths: list[Path]) -> None:
    captured: dict = {}
    real = S.build_structure

    def spy(doc, doc_id, lines, labels):
        captured["args"] = (lines, labels)
        return real(doc, doc_id, lines, labels)

    S.build_structure = spy
    totals = [0.0, 0.0, 0.0]
    print(f"{'document':45s} {'pages':>5s} {'parse ms':>9s} {'dict ms':>8s} {'struct ms':>9s} {'%parse':>7s} {'%dict':>6s}")
    try:
        for path in paths:
            D.parse_document(path, "bench", "bench")  # warm caches and imports
            parse = best(lambda: D.parse_document(path, "bench", "bench"), 2)
            lines, labels = captured["args"]
            doc = pymupdf().open(str(path))
            struct = best(lambda: real(doc, "bench", lines, labels))
            bare = best(lambda: [doc[p].get_text("dict", flags=text_flags()) for p in range(doc.page_count)], 2)
            totals = [totals[0] + parse, totals[1] + bare, totals[2] + struct]
            print(
                f"{path.name[:45]:45s} {doc.page_count:5d} {parse * 1e3:9.1f} {bare * 1e3:8.1f} {struct * 1e3:9.1f}"
                f" {100 * struct / parse:6.1f}% {100 * struct / max(bare, 1e-9):5.0f}%"
            )
            doc.close()
    finally:
        S.build_structure = real
    parse, bare, struct = totals
    print(f"{'TOTAL':45s} {'':5s} {parse * 1e3:9.1f} {bare * 1e3:8.1f} {struct * 1e3:9.1f} {100 * struct / parse:6.1f}% {100 * struct / bare:5.0f}%")


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    if not args:
        shared = ROOT.parent / "shared" / "corpora"
        args = [p for p in sorted(shared.rglob("*.pdf")) if "scanned" not in p.parts]
    main(args)
