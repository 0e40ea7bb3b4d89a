"""build_structure on synthetic reports made with PyMuPDF (exact layouts, known answers)."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from docintel.parsing.fitz import pymupdf
from docintel.parsing.structure import build_structure
from docintel.schemas.tables import CROSS_REF_DF, OBJECT_REGISTRY, TOC_DF


def _row(df: pd.DataFrame, **eq) -> pd.Series:
    sel = df
    for k, v in eq.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, f"expected one row with {eq}, got {len(sel)}:\n{df}"
    return sel.iloc[0]


def test_headings_become_the_toc_without_an_outline(report):
    toc = report["toc_df"]
    assert list(toc["toc_id"]) == ["1", "2", "2.1", "2.2", "A"]
    assert set(toc["source"]) == {"heading"}
    assert list(toc["toc_order"]) == list(range(5))
    data = _row(toc, toc_id="2.1")
    assert (data["title"], data["level"], data["page_start"]) == ("Data", 2, 3)
    # "2.2 Results" opens page 4, so 2.1 ends on page 3; "2" runs until the appendix on page 5
    assert data["page_end"] == 3
    assert _row(toc, toc_id="2")["page_end"] == 4
    assert _row(toc, toc_id="A")["page_end"] == 5
    assert (_row(toc, toc_id="A")["title"], _row(toc, toc_id="A")["level"]) == ("Glossary", 1)


def test_list_items_running_headers_and_contents_entries_are_not_headings(report):
    toc = report["toc_df"]
    # "1. Count every widget once." is a body-font list item on page 2
    assert not toc["title"].str.contains("widget").any()
    assert not toc["title"].str.contains("ACME").any()
    # every entry comes from the page that holds the heading, not the contents page
    assert (toc["page_start"] > 1).all()
    assert toc["line_num"].notna().all()


def test_heading_line_and_position_are_recorded(report):
    intro = _row(report["toc_df"], toc_id="1")
    assert intro["line_num"] >= 1 and 60 < intro["y0"] < 80


def test_caption_registers_once_prose_mentions_and_contents_entries_do_not(report):
    objects = report["object_registry"]
    table = _row(objects, object_type="table", object_id="1")
    # the caption on page 3 wins over the contents entry (p1), the prose mention (p2) and the
    # "Table 1 (continued)" repeat (p4)
    assert table["page_num"] == 3
    assert table["object_key"] == "table:1"
    assert table["caption"].startswith("Table 1: Results by year")
    assert table["source"] == "caption"
    x0, y0, x1, y1 = table["bbox"]
    assert 70 < x0 < x1 and 190 < y0 < y1 < 215
    assert table["line_start"] <= table["line_end"]


def test_appendix_heading_is_an_object(report):
    app = _row(report["object_registry"], object_type="appendix", object_id="A")
    assert app["page_num"] == 5 and app["source"] == "heading" and app["line_start"] >= 1


def test_internal_link_becomes_a_native_link_row(report):
    refs = report["cross_ref_df"]
    link = _row(refs, source="native_link")
    assert link["anchor_text"] == "Section 2.1"
    assert (link["ref_type"], link["ref_target"]) == ("section", "2.1")
    assert link["target_page"] == 3 and link["target_y"] == pytest.approx(130, abs=1)
    assert link["origin_page"] == 2
    # the anchor sits on the line "Section 2.1 of this report." of page 2
    from structure_pdfs import baseline_frame

    doc = pymupdf().open(str(report["_path"]))
    try:
        lines = baseline_frame(doc)
    finally:
        doc.close()
    origin = lines[(lines["page_num"] == 2) & (lines["line_num"] == link["origin_line"])]
    assert origin["text"].tolist() == ["Section 2.1 of this report."]


def test_anchor_rows_for_every_toc_entry_and_object(report):
    refs = report["cross_ref_df"]
    anchors = refs[refs["source"] == "toc_anchor"]
    assert sorted(anchors["ref_target"]) == sorted(report["toc_df"]["toc_id"])
    assert set(anchors["ref_type"]) == {"section", "appendix"}
    assert _row(anchors, ref_target="A")["ref_type"] == "appendix"
    assert _row(anchors, ref_target="A")["anchor_text"] == "Appendix A Glossary"
    objs = refs[refs["source"] == "object_registry"]
    assert sorted(zip(objs["ref_type"], objs["ref_target"])) == sorted(
        zip(report["object_registry"]["object_type"], report["object_registry"]["object_id"])
    )
    for r in refs.itertuples():
        assert r.target_page >= 1


def test_bare_outline_titles_get_their_numbers_from_the_page(report_outlined):
    toc = report_outlined["toc_df"]
    assert list(toc["toc_id"]) == ["1", "2", "2.1", "2.2", "A"]
    assert set(toc["source"]) == {"outline"}
    assert _row(toc, toc_id="2.1")["title"] == "Data"
    assert _row(toc, toc_id="2.1")["page_end"] == 3
    assert _row(toc, toc_id="A")["level"] == 1
    assert toc["line_num"].notna().all()


def test_outline_numbers_inferred_from_siblings_when_the_page_shows_none(tmp_path):
    m = pymupdf()
    doc = m.open()
    shown = ["Overview", "1 Scope", "2 Terms", "3 Rules", "Penalties", "References"]
    for text in shown:
        page = doc.new_page()
        page.insert_text((72, 80), text, fontname="hebo", fontsize=14)
        page.insert_text((72, 110), "Body text of the page.", fontname="helv", fontsize=10)
    doc.set_toc([[1, t.split(" ", 1)[-1], i + 1] for i, t in enumerate(shown)])
    path = tmp_path / "ol.pdf"
    doc.save(str(path))
    doc.close()
    from structure_pdfs import structure

    toc = structure(path)["toc_df"]
    ids = list(toc["toc_id"])
    assert ids[1:4] == ["1", "2", "3"]
    assert ids[4] == "4"  # a bare title after numbered siblings: its outline position
    assert ids[0].startswith("#") and ids[5].startswith("#")  # front/back matter stay unnumbered
    assert list(toc["page_start"]) == [1, 2, 3, 4, 5, 6]


def test_schemas_and_empty_inputs():
    doc = pymupdf().open()
    doc.new_page()
    try:
        out = build_structure(doc, "d0", pd.DataFrame(), ["1"])
        assert set(out) == {"toc_df", "object_registry", "cross_ref_df"}
        assert out["toc_df"].schema.equals(TOC_DF)
        assert out["object_registry"].schema.equals(OBJECT_REGISTRY)
        assert out["cross_ref_df"].schema.equals(CROSS_REF_DF)
        assert all(isinstance(t, pa.Table) and t.num_rows == 0 for t in out.values())
    finally:
        doc.close()


def test_tolerates_lines_without_style_columns_and_null_values():
    doc = pymupdf().open()
    doc.new_page()
    try:
        lines = pd.DataFrame(
            {
                "page_num": [1, 1, 1],
                "line_num": [1, 2, 3],
                "text": ["Table 4: Costs", None, "see Table 4 below"],
                "x0": [72.0, 72.0, 72.0],
                "y0": [100.0, 120.0, 140.0],
                "x1": [200.0, 200.0, 200.0],
                "y1": [110.0, 130.0, 150.0],
            }
        )
        out = build_structure(doc, "d1", lines, [])
        objects = out["object_registry"].to_pandas()
        assert list(zip(objects["object_type"], objects["object_id"], objects["page_num"])) == [("table", "4", 1)]
        assert set(out["object_registry"].column("doc_id").to_pylist()) == {"d1"}
    finally:
        doc.close()


def test_schedules_exhibits_and_a_single_stray_number(tmp_path):
    m = pymupdf()
    doc = m.open()
    page = doc.new_page()
    page.insert_text((72, 80), "32 Track Recorder", fontname="hebo", fontsize=16)  # product name, not a section
    page.insert_text((72, 110), "Exhibit 2: Site map of the plant", fontname="helv", fontsize=10)
    page = doc.new_page()
    page.insert_text((72, 80), "Schedule B - Fees", fontname="hebo", fontsize=14)
    page.insert_text((72, 110), "The fees are listed below.", fontname="helv", fontsize=10)
    path = tmp_path / "sched.pdf"
    doc.save(str(path))
    doc.close()
    from structure_pdfs import structure

    t = structure(path)
    assert list(t["toc_df"]["toc_id"]) == ["B"]
    reg = t["object_registry"]
    assert sorted(zip(reg["object_type"], reg["object_id"], reg["page_num"])) == [("exhibit", "2", 1), ("schedule", "B", 2)]


@pytest.mark.parametrize("rotation", [0, 90])
def test_link_reader_agrees_with_pymupdf(tmp_path, rotation):
    """The object-level link reader gives PyMuPDF's rects and targets (rotated pages fall back)."""
    from docintel.parsing.structure.annots import LinkReader

    m = pymupdf()
    doc = m.open()
    for i in range(3):
        page = doc.new_page()
        page.insert_text((72, 100), f"See page {3 - i} for more.", fontname="helv", fontsize=11)
    doc[0].set_cropbox(m.Rect(10, 20, 580, 800))
    doc[0].insert_link({"kind": m.LINK_GOTO, "from": m.Rect(72, 90, 130, 104), "page": 2, "to": m.Point(50, 300)})
    doc[1].insert_link({"kind": m.LINK_GOTO, "from": m.Rect(80, 90, 140, 104), "page": 0, "to": m.Point(72, 72)})
    doc[1].insert_link({"kind": m.LINK_URI, "from": m.Rect(150, 90, 200, 104), "uri": "https://example.org"})
    if rotation:
        doc[1].set_rotation(rotation)
    path = tmp_path / "links.pdf"
    doc.save(str(path))
    doc.close()
    doc = m.open(str(path))
    try:
        reader = LinkReader(doc)
        assert reader.pages_with_annots() == [0, 1]
        for pno in (0, 1):
            ours = reader.links(pno, {m.LINK_GOTO, m.LINK_NAMED})
            theirs = [lk for lk in doc[pno].get_links() if lk["kind"] == m.LINK_GOTO]
            assert len(ours) == len(theirs) == 1
            assert ours[0].page == theirs[0]["page"]
            assert ours[0].rect == pytest.approx(tuple(theirs[0]["from"]), abs=0.5)
            assert ours[0].y == pytest.approx(theirs[0]["to"].y, abs=0.5)
    finally:
        doc.close()


def test_numbered_form_steps_are_not_an_outline(tmp_path):
    m = pymupdf()
    doc = m.open()
    page = doc.new_page()
    steps = ["3 Enter the amount from line 36 . . . 3.", "5 Subtract line 4 from line 3. Enter the result",
             "8 Multiply line 7 by 3% . . 8.", "12 Total deductions"]
    for k, text in enumerate(steps):
        page.insert_text((72, 100 + 30 * k), text, fontname="hebo", fontsize=10)
    path = tmp_path / "form.pdf"
    doc.save(str(path))
    doc.close()
    from structure_pdfs import structure

    assert structure(path)["toc_df"].empty


def test_without_a_document_object_links_are_skipped():
    lines = pd.DataFrame(
        {"page_num": [1], "line_num": [1], "text": ["1 Introduction"], "x0": [72.0], "y0": [80.0],
         "x1": [200.0], "y1": [94.0], "font_size": [14.0], "bold": [True], "font": ["Helvetica-Bold"]}
    )
    out = build_structure(None, "d2", lines, ["1"])
    assert out["cross_ref_df"].to_pandas()["source"].tolist() == ["toc_anchor"]
    assert out["toc_df"].to_pandas()["toc_id"].tolist() == ["1"]


def test_outline_debris_is_dropped(tmp_path):
    m = pymupdf()
    doc = m.open()
    for text in ["1 Scope", "2 Terms", "Appendix A - Tables"]:
        page = doc.new_page()
        page.insert_text((72, 80), text, fontname="hebo", fontsize=14)
    doc.set_toc([[1, "Scope", 1], [1, "1.", 1], [1, "Terms", 2], [1, "1.1.1", 2],
                 [1, "Appendix A - Tables", 3], [1, "Appendix A\u2014", 3]])
    path = tmp_path / "debris.pdf"
    doc.save(str(path))
    doc.close()
    from structure_pdfs import structure

    toc = structure(path)["toc_df"]
    assert list(zip(toc["toc_id"], toc["title"])) == [("1", "Scope"), ("2", "Terms"), ("A", "Tables")]


def test_link_reader_on_odd_annotations(tmp_path):
    """Unresolvable names and GoToR actions are skipped, /Fit gives no target y, and a link
    without /Rect sends the page to PyMuPDF's reader instead of failing."""
    import re

    from docintel.parsing.structure.annots import LinkReader

    m = pymupdf()
    doc = m.open()
    for i in range(3):
        doc.new_page().insert_text((72, 100), f"Go to Table {i + 1} now", fontname="helv", fontsize=11)
    for k in range(4):
        doc[0].insert_link({"kind": m.LINK_GOTO, "from": m.Rect(72, 90 + 20 * k, 130, 104 + 20 * k), "page": 1, "to": m.Point(50, 300)})
    path = tmp_path / "odd.pdf"
    doc.save(str(path))
    doc.close()
    doc = m.open(str(path))
    xs = [int(x) for x in re.findall(r"(\d+) 0 R", doc.xref_get_key(doc[0].xref, "Annots")[1])]
    doc.xref_set_key(xs[0], "A", "<</S/GoTo/D(nowhere)>>")
    doc.xref_set_key(xs[1], "A", "null")
    doc.xref_set_key(xs[1], "Dest", f"[{doc.page_xref(2)} 0 R/Fit]")
    doc.xref_set_key(xs[2], "A", "<</S/GoToR/F(other.pdf)/D[0/Fit]>>")
    path2 = tmp_path / "odd2.pdf"
    doc.save(str(path2))
    doc.close()
    doc = m.open(str(path2))
    try:
        got = LinkReader(doc).links(0, {m.LINK_GOTO, m.LINK_NAMED})
        assert [(lk.page, lk.y) for lk in got] == [(2, None), (1, pytest.approx(300.0))]
        doc.xref_set_key(xs[3], "Rect", "null")
        fallback = LinkReader(doc).links(0, {m.LINK_GOTO, m.LINK_NAMED})
        assert [lk.page for lk in fallback] == [2]  # PyMuPDF's reader drops the rect-less link
    finally:
        doc.close()


def test_printed_contents_page_with_page_labels(tmp_path):
    """Headings the text does not set apart (body font) are found through the printed contents
    page; its printed page numbers map to physical pages through the page labels."""
    m = pymupdf()
    doc = m.open()
    for _ in range(5):
        doc.new_page()
    doc[0].insert_text((72, 80), "Contents", fontname="hebo", fontsize=14)
    listed = [("1 Scope", "1"), ("2 Terms", "2"), ("2.1 Widgets", "2"), ("3 Rules", "3"),
              ("Figure 1: Photo of a widget", "2"), ("Table 1: Widget counts", "3")]
    for k, (title, label) in enumerate(listed):
        doc[0].insert_text((72, 110 + 16 * k), f"{title} {'.' * 50} {label}", fontname="helv", fontsize=10)
    doc[1].insert_text((72, 80), "Foreword text in roman-numbered front matter.", fontname="helv", fontsize=10)
    for pno, lines in [(2, ["1 Scope", "This standard covers widgets."]),
                       (3, ["2 Terms", "Terms used here.", "2.1 Widgets", "A widget is a device."]),
                       (4, ["3 Rules", "Count every widget.", "Table 1: Widget counts"])]:
        for k, text in enumerate(lines):
            doc[pno].insert_text((72, 80 + 20 * k), text, fontname="helv", fontsize=10)
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                         {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1}])
    path = tmp_path / "contents.pdf"
    doc.save(str(path))
    doc.close()
    from structure_pdfs import structure

    tables = structure(path)
    toc = tables["toc_df"]
    assert list(zip(toc["toc_id"], toc["page_start"])) == [("1", 3), ("2", 4), ("2.1", 4), ("3", 5)]
    # the list of figures/tables registers nothing on the contents page; a figure whose caption
    # is not in the text (an image) is placed where the list says
    reg = tables["object_registry"]
    assert sorted(zip(reg["object_key"], reg["page_num"], reg["source"])) == [
        ("figure:1", 4, "contents_page"), ("table:1", 5, "caption")]
    assert set(toc["source"]) == {"contents_page"}
    assert _row(toc, toc_id="2.1")["line_num"] >= 1  # the heading line was found on its page
    assert list(toc["page_end"]) == [3, 4, 4, 5]


def test_unnumbered_headings_are_told_by_type(tmp_path):
    """A document that numbers nothing: large titles are level 1, bold body-size titles (alone on
    their line or run in before their paragraph) level 2; italic run-ins, titles that end
    mid-sentence and labels repeated through the document are not headings."""
    m = pymupdf()
    doc = m.open()
    body = "The amount you enter here comes from the worksheet in these instructions."
    for title in ("Filing Requirements", "Payments"):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 80), title, fontname="hebo", fontsize=16)
        y = 110
        for k in range(12):
            if k == 3:
                page.insert_text((72, y), "Who must file.", fontname="hebo", fontsize=10)
                page.insert_text((145, y), " If you", fontname="helv", fontsize=10)
            elif k == 6:
                page.insert_text((72, y), "Taxable distributions from a", fontname="hebi", fontsize=10)
            elif k == 9:
                page.insert_text((72, y), "TIP", fontname="hebo", fontsize=10)
            elif k == 11 and title == "Payments":
                page.insert_text((72, y), "Estimated Tax", fontname="hebo", fontsize=10)
            else:
                page.insert_text((72, y), body, fontname="helv", fontsize=10)
            y += 14
    doc.new_page(width=612, height=792).insert_text((72, 80), "TIP", fontname="hebo", fontsize=10)
    path = tmp_path / "instructions.pdf"
    doc.save(str(path))
    doc.close()
    from structure_pdfs import structure

    toc = structure(path)["toc_df"]
    got = [(r.title, r.level, r.page_start) for r in toc.itertuples()]
    assert got == [
        ("Filing Requirements", 1, 1),
        ("Who must file", 2, 1),
        ("Payments", 1, 2),
        ("Who must file", 2, 2),
        ("Estimated Tax", 2, 2),
    ]
    assert set(toc["source"]) == {"typeset"}
    assert toc.loc[toc["title"] == "Filing Requirements", "page_end"].item() == 1
