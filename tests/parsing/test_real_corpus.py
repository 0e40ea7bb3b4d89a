"""Acceptance on the real PDFs of ../shared/corpora (see SOURCES.md there for what each page holds)."""

from __future__ import annotations

import re

import pytest

from docintel.parsing.document import parse_document
from docintel.parsing.ingest import run_ingest
from docintel.settings import Settings
from docintel.store import Store




def pages_of(path):
    parsed = parse_document(path, "r" * 16, "0" * 64)
    return {p["page_num"]: p for p in parsed.tables["page_df"].to_pylist()}, parsed


@pytest.fixture(scope="module")
def transformer(shared_corpora):
    return pages_of(shared_corpora / "papers" / "1706.03762v7.pdf")


@pytest.fixture(scope="module")
def fips(shared_corpora):
    return pages_of(shared_corpora / "nist" / "NIST.FIPS.199.pdf")


def test_transformer_flags(transformer):
    pages, _ = transformer
    assert pages[3]["opaque_figure"]
    assert pages[6]["flat_table"] and "'Table 1'" in pages[6]["reasons"][0]
    assert pages[9]["flat_table"] and any("'Table 3'" in r for r in pages[9]["reasons"])
    for n in (1, 2, 5, 7):
        assert not pages[n]["escalate"] and pages[n]["reasons"] == [], (n, pages[n]["reasons"])
    assert all(p["parsing_method"] == "pymupdf" for p in pages.values())  # born-digital: never OCR


def test_transformer_lines_and_images(transformer):
    _, parsed = transformer
    lines = parsed.tables["line_df"].to_pandas()
    p6 = lines[lines.page_num == 6]
    assert "Positional Encoding" in set(p6.text)
    assert p6.line_num.tolist() == list(range(1, len(p6) + 1))
    images = parsed.tables["image_df"].to_pandas()
    fig1 = images[images.page_num == 3].iloc[0]
    assert fig1.text_chars_inside == 0 and fig1.parsing_method == "not_parsed" and fig1.area_ratio > 0.1


def test_fips_table_and_printed_page_labels(fips):
    pages, _ = fips
    assert pages[10]["flat_table"]
    assert pages[10]["n_columns"] == 1 and not pages[10]["col_anomaly"]  # the cell grid is not columns
    assert pages[12]["page_label"] == "8" and pages[12]["page_label_source"] == "printed"
    assert pages[5]["page_label"] == "1"


def test_paragraph_cell_table_is_a_table_not_two_columns(shared_corpora):
    # CSWP 29 page 29: "Table 2. Notional Illustration of the CSF Tiers", cells are small paragraphs
    pages, parsed = pages_of(shared_corpora / "nist" / "NIST.CSWP.29.pdf")
    assert pages[29]["flat_table"] and "'Table 2'" in pages[29]["reasons"][0]
    assert pages[29]["n_columns"] == 1 and not pages[29]["col_anomaly"]
    assert not any(p["flat_table"] for n, p in pages.items() if n in (6, 7, 9, 12))  # prose pages


def test_two_column_paper_page_one_despite_title_block(shared_corpora):
    pages, parsed = pages_of(shared_corpora / "two_column" / "2023.eacl-main.121.pdf")
    assert pages[1]["n_columns"] == 2 and not pages[1]["col_anomaly"]
    lines = parsed.tables["line_df"].to_pandas()
    first = lines[lines.page_num == 1]
    assert first[first.text.str.startswith("LONGEVAL: Guidelines")].column.iloc[0] == "single"
    assert first[first.text.str.startswith("While human evaluation")].column.iloc[0] == "left"


def test_pdf_page_labels_are_used(shared_corpora):
    pages, _ = pages_of(shared_corpora / "tables" / "us-020.pdf")
    assert all(p["page_label"] for p in pages.values())


# -- the whole shared corpus, once ----------------------------------------------------------------

ENGLISH = {"the", "and", "of", "to", "a", "in", "is", "for", "that", "with", "on", "as", "it", "was", "by"}


@pytest.fixture(scope="module")
def corpus_store(shared_corpora, tmp_path_factory):
    store = tmp_path_factory.mktemp("corpus") / "store"
    report = run_ingest([shared_corpora], Settings.load(env={}, store=store, ingest__workers=2))
    return report, Store(store)


@pytest.mark.slow
def test_whole_shared_corpus_ingests_with_exit_0(corpus_store, shared_corpora):
    report, store = corpus_store
    assert report.exit_code == 0, [(f.path, f.reason) for f in report.files if f.reason]
    assert report.totals.ingested == report.totals.files == len([p for p in shared_corpora.rglob("*") if p.suffix.lower() == ".pdf"])
    assert report.totals.flagged_by_reason.get("flat_table", 0) >= 5


@pytest.mark.slow
def test_scanned_pages_get_readable_tesseract_text(corpus_store, shared_corpora):
    _, store = corpus_store
    docs = store.documents()
    scanned = docs[docs.path.str.contains("/scanned/")]
    assert len(scanned) == len(list((shared_corpora / "scanned").glob("*.pdf")))
    for doc_id, name in zip(scanned.doc_id, scanned.file_name):
        pages = store.read_table("page_df", [doc_id])
        assert set(pages.parsing_method) == {"tesseract"} and pages.scanned.all(), name
        assert (pages.ocr_confidence > 60).all(), (name, pages.ocr_confidence.tolist())
        lines = store.read_table("line_df", [doc_id])
        assert lines.confidence.notna().all()
        words = re.findall(r"[a-z]+", " ".join(lines.text).lower())
        assert len(words) > 100, name
        assert len(ENGLISH & set(words)) >= 8, name  # readable English, not noise
    # the rotated scan is read as displayed: same words as the upright one
    def words_of(file_name):
        doc_id = scanned[scanned.file_name == file_name].doc_id.iloc[0]
        return set(re.findall(r"[a-z]{4,}", " ".join(store.read_table("line_df", [doc_id]).text).lower()))

    reference = set(re.findall(r"[a-z]{4,}", (shared_corpora / "scanned" / "linn.txt").read_text().lower()))
    for name in ("skew.pdf", "rotated_skew.pdf"):
        got = words_of(name)
        assert len(got & reference) / len(reference) > 0.6, name


def test_sp800_88_label_tables_are_flagged_on_every_page(shared_corpora):
    """Tables A-1..A-9 (pp35-48): a label column ("Clear:", "Purge:") beside paragraph cells,
    running over several pages without captions or repeated headers."""
    pages, _ = pages_of(shared_corpora / "crossref" / "NIST.SP.800-88r1.pdf")
    for n in range(35, 49):
        assert pages[n]["flat_table"], (n, pages[n]["reasons"])
    assert "'Table A-8' caption" in pages[44]["reasons"][0]
    assert "'Table A-8' continued" in pages[45]["reasons"][0]
    # a table ending at the top of the next captioned page is named there (A-2 on p36, A-4 on p39)
    assert pages[36]["reasons"][0].endswith("'Table A-2' continued above it")
    assert pages[39]["reasons"][0].endswith("'Table A-4' continued above it")
    assert not pages[34]["flat_table"] and not pages[49]["flat_table"]


def test_ruled_tables_of_wrapped_cells_are_flagged_with_their_continuations(shared_corpora):
    """Ruled tables whose cells wrap (no grid of short cells in their lines) were not flagged:
    SP 800-40's Table A-1 (pp22-23, the SCAP components and their versions), SP 800-61's Table
    3-1 (pp36-37) and SP 800-64's Table 2-1 (pp15-16). Their rules say they are tables."""
    for name, first, tid in [("SP800-40r3.pdf", 22, "A-1"), ("SP800-61rev2.pdf", 36, "3-1"), ("SP800-64r2.pdf", 15, "2-1")]:
        folder = "figures" if name.startswith("SP800-64") else "crossref"
        pages, _ = pages_of(shared_corpora / folder / name)
        assert pages[first]["reasons"][0].startswith(f"flat_table: 'Table {tid}' caption + ruled grid of 2 columns"), name
        assert pages[first + 1]["reasons"] == [f"flat_table: 'Table {tid}' continued (its ruled grid goes on on this page)"], name
        assert not pages[first - 1]["flat_table"] and not pages[first + 2]["flat_table"], name


def test_columns_read_across_the_page_are_a_reading_order_risk(shared_corpora):
    """The 1040NR gives its text line by line across its columns. Its pages where the column
    finder sees two columns (a worksheet under two of three) were not flagged, as the document's
    norm is 3, and were read across: p18's "Tax Computation on" | "connected with a U.S. trade
    or" | "Income Effectively". A page whose lines switch column at most steps is flagged (then
    escalated to reading_order); a two-column paper read column by column is not."""
    import pymupdf

    from docintel.parsing import signals
    from docintel.parsing.baseline import extract_page

    nr = pymupdf.open(shared_corpora / "two_column" / "i1040nr.pdf")
    lines, n = extract_page(nr[17], "d", 18)
    assert n == 2 and signals.interleaved(lines) > 0.7
    assert signals.col_anomaly(n, 3, signals.interleaved(lines)).startswith("col_anomaly: 2 columns read across (")
    paper = pymupdf.open(shared_corpora / "two_column" / "2023.eacl-main.121.pdf")
    for i in range(paper.page_count):
        lines, n = extract_page(paper[i], "d", i + 1)
        assert signals.col_anomaly(n, 2, signals.interleaved(lines)) is None, i + 1
    assert signals.interleaved([{"column": c} for c in ["left"] * 20 + ["right"] * 20]) < 0.05
    assert signals.interleaved([{"column": c} for c in ["left", "right"] * 20]) == 1.0
    # p46's worksheet: a few rows of amounts side by side, too few lines in "columns" to judge
    lines, n = extract_page(nr[45], "d", 46)
    assert n == 2 and signals.interleaved(lines) == 0.0


def test_sp80061_tables_of_plain_row_labels_are_flagged_and_read_row_by_row(shared_corpora):
    """SP 800-61 p33 holds Tables 3-2 to 3-4, "Category | Definition" over plain row labels
    ("Extended" | "Time to recovery is unpredictable; ..."): no short-cell grid, no bold labels.
    Unflagged, the recoverability categories were one run-on sentence of flattened cells."""
    from docintel.parsing import methods
    from docintel.parsing.fitz import pymupdf
    from docintel.parsing.methods.base import PageInput

    path = shared_corpora / "crossref" / "SP800-61rev2.pdf"
    pages, _ = pages_of(path)
    assert pages[42]["reasons"] == ["flat_table: 'Table 3-2' caption + 8 short cells in 4 rows"]
    assert not pages[43]["escalate"]  # the escalation procedure after the tables is prose
    page = PageInput("sp80061", 42, pymupdf().open(path)[41], Settings())
    rows = [r["text"] for r in methods.get("pymupdf_tables").run(page).lines if r["kind"] == "table_row"]
    assert "Extended | Definition: Time to recovery is unpredictable; additional resources and outside help are needed" in rows


def test_wingdings_glyphs_are_read_as_the_marks_they_draw(shared_corpora):
    """SP 800-63B sets its Section 10.2 bullets in Wingdings (code 0xA7, a small square) and its
    Table 10-1 marks too (0x77, a diamond): PyMuPDF hands on the codes, read "§" (a section sign)
    and "w". They are read as the marks they draw, and a bullet so read opens a list item."""
    from docintel.parsing.baseline import extract_lines
    from docintel.parsing.fitz import pymupdf
    from docintel.text import BULLET

    doc = pymupdf().open(shared_corpora / "crossref" / "NIST.SP.800-63b.pdf")
    p62 = [r["text"] for r in extract_lines(doc[61], "d", 62)]
    item = next(t for t in p62 if "High contrast" in t)
    assert item.startswith("\u25aa High contrast") and BULLET.match(item)
    p68 = [r["text"] for r in extract_lines(doc[67], "d", 68)]
    assert "w" not in p68 and "".join(p68).count("\u2b25") == 66  # the marks of the page's 12 rows
    sp80048 = pymupdf().open(shared_corpora / "figures" / "SP800-48r1.pdf")
    p8 = [r["text"] for r in extract_lines(sp80048[7], "d", 8)]
    assert "\uf01f Roles and responsibilities, such as which parties" in "\n".join(p8)


def test_a_symbol_fonts_code_without_a_character_is_no_letter():
    from docintel.glyphs import glyph_text

    assert glyph_text("Wingdings-Regular", "w") == "\u2b25"
    assert glyph_text("ABCDEF+Wingdings-Regular", "\uf0a7 ") == "\u25aa "  # its private-use form too
    assert glyph_text("Wingdings-Regular", "\uf0fc") == "\u2713"
    assert glyph_text("Wingdings-Regular", "J") == "\uf04a"  # a smiling face: a glyph, not "J"
    assert glyph_text("Wingdings2", "w") == "\uf077"  # another font's codes: not Wingdings' table
    assert glyph_text("TimesNewRomanPSMT", "w §") == "w §"
    assert glyph_text("Webdings", "\x1f") == "\uf01f"  # SP 800-48's bullet: no white space
    assert glyph_text("Webdings", "\uf03c ") == "\uf03c "  # SP 800-61's, already private-use


def test_a_wingdings_bullet_read_as_its_mark_still_opens_a_list_item():
    """Read as private-use characters, every Wingdings code at a line's start was a bullet
    (``BULLET``); read as the marks they draw ("\u27a2", "\u2756", "\u2713"), they still are."""
    from docintel.glyphs import _WINGDINGS, glyph_text
    from docintel.text import BULLET, LONE_BULLET

    for code in _WINGDINGS:
        assert BULLET.match(chr(0xF000 + code) + " Item text")  # as they were read
        mark = glyph_text("Wingdings-Regular", chr(0xF000 + code))
        assert BULLET.match(f"{mark} Item text") and LONE_BULLET.match(mark), hex(code)
