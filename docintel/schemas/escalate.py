"""Records of an `escalate` run: the plan (one item per page x method) and the report."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from docintel.errors import ExitCode


class ItemStatus(str, Enum):
    planned = "planned"  # dry run: would run
    done = "done"  # ran and its rows were written
    failed = "failed"  # the method raised; the page stays on its baseline
    skipped = "skipped"  # already parsed by this method (use --force to re-run)
    capped = "capped"  # over --max-pages
    no_method = "no_method"  # no method handles the page's reasons


class PlanItem(BaseModel):
    """One page routed to one method."""

    doc_id: str = Field(description="Document id.")
    doc: str = Field(description="File name of the document.")
    page: int = Field(description="1-based physical page.")
    page_label: str | None = Field(None, description="Printed page label.")
    reasons: list[str] = Field(default_factory=list, description="page_df reasons, with their measured values.")
    method: str | None = Field(None, description="Method chosen (route by reason, or --method).")
    status: ItemStatus = Field(ItemStatus.planned, description="What happened to this item.")
    est_seconds: float = Field(0.0, description="Estimated cost in seconds before running.")
    est_tokens: int = Field(0, description="Estimated vision-model tokens (0 without a vision model).")
    seconds: float | None = Field(None, description="Measured seconds (after running).")
    tokens: int = Field(0, description="Vision-model tokens spent.")
    n_lines: int | None = Field(None, description="line_df rows the method added.")
    error: str | None = Field(None, description="Why the method failed on this page.")
    notes: list[str] = Field(default_factory=list, description="What the method found.")


class EscalateReport(BaseModel):
    """Result of one `docintel escalate` run (or its dry-run plan)."""

    store: str = Field(description="Store folder.")
    dry_run: bool = Field(False, description="True when nothing was run.")
    items: list[PlanItem] = Field(default_factory=list, description="Plan and outcome per page x method.")
    planned: int = Field(0, description="Items that would run / were attempted.")
    done: int = Field(0, description="Items that ran and were written.")
    failed: int = Field(0, description="Items whose method failed.")
    skipped: int = Field(0, description="Items already parsed by their method.")
    capped: int = Field(0, description="Items left out by --max-pages.")
    est_seconds: float = Field(0.0, description="Estimated seconds of the planned items.")
    est_tokens: int = Field(0, description="Estimated vision tokens of the planned items.")
    seconds: float = Field(0.0, description="Wall seconds of the run.")
    tokens: int = Field(0, description="Vision tokens spent.")

    @property
    def exit_code(self) -> int:
        return int(ExitCode.PARTIAL if self.failed else ExitCode.OK)
