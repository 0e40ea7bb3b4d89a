"""Each escalation method on synthetic pages, and the contract every registered method keeps."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from docintel.errors import UsageError
from docintel.parsing import methods
from docintel.schemas.tables import LINE_DF, to_arrow
from synth_pages import LABELS, SCAN_TEXT, draw_ruled_table, page_input


def _rows(result):
    return [r for r in result.lines if r["kind"] == "table_row" and r["row_key"] != "header"]


def test_ruled_table_rows_pair_cells_with_headers(synth_dir):
    result = methods.get("pymupdf_tables").run(page_input(synth_dir / "ruled.pdf"))
    rows = _rows(result)
    assert [r["row_key"] for r in rows] == ["Basic", "Standard", "Premium"]
    standard = json.loads(rows[1]["cells"])
    assert {"header": "Memory", "value": "8 GB"} in standard
    assert {"header": "Storage", "value": "100 GB"} in standard
    assert all(r["object_key"] == "table:1" for r in result.lines)
    header = [r for r in result.lines if r["row_key"] == "header"]
    assert len(header) == 1 and "Memory" in header[0]["text"]
    # each row's bbox sits on its own grid row
    assert rows[0]["y1"] <= rows[1]["y0"] + 1


def test_booktabs_table_merges_two_line_header(synth_dir):
    result = methods.get("pymupdf_tables").run(page_input(synth_dir / "booktabs.pdf"))
    rows = _rows(result)
    assert [r["row_key"] for r in rows] == ["baseline", "small", "large"]
    cells = json.loads(rows[2]["cells"])
    assert {"header": "Accuracy (dev)", "value": "79.3"} in cells
    assert {"header": "Size (MB)", "value": "410"} in cells
    assert "Latency (ms): 55" in rows[2]["text"]
    # the paragraph under the table is not a row
    assert not any("larger models" in r["text"] for r in result.lines)


def test_figure_ocr_reads_labels_inside_the_image(synth_dir):
    result = methods.get("figure_ocr").run(page_input(synth_dir / "figure.pdf"))
    texts = [r["text"] for r in result.lines]
    for label in LABELS:
        assert any(label.lower() in t.lower() for t in texts), (label, texts)
    assert {r["kind"] for r in result.lines} == {"figure_text"}
    assert {r["object_key"] for r in result.lines} == {"figure:1"}
    # labels sit inside the image bbox (points), not at pixel coordinates
    assert all(110 <= r["x0"] and r["x1"] <= 460 and 80 <= r["y0"] and r["y1"] <= 310 for r in result.lines)
    assert result.images and result.images[0]["parsing_method"] == "figure_ocr"


def _words(text):
    return re.findall(r"[a-z]+", text.lower())


@pytest.mark.slow
def test_ocr_hires_turns_a_rotated_skewed_scan_upright(synth_dir):
    result = methods.get("ocr_hires").run(page_input(synth_dir / "rotated_scan.pdf"))
    got = _words(" ".join(r["text"] for r in result.lines))
    want = _words(" ".join(SCAN_TEXT))
    found = sum(1 for w in set(want) if w in set(got))
    assert found / len(set(want)) >= 0.9, got
    assert result.ocr_confidence and result.ocr_confidence > 70
    assert "rotated" in result.notes[0]
    # line order follows the text: the first sentence comes first
    assert "quick" in result.lines[0]["text"].lower() or "quick" in result.lines[1]["text"].lower()


def test_reading_order_reads_left_column_before_right(tmp_path):
    from docintel.parsing.fitz import pymupdf
    from synth_pages import page_input as pi

    m = pymupdf()
    doc = m.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "A Title Across The Whole Page Width For Both Columns Of Text", fontsize=14)
    # write the right column first, so content-stream order is wrong
    for i in range(12):
        page.insert_text((330, 100 + 14 * i), f"right column line {i}", fontsize=10)
    for i in range(12):
        page.insert_text((72, 100 + 14 * i), f"left column line {i}", fontsize=10)
    doc.save(tmp_path / "cols.pdf")
    result = methods.get("reading_order").run(pi(tmp_path / "cols.pdf"))
    texts = [r["text"] for r in result.lines]
    assert texts[0].startswith("A Title")
    assert texts[1:13] == [f"left column line {i}" for i in range(12)]
    assert texts[13:] == [f"right column line {i}" for i in range(12)]
    assert [r["line_num"] for r in result.lines] == list(range(1, 26))


def test_reading_order_reads_two_columns_set_over_a_worksheet_one_after_the_other(shared_corpora):
    """1040NR p18: three columns of prose, then a worksheet spanning the first two while the
    third runs on. The page has one gutter (before the third column), so its left "column" held
    two, read across: "Tax Computation on" | "connected with a U.S. trade or" | "Income
    Effectively". That column is cut at its wide vertical gap into bands; the band over the
    worksheet has a gutter of its own and is read column by column, then the worksheet, then the
    third column."""
    from synth_pages import page_input as pi

    texts = [r["text"] for r in methods.get("reading_order").run(pi(shared_corpora / "two_column" / "i1040nr.pdf", 18)).lines]
    at = {t: k for k, t in reversed(list(enumerate(texts)))}
    first = ["Tax Computation on", "Income Effectively", "Connected With A U.S.", "Trade or Business",
             "Line 37—Itemized deductions."]
    assert texts[:5] == first
    assert at["extent of your income that is effectively"] + 1 == at["connected with a U.S. trade or"]
    assert at["$117,300 if you checked filing status"] < at["Deduction for Exemptions"] < at["Worksheet—Line 39"]
    assert at["Worksheet—Line 39"] < at["to distribute all of its income currently,"]  # the third column


def test_a_worksheet_under_two_of_three_columns_is_read_apart_from_the_third(shared_corpora):
    """1040NR p16: three columns of prose, then a worksheet under the first two while the third
    runs on beside it. The page has two gutters and the worksheet's lines cross only the first:
    read as full-width lines, each cut the page, and the third column's lines beside them were
    read between them ("Use the worksheet on page 17 to" | "Be sure you have read the Exception
    above ..." | "figure your student loan interest"). The first two columns and the worksheet
    are read together, then the third column."""
    from synth_pages import page_input as pi

    lines = methods.get("reading_order").run(pi(shared_corpora / "two_column" / "i1040nr.pdf", 16)).lines
    texts = [r["text"] for r in lines]
    at = {t: k for k, t in enumerate(texts)}
    start = at["Use the worksheet on page 17 to"]
    assert texts[start:start + 3] == ["Use the worksheet on page 17 to", "figure your student loan interest", "deduction."]
    worksheet = at["Be sure you have read the Exception above to see if you"]
    assert texts[worksheet + 1] == "can use this worksheet instead of Pub. 535 to figure your"
    assert at["May 31, 2008, that shows all"] < worksheet < at["contributions to your traditional IRA for"]
    assert {r["column"] for r in lines if r["text"].startswith("Be sure you have read")} == {"single"}
    assert {r["column"] for r in lines if r["text"] == "figure your student loan interest"} == {"col3"}


def test_a_chart_over_two_columns_with_a_column_beside_it_is_read_as_a_block(shared_corpora):
    """1040NR p21 sets its "Who Must Use Pub. 972" chart over the first two columns while the
    third runs on beside it; the worksheet at the foot of the second and third columns hides
    their gutter, so the page has one gutter, which the chart crosses. Read as full-width lines,
    the chart's lines alternated with the third column's ("1. Is the amount on Form 1040NR, line
    36, ..." | "Pub. 334." | ... "❏Yes. Stop. ..." | "Form 6478."). The band the chart stands
    in is read on its own: the chart, then the column beside it."""
    from synth_pages import page_input as pi

    texts = [r["text"] for r in methods.get("reading_order").run(pi(shared_corpora / "two_column" / "i1040nr.pdf", 21)).lines]
    at = {t: k for k, t in reversed(list(enumerate(texts)))}  # the first line of each text
    chart = at["Who Must Use Pub. 972"]
    assert texts[chart:chart + 5] == [
        "Who Must Use Pub. 972", "1. Is the amount on Form 1040NR, line 36, more than the amount shown below for",
        "your filing status?", "• Filing status 1, 2, or 6—$75,000", "• Filing status 3, 4, or 5—$55,000"]
    assert at["❏No. Use the worksheet on this page to figure your child tax credit."] < at["are partners, self-employed, or who"]
    beside = at["have rental property. See Form 3800 or"]
    assert texts[beside + 1] == "Pub. 334."
    assert at["5884."] + 1 == at["SEP, or SIMPLE plan; (c) voluntary"]  # then the columns under them


def test_unknown_method_names_the_valid_ones():
    with pytest.raises(UsageError) as e:
        methods.get("camelot")
    for name in methods.names():
        assert name in str(e.value)


@pytest.mark.parametrize("name", methods.names())
def test_every_method_returns_line_df_rows(name, synth_dir):
    pdf = {"pymupdf_tables": "ruled.pdf", "figure_ocr": "figure.pdf", "reading_order": "booktabs.pdf",
           "ocr_hires": "figure.pdf"}.get(name, "ruled.pdf")
    method = methods.get(name)
    assert method.coverage in ("page", "region", "addition")
    result = method.run(page_input(synth_dir / pdf))
    assert result.lines, name
    table = to_arrow(result.lines, LINE_DF)  # raises on a wrong type
    assert table.num_rows == len(result.lines)
    extra = set().union(*(r.keys() for r in result.lines)) - set(LINE_DF.names)
    assert not extra, f"{name} emits columns line_df does not have: {extra}"
    for r in result.lines:
        assert r["parsing_method"] == name and r["doc_id"] == "testdoc" and r["page_num"] == 1
        assert r["kind"] in ("text", "table_row", "figure_text", "image")
        assert r["text"] and r["x0"] <= r["x1"] and r["y0"] <= r["y1"]
    assert [r["line_num"] for r in result.lines] == list(range(1, len(result.lines) + 1))


def test_two_column_booktabs_tables_under_their_captions(shared_corpora):
    """Regression: captions below booktabs tables in the right column of an ACL page were glued to
    the left column's lines, and the first table's caption took the second table's rules."""
    from synth_pages import page_input as pi

    result = methods.get("pymupdf_tables").run(pi(shared_corpora / "two_column" / "2023.eacl-main.121.pdf", 3))
    keys = {r["object_key"] for r in result.lines}
    assert keys == {"table:1", "table:2"}
    pubmed = next(r for r in result.lines if r["object_key"] == "table:1" and r["row_key"] == "PubMed (2018)")
    assert {"header": "papers", "value": "59"} in json.loads(pubmed["cells"])
    none = next(r for r in result.lines if r["object_key"] == "table:2" and r["row_key"] == "None")
    assert {"header": "% papers", "value": "62%"} in json.loads(none["cells"])
    # the left column's prose is no table row
    assert not any("long-form summaries" in r["text"] for r in result.lines)


def test_vision_description_from_an_openai_compatible_endpoint(synth_dir):
    """A real HTTP server on 127.0.0.1 speaking the chat-completions protocol (scripted answer)."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from docintel.settings import Settings
    from synth_pages import page_input as pi

    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            answer = {
                "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "A block diagram with three boxes."}}],
                "usage": {"prompt_tokens": 700, "completion_tokens": 12, "total_tokens": 712},
            }
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        settings = Settings.load(env={}, escalate__vision_model="test-vlm",
                                 llm__base_url=f"http://127.0.0.1:{server.server_port}/v1", llm__api_key="k")
        result = methods.get("figure_ocr").run(pi(synth_dir / "figure.pdf", settings=settings))
    finally:
        server.shutdown()
    assert result.images[0]["description"] == "A block diagram with three boxes."
    assert result.tokens == 712
    assert seen and seen[0]["model"] == "test-vlm"
    content = seen[0]["messages"][0]["content"]
    assert any(part.get("type") == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,") for part in content)
    assert result.lines  # OCR labels are still there


def test_reading_order_reads_a_table_row_by_row(tmp_path):
    """A ruled table on a two-column page is read as rows, not as extra columns of prose."""
    from docintel.parsing.fitz import pymupdf
    from synth_pages import page_input as pi

    m = pymupdf()
    doc = m.open()
    page = doc.new_page(width=612, height=792)
    for i in range(14):
        page.insert_text((330, 80 + 14 * i), f"right column line {i}", fontsize=10)
        page.insert_text((72, 80 + 14 * i), f"left column line {i}", fontsize=10)
    page.insert_text((72, 300), "Table 4: Limits", fontsize=10)
    draw_ruled_table(page, [72, 250, 420, 540], 310, [["Plan", "Users", "Price"], ["Free", "1", "0"], ["Team", "10", "90"]])
    doc.save(tmp_path / "cols_table.pdf")
    result = methods.get("reading_order").run(pi(tmp_path / "cols_table.pdf"))
    texts = [r["text"] for r in result.lines]
    assert texts[:14] == [f"left column line {i}" for i in range(14)]
    assert texts[14:28] == [f"right column line {i}" for i in range(14)]
    rows = [r for r in result.lines if r["kind"] == "table_row" and r["row_key"] != "header"]
    assert [r["row_key"] for r in rows] == ["Free", "Team"]
    assert {"header": "Price", "value": "90"} in json.loads(rows[1]["cells"])
    assert result.structured is True
    assert not any(t in ("Free 1 0", "Free") for t in texts)


def test_reading_order_reads_a_table_inside_one_column_within_that_column(tmp_path):
    """A small ruled table in the right column of a two-column page is read where it sits, after
    the right column's lines above it: each of its rows used to be read as a full-width line, so
    the left column's lines at the same height were cut into pieces between the rows."""
    from docintel.parsing.fitz import pymupdf
    from synth_pages import page_input as pi

    m = pymupdf()
    doc = m.open()
    page = doc.new_page(width=612, height=792)
    for i in range(30):
        page.insert_text((72, 80 + 14 * i), f"left column line {i}", fontsize=10)
    for i in range(6):
        page.insert_text((330, 80 + 14 * i), f"right column line {i}", fontsize=10)
    draw_ruled_table(page, [330, 430, 540], 170,
                     [["Period", "Allowance"], ["Weekly", "71.15"], ["Monthly", "308.33"], ["Annually", "3,700.00"]])
    for i in range(6, 12):
        page.insert_text((330, 280 + 14 * (i - 6)), f"right column line {i}", fontsize=10)
    doc.save(tmp_path / "table_in_column.pdf")
    result = methods.get("reading_order").run(pi(tmp_path / "table_in_column.pdf"))
    texts = [r["text"] for r in result.lines]
    assert texts[:30] == [f"left column line {i}" for i in range(30)]
    assert texts[30:36] == [f"right column line {i}" for i in range(6)]
    rows = [r["row_key"] for r in result.lines[36:] if r["kind"] == "table_row" and r["row_key"] != "header"]
    assert rows == ["Weekly", "Monthly", "Annually"]
    assert texts[-6:] == [f"right column line {i}" for i in range(6, 12)]
    assert {r["column"] for r in result.lines if r["kind"] == "table_row"} == {"right"}


def test_the_allowance_chart_of_a_two_column_notice_is_read_in_its_column(shared_corpora):
    """IRS Notice 1036 p1: the payroll-period chart in the right column follows the sentence
    that introduces it ("For 2011, they are:"), and the left column reads on unbroken."""
    from synth_pages import page_input as pi

    lines = methods.get("reading_order").run(pi(shared_corpora / "tables" / "table_areas.pdf", 1)).lines
    texts = [r["text"] for r in lines]
    at = texts.index("changed. For 2011, they are:")
    assert texts[at + 1] == "Payroll Period | One Withholding Allowance"
    assert texts[at + 2] == "Weekly | One Withholding Allowance: $71.15"
    left = texts.index("Use the 2010 withholding tables until you implement")
    assert texts[left + 1] == "the 2011 withholding tables."


@pytest.mark.parametrize("caption, key", [
    ("Table 2-1 Normative and Informative Sections", "table:2-1"),  # bold, no punctuation (SP 800-63B)
    ("Table 7-1 - AAL Reauthentication Requirements", "table:7-1"),  # spaced hyphen (SP 800-63B)
])
def test_table_rows_keep_the_captions_table_id(tmp_path, caption, key):
    """Rows are keyed by the caption's table id, so 'Table 2-1' in a question reaches the
    escalated rows (an unrecognised caption gave 'table:p13.1' and the flat baseline was used)."""
    from docintel.parsing.fitz import pymupdf

    doc = pymupdf().open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), caption, fontsize=11, fontname="hebo")
    xs = [72, 272, 522]
    rows = [["Section", "Status"], ["Purpose", "Informative"], ["Levels", "Normative"], ["References", "Informative"]]
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            page.insert_text((xs[c] + 6, 125 + 22 * r), text, fontsize=10, fontname="hebo" if r == 0 else "helv")
    for k in range(len(rows) + 1):
        page.draw_line((xs[0], 110 + 22 * k), (xs[-1], 110 + 22 * k), width=0.6)
    for x in xs:
        page.draw_line((x, 110), (x, 110 + 22 * len(rows)), width=0.6)
    page.insert_text((72, 240), "Table 3 shows something else in running prose.", fontsize=10, fontname="helv")
    doc.save(tmp_path / "t.pdf")
    result = methods.get("pymupdf_tables").run(page_input(tmp_path / "t.pdf"))
    assert _rows(result) and {r["object_key"] for r in result.lines} == {key}


def test_a_continued_table_keeps_the_id_of_the_table_it_continues(synth_dir, tmp_path):
    """SP 800-63B p52 continues Table 8-1 from p51 without a caption: its rows are table:8-1's."""
    from dataclasses import replace

    from docintel.parsing.fitz import pymupdf

    doc = pymupdf().open(synth_dir / "ruled.pdf")
    page = doc[0]
    for hit in page.search_for("Table 1: Resource limits per tier"):
        page.add_redact_annot(hit)
    page.apply_redactions()
    doc.save(tmp_path / "continued.pdf")
    table = methods.get("pymupdf_tables")
    alone = page_input(tmp_path / "continued.pdf")
    assert {r["object_key"] for r in table.run(alone).lines} == {"table:p1.1"}
    continued = replace(alone, reasons=("flat_table: 'Table 8-1' continued (its header row repeats on this page)",))
    rows = table.run(continued).lines
    assert {r["object_key"] for r in rows} == {"table:8-1"}
    assert [r["row_key"] for r in rows] == ["header", "Basic", "Standard", "Premium"]
    # a page's own caption wins over the table continued from the page before
    captioned = replace(page_input(synth_dir / "ruled.pdf"), reasons=continued.reasons)
    assert {r["object_key"] for r in table.run(captioned).lines} == {"table:1"}


def test_find_tables_is_skipped_where_no_vertical_edge_can_close_a_cell(synth_dir, monkeypatch):
    """PyMuPDF's find_tables extracts every character of the page before looking at rules: on a
    page without vertical lines, rectangles or quads (booktabs, prose) it cannot find a table,
    so it is not called; the caption path still recovers the booktabs table."""
    from docintel.parsing.fitz import pymupdf

    page_cls = pymupdf().Page
    real = page_cls.find_tables
    calls = []
    monkeypatch.setattr(page_cls, "find_tables", lambda self, *a, **kw: calls.append(self.number) or real(self, *a, **kw))
    table = methods.get("pymupdf_tables")
    booktabs = _rows(table.run(page_input(synth_dir / "booktabs.pdf")))
    assert booktabs and calls == []
    ruled = _rows(table.run(page_input(synth_dir / "ruled.pdf")))
    assert [r["row_key"] for r in ruled] == ["Basic", "Standard", "Premium"] and calls == [0]


def test_continued_id_reads_both_reason_forms():
    from docintel.parsing.methods.tables import continued_id

    assert continued_id(["flat_table: 'Table 8-1' continued (its header row repeats on this page)"]) == "8-1"
    assert continued_id(["flat_table: 'Table A-3' caption + 8 short cells in 4 rows; 'Table A-2' continued above it"]) == "A-2"
    assert continued_id(["flat_table: 'Table 3' caption + 118 short cells in 26 rows", "opaque_figure: image"]) is None


def test_stacked_blocks_of_a_table_read_as_the_ground_truth_has_them(shared_corpora):
    """EPA report p A-42 (tables/spanning_cells.pdf; tabula's ground truth beside it): Table A4-12
    stacks three scenarios, each a label row, the column headers again and five rows. The rows
    come out in the CSV's order with its values, each block after its label; the repeated
    headers are no rows ("Volume servers in: 2007: 2007 ..." was read as one). Carrying the
    label into each row was measured and not kept: SP 800-88's media-type labels ("... (Treat
    eSATA as ATA Hard drive.)") drew questions to the wrong rows (golden: one answer more
    complete and wrong)."""
    import csv

    from synth_pages import page_input as pi

    truth, group = [], None
    with open(shared_corpora / "tables" / "spanning_cells.csv", newline="") as f:
        for row in csv.reader(f):
            if not any(row[1:]):
                group = row[0]
            elif row[0] not in ("Volume servers in:", "Server class"):
                truth.append((group, row[0], row[1:]))
    lines = methods.get("pymupdf_tables").run(pi(shared_corpora / "tables" / "spanning_cells.pdf", 1)).lines
    got, group = [], None
    for r in _rows(SimpleNamespace(lines=lines)):
        cells = json.loads(r["cells"])
        if len(cells) == 1:
            group = cells[0]["value"]
        else:
            got.append((group, cells[0]["value"], [c["value"] for c in cells[1:]]))
    assert got == truth


def test_a_table_running_on_without_its_header_keeps_its_first_row_as_data(shared_corpora):
    """SP 800-88 Appendix A: Tables A-5 and A-8 run over several pages and repeat no header. The
    first row of each page ("Purge: | Degauss in ...", a sentence running on from the page
    before) was taken for the column header, and its text named the cell of every row below it
    ("Clear: | Degauss in ...: Re-record (overwrite) all data on the tape ..."). It is a row; the
    rows below read on their own."""
    from synth_pages import page_input as pi

    pdf = shared_corpora / "crossref" / "NIST.SP.800-88r1.pdf"
    rows = methods.get("pymupdf_tables").run(pi(pdf, 40)).lines
    assert not any(r["row_key"] == "header" for r in rows)
    texts = [r["text"] for r in rows]
    assert texts[0] == "Purge: | Degauss in an organizationally approved degausser rated at a minimum for the media."
    assert sum("Degauss in an organizationally approved degausser" in t for t in texts) == 1
    tape = texts.index("Reel and Cassette Format Magnetic Tapes")
    assert texts[tape + 1].startswith("Clear: | Re-record (overwrite) all data on the tape")
    assert json.loads(rows[tape + 1]["cells"])[1]["header"] == ""
    # text running on from the page before (lower case, no label) is a row too, not a header
    rows = methods.get("pymupdf_tables").run(pi(pdf, 41)).lines
    assert not any(r["row_key"] == "header" for r in rows)
    assert rows[0]["text"].startswith("necessary to cause all MEKs to be changed")
    assert any(r["text"] == "Destroy: | Shred, Disintegrate, Pulverize, or Incinerate by burning the device in a licensed incinerator."
               for r in rows)


def test_one_text_over_every_column_is_the_tables_title_row(shared_corpora):
    """SP 800-88 p39: "Magnetic Media" spans both columns of Table A-5 with no column header
    under it. It was the header of both columns, so every row read "Clear: | Magnetic Media:
    Overwrite media ...". It is the table's title: a row of its own, over "Floppies"."""
    from synth_pages import page_input as pi

    rows = [r for r in methods.get("pymupdf_tables").run(pi(shared_corpora / "crossref" / "NIST.SP.800-88r1.pdf", 39)).lines
            if r["object_key"] == "table:A-5.2"]
    assert [r["text"] for r in rows[:2]] == ["Magnetic Media", "Floppies"]
    assert not any(r["row_key"] == "header" for r in rows)
    assert rows[2]["text"].startswith("Clear: | Overwrite media by using organizationally approved software")
    assert not any("Magnetic Media:" in r["text"] for r in rows)


def test_a_borderless_chart_without_caption_is_read_by_its_numbers(shared_corpora):
    """IRS Notice 1036 p1 (camelot's table_areas.pdf): the payroll-period chart in the right-hand
    column has no caption and no rules. It is found as a grid of numbers, apart from the prose in
    the left column, with its two-line header and the last row whose label is too wide for a grid
    row ("Daily or Miscellaneous"); "$ 71.15" is one number."""
    from synth_pages import page_input as pi

    result = methods.get("pymupdf_tables").run(pi(shared_corpora / "tables" / "table_areas.pdf", 1))
    rows = {r["row_key"]: json.loads(r["cells"]) for r in result.lines}
    assert rows["header"] == [{"header": "Payroll Period", "value": "Payroll Period"},
                              {"header": "One Withholding Allowance", "value": "One Withholding Allowance"}]
    assert rows["Weekly"][1] == {"header": "One Withholding Allowance", "value": "$71.15"}
    assert rows["Daily or Miscellaneous"][1]["value"] == "14.23"
    assert not any("social security" in r["text"] for r in result.lines)  # the left column's prose


def test_stacked_rate_schedules_are_two_tables_of_eight_columns(shared_corpora):
    """1040NR instructions p47: Schedules W|X, then Y|Z under them, each a bracket table
    ("Over | But not over | The tax is | of the amount over") without a "Table N" caption; the
    second pair's titles start a table of their own, not rows of the first."""
    from synth_pages import page_input as pi

    result = methods.get("pymupdf_tables").run(pi(shared_corpora / "two_column" / "i1040nr.pdf", 47))
    keys = sorted({r["object_key"] for r in result.lines})
    assert keys == ["table:p47.1", "table:p47.2"]
    w = next(r for r in result.lines if r["object_key"] == "table:p47.1" and r["row_key"] == "7,650")
    assert [c["value"] for c in json.loads(w["cells"])][:4] == ["7,650", "10,450", "1,777.00 + 33%", "7,650"]
    header = next(r for r in result.lines if r["object_key"] == "table:p47.1" and r["row_key"] == "header")
    assert "Schedule W Estates or Trusts" in header["text"]  # the titles stay in the header row
    assert any(r["object_key"] == "table:p47.2" and r["row_key"] == "97,925" for r in result.lines)


def test_column_labels_under_many_title_lines_name_the_cells(shared_corpora):
    """1040NR p47: ten header lines (schedule titles, "If the amount of Form 1040NR, line 40,
    is:", then "But not ... amount" and "Over— over— ...") stand above Schedule W|X's numbers.
    The labels nearest the numbers are header, not a row keyed "Over—", and name the cells."""
    from synth_pages import page_input as pi

    result = methods.get("pymupdf_tables").run(pi(shared_corpora / "two_column" / "i1040nr.pdf", 47))
    first = [r for r in result.lines if r["object_key"] == "table:p47.1"]
    assert not any(r["row_key"] == "Over—" for r in first)
    row = next(r for r in first if r["row_key"] == "7,650")
    names = [c["header"] for c in json.loads(row["cells"])][:4]
    assert names[0].endswith("line 40, is: Over—") and names[1].endswith("But not over—")
    assert names[3].endswith("of the amount over—")


def test_a_number_grid_below_another_keeps_its_own_header_lines(shared_corpora):
    """1040NR p14: the Simplified Method's age table ("55 or under | 300 | 360" ...) sits in a
    later grid block than the worksheet lines above it. Its header lines are its own: only the
    page's first grid used to be extended up, so the first age row was read as the header."""
    from synth_pages import page_input as pi

    result = methods.get("pymupdf_tables").run(pi(shared_corpora / "two_column" / "i1040nr.pdf", 14))
    key = next(r["object_key"] for r in result.lines if r["row_key"] == "55 or under")
    rows = [r for r in result.lines if r["object_key"] == key]
    keys = [r["row_key"] for r in rows]
    assert keys[0] == "header" and "55 or under" in keys and "71 or older" in keys
    assert "enter on line 3" in rows[0]["text"]


def test_the_paragraph_beside_a_chart_of_numbers_is_not_its_row_labels(shared_corpora):
    """1040NR p7: a chart of expatriation years and amounts in the right half of the page, a
    paragraph ("The alternative tax regime will apply to / you for the 10 succeeding tax years
    ...") to its left, line beside row. The paragraph's lines used to be the chart's row labels
    and its first line the header; the rows are the years. On p14 the paragraph in the
    right-hand column was read into the worksheet beside it as a column of cells."""
    from synth_pages import page_input as pi

    doc = shared_corpora / "two_column" / "i1040nr.pdf"
    p7 = methods.get("pymupdf_tables").run(pi(doc, 7)).lines
    rows = {r["row_key"]: [c["value"] for c in json.loads(r["cells"])] for r in p7 if r["object_key"] == "table:p7.1"}
    assert rows["1997"] == ["1997", "$106,000", "$528,000"]
    assert rows["2003"] == ["2003", "122,000", "608,000"]
    assert not any("succeeding tax years" in r["text"] for r in p7)
    p14 = methods.get("pymupdf_tables").run(pi(doc, 14)).lines
    assert not any("investment should be shown in Form" in r["text"] for r in p14)


def test_a_chart_in_the_middle_column_keeps_a_row_no_column_claimed(shared_corpora):
    """1040NR p7, middle of three columns: the post-June 2004 chart (2005 | 127,000 ... 2007 |
    136,000). Its last row shares a band with lines of both other columns, and the column
    detector gave that band to no column ("single"): the chart had three rows in its column and
    was not a table."""
    from synth_pages import page_input as pi

    lines = methods.get("pymupdf_tables").run(pi(shared_corpora / "two_column" / "i1040nr.pdf", 7)).lines
    rows = {r["row_key"]: [c["value"] for c in json.loads(r["cells"])] for r in lines if r["object_key"] == "table:p7.2"}
    assert rows["2005"] == ["2005", "127,000"] and rows["2007"] == ["2007", "136,000"]
    # its column titles wrap over three and six lines, centred over the cells, not at their edges
    header = next(r["text"] for r in lines if r["object_key"] == "table:p7.2" and r["row_key"] == "header")
    assert "IF you expatriated during" in header and "average annual net income tax was more than" in header


def test_a_table_whose_columns_are_named_by_vertical_text_pairs_each_mark_with_its_column(shared_corpora):
    """SP 800-63B p68, Table 10-1: nine columns named by text set vertically ("Memorized
    secrets", "Single Factor" / "Cryptographic Software"), cells marked with a Wingdings diamond
    (code 0x77). The vertical names were dropped and the marks read "w", so a row said
    "Unmasked text entry | w | w | w | w": not which authenticators, and not even a mark."""
    from synth_pages import page_input as pi

    pdf = shared_corpora / "crossref" / "NIST.SP.800-63b.pdf"
    rows = {r["row_key"]: json.loads(r["cells"]) for r in methods.get("pymupdf_tables").run(pi(pdf, 68)).lines}
    assert [c["value"] for c in rows["header"]] == [
        "Usability Consideration", "Memorized secrets", "Look-up Secrets", "Out of Band", "Single Factor OTP Device",
        "Multi-Factor OTP Device", "Single Factor Cryptographic Software", "Single Factor Cryptographic Device",
        "Multi-Factor Cryptographic Software", "Multi-Factor Cryptographic Device"]
    assert rows["Unmasked text entry"][1:] == [{"header": h, "value": "\u2b25"} for h in (
        "Look-up Secrets", "Out of Band", "Single Factor OTP Device", "Multi-Factor OTP Device")]
    assert rows["Delayed masking during text entry"][1:] == [{"header": "Memorized secrets", "value": "\u2b25"}]
    on_69 = {r["row_key"]: json.loads(r["cells"]) for r in methods.get("pymupdf_tables").run(pi(pdf, 69)).lines}
    assert [c["header"] for c in on_69["Physical input required (such as pressing"][1:]] == [
        "Single Factor OTP Device", "Single Factor Cryptographic Device"]
