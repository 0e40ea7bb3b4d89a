"""TOC without an outline: numbered headings in the text, completed by a printed contents page."""

from __future__ import annotations

from typing import Any

import pandas as pd


def toc_without_outline(
    logical: pd.DataFrame,
    furniture: pd.Series,
    on_contents: pd.Series,
    contents: set[int],
    page_labels: list[str],
    n_pages: int,
) -> list[dict[str, Any]]:
    """Placeholder: filled in by the heading detector (next commit)."""
    return []
