"""Fixtures for the structure tests (synthetic PDFs made with PyMuPDF, real ones from the corpus)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from structure_pdfs import report_pdf, structure  # noqa: E402


@pytest.fixture(scope="session")
def report(tmp_path_factory):
    """build_structure tables of the synthetic report without an outline."""
    path = report_pdf(tmp_path_factory.mktemp("report") / "report.pdf")
    return {**structure(path), "_path": path}


@pytest.fixture(scope="session")
def report_outlined(tmp_path_factory):
    """The same report with an outline of bare titles ("Data", not "2.1 Data")."""
    path = report_pdf(tmp_path_factory.mktemp("report_ol") / "report.pdf", with_outline=True)
    return structure(path)


@pytest.fixture(scope="session")
def real(shared_corpora):
    """build_structure of a corpus PDF, computed once per file for the session."""
    cache: dict[str, dict] = {}

    def get(rel: str) -> dict:
        if rel not in cache:
            cache[rel] = structure(shared_corpora / rel)
        return cache[rel]

    return get
