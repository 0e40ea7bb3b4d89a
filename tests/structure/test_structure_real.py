"""build_structure on real PDFs of ../shared/corpora (facts checked by reading the documents)."""

from __future__ import annotations

import pandas as pd
import pytest

TRANSFORMER = "papers/1706.03762v7.pdf"
FIPS199 = "nist/NIST.FIPS.199.pdf"
CSWP29 = "nist/NIST.CSWP.29.pdf"
SP800_63B = "crossref/NIST.SP.800-63b.pdf"
SP800_61 = "crossref/SP800-61rev2.pdf"
SP800_40 = "crossref/SP800-40r3.pdf"
SP800_88 = "crossref/NIST.SP.800-88r1.pdf"
SP800_48 = "figures/SP800-48r1.pdf"
EACL = "two_column/2023.eacl-main.121.pdf"
I1040NR = "two_column/i1040nr.pdf"
FR737 = "two_column/federal-register-2020-17221.pdf"


def toc_entry(tables: dict, toc_id: str) -> pd.Series:
    toc = tables["toc_df"]
    hit = toc[toc["toc_id"] == toc_id]
    assert len(hit) == 1, f"toc_id {toc_id!r}: {len(hit)} rows; ids: {list(toc['toc_id'])}"
    return hit.iloc[0]


def obj(tables: dict, kind: str, ident: str) -> pd.Series:
    reg = tables["object_registry"]
    hit = reg[(reg["object_type"] == kind) & (reg["object_id"] == ident)]
    assert len(hit) == 1, f"{kind} {ident!r}: {len(hit)} rows; keys: {list(reg['object_key'])}"
    return hit.iloc[0]


def links(tables: dict) -> pd.DataFrame:
    refs = tables["cross_ref_df"]
    return refs[refs["source"] == "native_link"]


def test_transformer_section_numbers_from_bare_outline_titles(real):
    t = real(TRANSFORMER)
    pe = toc_entry(t, "3.5")
    assert (pe["title"], pe["page_start"], pe["level"], pe["source"]) == ("Positional Encoding", 6, 2, "outline")
    mha = toc_entry(t, "3.2.2")
    assert (mha["title"], mha["page_start"], mha["level"]) == ("Multi-Head Attention", 4, 3)
    assert mha["page_end"] == 5  # 3.2.3 starts on page 5 below other text
    assert pe["line_num"] >= 1 and 200 < pe["y0"] < 230
    assert list(t["toc_df"]["toc_id"][:3]) == ["1", "2", "3"]


def test_transformer_objects(real):
    t = real(TRANSFORMER)
    assert obj(t, "table", "3")["page_num"] == 9
    assert obj(t, "table", "1")["page_num"] == 6
    assert obj(t, "figure", "1")["page_num"] == 3
    # "Table 2 summarizes our results" on page 8 is prose; the caption is on page 8 line 1
    assert obj(t, "table", "2")["line_start"] == 1


def test_transformer_native_links(real):
    nl = links(real(TRANSFORMER))
    assert len(nl) == 95  # 113 link annotations, 18 of them external URIs
    assert nl["target_page"].between(1, 15).all()
    assert nl["origin_line"].notna().all()
    kinds = nl["ref_type"].value_counts()
    assert kinds["citation"] >= 60
    tables = nl[nl["ref_type"] == "table"]
    assert {"3", "1"} <= set(tables["ref_target"])
    t3 = tables[tables["ref_target"] == "3"]
    assert (t3["target_page"] == 9).all()
    sec = nl[(nl["ref_type"] == "section") & (nl["ref_target"] == "3.2")]
    assert not sec.empty and (sec["target_page"] == 3).all()


def test_fips199(real):
    t = real(FIPS199)
    a = toc_entry(t, "A")
    assert (a["page_start"], a["level"]) == (11, 1)
    assert obj(t, "table", "1")["page_num"] == 10
    assert obj(t, "appendix", "A")["page_num"] == 11


def test_cswp29_appendices_and_tier_table(real):
    t = real(CSWP29)
    assert [toc_entry(t, x)["page_start"] for x in "ABC"] == [20, 29, 31]
    tiers = obj(t, "table", "2")
    assert tiers["page_num"] == 29 and "Tiers" in tiers["caption"]
    assert len(links(t)) == 47  # internal ones among 103 annotations


def test_sp800_63b_headings_without_outline(real):
    t = real(SP800_63B)
    toc = t["toc_df"]
    assert set(toc["source"]) <= {"heading", "contents_page"}
    e = toc_entry(t, "5.1.3.3")
    assert (e["page_start"], e["level"]) == (29, 4)
    assert toc_entry(t, "10.2.1")["page_start"] == 63
    # the printed contents (pp. 6-9) is not where sections start
    assert not toc["page_start"].between(6, 9).any()
    # headings whose numbers the text layer lost get them back from their neighbours
    assert toc_entry(t, "4.1")["title"] == "Authenticator Assurance Level 1"
    assert toc_entry(t, "10.2")["page_start"] == 63
    assert toc_entry(t, "A")["page_start"] == 77
    ids = [i for i in toc["toc_id"] if not i.startswith("#")]
    assert len(ids) == len(set(ids)) >= 100
    assert len(links(t)) == 0


def test_sp800_61_headings_and_links(real):
    t = real(SP800_61)
    assert toc_entry(t, "2.3.4.3")["page_start"] == 20
    assert toc_entry(t, "3.2.6")["page_start"] == 41
    assert toc_entry(t, "A")["page_start"] == 61
    # numbered FAQ questions in Appendix F are not sections
    assert not t["toc_df"]["title"].str.endswith("?").any()
    nl = links(t)
    assert len(nl) == 89
    hit = nl[(nl["ref_type"] == "section") & (nl["ref_target"] == "3.2.6")]
    assert not hit.empty and (hit["target_page"] == 41).all()


def test_sp800_40_outline_appendix(real):
    t = real(SP800_40)
    a = toc_entry(t, "A")
    assert (a["page_start"], a["level"]) == (22, 1)
    assert len(links(t)) == 43


def test_sp800_88_appendix_tables(real):
    t = real(SP800_88)
    pages = [obj(t, "table", f"A-{i}")["page_num"] for i in range(1, 10)]
    assert pages == sorted(pages) and pages[0] == 35 and pages[-1] == 48
    assert toc_entry(t, "C")["page_start"] == 54
    assert obj(t, "appendix", "C")["page_num"] == 54
    assert len(links(t)) == 138


def test_sp800_48_list_of_figures_does_not_register(real):
    t = real(SP800_48)
    assert obj(t, "figure", "2-3")["page_num"] == 17
    reg = t["object_registry"]
    assert not reg["page_num"].between(1, 10).any()  # contents and lists of tables/figures
    assert not reg["object_id"].str.islower().any()


def test_eacl_two_column_without_outline(real):
    t = real(EACL)
    assert obj(t, "table", "1")["page_num"] == 3
    assert obj(t, "table", "2")["page_num"] == 3
    assert toc_entry(t, "C")["title"] == "Additional Survey Statistics"
    assert obj(t, "appendix", "C")["page_num"] == 16
    assert toc_entry(t, "3")["title"] == "The LONGEVAL guidelines for faithfulness human evaluation"
    nl = links(t)
    assert len(nl) == 311
    # author-year citations land in the reference list
    assert (nl["ref_type"] == "citation").sum() >= 200


def _titled(tables: dict, title: str) -> pd.Series:
    toc = tables["toc_df"]
    hit = toc[toc["title"] == title]
    assert len(hit) == 1, f"{title!r}: {len(hit)} rows; titles: {list(toc['title'])}"
    return hit.iloc[0]


def test_i1040nr_headings_by_type(real):
    """The 1040NR instructions number no heading and have no outline: the 14 pt titles are level
    1 (a wrapped one joined over its four lines), the bold run-in line headings level 2 (cut at
    their full stop, a title wrapped into the next line of its column joined), read column by
    column although PyMuPDF gives each page's three columns as one block."""
    t = real(I1040NR)
    toc = t["toc_df"]
    assert set(toc["source"]) == {"typeset"}
    big = _titled(t, "Tax Computation on Income Effectively Connected With A U.S. Trade or Business")
    assert (big["level"], big["page_start"]) == (1, 18)
    assert (_titled(t, "Amount You Owe")["level"], _titled(t, "Amount You Owe")["page_start"]) == (1, 25)
    line28 = _titled(t, "Line 28\u2014Self-employed health insurance deduction")
    assert (line28["level"], line28["page_start"]) == (2, 16)
    assert _titled(t, "Line 37\u2014Itemized deductions")["page_start"] == 18
    # callout labels, italic run-ins and the column-joined text of a shared baseline are no titles
    assert not toc["title"].isin(["TIP", "CAUTION", "Qualified student loan"]).any()
    assert not toc["title"].str.contains("If you qualify").any()


def test_federal_register_headings_by_type(real):
    """The 737 MAX proposed AD: bold body-size headings, lettered rule paragraphs wrapped over
    lines; the masthead ("Proposed Rules", the only large title) does not span the document, and a
    bold phrase inside a sentence ("... in the / Federal Register. The FAA will") is no heading."""
    t = real(FR737)
    toc = t["toc_df"]
    ft = _titled(t, "Flightcrew Training")
    assert (ft["level"], ft["page_start"], ft["page_end"]) == (2, 5, 5)
    mel = _titled(t, "(i) Minimum Equipment List (MEL) Provisions for Inoperative Flight Control System Functions")
    assert mel["page_start"] == 13
    assert _titled(t, "Proposed Rules")["level"] == 2
    assert toc[(toc["page_start"] == 5) & (toc["title"] == "Federal Register")].empty


@pytest.mark.parametrize("rel", [TRANSFORMER, SP800_61, EACL])
def test_anchor_rows_match_toc_and_registry(real, rel):
    t = real(rel)
    refs = t["cross_ref_df"]
    anchors = refs[refs["source"] == "toc_anchor"]
    assert sorted(anchors["ref_target"]) == sorted(t["toc_df"].dropna(subset=["page_start"])["toc_id"])
    objs = refs[refs["source"] == "object_registry"]
    assert len(objs) == len(t["object_registry"])
    assert refs["target_page"].notna().all()


@pytest.mark.parametrize("rel", [TRANSFORMER, SP800_40, FIPS199, CSWP29])
def test_headings_alone_rebuild_the_outline(real, rel, shared_corpora, tmp_path):
    """With the outline removed, numbered headings give the same section ids on the same pages."""
    from docintel.parsing.fitz import pymupdf
    from structure_pdfs import structure

    doc = pymupdf().open(str(shared_corpora / rel))
    doc.set_toc([])
    path = tmp_path / "no_outline.pdf"
    doc.save(str(path))
    doc.close()
    with_outline = real(rel)["toc_df"]
    without = structure(path)["toc_df"]
    assert set(without["source"]) <= {"heading", "contents_page"}
    expected = {(r.toc_id, r.page_start) for r in with_outline.itertuples() if not r.toc_id.startswith("#")}
    got = {(r.toc_id, r.page_start) for r in without.itertuples() if not r.toc_id.startswith("#")}
    assert expected <= got
