"""What a generator reads and returns (docintel.generation.base.Generator).

The orchestrator builds a :class:`GenerationRequest` from retrieved line spans and reads back a
:class:`GeneratedAnswer`. Passage text is DATA quoted from documents: a generator never obeys
instructions found in it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from docintel.schemas.answers import (
    Citation,
    Completeness,
    PendingReference,
    RefType,
    ResolvedReference,
    Tokens,
)
from docintel.schemas.questions import ParsedQuestion


class Cell(BaseModel):
    """One table cell paired with its column header."""

    header: str = ""
    value: str = ""


class PassageLine(BaseModel):
    """One line of a retrieved span (a line_df row of the page's best parse)."""

    line_num: int
    text: str
    kind: str = Field("text", description="text | table_row | figure_text | image | header | footnote")
    parsing_method: str = "pymupdf"
    row_key: str | None = Field(None, description='table_row sub-selector: "(E)", "base".')
    cells: list[Cell] = Field(default_factory=list, description="table_row cells with their headers.")
    object_key: str | None = Field(None, description='The object a table row belongs to: "table:3".')
    x0: float | None = None
    y0: float | None = None
    x1: float | None = None
    y1: float | None = None
    set_as: str | None = Field(None, description='How it is set against the lines around it: "body" (the '
                               'type of the line after it), "heading" (larger or bold between lines that are not), '
                               '"beside" (the line after it starts level with it, further right: a table\'s next cell) or '
                               '"aside" (a margin icon\'s label: no word of the text).')


class Passage(Citation):
    """A span of lines on one page, and how retrieval reached it: the Citation it would make,
    plus the lines themselves and what led to them. ``parsing_method`` is that of the whole span
    ('a+b' when mixed)."""

    passage_id: str = Field(description='Short id a generator cites: "P1", "R1".')
    ref_type: RefType | None = Field(None, description="Type of that pointer.")
    sub_selector: str | None = Field(None, description='Row asked for inside the target: "E".')
    note: str | None = Field(
        None, description="""Provenance for a reader: "pulled in because of 'Table 3 row (E)' on page 6 line 28"."""
    )
    score: float | None = Field(None, description="Retrieval score of the page (primary passages).")
    linked: bool = Field(
        False, description="Reached by a pointer the loop followed itself, from pages that did not answer, because "
        "the page it points to ranked among the candidates too (no quoted sentence asked for it).",
    )
    lines: list[PassageLine] = Field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    def set_as(self) -> dict[int, str]:
        """line_num -> how its type sets each line that has a mark (``PassageLine.set_as``)."""
        return {line.line_num: line.set_as for line in self.lines if line.set_as}

    def citation(self, line_start: int | None = None, line_end: int | None = None) -> Citation:
        """A Citation for this passage, optionally narrowed to a line span (the parsing method
        is then that of the cited lines)."""
        lo = self.line_start if line_start is None else line_start
        hi = self.line_end if line_end is None else line_end
        methods: list[str] = []
        for line in self.lines:
            if lo <= line.line_num <= hi and line.parsing_method and line.parsing_method not in methods:
                methods.append(line.parsing_method)
        fields = {name: getattr(self, name) for name in Citation.model_fields}
        fields.update(line_start=lo, line_end=hi, parsing_method="+".join(methods) or self.parsing_method)
        return Citation(**fields)


class GenerationRequest(BaseModel):
    """Everything a generator sees for one pass."""

    question: str
    parsed: ParsedQuestion
    passages: list[Passage] = Field(
        default_factory=list, description="Primary passages first, then passages pulled in by references."
    )
    pass_number: int = Field(1, ge=1, description="1 = first pass; 2+ = after resolving references.")
    resolved_references: list[ResolvedReference] = Field(
        default_factory=list,
        description="What the resolver made of earlier pointers (resolved / external / unresolved).",
    )
    model: str | None = Field(None, description="Model name for LLM generators.")


class GeneratedAnswer(BaseModel):
    """A generator's typed answer for one pass. The orchestrator reads only
    ``answer_completeness`` and ``pending_references`` to decide what to do next."""

    answer: str
    citations: list[Citation] = Field(default_factory=list)
    pending_references: list[PendingReference] = Field(
        default_factory=list,
        description="Pointers in the used passages that the answer depends on and that are not yet followed.",
    )
    answer_completeness: Completeness
    llm_calls: int = 0
    tokens: Tokens = Field(default_factory=Tokens)
