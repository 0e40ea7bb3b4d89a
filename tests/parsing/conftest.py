"""Fixtures for tests/parsing: synthetic PDFs (see parsing_pdfs.py) written to tmp."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsing_pdfs import make_image_page, make_scanned_pdf, make_table_page, make_two_column_page, multi_page_pdf, save


@pytest.fixture
def table_pdf(tmp_path) -> Path:
    return save(make_table_page, tmp_path / "table.pdf")


@pytest.fixture
def two_column_pdf(tmp_path) -> Path:
    return save(make_two_column_page, tmp_path / "two_column.pdf")


@pytest.fixture
def image_pdf(tmp_path) -> Path:
    return save(make_image_page, tmp_path / "image.pdf")


@pytest.fixture
def scanned_pdf(tmp_path) -> Path:
    return make_scanned_pdf(tmp_path / "scanned.pdf")


@pytest.fixture
def good_pdfs(tmp_path) -> list[Path]:
    folder = tmp_path / "good"
    folder.mkdir()
    return [multi_page_pdf(folder / "a.pdf", 2), multi_page_pdf(folder / "b.PDF", 3)]
