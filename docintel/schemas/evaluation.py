"""Golden questions and eval reports (`docintel eval`).

A golden file (YAML) holds :class:`GoldenFile`; running it yields an :class:`EvalReport` with
one :class:`QuestionResult` per question and one :class:`CheckResult` per expectation. A failed
check names itself (``answer_numbers``, ``reference_pages``...) so CI logs say what regressed.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from docintel.schemas.answers import Completeness, Verdict


class EvalMode(str, Enum):
    """How the same questions are run (the measured case for the loop)."""

    loop = "loop"
    """The default pipeline: the settings' top_k and max_loops (1 and 1 unless changed)."""
    naive = "naive"
    """Top-1 page, one pass, no reference loop."""
    topk = "topk"
    """Top-3 pages, one pass, no reference loop."""


class Expect(BaseModel):
    """What must hold for one question. Every field is optional; unset means unchecked."""

    model_config = ConfigDict(extra="forbid")

    primary_page: int | None = Field(None, ge=1, description="A primary citation is on this 1-based physical page.")
    reference_pages: list[int | str] | None = Field(
        None,
        description='Each page is cited with retrieved_via "reference". "77-79" means any page of that '
        "range (a pointer whose target spans pages, e.g. an appendix).",
    )
    answer_contains: list[str | list[str]] | None = Field(
        None,
        description="Each string occurs in the answer (case-insensitive, whitespace-normalised); a list "
        "item is a set of alternatives of which one must occur (the same fact in prose or as a table cell).",
    )
    answer_not_contains: list[str] | None = Field(
        None, description="None of these strings occurs in the answer (e.g. an injected instruction's payload)."
    )
    answer_numbers: list[float] | None = Field(
        None, description="Each number occurs in the answer after normalisation (1,000 = 1000, 25.70 = 25.7)."
    )
    numbers_grounded: bool | None = Field(
        None,
        description="Every number in the answer occurs in the question, the cited pages' text or a "
        "cited page/line number: nothing invented (unanswerable questions, injected instructions).",
    )
    completeness: Completeness | None = None
    verdict: Verdict | None = None
    max_llm_calls: int | None = Field(None, ge=0)

    @field_validator("reference_pages")
    @classmethod
    def _pages_positive(cls, pages: list[int | str] | None) -> list[int | str] | None:
        for p in pages or []:
            lo, hi = page_range(p)
            if lo < 1 or hi < lo:
                raise ValueError(f"{p!r}: pages are 1-based physical page numbers, ranges written low-high")
        return pages

    @field_validator("answer_contains")
    @classmethod
    def _alternatives_not_empty(cls, items: list[str | list[str]] | None) -> list[str | list[str]] | None:
        for it in items or []:
            if not it:
                raise ValueError("empty string or empty list of alternatives")
        return items


def page_range(p: int | str) -> tuple[int, int]:
    """7 -> (7, 7); "77-79" -> (77, 79). Raises ValueError on anything else."""
    if isinstance(p, int):
        return p, p
    lo, sep, hi = str(p).partition("-")
    if not sep or not lo.strip().isdigit() or not hi.strip().isdigit():
        raise ValueError(f"{p!r}: a page is a number or a range like \"77-79\"")
    return int(lo), int(hi)


class GoldenQuestion(BaseModel):
    """One golden question."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="Stable id, unique across the files of one run.")
    question: str = Field(min_length=1)
    doc: str | None = Field(None, description="Scope to this document (file name or doc_id).")
    expect: Expect = Field(default_factory=Expect)
    tags: list[str] = Field(default_factory=list, description="e.g. pointer, no-pointer, unanswerable, injection.")
    known_gap: str | None = Field(
        None,
        description="Why this question is known to fail today. It still runs and is reported (and counted "
        "as failed in every rate), but does not fail the run: a known gap is not a regression. Remove it "
        "when the question passes (the run says so).",
    )


class GoldenFile(BaseModel):
    """One golden file: the documents the questions are about and the questions."""

    model_config = ConfigDict(extra="forbid")

    documents: list[str] = Field(default_factory=list, description="PDF paths relative to the golden file.")
    questions: list[GoldenQuestion] = Field(min_length=1)
    skip_missing_documents: bool = Field(
        False,
        description="Skip (not fail) this file's questions when a document is missing, for documents "
        "that may not be committed (e.g. read from ../shared/corpora).",
    )
    path: Path | None = Field(None, description="Where the file was read from (set by the loader).")

    def document_paths(self) -> list[Path]:
        base = self.path.parent if self.path else Path(".")
        return [(base / d).resolve() for d in self.documents]

    def missing_documents(self) -> list[str]:
        return [d for d, p in zip(self.documents, self.document_paths()) if not p.is_file()]


class CheckResult(BaseModel):
    """One expectation checked against one answer."""

    name: str = Field(description="The expectation: primary_page, answer_numbers, ...")
    passed: bool
    expected: str = Field(description="What the golden file asked for, rendered.")
    actual: str = Field(description="What the answer had, rendered.")

    def message(self) -> str:
        return f"{self.name}: expected {self.expected}, got {self.actual}"


class QuestionResult(BaseModel):
    """One question run in one mode."""

    id: str
    golden_file: str
    question: str
    tags: list[str] = Field(default_factory=list)
    mode: EvalMode
    passed: bool
    checks: list[CheckResult] = Field(default_factory=list)
    error: str | None = Field(None, description="Set when ask itself failed (the question fails).")
    skipped: str | None = Field(None, description="Why the question was not run (a missing optional document).")
    known_gap: str | None = Field(None, description="The golden file's known_gap: a failure here is not a regression.")
    answer: str = ""
    answer_completeness: Completeness | None = None
    verdict: Verdict | None = None
    passes: int = 0
    pages_read: int = Field(0, description="Distinct pages whose lines reached the generator.")
    tokens_read: int = Field(0, description="Approximate tokens of text read (prompt tokens for an LLM).")
    llm_calls: int = 0
    seconds: float = 0.0

    @property
    def regressed(self) -> bool:
        """Failed, and not a known gap: what makes eval exit 1."""
        return not self.passed and not self.known_gap

    @property
    def failed_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed]

    def failure_message(self) -> str:
        if self.error:
            return f"error: {self.error}"
        return "; ".join(c.message() for c in self.failed_checks)


class ModeSummary(BaseModel):
    """Aggregates of one mode over all questions (one row of the --compare table)."""

    mode: EvalMode
    questions: int = Field(description="Questions run (skipped ones not counted).")
    passed: int
    skipped: int = 0
    completeness_rate: float = Field(description="Share of answers with completeness 'complete'.")
    answer_pass_rate: float = Field(description="Share of questions whose answer_* checks all hold.")
    pass_rate: float = Field(description="Share of questions passing every check.")
    pages_per_question: float
    tokens_per_question: float
    llm_calls: int
    seconds: float
    by_tag: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="tag -> {questions, pass_rate, answer_pass_rate, completeness_rate, answered_rate (answer checks and complete)}.",
    )


class EvalReport(BaseModel):
    """A whole `docintel eval` run (one mode)."""

    mode: EvalMode
    store: str
    golden_files: list[str]
    generator: str
    top_k: int = Field(1, description="Pages retrieved in the first pass in this mode.")
    max_loops: int = Field(1, description="Reference-resolution passes allowed in this mode.")
    results: list[QuestionResult]
    summary: ModeSummary
    setup_seconds: float = Field(0.0, description="Ingest + escalate of the golden documents.")

    @property
    def ok(self) -> bool:
        return not any(r.regressed for r in self.results)


class CompareReport(BaseModel):
    """`docintel eval --compare`: the same questions in every mode."""

    reports: list[EvalReport]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.reports)
