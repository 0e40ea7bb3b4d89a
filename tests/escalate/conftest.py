"""Fixtures for escalate tests: synthetic PDFs (tests/escalate/synth_pages.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from synth_pages import booktabs_pdf, figure_pdf, rotated_scan_pdf, ruled_table_pdf  # noqa: E402


@pytest.fixture(scope="session")
def synth_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("synth")
    ruled_table_pdf(d / "ruled.pdf")
    booktabs_pdf(d / "booktabs.pdf")
    figure_pdf(d / "figure.pdf")
    rotated_scan_pdf(d / "rotated_scan.pdf")
    return d
