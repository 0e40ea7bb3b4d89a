"""Helpers for the eval tests: scripted AskResults and a golden file over them."""

from __future__ import annotations

from docintel.schemas.answers import (
    AskResult,
    Citation,
    Completeness,
    RetrievedVia,
    Verdict,
)


def make_result(
    question: str,
    answer: str,
    primary: int = 6,
    reference: int | None = 9,
    completeness: str = "complete",
    verdict: str = "return_to_user",
    llm_calls: int = 0,
) -> AskResult:
    cites = [Citation(doc_id="d" * 16, doc="paper.pdf", page=primary, page_label=str(primary), line_start=3,
                      line_end=5, retrieved_via=RetrievedVia.primary, parsing_method="pymupdf")]
    if reference:
        cites.append(Citation(doc_id="d" * 16, doc="paper.pdf", page=reference, page_label=str(reference),
                              line_start=30, line_end=31, retrieved_via=RetrievedVia.reference,
                              reference_text="Table 3 row (E)", parsing_method="pymupdf_tables"))
    return AskResult(question=question, answer=answer, answer_completeness=Completeness(completeness),
                     verdict=Verdict(verdict), citations=cites, passes=2 if reference else 1, llm_calls=llm_calls)


GOOD_ANSWER = (
    "The two versions produced nearly identical results. Table 3 row (E): positional embedding "
    "instead of sinusoids, PPL 4.92, BLEU 25.70 (base model 25.8)."
)



GOLDEN = """\
documents: []
questions:
  - id: positional
    question: "Do learned positional embeddings give similar results to sinusoidal ones?"
    expect:
      primary_page: 6
      reference_pages: [9]
      answer_contains: ["nearly identical"]
      answer_numbers: [4.92, 25.7]
      completeness: complete
      verdict: return_to_user
      max_llm_calls: 0
    tags: [pointer, table-ref]
  - id: plain
    question: "What does row E change?"
    expect:
      answer_contains: ["identical results"]
    tags: [no-pointer]
"""
