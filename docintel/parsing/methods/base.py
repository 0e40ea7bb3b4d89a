"""The one small interface every deeper parsing method implements: a page in, rows out.

A method is registered by name (``docintel.parsing.methods.REGISTRY``); ``escalate`` routes a
flagged page to it by reason and writes what it returns. A method never touches the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import pandas as pd

from docintel.settings import Settings


@dataclass
class PageInput:
    """One page handed to a method."""

    doc_id: str
    page_num: int  # 1-based physical page
    page: Any  # pymupdf.Page
    settings: Settings
    baseline: pd.DataFrame | None = None  # this page's baseline line_df rows
    images: pd.DataFrame | None = None  # this page's image_df rows
    reasons: tuple[str, ...] = ()  # the page's page_df reasons ("flat_table: 'Table 8-1' continued ...")


@dataclass
class MethodResult:
    """What a method found on one page."""

    lines: list[dict[str, Any]]  # line_df rows (parsing_method set, line_num 1-based)
    images: list[dict[str, Any]] = field(default_factory=list)  # image_df rows to update
    ocr_confidence: float | None = None  # mean OCR word confidence, OCR methods only
    tokens: int = 0  # vision-model tokens spent
    notes: list[str] = field(default_factory=list)  # what the method did, for the report
    structured: bool | None = None  # overrides the method's ``structured`` for this page


@runtime_checkable
class Method(Protocol):
    """A deeper parser for one page."""

    name: ClassVar[str]  # the parsing_method it writes
    reasons: ClassVar[tuple[str, ...]]  # page_df reasons it is routed from
    coverage: ClassVar[str]  # page | region | addition (docintel.store.view)
    structured: ClassVar[bool]  # sets page_df.context_structured
    description: ClassVar[str]

    def estimate(self, page_row: dict[str, Any], settings: Settings) -> tuple[float, int]:
        """(estimated seconds, estimated vision tokens) for one page, before running."""
        ...

    def run(self, page: PageInput) -> MethodResult:
        """Parse one page; raise on failure (escalate records it and keeps the baseline)."""
        ...


def number_lines(rows: list[dict[str, Any]], doc_id: str, page_num: int, method: str) -> list[dict[str, Any]]:
    """Fill the keys every line_df row needs and number lines 1..n in list order."""
    for i, row in enumerate(rows, 1):
        row["doc_id"] = doc_id
        row["page_num"] = page_num
        row["line_num"] = i
        row["parsing_method"] = method
        row.setdefault("kind", "text")
        row.setdefault("column", "single")
    return rows
