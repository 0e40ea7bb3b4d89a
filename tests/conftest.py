"""Shared fixtures. Real PDFs come from ../shared/corpora (SOURCES.md there says what each is)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpora"
CORPORA = ROOT / "corpora"
TRANSFORMER = SHARED / "papers" / "1706.03762v7.pdf"
FIPS199 = SHARED / "nist" / "NIST.FIPS.199.pdf"


@pytest.fixture(scope="session")
def shared_corpora() -> Path:
    if not SHARED.exists():
        pytest.fail(f"{SHARED} is missing: tests read real PDFs from ../shared/corpora")
    return SHARED
