"""The typed answer of `ask` (DESIGN.md, "`docintel ask --json`").

`AskResult.model_dump(mode="json")` is the --json contract field for field: scripts and the
golden-question runner depend on it. Feedback fields are enums, never free strings.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field


class Completeness(str, Enum):
    complete = "complete"
    references_unresolved = "references_unresolved"
    partial = "partial"


class Verdict(str, Enum):
    return_to_user = "return_to_user"
    give_up_partial = "give_up_partial"


class RefStatus(str, Enum):
    resolved = "resolved"
    external = "external"
    unresolved = "unresolved"


class RetrievedVia(str, Enum):
    primary = "primary"
    reference = "reference"


class RefType(str, Enum):
    section = "section"
    table = "table"
    figure = "figure"
    appendix = "appendix"
    annex = "annex"
    schedule = "schedule"
    exhibit = "exhibit"
    clause = "clause"
    equation = "equation"
    page = "page"
    citation = "citation"
    external = "external"
    other = "other"


class Origin(BaseModel):
    """Where a pointer was read."""

    page: int = Field(description="1-based physical page of the line holding the pointer.")
    line: int = Field(description="line_num of that line.")


class Citation(BaseModel):
    """One span of lines the answer used, and how it was reached."""

    doc_id: str
    doc: str = Field(description="File name of the document.")
    page: int = Field(description="1-based physical page.")
    page_label: str = Field(description="Printed page label.")
    line_start: int
    line_end: int
    retrieved_via: RetrievedVia
    referenced_from: Origin | None = Field(None, description="Set when retrieved_via is reference.")
    reference_text: str | None = Field(None, description="The pointer text that led here.")
    parsing_method: str = Field(description="Which parse of the page the lines come from.")

    def model_dump(self, **kw):  # the contract omits the reference fields on primary citations
        data = super().model_dump(**kw)
        if self.retrieved_via == RetrievedVia.primary:
            data.pop("referenced_from", None)
            data.pop("reference_text", None)
        return data


class PendingReference(BaseModel):
    """A pointer the generator saw and could not (yet) follow."""

    raw_text: str = Field(description='The pointer as written: "Table 3 row (E)".')
    ref_type: RefType
    ref_target: str | None = Field(None, description='"3", "7.2", "A".')
    sub_selector: str | None = Field(None, description='Row or item inside the target: "E".')
    doc_id: str | None = None
    origin: Origin | None = None


class ResolvedReference(BaseModel):
    """What the resolver ladder made of one pointer."""

    raw_text: str
    ref_type: RefType
    ref_target: str | None = None
    sub_selector: str | None = None
    target_page: int | None = None
    source: str | None = Field(
        None, description="Rung that resolved it: toc_df | object_registry | native_link | regex | llm."
    )
    status: RefStatus
    doc_id: str | None = None
    origin: Origin | None = None


class Tokens(BaseModel):
    prompt: int = 0
    completion: int = 0


class AskResult(BaseModel):
    """The finished answer, as printed by `ask --json`."""

    question: str
    answer: str
    answer_completeness: Completeness
    verdict: Verdict
    citations: list[Citation] = Field(default_factory=list)
    pending_references: list[PendingReference] = Field(default_factory=list)
    resolved_references: list[ResolvedReference] = Field(default_factory=list)
    passes: int = Field(1, description="Generation passes run (1 + reference loops).")
    llm_calls: int = 0
    tokens: Tokens = Field(default_factory=Tokens)
    generator: str = "extractive"

    def to_json_dict(self) -> dict:
        data = self.model_dump(mode="json", exclude={"citations"})
        data["citations"] = [c.model_dump(mode="json") for c in self.citations]
        # keep DESIGN.md's field order
        order = list(AskResult.model_fields)
        return {k: data[k] for k in order}
