"""The resolver ladder on the flat Transformer store: rung order, the LLM rung only when given,
relative pointers by TOC order, and region fetch of the targets."""

from __future__ import annotations

import pytest

from docintel.references import Resolver, find_pointers
from docintel.references.detect import find_mentions
from docintel.retrieval import fetch_target
from docintel.schemas.answers import Origin, PendingReference, RefType
from docintel.store import Store


def pointer(text, page, line, doc):
    (ref,) = find_pointers(text)
    return ref.model_copy(update={"origin": Origin(page=page, line=line), "doc_id": doc})


def test_ladder_table_row_then_fetch(flat_store):
    s = Store(flat_store)
    doc = s.doc_ids()[0]
    res = Resolver(s).resolve(pointer("see Table 3 row (E)", 6, 42, doc))
    assert res.resolved.source == "object_registry" and res.resolved.target_page == 9
    assert [st["rung"] for st in res.steps] == ["toc_df", "object_registry"]  # cheapest first, stops at a hit
    p = fetch_target(s, res.region, "R1", res.next_section)[0]
    rows = [ln for ln in p.lines if ln.kind == "table_row"]
    assert "4.92" in rows[0].text and "25.7" in rows[0].text  # only the selected row ...
    assert "25.8" in rows[1].text  # ... and the first row for comparison
    assert len(rows) == 2 and p.note.startswith("pulled in because of 'Table 3 row (E)' on page 6 line 42")


def test_previous_section_by_toc_order(flat_store):
    s = Store(flat_store)
    doc = s.doc_ids()[0]
    # page 9 line 124 sits in 6.2 Model Variations; the previous section is 6.1
    res = Resolver(s).resolve(pointer("as described in the previous section", 9, 124, doc))
    assert res.resolved.source == "toc_df" and res.resolved.target_page == 8
    p = fetch_target(s, res.region, "R1", res.next_section)[0]
    assert "Machine Translation" in p.text and "28.4" in p.text


def test_missing_target_unresolved_and_llm_rung_only_when_configured(flat_store):
    s = Store(flat_store)
    doc = s.doc_ids()[0]
    vague = PendingReference(raw_text="the variations table", ref_type=RefType.table, doc_id=doc,
                             origin=Origin(page=6, line=42))
    plain = Resolver(s).resolve(vague)
    assert plain.resolved.status.value == "unresolved" and "llm" not in [st["rung"] for st in plain.steps]

    calls = []

    def guess(text, candidates, context):
        calls.append((text, context))
        return next(i for i, c in enumerate(candidates) if c.startswith("table 3 ")), 1, 50, 5

    r = Resolver(s, llm_guess=guess)
    res = r.resolve(vague)
    assert res.resolved.source == "llm" and res.resolved.target_page == 9
    assert calls and "Table 3 row (E)" in calls[0][1]  # the origin line is given as context
    assert r.llm_calls == 1 and r.tokens == [50, 5]
    gone = r.resolve(pointer("see Section 99", 6, 42, doc))
    assert gone.resolved.status.value == "unresolved" and gone.region is None


def test_external_never_fetched(flat_store):
    s = Store(flat_store)
    res = Resolver(s).resolve(pointer("as required by NIST SP 800-53", 6, 42, s.doc_ids()[0]))
    assert res.resolved.status.value == "external" and res.region is None


def mention(text, page, line, doc):
    """The first mention in ``text``, flagged by the generator or not (a bare page, a form line)."""
    ref = find_mentions(text)[0].ref
    return ref.model_copy(update={"origin": Origin(page=page, line=line), "doc_id": doc})


def _fetched(store, ref_text, origin_page, origin_line, doc):
    res = Resolver(store).resolve(mention(ref_text, origin_page, origin_line, doc))
    assert res.region is not None, res.steps
    return res, fetch_target(store, res.region, "R1", res.next_section)


def test_a_heading_named_by_its_words_is_found_and_read_to_the_next(fr_store):
    """The 737 MAX proposed AD has no outline and no numbered headings. "(See Flightcrew Training
    section in this preamble ...)" on page 3 leads to the bold heading in the middle column of
    page 5 (a TOC entry told by type; the page is read in its reading order, not cut by height
    across its three columns); "the ADDRESSES section" (page 5) to the run-in heading on page 1,
    read up to the next one ("FOR FURTHER INFORMATION CONTACT:")."""
    s = Store(fr_store)
    doc = s.doc_ids()[0]
    res, (p, *_) = _fetched(s, "(See Flightcrew Training section in this preamble", 3, 40, doc)
    assert res.resolved.source == "toc_df" and p.page == 5
    assert p.lines[0].text.startswith("Flightcrew Training")
    assert "(TCCA)" in p.text
    assert "identified in the ADDRESSES section" not in p.text  # the first column, before the heading

    res, (p, *_) = _fetched(s, "by the means identified in the ADDRESSES section.", 5, 14, doc)
    assert p.page == 1 and p.lines[0].text.startswith("ADDRESSES:")
    assert "Contractual & Data Services" in p.text and "FOR FURTHER INFORMATION CONTACT" not in p.text


def test_an_outcome_identifier_is_read_from_its_definition_to_the_next_of_its_rank(nist_store):
    """CSWP 29 p18: "The Subcategories within the CSF C-SCRM Category [GV.SC] provide ...". The
    Core defines the Category on p22 ("Cybersecurity Supply Chain Risk Management (GV.SC): ...")
    and lists its ten Subcategories over p22-23 up to "IDENTIFY (ID):". A Subcategory is read
    alone, to the next one."""
    s = Store(nist_store)
    doc = next(d for d, e in s.manifest()["documents"].items() if e["file_name"] == "NIST.CSWP.29.pdf")
    res, parts = _fetched(s, "The Subcategories within the CSF C-SCRM Category [GV.SC] provide", 18, 33, doc)
    assert res.resolved.source == "identifier" and [p.page for p in parts] == [22, 23]
    assert parts[0].lines[0].text.startswith("\u2022 Cybersecurity Supply Chain Risk Management (GV.SC):")
    text = " ".join(p.text for p in parts)
    assert "GV.SC-06: Planning and due diligence" in text and "GV.SC-10" in text
    assert "IDENTIFY (ID)" not in text and "GV.RR" not in text
    res, (p, *_) = _fetched(s, "as GV.SC-06 asks", 18, 33, doc)
    assert p.page == 23 and p.lines[0].text.startswith("o GV.SC-06:") and "GV.SC-07" not in p.text
    # an identifier the document never defines is not resolved
    assert Resolver(s).resolve(mention("see [XY.ZZ]", 18, 33, doc)).region is None


def test_a_numbered_section_named_by_its_title_is_found_in_the_toc(policy_store):
    """SP 800-88's "as described in the Verify Methods subsection" names "4.7 Verify Methods" by
    its title alone: the TOC entry of that title (any case) is the target, numbered heading and
    all, read to the next entry of its level."""
    s = Store(policy_store)
    doc = s.doc_ids()[0]
    res, (p, *_) = _fetched(s, "up to the amount set in the Storm Sublimit subsection.", 1, 3, doc)
    assert res.resolved.source == "toc_df" and p.page == 2
    assert "USD 400,000" in p.text and "USD 250,000" not in p.text


def test_a_rule_paragraph_named_by_its_letters_is_read_alone(fr_store):
    """"paragraph (q)(1) of this AD" is item (1) under the bold "(q) Related Information" on page
    15: its lines, not (q)(2)'s Boeing contact; "paragraph (i)" is the MEL paragraph, whose
    note runs onto page 14, not the "(i)" item of a list."""
    s = Store(fr_store)
    doc = s.doc_ids()[0]
    res, (p, *more) = _fetched(s, "the person identified in paragraph (q)(1) of this AD.", 14, 90, doc)
    assert p.page == 15 and p.lines[0].text.startswith("(1) For more information")
    assert "Ian Won" in p.text and "Boeing" not in p.text and not more
    res, parts = _fetched(s, "as specified in paragraph (i) of this proposed AD", 4, 160, doc)
    assert parts[0].page == 13 and parts[0].lines[0].text.startswith("(i) Minimum Equipment List")
    assert any("(FSIMS)" in q.text and q.page == 14 for q in parts[1:])
    assert not any("(j) Installation" in q.text for q in parts)


def test_a_mention_on_a_page_read_in_reading_order_is_placed_by_that_parse(tmp_path):
    """A page in columns is read in its reading order, numbered anew: 1040NR p7's "(see the chart
    below)" is reading_order line 88, which in the baseline is another line far down the page.
    Where the mention sits (for "below", "above", "the previous section") is read in the parse
    the passage quoted."""
    from docintel.schemas.tables import TABLES, to_arrow

    def line(n, y, text, method):
        return dict(doc_id="d1", page_num=1, line_num=n, text=text, x0=10.0, y0=y, x1=200.0, y1=y + 8,
                    kind="text", parsing_method=method)

    base = [line(1, 10.0, "Title", "pymupdf"), line(2, 300.0, "see the table above", "pymupdf"),
            line(3, 500.0, "a footnote", "pymupdf")]
    ordered = [line(1, 500.0, "a footnote", "reading_order"), line(2, 10.0, "Title", "reading_order"),
               line(3, 300.0, "see the table above", "reading_order")]
    tables = {name: to_arrow([], schema) for name, schema in TABLES.items()}
    tables["documents"] = to_arrow([{"doc_id": "d1", "file_name": "d1.pdf", "n_pages": 1}], TABLES["documents"])
    tables["line_df"] = to_arrow(base + ordered, TABLES["line_df"])
    tables["page_df"] = to_arrow([{"doc_id": "d1", "page_num": 1, "parsing_method": m, "coverage": "page"}
                                  for m in ("pymupdf", "reading_order")], TABLES["page_df"])
    tables["object_registry"] = to_arrow([{"doc_id": "d1", "object_type": "table", "object_id": "1",
                                           "object_key": "table:1", "page_num": 1, "bbox": [10.0, 100.0, 200.0, 200.0]}],
                                         TABLES["object_registry"])
    s = Store(tmp_path)
    with s.lock("test"):
        s.write_document("d1", tables, {"file_name": "d1.pdf", "path": "/x/d1.pdf"})
    # reading_order line 3 is at y 300, under the table; baseline line 3 is at y 500 (also under it),
    # baseline line 1 at y 10 (over it): read in the baseline, "above" from line 1 finds nothing
    res = Resolver(s).resolve(pointer("see the table above", 1, 3, "d1"))
    assert res.region is not None and res.region.object_key == "table:1"
    res = Resolver(s).resolve(pointer("see the table above", 1, 2, "d1"))  # reading_order line 2: y 10
    assert res.region is None


def test_a_table_that_runs_on_to_later_pages_is_read_there_too(tmp_path, shared_corpora):
    """SP 800-63B's Table 8-1 (Authenticator Threats) is captioned on page 51 and runs to page 54;
    its side-channel row, with the differential power analysis example, is on page 53. Ingest
    flags the later pages as the table continued and escalation keys their rows with the
    caption's table: "the threats described in Table 8-1" (page 56) is read on all its pages, not
    only where the caption is."""
    from docintel import api
    from docintel.settings import Settings

    settings = Settings.load(env={}, store=tmp_path / "store", quiet=True)
    api.ingest([shared_corpora / "crossref" / "NIST.SP.800-63b.pdf"], settings)
    api.escalate(settings, pages=[51, 52, 53, 54])
    s = Store(tmp_path / "store")
    doc = s.doc_ids()[0]
    res = Resolver(s).resolve(pointer("may be applied to mitigate the threats described in Table 8-1:", 56, 67, doc))
    assert res.resolved.source == "object_registry" and (res.region.page_start, res.region.page_end) == (51, 54)
    parts = fetch_target(s, res.region, "R1", res.next_section)
    assert [p.page for p in parts] == [51, 52, 53]  # without the question: the pages that follow
    assert "differential power analysis" in parts[2].text and "continued on page 53" in parts[2].note
    assert all(ln.kind == "table_row" for p in parts[1:] for ln in p.lines)
    # its bottom line is the last row on its last page, not on the caption's
    res = Resolver(s).resolve(pointer("see the bottom line of Table 8-1", 56, 67, doc))
    first, *more = fetch_target(s, res.region, "R1", res.next_section)
    assert "Theft" not in first.text and [p.page for p in more] == [54] and more[0].text.startswith("Endpoint Compromise")
def _form_instructions_pdf(path):
    """Four pages cut by form line, the way the 1040NR's instructions are: bold "Line N\u2014Title"
    headings at body size with bold subheadings inside them, a larger section heading, and a
    schedule's own "Line 8" further on."""
    import pymupdf

    pages = [
        [("Line 6\u2014Qualifying widow(er). If your spouse died", "hebo", 9.5),
         ("you may be able to file. An estate or trust, described", "helv", 9.5),
         ("in the instructions for line 39, may not.", "helv", 9.5),
         ("See the instructions for line 8 on page 2 for wages.", "helv", 9.5)],
        [("Line 8\u2014Wages, salaries, tips, etc.", "hebo", 9.5),
         ("Enter the total of your effectively connected wages.", "helv", 9.5),
         ("Services performed partly inside", "hebo", 9.5),
         ("and partly outside the United States.", "hebo", 9.5),
         ("Divide the number of days you worked in the United States.", "helv", 9.5),
         ("Line 9a\u2014Taxable interest. Report all taxable", "hebo", 9.5),
         ("interest you received.", "helv", 9.5)],
        [("Line 39\u2014Deduction for exemptions.", "hebo", 9.5),
         ("If you are filing for an estate, enter $600 on line 39.", "helv", 9.5),
         ("Use the worksheet in the instructions for line 39 on page 3.", "helv", 9.5),
         ("Other Taxes", "hebo", 14),
         ("Line 41\u2014Tax. Include in the total on line 41 all taxes.", "hebo", 9.5)],
        [("Itemized Deductions", "hebo", 12),
         ("Line 8", "hebo", 11),
         ("Enter gifts by cash or check. See the instructions for line 8.", "helv", 9.5),
         ("Lines 17a and 17b\u2014Pensions and", "hebo", 9.5),
         ("annuities. Report them here.", "helv", 9.5)],
    ]
    doc = pymupdf.open()
    fonts = {name: pymupdf.Font(name) for name in ("helv", "hebo")}
    for lines in pages:
        page = doc.new_page(width=612, height=792)
        writer = pymupdf.TextWriter(page.rect)  # a font object writes the em dash (insert_text cannot)
        for i, (text, font, size) in enumerate(lines):
            writer.append((72, 72 + 24 * i), text, font=fonts[font], fontsize=size)
        writer.write_text(page)
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def form_store(tmp_path_factory):
    """The four-page form instructions PDF through docintel.api.ingest."""
    from docintel import api
    from docintel.settings import Settings

    base = tmp_path_factory.mktemp("form")
    root = base / "store"
    api.ingest([_form_instructions_pdf(base / "instructions.pdf")], Settings.load(env={}, store=root, quiet=True))
    return root


def test_a_form_lines_instructions_are_read_from_its_heading_to_the_next(form_store):
    """A form's instructions are cut by line: "the instructions for line 8 on page 2" is the
    "Line 8\u2014Wages ..." part of page 2, bold subheading and all, up to "Line 9a"; "line 39"
    without a page is its heading's part up to a larger heading ("Other Taxes"); of two "Line 8"
    headings (the form's and a schedule's) the one on the page named, else the one nearest the
    mention; "line 17" finds "Lines 17a and 17b"; a page named without such a heading is read whole."""
    s = Store(form_store)
    doc = s.doc_ids()[0]

    res, (p, *more) = _fetched(s, "See the instructions for line 8 on page 2 for wages.", 1, 4, doc)
    assert res.resolved.source == "form_line" and p.page == 2 and not more
    assert p.lines[0].text.startswith("Line 8") and "Divide the number of days" in p.text
    assert "Taxable interest" not in p.text

    res, (p, *more) = _fetched(s, "described in the instructions for line 39, may not.", 1, 2, doc)
    assert p.page == 3 and "$600" in p.text and "Line 41" not in p.text and "Other Taxes" not in p.text

    res, (p, *more) = _fetched(s, "See the instructions for line 8.", 4, 3, doc)  # the schedule's, nearest
    assert p.page == 4 and p.lines[0].text == "Line 8" and "Pensions" not in p.text

    res, (p, *more) = _fetched(s, "See the instructions for line 17.", 1, 4, doc)
    assert p.page == 4 and p.lines[0].text.startswith("Lines 17a and 17b")

    res, (p, *more) = _fetched(s, "See the instructions for line 62 on page 2.", 1, 4, doc)
    assert p.page == 2 and "Taxable interest" in p.text and "Wages" in p.text  # no "Line 62" there: the page


def test_a_page_pointer_is_read_from_the_part_it_names(i1040nr_store):
    """1040NR p12 "See Dispositions of U.S. Real Property Interests on page 6." is read from that
    heading, halfway down page 6, not from the page's top, where "This income is taxed at 30%
    unless a treaty ..." is about other income (an answer to "is that gain taxed at the flat
    30%?" quoted it); p3's "identifying number (defined on page 8)" from "Identifying Number".
    A pointer naming no part, or a part no heading on the page reads, is the whole page."""
    s = Store(i1040nr_store.store)
    doc = s.doc_ids()[0]

    def words(p):
        return " ".join(p.text.split())

    _, (p, *more) = _fetched(s, "See Dispositions of U.S. Real Property Interests on page 6.", 12, 131, doc)
    assert p.page == 6 and not more and p.lines[0].text.startswith("Dispositions of U.S. Real")
    assert "section 897" in words(p) and "taxed at 30% unless" not in words(p)
    _, (p, *more) = _fetched(s, "Enter your name, identifying number (defined on page 8), type of entry visa", 3, 150, doc)
    assert p.page == 8 and p.lines[0].text == "Identifying Number" and "(ITIN)" in words(p) and "871(a)" not in words(p)
    for whole in ("See page 6 for details.", "See Rules Nobody Wrote on page 6."):
        _, (p, *more) = _fetched(s, whole, 12, 131, doc)
        assert p.page == 6 and "taxed at 30% unless" in words(p) and "section 897" in words(p)


@pytest.mark.parametrize("text, page, subject", [
    ("Individuals. If your taxable income is less than $100,000, you must use the Tax Table that begins on page 34 to "
     "figure your tax.", "34", "Tax Table"),
    ("See Reminders on page 30.", "30", "Reminders"),
    ("Enter your name, identifying number (defined on page 8), type of entry visa", "8", "identifying number"),
])
def test_a_page_pointer_naming_its_part_is_one_a_reader_follows(text, page, subject):
    """"use the Tax Table that begins on page 34" names what the page holds: a reader turns there
    (no trigger word such as "see" stands right before "page 34")."""
    assert [(r.ref_target, r.sub_selector) for r in find_pointers(text)] == [(page, subject)]


def test_a_pointer_into_the_part_it_is_written_in_is_not_followed(form_store):
    """1040NR p18: "... use the worksheet on this page to figure the amount to enter on line 39"
    is written inside line 39's own instructions, where the reader already is: the loop does not
    fetch that part again (it had read the whole exemptions part as the answer to a question about
    another worksheet, and called it complete)."""
    from docintel.orchestrator.loop import _holds_origin

    s = Store(form_store)
    doc = s.doc_ids()[0]
    inside = mention("Use the worksheet in the instructions for line 39 on page 3.", 3, 3, doc)
    res = Resolver(s).resolve(inside)
    assert res.resolved.source == "form_line" and _holds_origin(res.region, res.next_section, inside.origin)
    outside = mention("described in the instructions for line 39, may not.", 1, 3, doc)
    res = Resolver(s).resolve(outside)
    assert res.region.page_start == 3 and not _holds_origin(res.region, res.next_section, outside.origin)


def test_a_caption_is_not_a_pointer_to_its_own_table(nist_store):
    """SP 800-88 p30 ends with "Table A-4: Equipment Sanitization", the table on the next page.
    That line is where the table starts, not a pointer to it: the loop took it for the way in
    (the premise's page "pointing" at Table A-4) over p6's "... listed in Appendix A". Here: SP
    800-63B's Table 8-1 caption, and a mention of Table 8-1 in the text before it."""
    from docintel.orchestrator.loop import _holds_origin

    s = Store(nist_store)
    doc = s.resolve_docs(["NIST.SP.800-63b.pdf"])[0]
    reg = s.read_table("object_registry", [doc])
    cap = reg[reg["object_key"] == "table:8-1"].iloc[0]
    own = mention(f"Table 8-1: {cap['caption']}", int(cap["page_num"]), int(cap["line_start"]), doc)
    res = Resolver(s).resolve(own)
    assert res.region.page_start == int(cap["page_num"]) and _holds_origin(res.region, res.next_section, own.origin)
    before = mention("The threats are listed in Table 8-1.", int(cap["page_num"]), int(cap["line_start"]) - 1, doc)
    res = Resolver(s).resolve(before)
    assert res.region.page_start == int(cap["page_num"]) and not _holds_origin(res.region, res.next_section, before.origin)
