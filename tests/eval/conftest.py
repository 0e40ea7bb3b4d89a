"""Fixtures for the eval tests: golden files written into tmp_path and a scripted `ask`.

The scripted ask (``fake_ask``) stands in for the real pipeline where a test is about eval's
own logic (loading, checking, reporting); the real pipeline runs in test_eval_real.py.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from evalfakes import GOLDEN, GOOD_ANSWER, make_result


@pytest.fixture
def fake_ask() -> Callable:
    """ask(question, settings) answering every question with GOOD_ANSWER; records its calls."""
    calls: list = []

    def ask(question, settings):
        calls.append((question, settings))
        if settings.ask.max_loops == 0:
            return make_result(question, "The two versions produced nearly identical results (see Table 3 row (E)).",
                               reference=None, completeness="references_unresolved", verdict="give_up_partial")
        return make_result(question, GOOD_ANSWER)

    ask.calls = calls  # type: ignore[attr-defined]
    return ask


@pytest.fixture
def golden_text() -> str:
    return GOLDEN


@pytest.fixture
def write_golden(tmp_path: Path) -> Callable[..., Path]:
    def write(text: str = GOLDEN, name: str = "golden.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return path

    return write
