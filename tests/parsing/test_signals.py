"""Each signal alone (pure functions on hand-made rows) and through parse_document on synthetic PDFs."""

from __future__ import annotations

import pytest

from docintel.parsing import signals
from docintel.parsing.columns import assign_columns, grid_lines
from docintel.parsing.document import parse_document

from parsing_pdfs import make_continued_table_pdf, make_image_page, make_table_page, save


def line(text, x0, y0, x1, y1=None, bold=False):
    return {"text": text, "x0": x0, "y0": y0, "x1": x1, "y1": y0 + 10 if y1 is None else y1, "bold": bold}


def prose(y0=300, n=10, x0=72, x1=540):
    return [line("a full line of ordinary running prose text " * 2, x0, y0 + 12 * k, x1) for k in range(n)]


def grid(rows=6, cols=5, y0=110, words=False):
    """A grid of short cells: numbers ("2.3"), or words ("r2c3") with ``words``."""
    return [line(f"r{r}c{c}" if words else f"{r}.{c}", 90 + c * 90, y0 + r * 14, 120 + c * 90)
            for r in range(rows) for c in range(cols)]


def first_page(path):
    parsed = parse_document(path, "t" * 16, "0" * 64)
    return parsed, parsed.tables["page_df"].to_pylist()[0]


# -- pure functions ---------------------------------------------------------------------------


def test_counts():
    rows = [line("abc", 0, 0, 10), line("de", 0, 20, 10)]
    assert signals.char_count(rows) == 5
    assert signals.n_lines(rows) == 2
    assert signals.image_count([{"bbox": [0, 0, 1, 1]}]) == 1


def test_flat_table_fires_on_caption_plus_grid_with_the_measured_value():
    reason = signals.flat_table([line("Table 3: Variations", 72, 80, 400)] + grid() + prose())
    assert reason is not None and reason.startswith("flat_table: 'Table 3' caption + 30 short cells in 6 rows")


@pytest.mark.parametrize(
    "rows",
    [
        grid(words=True) + prose(),  # grid of words without a caption
        [line("Table 3: Variations", 72, 80, 400)] + prose(),  # caption without a grid
        [line("Table 1 summarizes the results of the study", 72, 80, 400)] + grid(words=True) + prose(),  # prose mention
        [line("Table 3: Variations", 72, 80, 400)] + grid(y0=500, words=True),  # grid far from the caption
    ],
)
def test_flat_table_needs_caption_and_adjacent_grid(rows):
    assert signals.flat_table(rows) is None


def test_a_grid_of_numbers_is_a_table_without_a_caption():
    """IRS Notice 1036's payroll-period chart and the 1040NR tax rate schedules carry no "Table N"
    caption: a grid of mostly numbers is flagged by itself, with the measured share."""
    assert signals.flat_table(grid() + prose()) == "flat_table: no caption; 30 short cells in 6 rows, 100% numbers"
    half = [line(w if c == 0 else f"{r},000", 90 + c * 120, 110 + r * 14, 150 + c * 120)
            for r, w in enumerate(["Weekly", "Biweekly", "Monthly", "Quarterly", "Annually"]) for c in range(2)]
    assert signals.flat_table(half + prose()) == "flat_table: no caption; 10 short cells in 5 rows, 50% numbers"
    assert signals.flat_table(grid(rows=3) + prose()) is None  # three rows of numbers: too few without a caption


def test_a_plots_tick_labels_are_not_a_table():
    """EACL 2023 p6: the axis ticks of "Figure 4: Accuracy and variance ..." form a grid of numbers."""
    assert signals.flat_table(grid() + [line("Figure 4: Accuracy and variance after annotating", 72, 200, 400)] + prose()) is None


@pytest.mark.parametrize("caption", ["TABLE 1: POTENTIAL IMPACT", "Table 2-1. Costs", "Table A-1", "Table A4-12. Savings"])
def test_caption_forms(caption):
    assert signals.caption_lines([line(caption, 72, 80, 400)])


def test_caption_below_the_grid_counts():
    assert signals.flat_table(grid() + [line("TABLE 1: POTENTIAL IMPACT", 72, 200, 400)])


def test_opaque_figure():
    big_empty = {"bbox": [100, 100, 400, 350], "area_ratio": 0.15, "text_chars_inside": 0}
    with_text = {**big_empty, "text_chars_inside": 240}
    logo = {"bbox": [10, 10, 30, 30], "area_ratio": 0.001, "text_chars_inside": 0}
    assert signals.opaque_figure([big_empty]).startswith("opaque_figure: image 300x250 pt (15% of page) with 0 text chars")
    assert signals.opaque_figure([with_text]) is None
    assert signals.opaque_figure([logo]) is None
    assert signals.opaque_figure([]) is None


def test_col_anomaly_is_relative_to_the_norm_or_three():
    assert signals.col_anomaly(2, 1) == "col_anomaly: 2 columns (document norm 1)"
    assert signals.col_anomaly(2, 2) is None
    assert signals.col_anomaly(1, 2) is None  # fewer columns carry no reading-order risk
    assert signals.col_anomaly(3, 3)


def test_column_norm_ignores_short_pages():
    assert signals.column_norm([(2, 40), (2, 50), (1, 3), (1, 5), (1, 4)]) == 2
    assert signals.column_norm([]) == 1


def test_scanned():
    assert signals.scanned(0, 0.98) == "scanned: 0 text chars, images cover 98% of the page"
    assert signals.scanned(0, 0.2) is None
    assert signals.scanned(3000, 1.0) is None  # an OCR'd scan with a text layer is not "scanned"


def test_escalate_is_the_union_of_flags():
    out = signals.evaluate([line("Table 3: V", 72, 80, 400)] + grid() + prose(), [], 1, 1)
    assert out["flat_table"] and out["escalate"] and len(out["reasons"]) == 1
    quiet = signals.evaluate(prose(), [], 1, 1)
    assert not quiet["escalate"] and quiet["reasons"] == []


def test_table_grid_is_not_columns():
    rows = [line("Table 1: x", 72, 80, 300)] + grid(rows=10, cols=5) + prose(y0=300, n=20)
    labels, n = assign_columns(rows, 612)
    assert n == 1
    assert grid_lines(rows) >= set(range(1, 51))


def test_two_columns_under_a_full_width_title():
    rows = [line("A long full width title line over both columns of text here", 80, 40, 530, 56)]
    rows += [line("left column prose that fills the column well", 60, 80 + 12 * k, 296) for k in range(25)]
    rows += [line("right column prose that fills the column too", 316, 80 + 12 * k, 552) for k in range(25)]
    labels, n = assign_columns(rows, 612)
    assert n == 2
    assert labels[0] == "single" and labels[1] == "left" and labels[-1] == "right"


# -- synthetic PDFs -------------------------------------------------------------------------------


def test_table_page_flat_table(table_pdf):
    _, page = first_page(table_pdf)
    assert page["flat_table"] and page["escalate"]
    assert page["n_columns"] == 1 and not page["col_anomaly"]
    assert page["reasons"][0].startswith("flat_table: 'Table 1' caption + ")


def test_caption_without_grid_not_flagged(tmp_path):
    _, page = first_page(save(make_table_page, tmp_path / "t.pdf", "Table 1: Measured throughput", False))
    assert not page["flat_table"] and not page["escalate"]


def test_image_page_opaque_figure(image_pdf):
    parsed, page = first_page(image_pdf)
    assert page["opaque_figure"] and page["image_count"] == 1
    img = parsed.tables["image_df"].to_pylist()[0]
    assert img["parsing_method"] == "not_parsed" and img["text_chars_inside"] == 0
    assert img["bbox"][2] - img["bbox"][0] > 250


def test_image_with_text_inside_is_not_opaque(tmp_path):
    parsed, page = first_page(save(make_image_page, tmp_path / "i.pdf", True))
    assert not page["opaque_figure"]
    assert parsed.tables["image_df"].to_pylist()[0]["text_chars_inside"] > 50


def test_two_column_page(two_column_pdf):
    parsed, page = first_page(two_column_pdf)
    assert page["n_columns"] == 2
    cols = parsed.tables["line_df"].column("column").to_pylist()
    assert cols[0] == "single" and cols.count("left") > 20 and cols.count("right") > 20


def test_scanned_page_gets_tesseract_baseline(scanned_pdf):
    parsed, page = first_page(scanned_pdf)
    assert page["scanned"] and page["parsing_method"] == "tesseract"
    assert page["ocr_confidence"] > 70
    lines = parsed.tables["line_df"].to_pylist()
    text = " ".join(r["text"] for r in lines).lower()
    assert "quarterly processing report" in text and "regional office" in text
    assert all(r["parsing_method"] == "tesseract" and r["confidence"] is not None for r in lines)
    assert parsed.n_ocr_pages == 1
    assert parsed.tables["documents"].to_pylist()[0]["baseline_method"] == "tesseract"


def test_born_digital_pages_never_ocr(table_pdf, two_column_pdf):
    for path in (table_pdf, two_column_pdf):
        parsed, page = first_page(path)
        assert page["parsing_method"] == "pymupdf" and parsed.n_ocr_pages == 0


# -- page labels ------------------------------------------------------------------------------------


def test_printed_labels_need_a_consistent_offset():
    from docintel.parsing.page_labels import printed_labels

    # front matter in roman numerals, then arabic numbers from physical page 4; page 6 prints none
    cands = [["Title"], ["ii"], ["iii"], ["1"], ["2"], [], ["4"], ["5"]]
    assert printed_labels(cands) == [None, "ii", "iii", "1", "2", "3", "4", "5"]
    # one stray number is not a page numbering
    assert printed_labels([["2017"], [], [], []]) == [None] * 4
    # chapter-page and appendix labels
    assert printed_labels([["2-1"], ["2-2"], ["A-1"]]) == ["2-1", "2-2", "A-1"]


# -- properties -------------------------------------------------------------------------------------

from hypothesis import given, settings as hsettings, strategies as st  # noqa: E402

boxes = st.lists(
    st.tuples(st.floats(0, 500), st.floats(1, 300), st.floats(0, 780), st.text("abc de", min_size=1, max_size=40)),
    max_size=60,
)


@hsettings(max_examples=60, deadline=None)
@given(boxes)
def test_columns_and_flags_on_arbitrary_lines(items):
    rows = [line(t, x, y, min(612, x + w)) for x, w, y, t in items]
    labels, n = assign_columns(rows, 612)
    assert len(labels) == len(rows) and n >= 1
    assert set(labels) <= {"single", "left", "right"} | {f"col{k}" for k in range(1, n + 1)}
    assert signals.flat_table(rows) is None  # no "Table N" caption, never a flat table


@hsettings(max_examples=50, deadline=None)
@given(st.integers(1, 3999))
def test_roman_values(n):
    from docintel.parsing.page_labels import roman_value

    numerals = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
                (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out, k = "", n
    for v, s in numerals:
        while k >= v:
            out, k = out + s, k - v
    assert roman_value(out) == n


def test_rotated_landscape_table_is_judged_as_displayed(tmp_path):
    from parsing_pdfs import make_landscape_table_page

    parsed, page = first_page(save(make_landscape_table_page, tmp_path / "landscape.pdf"))
    assert page["rotation"] == 90 and page["width"] > page["height"]
    assert page["flat_table"] and page["n_columns"] == 1 and not page["col_anomaly"]


def test_scanner_producers():
    from docintel.parsing.document import is_scanner_output

    assert is_scanner_output("EPSON Scan", None)
    assert is_scanner_output(None, "Canon iR-ADV C5535 PDF")
    assert is_scanner_output("ABBYY FineReader 15", "")
    assert not is_scanner_output("pdfTeX-1.40.25", "LaTeX with hyperref")
    assert not is_scanner_output("Acrobat Distiller 8.1.0 (Windows)", "Acrobat PDFMaker 8.1 for Word")
    assert not is_scanner_output(None, None)


def test_image_rows_know_their_xref(image_pdf):
    parsed, _ = first_page(image_pdf)
    img = parsed.tables["image_df"].to_pylist()[0]
    assert img["xref"] and img["width_px"] == 200 and img["height_px"] == 150


def test_continued_table_needs_its_header_row_repeated_near_the_top():
    header = frozenset({"tier", "governance", "management"})
    head = [line("Tier", 72, 80, 100), line("Governance", 150, 80, 220), line("Management", 360, 80, 430)]
    assert signals.continued_table(head + prose(y0=100), ("2", header)) == (
        "flat_table: 'Table 2' continued (its header row repeats on this page)")
    assert signals.continued_table(prose(y0=100), ("2", header)) is None  # no header row
    assert signals.continued_table(head + prose(y0=100), None) is None  # no table on the page before
    assert signals.continued_table(prose(y0=100, n=30) + [dict(r, y0=r["y0"] + 400, y1=r["y1"] + 400) for r in head],
                                   ("2", header)) is None  # the header words far down the page are something else


def test_table_running_on_to_the_next_page_is_a_flat_table_not_columns(tmp_path):
    """Page 2 holds the rest of Table 2 (header row repeated, no caption): its paragraph cells
    look like two text columns, but the page is a table to recover, not prose to re-order."""
    parsed = parse_document(make_continued_table_pdf(tmp_path / "t.pdf"), "t" * 16, "0" * 64)
    pages = parsed.tables["page_df"].to_pylist()
    assert pages[0]["flat_table"] and pages[0]["reasons"][0].startswith("flat_table: 'Table 2' caption")
    assert pages[1]["flat_table"] and not pages[1]["col_anomaly"]
    assert pages[1]["reasons"] == ["flat_table: 'Table 2' continued (its header row repeats on this page)"]
    assert not pages[2]["escalate"]


def ruled_cells(y0=120, rows=4, xs=(72.0, 252.0, 540.0), row_h=31.0):
    """The rules of a ruled table (SP 800-40's Table A-1): vertical cell edges at ``xs``, a
    horizontal rule above every row."""
    from docintel.parsing.rules import Rule

    y1 = y0 + rows * row_h
    return ([Rule(y0 + k * row_h, xs[0], xs[-1]) for k in range(rows + 1)], [Rule(x, y0, y1) for x in xs])


def test_a_ruled_grid_needs_two_columns_and_two_rows_and_is_no_page_frame():
    from docintel.parsing.rules import Rule, ruled_grids

    h, v = ruled_cells()
    assert ruled_grids(h, v, 792.0) == [{"x0": 72.0, "y0": 120.0, "x1": 540.0, "y1": 244.0, "columns": 2, "rows": 4}]
    assert ruled_grids(h, v[::2], 792.0) == []  # a framed note: one column
    assert ruled_grids(h[:2], v, 792.0) == []  # one row under a heading rule
    frame = [Rule(66.0, 30.0, 760.0), Rule(545.0, 30.0, 760.0)]  # a border round the whole page
    assert ruled_grids(h, v + frame, 792.0)[0]["x0"] == 72.0


def test_a_ruled_table_of_wrapped_cells_is_flagged_and_followed_onto_the_next_page():
    """SP 800-40 pp22-23, Table A-1: a component's name and a two-line description per row,
    ruled. Its lines hold no grid of short cells, so the page was not flagged and a question's
    answer read one row's description run into the next row's name ("... logical groupings of
    CPE names Common Configuration Enumeration (CCE) 5"); the page after it, no caption, neither."""
    from docintel.parsing.rules import ruled_grids

    cells = []
    for k in range(4):
        y = 125 + 31 * k
        cells += [line(f"Component Name Number {k}", 77, y, 240),
                  line("A nomenclature and dictionary of hardware, operating systems, and", 257, y, 529),
                  line("applications, plus an applicability language", 257, y + 10, 500)]
    caption = [line("Table A-1. SCAP Version 1.2 Component Specifications", 160, 100, 450, bold=True)]
    grids = ruled_grids(*ruled_cells(), 792.0)
    page = prose(y0=40, n=4) + caption + cells + prose(y0=260)
    assert signals.flat_table(page) is None  # its lines alone
    assert signals.flat_table(page, grids) == "flat_table: 'Table A-1' caption + ruled grid of 2 columns x 4 rows"
    assert signals.flat_table(prose(y0=40, n=4) + cells + prose(y0=260), grids) is None  # no caption
    previous = signals.table_header(page, grids)
    assert previous == ("A-1", frozenset(), None)
    top = ruled_grids(*ruled_cells(y0=72), 792.0)
    nxt = [dict(r, y0=r["y0"] - 53, y1=r["y1"] - 53) for r in cells] + prose(y0=260)
    assert signals.continued_table(nxt, previous, top) == "flat_table: 'Table A-1' continued (its ruled grid goes on on this page)"
    assert signals.continued_table(nxt, None, top) is None  # no table on the page before
    low = ruled_grids(*ruled_cells(y0=500), 792.0)
    assert signals.continued_table(prose(y0=72, n=30), previous, low) is None  # a grid far down the page is another


def label_table(y0=120, rows=("Clear:", "Purge:", "Destroy:", "Notes:"), wrap=3):
    """A two-column label table: a bold "Clear:" label, a paragraph cell wrapping beside it."""
    out, y = [], y0
    for label in rows:
        out.append(line(label, 90, y, 125, bold=True))
        for k in range(wrap):
            out.append(line("paragraph cell text that wraps over several lines " * 2, 159, y + 11 * k, 520))
        y += 11 * wrap + 10
    return out


def test_label_table_with_a_caption_is_a_flat_table():
    """SP 800-88 Tables A-1..A-9: short bold labels beside paragraph cells, no short cell grid."""
    caption = [line("Table A-8: Flash Memory-Based Storage Device Sanitization", 177, 80, 437, bold=True)]
    page = prose(y0=40, n=2) + caption + label_table(y0=110)
    assert signals.flat_table(page) == "flat_table: 'Table A-8' caption + 8 short cells in 4 rows"
    assert signals.flat_table(prose(y0=40, n=2) + label_table(y0=110)) is None  # no caption
    # labels that are not aligned, or text in the label column between them, are not a table
    assert signals.flat_table(caption + label_table(y0=110, rows=("Clear:",)) + label_table(y0=170, rows=("Purge:",))
                              + [line("Ordinary prose at the left margin", 72, 215, 520)]
                              + label_table(y0=230, rows=("Destroy:", "Notes:"))) is None
    header = signals.table_header(caption + label_table(y0=110))
    assert header[0] == "A-8" and header[2] == 90


def plain_label_table(y0=110, rows=("None", "Low", "Medium", "High"), value_x=(133, 133, 133, 133)):
    """SP 800-61 Table 3-2: a header of two short cells ("Category" | "Definition"), then plain
    row labels (neither bold nor ending in a colon) beside one-line definitions, one wrapping."""
    out = [line("Category", 83, y0, 124), line("Definition", 310, y0, 354)]
    y = y0 + 15
    for label, x in zip(rows, value_x):
        out.append(line(label, 83, y, 83 + 7 * len(label)))
        out.append(line("Organization has lost the ability to provide a critical service", x, y, 481))
        if label == rows[1]:
            y += 10
            out.append(line("efficiency", x, y, 175))
        y += 15
    return out


def test_a_captioned_table_of_plain_labels_under_a_header_row_is_a_flat_table():
    """SP 800-61 p33 (Tables 3-2 to 3-4) was not flagged, so the recoverability categories a
    question followed Section 3.2.6 to read were one run-on sentence of flattened cells."""
    caption = [line("Table 3-2. Functional Impact Categories", 221, 72, 394)]
    assert signals.flat_table(caption + plain_label_table()) == "flat_table: 'Table 3-2' caption + 8 short cells in 4 rows"
    assert signals.flat_table(plain_label_table()) is None  # no caption
    assert signals.flat_table(caption + plain_label_table()[2:]) is None  # no header row: a list, not a table
    # definitions that do not start at one edge are not a table's column
    assert signals.flat_table(caption + plain_label_table(value_x=(133, 160, 133, 190))) is None
    # prose at the margin ends the table: its two rows above are too few
    rows = plain_label_table()
    assert signals.flat_table(caption + rows[:6] + [line("Ordinary prose at the left margin " * 3, 72, 150, 520)]
                              + [dict(r, y0=r["y0"] + 40, y1=r["y1"] + 40) for r in rows[6:]]) is None


def test_label_table_continued_on_the_next_page_without_a_caption():
    previous = ("A-8", frozenset(), 90)
    top = [line("the previous row's paragraph cell goes on " * 2, 159, 60 + 11 * k, 520) for k in range(5)]
    assert signals.continued_table(top + label_table(y0=130), previous) == (
        "flat_table: 'Table A-8' continued (its row labels go on on this page)")
    assert signals.continued_table(top + label_table(y0=130), ("A-8", frozenset(), 200)) is None  # other column
    assert signals.continued_table(prose(y0=60, n=30), previous) is None
    assert signals.continued_table(top + label_table(y0=130), ("A-8", frozenset())) is None  # a grid table before


def test_a_label_table_ending_above_the_next_caption_is_named_in_the_reason():
    """SP 800-88 p36: Table A-2's last rows, then the caption of Table A-3 and its rows."""
    rest = label_table(y0=60, rows=("Destroy:", "Notes:"))
    caption = [line("Table A-3: Mobile Device Sanitization", 216, 200, 400, bold=True)]
    page = rest + caption + label_table(y0=230)
    sig = signals.evaluate(page, [], 1, 1, previous_table=("A-2", frozenset(), 90))
    assert sig["reasons"] == ["flat_table: 'Table A-3' caption + 8 short cells in 4 rows; 'Table A-2' continued above it"]
    alone = signals.evaluate(caption + label_table(y0=230), [], 1, 1, previous_table=("A-2", frozenset(), 90))
    assert alone["reasons"] == ["flat_table: 'Table A-3' caption + 8 short cells in 4 rows"]


def test_the_table_that_runs_on_is_the_last_caption_on_the_page():
    """A page ends with a new caption and its first label row (SP 800-88 p35 Table A-2): that
    table, not the bigger one above it, is the one the next page continues."""
    page = ([line("Table A-1: Hard Copy", 216, 60, 400, bold=True)] + label_table(y0=90)
            + [line("Table A-2: Networking Device Sanitization", 216, 600, 400, bold=True)]
            + label_table(y0=630, rows=("Clear:",)))
    assert signals.table_header(page)[0] == "A-2"
    assert signals.table_header(page[:-4])[0] == "A-1"  # no row after the last caption: A-1 runs on
