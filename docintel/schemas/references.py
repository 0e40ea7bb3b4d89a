"""Where a resolved pointer leads: the region retrieval fetches for the next pass."""

from __future__ import annotations

from pydantic import BaseModel, Field

from docintel.schemas.answers import Origin, RefType


class TargetRegion(BaseModel):
    """The part of the corpus a pointer designates (one document, one or more pages)."""

    doc_id: str
    ref_type: RefType
    ref_target: str | None = None
    sub_selector: str | None = Field(None, description='Row inside a table: "E" for "row (E)".')
    page_start: int
    page_end: int
    y_start: float | None = Field(None, description="Top of the region on page_start (heading / caption top).")
    y_end: float | None = Field(None, description="Bottom of the region on page_end, when known.")
    object_key: str | None = Field(None, description='"table:3" when the target is a registered object.')
    line_start: int | None = Field(None, description="First line on page_start (baseline numbering), when known.")
    line_end: int | None = Field(None, description="Last line on page_end (baseline numbering), when known.")
    by_line: bool = Field(False, description="line_start (and the next section's line) number the best parse's "
                          "lines in reading order: the region is cut by line, not by height (columns).")
    title: str | None = Field(None, description="Section title or object caption.")
    raw_text: str = Field(description="The pointer as written.")
    origin: Origin | None = None
