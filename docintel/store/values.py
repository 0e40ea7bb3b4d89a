"""Coercion of values read from store rows (pandas gives NaN/None/float for missing ints)."""

from __future__ import annotations

from typing import Any


def as_int(v: Any) -> int | None:
    """``v`` as an int, or None when it is missing (None/NaN) or not a number."""
    try:
        if v is None or v != v:  # noqa: PLR0124 (NaN)
            return None
        return int(v)
    except (TypeError, ValueError):
        return None


def as_float(v: Any) -> float | None:
    """``v`` as a float, or None when it is missing (None/NaN) or not a number."""
    try:
        if v is None or v != v:  # noqa: PLR0124 (NaN)
            return None
        return float(v)
    except (TypeError, ValueError):
        return None
