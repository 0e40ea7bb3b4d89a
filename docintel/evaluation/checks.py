"""Check one answer against its expectations. Pure functions: no store, no I/O.

Each expectation yields one :class:`CheckResult` named after the expectation field, so a
failure message reads ``answer_numbers: expected [4.92, 25.7], got [25.8]``.
"""

from __future__ import annotations

import re
import unicodedata

from docintel.schemas.answers import AskResult, RetrievedVia
from docintel.schemas.evaluation import CheckResult, Expect, page_range
from docintel.text import NUMBER as _NUMBER
from docintel.text import SCALE as _SCALE

ANSWER_CHECKS = ("answer_contains", "answer_not_contains", "answer_numbers", "numbers_grounded")
"""The checks on the answer text itself (the 'answer-check pass rate' of --compare)."""

def numbers_in(text: str) -> list[float]:
    """Every number written in ``text``, normalised (1,000 = 1000; 25.70 = 25.7).

    A leading sign is ignored for matching purposes: "-" is as often a dash or a range
    ("50-100") as a minus, so both 100 and -100 are reported as 100.
    """
    text = unicodedata.normalize("NFKC", text)
    out = []
    for m in _NUMBER.finditer(text):
        value = float(m.group(2).replace(",", ""))
        out.append(value)
        if m.group(3):  # "100K" is both the 100 written and the 100,000 meant
            out.append(value * _SCALE[m.group(3)])
    return out


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _fold(text: str) -> str:
    """Case-, width- and whitespace-insensitive form for substring checks."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = re.sub(r"-\s*\n\s*", "-", text)
    return re.sub(r"\s+", " ", text)


_CLOSEST = re.compile(r'Closest passage \(page [^)]*\): "[^\n]*"')
"""The quote after "Not found: ..." of the passage that came nearest; no check counts it."""


def _fmt_num(x: float) -> str:
    return f"{x:g}"


def _pages(result: AskResult, via: RetrievedVia) -> list[int]:
    return sorted({c.page for c in result.citations if c.retrieved_via == via})


def check(expect: Expect, result: AskResult, grounding_text: str | None = None) -> list[CheckResult]:
    """Every expectation that is set, checked in a fixed order.

    ``grounding_text`` is the text of the cited pages (needed only for numbers_grounded).
    """
    out: list[CheckResult] = []
    answer = result.answer or ""
    # a "Not found" answer's nearest miss is shown to the reader, not given as the answer
    answer = _CLOSEST.sub(" ", answer)
    folded = _fold(answer)

    if expect.primary_page is not None:
        pages = _pages(result, RetrievedVia.primary)
        out.append(CheckResult(
            name="primary_page", passed=expect.primary_page in pages,
            expected=f"page {expect.primary_page}", actual=f"primary pages {pages}",
        ))
    if expect.reference_pages is not None:
        pages = _pages(result, RetrievedVia.reference)
        missing = [p for p in expect.reference_pages
                   if not any(page_range(p)[0] <= got <= page_range(p)[1] for got in pages)]
        out.append(CheckResult(
            name="reference_pages", passed=not missing,
            expected=f"reference pages {expect.reference_pages}",
            actual=f"reference pages {pages}" + (f" (missing {missing})" if missing else ""),
        ))
    if expect.answer_contains is not None:
        missing = [s for s in expect.answer_contains
                   if not any(_fold(alt) in folded for alt in ([s] if isinstance(s, str) else s))]
        out.append(CheckResult(
            name="answer_contains", passed=not missing,
            expected=f"{expect.answer_contains}", actual=f"missing {missing}" if missing else "all present",
        ))
    if expect.answer_not_contains is not None:
        present = [s for s in expect.answer_not_contains if _fold(s) in folded]
        out.append(CheckResult(
            name="answer_not_contains", passed=not present,
            expected=f"none of {expect.answer_not_contains}",
            actual=f"answer contains {present}" if present else "none present",
        ))
    if expect.answer_numbers is not None:
        have = numbers_in(answer)
        missing = [x for x in expect.answer_numbers if not any(_same(x, h) for h in have)]
        out.append(CheckResult(
            name="answer_numbers", passed=not missing,
            expected=f"[{', '.join(_fmt_num(x) for x in expect.answer_numbers)}]",
            actual=(f"missing [{', '.join(_fmt_num(x) for x in missing)}] among "
                    f"[{', '.join(_fmt_num(x) for x in have[:12])}{', ...' if len(have) > 12 else ''}]")
            if missing else "all present",
        ))
    if expect.numbers_grounded:
        allowed = set(numbers_in(result.question)) | set(numbers_in(grounding_text or ""))
        for c in result.citations:
            # provenance: "(page 12, lines 40-42)", and a pointer's "(page 12 line 41)" inside them
            allowed |= {float(c.page)} | {float(n) for n in range(c.line_start, c.line_end + 1)}
            allowed |= set(numbers_in(c.page_label))
        invented = sorted({x for x in numbers_in(answer) if not any(_same(x, a) for a in allowed)})
        out.append(CheckResult(
            name="numbers_grounded", passed=not invented,
            expected="every number in the answer found in the cited pages",
            actual=f"not in any cited page: [{', '.join(_fmt_num(x) for x in invented)}]" if invented else "all grounded",
        ))
    if expect.completeness is not None:
        got = result.answer_completeness.value
        out.append(CheckResult(
            name="completeness", passed=got == expect.completeness.value,
            expected=expect.completeness.value, actual=got,
        ))
    if expect.verdict is not None:
        got = result.verdict.value
        out.append(CheckResult(name="verdict", passed=got == expect.verdict.value, expected=expect.verdict.value, actual=got))
    if expect.max_llm_calls is not None:
        out.append(CheckResult(
            name="max_llm_calls", passed=result.llm_calls <= expect.max_llm_calls,
            expected=f"<= {expect.max_llm_calls}", actual=str(result.llm_calls),
        ))
    return out
