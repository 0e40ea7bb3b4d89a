"""CLI contract (CliRunner), pointer detection, question parsing and the incremental index."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import given, settings as hsettings, strategies as st
from typer.testing import CliRunner

from cli.main import app
from docintel.questions import parse_question
from docintel.references.detect import find_mentions, find_pointers
from storebuild import Q_PE

runner = CliRunner()
CONTRACT = ["question", "answer", "answer_completeness", "verdict", "citations", "pending_references",
            "resolved_references", "passes", "llm_calls", "tokens", "generator"]


def test_cli_json_is_the_contract(flat_store, tmp_path):
    trace = tmp_path / "trace.json"
    r = runner.invoke(app, ["ask", Q_PE, "--store", str(flat_store), "--json", "--trace", str(trace)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert list(data) == CONTRACT
    assert set(data["citations"][0]) == {"doc_id", "doc", "page", "page_label", "line_start", "line_end",
                                         "retrieved_via", "parsing_method"}
    # a reference citation says where its pointer was (after the primary ones: the answer's
    # paragraph may be cited line by line)
    ref = next(c for c in data["citations"] if c["retrieved_via"] == "reference")
    assert {"referenced_from", "reference_text"} <= set(ref)
    assert data["tokens"] == {"prompt": 0, "completion": 0}
    assert json.loads(trace.read_text())["passes"]


def test_cli_panel_and_flags(flat_store):
    r = runner.invoke(app, ["ask", Q_PE, "--store", str(flat_store), "--max-loops", "0", "--top-k", "1",
                            "--doc", "1706.03762v7.pdf"])
    assert r.exit_code == 0, r.output
    assert "references_unresolved" in r.stdout and "Table 3 row (E)" in r.stdout


@pytest.mark.parametrize("args", [["--doc", "nope.pdf"], ["--generator", "nope"], ["--max-loops", "-1"]])
def test_cli_usage_errors_exit_2(flat_store, args):
    r = runner.invoke(app, ["ask", "What?", "--store", str(flat_store), *args])
    assert r.exit_code == 2


def test_cli_empty_store_exit_2(tmp_path):
    r = runner.invoke(app, ["ask", "What?", "--store", str(tmp_path / "none")])
    assert r.exit_code == 2 and "ingest" in r.stderr


@pytest.mark.parametrize(
    "text,expected",
    [
        ("nearly identical results (see Table 3 row (E)). We", ("table", "3", "E")),
        ("the sublimit defined in Section 7.2 applies", ("section", "7.2", None)),
        ("as described in the previous section, but", ("section", "previous", None)),
        ("listed in Table 2-1 of the report", ("table", "2-1", None)),
        ("per clause 4.2(b) of this agreement", ("clause", "4.2(b)", None)),
        ("See Appendix A for details", ("appendix", "A", None)),
        # a document's roadmap: the part is the subject of a verb saying what it holds
        ("Section 5 briefly discusses possible metrics for measuring", ("section", "5", None)),
        ("Section 2 outlines possible incident response team structures", ("section", "2", None)),
    ],
)
def test_internal_pointers(text, expected):
    (ref,) = [r for r in find_pointers(text) if r.ref_type.value != "external"]
    assert (ref.ref_type.value, ref.ref_target, ref.sub_selector) == expected


@pytest.mark.parametrize("text", ["ISO/IEC 27001 Annex A", "SP 800-53", "[44 U.S.C., SEC. 3542]", "FIPS 200", "NIST SP 800-63B"])
def test_external_pointers(text):
    (ref,) = find_pointers(f"controls follow {text} in full")
    assert ref.ref_type.value == "external" and ref.raw_text in text


def test_a_part_the_sentence_narrows_another_document_to_is_external():
    """SP 800-40 p13: "Section 3.3" is SP 800-125's, not SP 800-40's own Section 3.3."""
    text = ("See NIST SP 800-125, Guide to Security for Full Virtualization Technologies, for additional "
            "information\u2014specifically, Section 3.3 discusses virtual machine image and snapshot management.")
    assert [(r.raw_text, r.ref_type.value) for r in find_pointers(text)] == [
        ("NIST SP 800-125", "external"), ("Section 3.3 of NIST SP 800-125", "external")]
    # a new sentence about this document's own part stays internal
    assert [r.ref_type.value for r in find_pointers("See SP 800-53. Specifically, see Section 3.3 of this guide.")] == [
        "external", "section"]


def test_a_pointer_coordinated_with_a_triggered_one_is_a_pointer_too():
    """SP 800-63B p67: the "see" 50 characters back points at both sections."""
    text = ("Usability considerations for the additional factor apply as well — see Section 10.2.1 for "
            "memorized secrets and Section 10.4 for biometrics used in multifactor authenticators.")
    assert [r.raw_text for r in find_pointers(text)] == ["Section 10.2.1", "Section 10.4"]
    # a new sentence is not coordinated: "Section 4" there is a subject, not a pointer
    assert [r.raw_text for r in find_pointers("The design differs from Section 3. Section 4 is new.")] == ["Section 3"]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("(See Flightcrew Training section in this preamble for further information.)",
         [("Flightcrew Training section", "Flightcrew Training")]),
        ("or by the means identified in the ADDRESSES section.", [("ADDRESSES section", "ADDRESSES")]),
        ("sent to the person identified in the FOR FURTHER INFORMATION CONTACT section.",
         [("FOR FURTHER INFORMATION CONTACT section", "FOR FURTHER INFORMATION CONTACT")]),
        ("see the Costs of Compliance section", [("Costs of Compliance section", "Costs of Compliance")]),
        # SP 800-88's flash memory table: "as described in the Verify Methods subsection"
        ("as described in the Verify Methods subsection should", [("Verify Methods subsection", "Verify Methods")]),
        ("send it to the attention of the person identified in paragraph (q)(1) of this AD.",
         [("paragraph (q)(1)", "(q)(1)")]),
        ("the changes specified in paragraphs (h)(1) through (10) of this AD",
         [("paragraph (h)(1)", "(h)(1)"), ("paragraph (h)(10)", "(h)(10)")]),
        ("the provisions of paragraphs (p)(4)(i) and (ii) of this AD apply",
         [("paragraph (p)(4)(i)", "(p)(4)(i)"), ("paragraph (p)(4)(ii)", "(p)(4)(ii)")]),
        # a figure named by the paragraph it belongs to is reached through that paragraph
        ("provisions of figure 10 to paragraph (i) of this proposed AD are adopted",
         [("figure 10 to paragraph (i)", "(i)")]),
        # not a part of this document, or no part at all
        ("in accordance with paragraph (c) of 14 CFR 39.5", [("14 CFR 39.5", "14 CFR 39.5")]),
        ("This section describes the requirements.", []),
        ("4 Authenticator Assurance Levels This section describes the AALs.", []),
        ("Subsequent sections describe usability considerations.", []),
        ("the AAL sections require a privacy risk assessment", []),
    ],
)
def test_parts_named_by_heading_or_paragraph_letter(text, expected):
    """Federal Register rules point at a preamble heading by its words and at the rule's own
    paragraphs by letter; neither has a number a TOC would hold."""
    assert [(r.raw_text, r.ref_target) for r in find_pointers(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # SP 800-63B 9.1: the list's last item follows ", and"
        ("Sections 4.1.5, 4.2.5, and 4.3.5 require the CSP to conduct a privacy risk assessment",
         ["4.1.5", "4.2.5", "4.3.5"]),
        ("the requirements of paragraphs (g), (h), and (i) of this AD", ["(g)", "(h)", "(i)"]),
        ("see Tables 2, 3, or 4", ["2", "3", "4"]),
        ("see Sections 4.1 and 4.2", ["4.1", "4.2"]),
    ],
)
def test_every_item_of_a_listed_pointer_is_a_mention(text, expected):
    assert [m.ref.ref_target for m in find_mentions(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # IRS Notice 1036 p2, 1040NR p7, a DPA's "table above", SP 800-63B p13
        ("the amount shown in the chart below for the applicable payroll period", [("the chart below", "table", "next")]),
        ("adjusted for inflation (see the chart on this page)", [("the chart on this page", "table", "here")]),
        ("the sub-processors listed in the table above", [("the table above", "table", "previous")]),
        ("The following table lists the AALs", [("The following table", "table", "next")]),
        ("as the figure below shows", [("the figure below", "figure", "next")]),
        ("the rates below apply", []),
    ],
)
def test_a_table_or_chart_named_by_where_it_sits(text, expected):
    assert [(m.ref.raw_text, m.ref.ref_type.value, m.ref.ref_target) for m in find_mentions(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # CSWP 29 p18 and its Core (p22-23); CSF 1.1's form; file names and initials are no identifiers
        ("The Subcategories within the CSF C-SCRM Category [GV.SC] provide a connection", [("GV.SC", True)]),
        ("o GV.SC-06: Planning and due diligence are performed", [("GV.SC-06", False)]),
        ("see ID.AM-1 and PR.AC-4.", [("ID.AM-1", True), ("PR.AC-4", True)]),
        ("NIST.SP.800-63b and the U.S. Code", []),
    ],
)
def test_an_outcome_identifier_is_a_section_mention(text, expected):
    ms = find_mentions(text)
    assert [(m.ref.ref_target, m.triggered) for m in ms] == expected
    assert all(m.ref.ref_type.value == "section" and m.ref.raw_text == m.ref.ref_target for m in ms)


def test_caption_is_not_a_pointer():
    assert find_pointers("Table 3: Variations on the Transformer architecture.") == []


@hsettings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("see Table Section 3.2 row (E) ISO 27001 Annex A SP 800-53 , . ")), max_size=80))
def test_mentions_are_substrings_and_disjoint(text):
    ms = find_mentions(text)
    for m in ms:
        assert m.start < m.end <= len(text)
    spans = sorted((m.start, m.end) for m in ms)
    for (a, b), (c, d) in zip(spans, spans[1:]):
        assert b <= c or (a, b) == (c, d)  # a list "Sections 3 and 4" shares one span


def test_question_parse():
    p = parse_question(Q_PE)
    assert "learned" in p.keywords and "the" not in p.keywords and "transformer" not in p.keywords
    assert "positional embeddings" in p.terms
    assert p.shape.value == "yes_no" and p.doc_hints == ["transformer"]
    assert parse_question("What is a memorized secret?").shape.value == "definition"


def test_index_is_incremental(flat_store, tmp_path):
    from docintel.retrieval.index import update_index
    from docintel.store import Store
    from storebuild import add_table_rows

    root = tmp_path / "s"
    shutil.copytree(flat_store, root, ignore=shutil.ignore_patterns("index"))
    s = Store(root)
    first = update_index(s)
    assert first["docs_added"] == 1 and first["pages_indexed"] == 15
    assert update_index(s)["pages_indexed"] == 0
    doc = s.doc_ids()[0]
    add_table_rows(s, doc, 9, "table:3", [
        {"text": "(E) | PPL (dev): 4.92 | BLEU (dev): 25.7", "row_key": "(E)", "x0": 100, "y0": 355, "x1": 500, "y1": 372,
         "cells": [{"header": "", "value": "(E)"}, {"header": "BLEU (dev)", "value": "25.7"}]},
    ])
    again = update_index(s)
    assert again["docs_checked"] == 1 and again["pages_indexed"] == 1  # only page 9's best view changed
    with s.lock("test"):
        s.remove_document(doc)
    assert update_index(s)["pages_removed"] == 15


def test_an_index_built_by_an_older_docintel_is_rebuilt_or_read_as_it_is(flat_store, tmp_path):
    """An index without the bracket rows (version 2) is not current: the next reader rebuilds
    it. Where it cannot (a read-only store), search reads it as it is, without bracket rows."""
    import sqlite3

    from docintel.retrieval.index import INDEX_VERSION, index_path, is_current, update_index
    from docintel.retrieval.search import ensure_index, rank_pages
    from docintel.store import Store

    root = tmp_path / "s"
    shutil.copytree(flat_store, root, ignore=shutil.ignore_patterns("index"))
    s = Store(root)
    update_index(s)
    with sqlite3.connect(index_path(s)) as conn:
        conn.execute("DROP TABLE brackets")
        conn.execute("UPDATE meta SET value='2' WHERE key='version'")
    assert not is_current(s)
    hits, _ = rank_pages(s, parse_question("Which BLEU score did the big model get, for $100?"), s.doc_ids(), 3)
    assert hits  # searched as it is
    ensure_index(s, s.doc_ids())
    assert is_current(s)
    with sqlite3.connect(index_path(s)) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()[0] == str(INDEX_VERSION)
        assert conn.execute("SELECT count(*) FROM brackets").fetchone() is not None


def test_read_only_store_is_searched_as_is(flat_store, tmp_path, monkeypatch):
    """A store on a read-only mount (or another user's folder): the WAL index cannot be opened
    the usual way (no -shm file can be created), so readers open the file immutable."""
    import sqlite3

    from docintel.retrieval import index as index_module
    from docintel.retrieval.search import search_pages
    from docintel.store import Store

    root = tmp_path / "ro"
    shutil.copytree(flat_store, root, ignore=shutil.ignore_patterns("index"))
    store = Store(root)
    index_module.update_index(store)
    expected = search_pages(store, parse_question(Q_PE), store.doc_ids(), top_k=2)
    assert expected
    real_connect = sqlite3.connect

    def read_only_connect(target, *args, **kwargs):
        if not kwargs.get("uri"):
            raise sqlite3.OperationalError("unable to open database file")
        return real_connect(target, *args, **kwargs)

    monkeypatch.setattr(index_module.os, "access", lambda path, mode: mode != os.W_OK)
    monkeypatch.setattr(index_module.sqlite3, "connect", read_only_connect)
    hits = search_pages(store, parse_question(Q_PE), store.doc_ids(), top_k=2)
    assert [h.page_num for h in hits] == [h.page_num for h in expected]


def test_sideways_margin_note_is_not_glued_into_a_sentence():
    """NIST pages carry a sideways margin line ("This publication is available free of charge
    from: ...") between the running header and the body: it must not join the body's first
    sentence, nor be quoted as an answer."""
    from docintel.generation.extractive import ExtractiveGenerator
    from docintel.schemas.answers import RetrievedVia
    from docintel.schemas.generation import GenerationRequest, Passage, PassageLine

    def line(n, text, box):
        return PassageLine(line_num=n, text=text, kind="text", parsing_method="pymupdf",
                           x0=box[0], y0=box[1], x1=box[2], y1=box[3])

    lines = [
        line(1, "NIST SP 800-63B", (72, 40, 160, 50)),
        line(2, "This publication is available free of charge from: https://doi.org/10.6028/NIST.SP.800-63b",
             (20, 228, 30, 586)),
        line(3, "with a random value and hashed, preferably using a computationally expensive", (72, 80, 540, 92)),
        line(4, "algorithm. Verifiers SHALL store memorized secrets in a salted and hashed form.", (72, 94, 540, 106)),
    ]
    p = Passage(passage_id="P1", doc_id="d", doc="x.pdf", page=3, page_label="3", line_start=1, line_end=4,
                parsing_method="pymupdf", retrieved_via=RetrievedVia.primary, lines=lines)
    for q, expected in [("How should verifiers store memorized secrets?", "Verifiers SHALL store memorized secrets"),
                        ("Which algorithm is preferred for hashing with a random value?", '"with a random value and hashed')]:
        out = ExtractiveGenerator().generate(GenerationRequest(question=q, parsed=parse_question(q), passages=[p]))
        assert expected in out.answer
        assert "available free of charge" not in out.answer


@pytest.mark.parametrize("raw, file_name, followed", [
    ("Appendix C of SP 800-88", "NIST.SP.800-88r1.pdf", True),  # a revision of the named publication
    ("Appendix A of SP 800-63B", "NIST.SP.800-63b.pdf", True),
    ("Appendix A of SP 800-63", "NIST.SP.800-63b.pdf", False),  # SP 800-63 is another document
    ("Table 1 of FIPS 199", "NIST.FIPS.199.pdf", True),
    ("Section 3 of SP 800-124", "NIST.FIPS.199.pdf", False),
])
def test_part_of_a_named_document_is_scoped_to_it(raw, file_name, followed):
    from docintel.orchestrator.loop import _in_named_documents
    from docintel.schemas.answers import PendingReference, RefType

    class FakeStore:
        def manifest(self):
            return {"documents": {"d1": {"file_name": file_name}}}

    ref = PendingReference(raw_text=raw, ref_type=RefType.appendix, ref_target="A")
    out = _in_named_documents(FakeStore(), [ref], ["d1"])[0]
    assert (out.ref_type != RefType.external and out.doc_id == "d1") if followed else out.ref_type == RefType.external


def test_a_statute_section_is_external():
    """1040NR instructions: "section 403(b) plans" is the tax code, not a section of the form."""
    (ref,) = find_pointers("$18,500 for section 403(b) plans if you qualify for the 15-year rule")
    assert ref.ref_type.value == "external" and ref.raw_text == "section 403(b)"
    (ref,) = find_pointers("as described in Section 7.2(b) of this policy")
    assert ref.ref_type.value == "section" and ref.ref_target == "7.2(b)"
    # a bare id of four or more digits: IRC section 1441, Clinger-Cohen Act Section 5131
    for text, raw in [("tax withheld under section 1441 or 1442", "section 1441 or 1442"),
                      ("under Section 5131 of the Information Technology Management Reform Act", "Section 5131")]:
        (ref,) = [r for r in find_pointers(text) if r.raw_text.lower().startswith("section")]
        assert ref.ref_type.value == "external" and ref.raw_text == raw
    (ref,) = find_pointers("see Section 12 for the fees")
    assert ref.ref_type.value == "section"


def test_a_page_of_a_form_is_external():
    """1040NR instructions p3: "the income items listed ... on lines 76a through 85 on page 4 of
    Form 1040NR" is the form's page 4, not the instructions' (which the loop had followed, making
    an answer about the mailing address complete from the filing deadlines)."""
    refs = [m.ref for m in find_mentions("on lines 8 through 21 on page 1 of Form 1040NR and on lines 76a through 85 "
                                         "on page 4 of Form 1040NR")]
    assert [(r.raw_text, r.ref_type.value) for r in refs] == [("page 1 of Form 1040NR", "external"),
                                                                ("page 4 of Form 1040NR", "external")]
    (ref,) = find_pointers("See page 25 for details on how to pay any tax you owe.")
    assert ref.ref_type.value == "page" and ref.ref_target == "25"
    (ref,) = find_pointers("Attach Form 8833 (see page 4).")  # a form named before the page: the page is ours
    assert ref.ref_type.value == "page" and ref.ref_target == "4"


@pytest.mark.parametrize(
    "text,subject",
    [
        ("For details about the statement and the alternative basis, see Services performed partly inside and partly "
         "outside the United States on page 10.", "Services performed partly inside and partly outside the United States"),
        ("See Dispositions of U.S. Real Property Interests on page 6.", "Dispositions of U.S. Real Property Interests"),
        ("see Special Rules for Former U.S. Citizens that begins on page 6", "Special Rules for Former U.S. Citizens"),
        ("use the Tax Computation Worksheet on page 46 to compute your tax", "Tax Computation Worksheet"),
        ("Enter your name, identifying number (defined on page 8), type of entry visa", "identifying number"),
        ("See page 25 for details on how to pay any tax you owe.", None),
        ("Use the worksheet on page 17 to figure your deduction.", None),  # names no part by its title
        ("Do not add your gift to any tax you may owe. See page 25.", None),
        ("It is over. See Table 3 on page 9.", "Table 3"),
        ("See Publication 519. Report the gain on page 9.", None),  # a sentence's end is no title
    ],
)
def test_a_page_pointer_names_the_part_of_the_page_it_sends_to(text, subject):
    """1040NR: "see <title> on page 10", "<term> (defined on page 8)": the page holds other parts
    too, and the one the pointer means is read from where it begins (its sub_selector)."""
    (ref,) = [m.ref for m in find_mentions(text) if m.ref.ref_type.value == "page"]
    assert ref.sub_selector == subject


def test_command_help_paragraphs_are_reflowed_not_broken_where_the_source_wraps():
    """Rich help keeps a docstring's line breaks: "2 for an empty store," used to end a line."""
    import re

    from cli.main import app

    for command in app.registered_commands:
        assert command.help and not re.search(r"(?<!\n)\n(?!\n)", command.help), command.name


def test_a_document_the_question_names_in_full_scopes_the_reranked_pages(monkeypatch):
    """`make demo`: "What does Table 1 in FIPS 199 say about availability?" ranked SP 800-48 p29
    first and answered from CSF 2.0's Table 1 once FIPS 199's running title was no longer read
    into its pages. Pages of a document whose name holds every naming word are the only ones
    re-ranked; with none, nothing is dropped."""
    import pandas as pd

    import docintel.retrieval as retrieval
    import docintel.retrieval.search as search
    from docintel.questions import parse_question
    from docintel.retrieval.search import PageHit

    def hit(doc, page, bm25, hint):
        return PageHit(doc_id=doc, page_num=page, page_label=str(page), score=bm25, bm25=bm25, hint=hint)

    def lines(store, doc_id, pages):
        return pd.DataFrame([{"doc_id": doc_id, "page_num": p, "line_num": 1, "kind": "text", "parsing_method": "pymupdf",
                              "text": "Table 1 summarizes availability for each security objective."} for p in pages])

    monkeypatch.setattr(search, "ensure_index", lambda store, docs: None)
    monkeypatch.setattr(search, "doc_idf", lambda store, parsed, doc: ({}, []))
    monkeypatch.setattr(retrieval, "page_lines", lines)
    monkeypatch.setattr(retrieval, "_toc", lambda store, doc: None)
    monkeypatch.setattr(retrieval, "candidate_passages", lambda store, cands, loaded, asked="": [])
    parsed = parse_question("What does Table 1 in FIPS 199 say about availability?")
    idf = {"table": 1.0, "availability": 1.0}
    for hits, want in [([hit("sp80048", 29, 1.0, 0.0), hit("csf", 15, 0.9, 0.0), hit("fips199", 6, 0.8, 1.0)], {"fips199"}),
                       ([hit("sp80048", 29, 1.0, 0.0), hit("sp80063b", 6, 0.8, 0.5)], {"sp80048", "sp80063b"})]:
        monkeypatch.setattr(search, "rank_pages", lambda store, p, docs, top_k, hits=hits: (hits, idf))
        _, cands, _, _ = retrieval.retrieve(None, parsed, ["sp80048", "csf", "fips199"], top_k=1)
        assert {c.doc_id for c in cands} == want


def test_a_captionless_tables_rows_are_indexed_by_their_values():
    """A 1040NR Tax Table page has 64 rows of 15 cells; indexing each cell's header with it (as a
    captioned table's rows are) would count "Married filing separately" about 1,000 times a page.
    Its header row is indexed once, its rows by their values; a captioned table is unchanged."""
    import json

    import pandas as pd

    from docintel.retrieval.index import page_text

    def row(key, obj, cells):
        return {"text": " | ".join(f"{h}: {v}" for h, v in cells), "object_key": obj, "row_key": key,
                "cells": json.dumps([{"header": h, "value": v} for h, v in cells])}

    lines = pd.DataFrame([
        {"text": "2007 Tax Table", "object_key": None, "row_key": None, "cells": None},
        {"text": "At least | Single", "object_key": "table:p36.1", "row_key": "header",
         "cells": json.dumps([{"header": "At least", "value": "At least"}, {"header": "Single", "value": "Single"}])},
        row("14,000", "table:p36.1", [("At least", "14,000"), ("Single", "1,713")]),
        row("Canada", "table:A-1", [("Country", "Canada"), ("Rate", "96")]),
    ])
    text = page_text(lines).split("\n")
    assert text[:2] == ["2007 Tax Table", "At least | Single"]
    assert "14,000 1,713" in text and not any("At least: 14,000" in t or "At least 14,000" in t for t in text)
    assert "Country: Canada | Rate: 96" in text and "Rate 96" in text  # a captioned table: as before


def test_a_row_of_marks_is_indexed_without_its_columns_names():
    """SP 800-63B's Table 10-1 marks with a diamond each authenticator type a consideration applies
    to. Indexed as "Look-up Secrets: \u2b25" (and "Look-up Secrets \u2b25") on every mark, the
    columns' names tripled the page's length, and the page fell from first to fifth for a
    question on the paragraph above the table. A row of marks is indexed by its label and its
    words; the column names stay in the header row, once. A dash standing for a value is no mark."""
    import json

    import pandas as pd

    from docintel.retrieval.index import page_text

    cells = [("Usability Consideration", "Unmasked text entry"), ("Look-up Secrets", "\u2b25"), ("Out of Band", "\u2b25"),
             ("Note", "see 5.1")]
    lines = pd.DataFrame([
        {"text": " | ".join(f"{h}: {v}" if k else v for k, (h, v) in enumerate(cells)), "object_key": "table:10-1",
         "row_key": "Unmasked text entry", "cells": json.dumps([{"header": h, "value": v} for h, v in cells])},
        {"text": "Floppies | Clear: \u2014", "object_key": "table:A-5", "row_key": "Floppies",
         "cells": json.dumps([{"header": "", "value": "Floppies"}, {"header": "Clear", "value": "\u2014"}])},
    ])
    text = page_text(lines).split("\n")
    assert text == ["Unmasked text entry | Note: see 5.1", "Usability Consideration Unmasked text entry", "Note see 5.1",
                    "Floppies | Clear: \u2014", "Clear \u2014"]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("See the instructions for line 55 on page 22 for details.", ("instructions for line 55 on page 22", "line 55")),
        ("an estate or trust, described in the instructions for line 39", ("instructions for line 39", "line 39")),
        ("See the instructions for line 41 that begin on page 18 to see if", ("instructions for line 41 that begin on page 18", "line 41")),
        ("HSA. See the instructions for lines 16a and 16b.", ("instructions for lines 16a and 16b", "line 16a")),
        ("(see the instructions for line 34 on this page)", ("instructions for line 34 on this page", "line 34")),
    ],
)
def test_a_form_lines_instructions_are_a_mention_the_loop_can_follow(text, expected):
    """1040NR: a form's instructions are cut by line ("Line 55\u2014Additional tax on IRAs ..."), and
    send the reader to another line's, with or without the page they begin on. "on page 22" is
    part of the mention, not a mention of its own. Like a bare page mention, it is followed by
    the loop's own choices (the premise's page, the way in, a linked or the closest mention), not
    flagged by the generator: flagged, the loop followed a worksheet's "(see the instructions for
    line 34 on this page)" and a "defined in the instructions for line 47" back to the definition,
    and two golden answers changed for the worse."""
    (m,) = find_mentions(text)
    assert (m.ref.raw_text, m.ref.ref_target, m.ref.ref_type.value) == (*expected, "section")
    assert not m.triggered and find_pointers(text) == []


def test_the_page_a_form_lines_instructions_begin_on_is_read_from_the_pointer():
    from docintel.references.detect import form_line_page

    assert form_line_page("instructions for line 55 on page 22") == 22
    assert form_line_page("instructions for line 41 that begin on page 18") == 18
    assert form_line_page("instructions for line 34 on this page", origin_page=17) == 17
    assert form_line_page("instructions for line 39") is None
    # another form's line is not this document's part
    assert find_mentions("See the instructions for line 7 of Form 1116.") == []


@pytest.mark.slow
def test_cli_says_when_the_cited_documents_were_parsed_by_older_code(real_store, monkeypatch):
    """After an upgrade whose parsers read pages differently, a user who only asks would be
    answered from the old parse without a word: stderr names the cited documents an older
    docintel parsed and how to re-parse them; stdout (the --json contract) is unchanged."""
    import docintel.store.fingerprint as fingerprint

    r = runner.invoke(app, ["ask", Q_PE, "--store", str(real_store), "--json"])
    assert r.exit_code == 0 and "parsed by other" not in r.stderr
    monkeypatch.setattr(fingerprint, "code_fingerprint", lambda parts: "newer-parsers")  # an upgrade
    r = runner.invoke(app, ["ask", Q_PE, "--store", str(real_store), "--json"])
    assert r.exit_code == 0 and list(json.loads(r.stdout)) == CONTRACT
    assert "The cited document(s) 1706.03762v7.pdf were parsed by other docintel parsing code" in r.stderr
    assert "ingest --force" in r.stderr
