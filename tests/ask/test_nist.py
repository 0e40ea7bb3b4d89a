"""Regression questions over real NIST publications (../shared/corpora/crossref and nist)."""

from __future__ import annotations

import pytest

from docintel.orchestrator.loop import answer
from docintel.settings import Settings

pytestmark = pytest.mark.slow  # one ingest of ~200 real pages for the module


def ask(store, question, **kw):
    return answer(question, Settings.load(env={}, store=store, **kw)).to_json_dict()


def refs(out):
    return [c for c in out["citations"] if c["retrieved_via"] == "reference"]


def test_the_impact_levels_are_not_answered_by_an_example_that_says_system_level(fips199_store):
    """FIPS 199 alone: "What are the potential impact levels?" ranked first p9's SCADA example,
    whose "system-level information" held the word "levels", and quoted it as complete. The
    example names no level, so it is partial, and the runner-up page read after it, p6, holds
    "FIPS Publication 199 defines three levels of potential impact ..."."""
    out = ask(fips199_store, "What are the potential impact levels in FIPS 199?")
    assert "defines three levels of potential impact" in out["answer"], out["answer"]
    assert out["answer_completeness"] == "complete" and 6 in {c["page"] for c in out["citations"]}


@pytest.mark.parametrize("store", ["fips199_store", "nist_store"])
def test_the_impact_levels_are_listed_reading_on_to_the_next_page(store, request):
    """FIPS 199 p6: "FIPS Publication 199 defines three levels of potential impact ..." (no
    colon), then "The potential impact is LOW if— ...", "... MODERATE if— ..." and, on p7, "...
    HIGH if— ...". The answer was that one sentence, `complete`, with no level in it."""
    out = ask(request.getfixturevalue(store), "What are the potential impact levels in FIPS 199?")
    answer = out["answer"]
    assert all(f"The potential impact is {level} if" in answer for level in ("LOW", "MODERATE", "HIGH")), answer
    assert out["answer_completeness"] == "complete"
    assert "power plant" not in answer  # p9's SCADA example, which scores as p6's sentence, is no part of the list
    [on] = refs(out)
    assert (on["page"], on["reference_text"], on["referenced_from"]) == (7, "the rest of the three levels", {"page": 6, "line": 17})


def test_section_pointer_sp800_61(nist_store):
    out = ask(nist_store, "How long should incident handling records be kept?")
    assert out["passes"] == 2 and out["verdict"] == "return_to_user"
    assert "three years" in out["answer"]
    rs = refs(out)
    assert rs and all(r["doc"] == "SP800-61rev2.pdf" and r["reference_text"] == "Section 3.4.2" for r in rs)
    assert all(r["page"] < r["referenced_from"]["page"] for r in rs)  # the section sits earlier in the guide
    assert out["resolved_references"][0]["source"] == "toc_df"
    assert "3 years" in out["answer"]  # what the target section says


def test_a_subcategory_set_as_an_o_bulleted_item_is_quoted(nist_store):
    """CSWP 29 p23: "o GV.SC-06: Planning and due diligence are performed to reduce risks before
    entering into formal supplier or other third-party relationships". The page ranked first, but
    its "o" items ran together into one sentence too long to quote: "Not found"."""
    out = ask(nist_store, "What does GV.SC-06 say?")
    assert out["answer_completeness"] == "complete"
    assert "Planning and due diligence are performed" in out["answer"]
    assert {c["page"] for c in out["citations"]} == {23}


def test_an_identifier_the_premise_names_is_followed_to_its_definition(nist_store):
    """CSWP 29 p18 names the C-SCRM Category "[GV.SC]"; its Subcategories, on p22-23 of the Core,
    say what is expected before a supplier relationship (GV.SC-06, due diligence) and after it
    ends (GV.SC-10). The identifier was no pointer: the answer was "Not found"."""
    out = ask(nist_store, "CSF 2.0 says the Subcategories in its supply chain risk management Category, GV.SC, link pure "
                          "cybersecurity outcomes with C-SCRM. We're about to sign with a new IT supplier. What do those "
                          "outcomes expect from us before we enter the relationship, and do they say anything about "
                          "after the contract ends?")
    assert out["answer_completeness"] == "complete"
    assert "due diligence" in out["answer"] and "after the conclusion of a partnership" in out["answer"]
    # the sentence holding the pointer is quoted whole, though its page break is among the pages
    # the premise matches ("... and those that focus" | "on C-SCRM.")
    assert "and those that focus on C-SCRM." in out["answer"]
    rs = refs(out)
    assert rs and {r["page"] for r in rs} <= {22, 23} and all(r["reference_text"] == "GV.SC" for r in rs)
    assert {r["referenced_from"]["page"] for r in rs} == {18}


def test_an_outcome_named_by_its_identifier_is_quoted_with_all_its_parts(nist_store):
    """CSWP 29 p23: Asset Management (ID.AM) has seven Subcategories (ID.AM-01 to -05, -07,
    -08). Read as a paragraph, the answer quoted its first six sentences and left out -07 and
    -08; GV.SC, over two pages, lost four of its ten."""
    out = ask(nist_store, "Which Subcategories are in ID.AM?")
    for sub in ("ID.AM-01", "ID.AM-05", "ID.AM-07: Inventories of data", "ID.AM-08: Systems, hardware"):
        assert sub in out["answer"]
    assert "ID.RA" not in out["answer"]
    out = ask(nist_store, "What outcomes does the GV.SC Category cover?")
    assert all(f"GV.SC-{n:02d}" in out["answer"] for n in range(1, 11)) and "IDENTIFY" not in out["answer"]


def test_abbreviated_section_pointer_cswp29(nist_store):
    """CSWP 29 page 29: "Table 2 contains a notional illustration of the CSF Tiers discussed in
    Sec. 3." The abbreviation is a section pointer, and Section 3 starts on page 11."""
    from docintel.orchestrator.loop import _mentions
    from docintel.references import Resolver
    from docintel.retrieval import Candidate, candidate_passages
    from docintel.store import Store

    s = Store(nist_store)
    doc = next(d for d, e in s.manifest()["documents"].items() if e["file_name"] == "NIST.CSWP.29.pdf")
    page = candidate_passages(s, [Candidate(doc_id=doc, page_num=29, page_label="24", score=1.0, bm25=1.0,
                                            line_start=1, line_end=9)])
    found = [(ref, region) for ref, region, _, _ in _mentions(page, Resolver(s), set()) if ref.raw_text == "Sec. 3"]
    assert found and found[0][0].ref_type.value == "section" and found[0][1].page_start == 11


def test_the_page_that_points_at_the_best_page_is_the_way_in(nist_store):
    """"What are the CSF Tiers?" matches Appendix B's table (page 29) best, and Section 3 (page
    12, ranked just below it) says "The Tiers, as shown in Fig. 4 and notionally illustrated in
    Appendix B, ...": the answer reads page 12 first and cites the appendix as reached from it."""
    out = ask(nist_store, "What are the CSF Tiers?", **{"ask__docs": ["NIST.CSWP.29.pdf"]})
    assert out["verdict"] == "return_to_user" and all(c["doc"] == "NIST.CSWP.29.pdf" for c in out["citations"])
    assert 12 in {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"}
    appendix = [c for c in refs(out) if c["reference_text"] == "Appendix B"]
    assert appendix and appendix[0]["page"] == 29 and appendix[0]["referenced_from"]["page"] == 12
    assert "Partial" in out["answer"] and "Adaptive" in out["answer"]


def test_a_way_in_that_gets_no_further_gives_way_to_the_pages_matched_best(nist_store, tmp_path):
    """CSWP 29 page 12 points at Fig. 4 on page 13, the page this question matches best. Entered
    that way the answer is partial, and so is the one from page 13; the answer from page 13,
    which quotes when progression makes sense, is given."""
    import json

    trace = tmp_path / "trace.json"
    out = ask(nist_store, "Should every organization using CSF 2.0 be pushing to reach the highest Tier? When does it "
                          "make sense to move up, and can the Tiers stand in for our own risk management methodology?",
              **{"ask__docs": ["NIST.CSWP.29.pdf"], "ask__trace": trace})
    way_in = json.loads(trace.read_text())["enter_by_pointer"]
    assert way_in["pointer"] == "Fig. 4" and way_in["outcome"].startswith("partial: answered again")
    assert "first answer stands" not in way_in["outcome"]
    assert "cost-benefit analysis" in out["answer"]


def test_a_pointer_back_is_no_way_in(nist_store):
    """SP 800-63B's look-up secret rules are on page 26; page 39, ranked third, recaps them
    ("... as described in Section 5.1.2"): a recap is not the way in, page 26 stays primary."""
    out = ask(nist_store, "How must a verifier store look-up secrets with fewer than 112 bits of entropy, and what "
                          "counts as a suitable function for hashing them?", **{"ask__docs": ["NIST.SP.800-63b.pdf"]})
    assert 26 in {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"}
    assert "salted" in out["answer"]


def test_a_section_titled_with_the_term_asked_about_needs_no_way_in(nist_store, tmp_path):
    """"What does authentication intent mean?" matches SP 800-63B's "5.2.9 Authentication Intent"
    (page 40) best, and page 17, ranked below it, points there ("Authentication at AAL2 SHOULD
    demonstrate authentication intent ... as discussed in Section 5.2.9"). Entered that way,
    page 17's AAL2 cryptography rules were quoted first. The section titled with the term says
    what it is: page 40 stays primary and no way in is taken."""
    import json

    trace = tmp_path / "trace.json"
    out = ask(nist_store, "What does authentication intent mean?",
              **{"ask__docs": ["NIST.SP.800-63b.pdf"], "ask__trace": trace})
    assert "enter_by_pointer" not in json.loads(trace.read_text())
    assert {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"} == {40}
    assert "demonstrates intent if it requires the subject to explicitly respond" in out["answer"]
    assert "FIPS 140" not in out["answer"] and out["answer_completeness"] == "complete"


def test_a_titled_term_is_read_without_the_sections_number():
    from docintel.orchestrator.loop import _titled_term
    from docintel.questions import parse_question
    from docintel.retrieval import Candidate

    def titled(section, question):
        cand = Candidate(doc_id="d", page_num=1, page_label="1", score=1.0, bm25=1.0, section=section)
        return _titled_term(cand, parse_question(question))

    assert titled("5.2.9 Authentication Intent", "What does authentication intent mean?")
    assert titled("Control Gates", "What is a control gate?")  # a plural title
    assert titled("B.2 Control Gates", "What is a control gate?")
    assert not titled("Authentication Intent Requirements", "What does authentication intent mean?")
    assert not titled("5.2.9 Authentication Intent", "How is authentication intent shown at AAL2?")  # not a definition
    assert not titled(None, "What does authentication intent mean?")


def test_a_section_that_starts_on_the_next_page_is_read_on_to_not_entered_by(sp80040_store):
    """SP 800-40 page 10 (printed 2) ends "Section 3 discusses ..."; Section 3 starts on page 11.
    With page 11 ranked first and page 10 second, reading on gets there: page 10 is no way in;
    with a later page of Section 3 ranked first, it is."""
    from docintel.orchestrator.loop import _entry_pointer
    from docintel.questions import parse_question
    from docintel.references import Resolver
    from docintel.retrieval import Candidate, candidate_passages, page_lines
    from docintel.store import Store

    s = Store(sp80040_store)
    doc = s.doc_ids()[0]
    ranked = [Candidate(doc_id=doc, page_num=n, page_label=str(n - 8), score=1.0 / k, bm25=1.0 / k, line_start=1,
                        line_end=60) for k, n in enumerate((11, 10), start=1)]
    source = candidate_passages(s, ranked[1:])
    assert any("Section 3" in ln.text for p in source for ln in p.lines)
    parsed = parse_question("How often do vendors that bundle their patches usually release them?")

    def lines(doc_id, page):
        rows = page_lines(s, doc_id, [page])
        return list(zip(rows["line_num"], rows["text"]))

    assert _entry_pointer(ranked, Resolver(s), set(), parsed,
                          lambda cands: candidate_passages(s, cands), lines) is None
    # with page 14 (Section 3's inventory page) ranked first, reading on from page 10 does not
    # get there: "Section 3" is the way in
    ranked = [Candidate(doc_id=doc, page_num=n, page_label=str(n - 8), score=1.0 / k, bm25=1.0 / k, line_start=1,
                        line_end=60) for k, n in enumerate((14, 10), start=1)]
    got = _entry_pointer(ranked, Resolver(s), set(), parsed,
                         lambda cands: candidate_passages(s, cands), lines)
    assert got and got[1][0].raw_text == "Section 3" and got[1][0].origin.page == 10


def test_for_example_is_no_label_its_list_is_weighed_as_a_whole(sp80040_store):
    """SP 800-40 p13 -> Section 3.2: "For example:" opens the list of ways a host can be patched
    ("A piece of software may be able to automatically update itself." ...). It names nothing:
    its list is still weighed as a whole, not taken for a label over its items (which left the
    list out of the answer)."""
    out = ask(sp80040_store, "Our users manage their own laptops. Why is patching harder to control on hosts that "
                             "are not centrally managed?")
    assert "automatically update itself" in out["answer"] and "manually install a patch" in out["answer"]


def test_a_page_far_down_the_ranking_is_a_way_in_only_by_a_pointer_about_the_question(sp80040_store):
    """SP 800-40 page 9 lists what each section covers. Ranked fifth, it is the way in to the
    best page only by a sentence about what is asked: "Section 5 briefly discusses possible
    metrics for measuring the effectiveness of patch management technologies" for a question on
    such metrics, not "Section 3 examines the challenges inherent in performing patch management"
    for one on how long to keep patch logs (entered so, that unanswerable question was answered
    complete from Section 3). Ranked second, the page is a way in by its pointer alone."""
    from docintel.orchestrator.loop import _entry_pointer
    from docintel.questions import parse_question
    from docintel.references import Resolver
    from docintel.retrieval import Candidate, candidate_passages, page_lines, retrieve
    from docintel.store import Store

    s = Store(sp80040_store)
    doc = s.doc_ids()[0]

    def way_in(question, *pages):
        ranked = [Candidate(doc_id=doc, page_num=n, page_label=str(n), score=1.0 / k, bm25=1.0 / k, line_start=1,
                            line_end=60) for k, n in enumerate(pages, start=1)]

        def lines(doc_id, page):
            rows = page_lines(s, doc_id, [page])
            return list(zip(rows["line_num"], rows["text"]))

        parsed = parse_question(question)
        parsed = parsed.model_copy(update={"weights": retrieve(s, parsed, [doc])[2]})  # as ask weighs the words
        got = _entry_pointer(ranked, Resolver(s), set(), parsed, lambda chosen: candidate_passages(s, chosen), lines)
        return got and (got[1][0].raw_text, got[1][0].origin.page)

    metrics = "Which metrics can measure the effectiveness of our patch management technologies?"
    logs = "How long must we keep the logs and records from our patch deployments?"
    assert way_in(metrics, 20, 25, 26, 27, 9) == ("Section 5", 9)
    assert not way_in(logs, 11, 25, 26, 27, 9)
    assert way_in(logs, 11, 9) == ("Section 3", 9)


def test_no_pointer_one_pass_sp800_63b(nist_store):
    out = ask(nist_store, "What is the minimum length of a memorized secret?")
    assert out["passes"] == 1 and out["answer_completeness"] == "complete"
    assert "8 characters" in out["answer"]
    assert out["citations"][0]["doc"] == "NIST.SP.800-63b.pdf"


def test_unanswerable_fips199(nist_store):
    out = ask(nist_store, "What is the price of an annual FIPS 199 certification audit?")
    assert out["answer"].startswith("Not found")
    assert out["answer_completeness"] == "partial"


def test_one_matching_word_of_two_is_not_an_answer(nist_store):
    """'capital' occurs in SP 800-63B ('the capital letter O'), 'France' nowhere: a sentence
    that holds only the common word must not come back as a complete answer."""
    out = ask(nist_store, "What is the capital of France?")
    assert out["answer"].startswith("Not found")
    assert out["answer_completeness"] == "partial" and out["verdict"] == "give_up_partial"


def test_part_of_a_named_corpus_document_is_followed_there(nist_store):
    """'Appendix A of SP 800-63B': the corpus holds SP 800-63B, so its Appendix A is the target
    (it used to be taken for an external reference and answered from an unrelated page)."""
    out = ask(nist_store, "What does Appendix A of SP 800-63B discuss?")
    # the question named the target: it is the primary retrieval, not a reference citation
    cs = out["citations"]
    assert cs and {c["doc"] for c in cs} == {"NIST.SP.800-63b.pdf"} and not refs(out)
    assert cs[0]["page"] == 77 and cs[0]["retrieved_via"] == "primary"
    assert "memorized secrets" in out["answer"].lower()


def test_part_of_a_document_the_corpus_lacks_stays_external(nist_store):
    """'Section 3 of SP 800-124': no such document here, so no Section 3 of another one."""
    out = ask(nist_store, "What does Section 3 of SP 800-124 say about mobile devices?")
    assert not refs(out)
    named = [r for r in out["resolved_references"] if r["raw_text"] == "Section 3 of SP 800-124"]
    assert named and named[0]["status"] == "external" and named[0]["target_page"] is None


def test_max_loops_zero_names_the_pointer(nist_store):
    out = ask(nist_store, "How long should incident handling records be kept?", ask__max_loops=0)
    assert out["verdict"] == "give_up_partial" and out["answer_completeness"] == "references_unresolved"
    assert [p["raw_text"] for p in out["pending_references"]] == ["Section 3.4.2"]
    assert "Section 3.4.2" in out["answer"].split("Not followed")[-1]


def test_a_long_section_is_read_on_the_pages_that_match_the_question(nist_store):
    """"As mentioned in Section 2, ..." (SP 800-61 p54): Section 2 runs from page 15 to page 32.
    Read on its first page and the pages after it, it never reaches law enforcement (page 20);
    read on its first page and the pages the question matches best, it does."""
    from docintel.questions import parse_question
    from docintel.references import Resolver
    from docintel.retrieval import fetch_target
    from docintel.retrieval.search import doc_idf
    from docintel.schemas.answers import Origin, PendingReference, RefType
    from docintel.store import Store

    s = Store(nist_store)
    doc = next(d for d, e in s.manifest()["documents"].items() if e["file_name"] == "SP800-61rev2.pdf")
    ref = PendingReference(raw_text="Section 2", ref_type=RefType.section, ref_target="2", doc_id=doc,
                           origin=Origin(page=54, line=12))
    res = Resolver(s).resolve(ref)
    assert res.region.page_start == 15 and res.region.page_end > 20
    parsed = parse_question("If an incident involves a crime, who should contact law enforcement, and when?")
    parsed = parsed.model_copy(update={"weights": doc_idf(s, parsed, doc)[0]})
    plain = [p.page for p in fetch_target(s, res.region, "R1", res.next_section)]
    asked = fetch_target(s, res.region, "R1", res.next_section, parsed)
    assert plain == [15, 16, 17]
    assert asked[0].page == 15 and 20 in [p.page for p in asked] and len(asked) == 3
    assert any("law enforcement" in p.text for p in asked if p.page == 20)


def test_of_two_pointers_to_the_matching_page_the_one_the_question_describes_is_followed(sp80040_store):
    """SP 800-40's summary (page 25, printed 17) lists "Section 4.3.2: ... phased approach." and
    "Section 4.3.3: Organizations should balance their security needs with their needs for
    usability and availability." Both sections are on page 19 (printed 11), the page the question
    matches: the pointer whose sentence the question describes is followed, not the first one."""
    out = ask(sp80040_store, "SP 800-40's summary of recommendations says organizations should balance their "
                             "security needs with usability and availability. What examples of that trade-off does the guide give?")
    rs = refs(out)
    assert rs and {r["reference_text"] for r in rs} == {"Section 4.3.3"}
    assert rs[0]["referenced_from"]["page"] == 25  # printed page 17
    assert "break" in out["answer"]  # 4.3.3: "installing a patch may “break” other applications"



def test_every_part_a_followed_list_names_is_followed(nist_store):
    """SP 800-63B page 58 (printed 48): "Sections 4.1.5, 4.2.5, and 4.3.5 require the CSP to
    conduct a privacy risk assessment for records retention." Each AAL's section says it for that
    AAL: the pointer is followed to all three, not to the first that ranks."""
    out = ask(nist_store, "SP 800-63B's privacy section says the AAL sections require a privacy risk assessment for "
                          "records retention. When does a CSP have to run that process, and what must it tell subscribers?",
              **{"ask__docs": ["NIST.SP.800-63b.pdf"]})
    rs = refs(out)
    assert {r["reference_text"] for r in rs} == {"Section 4.1.5", "Section 4.2.5", "Section 4.3.5"}
    assert {r["page"] for r in rs} == {16, 18, 20} and {r["referenced_from"]["page"] for r in rs} == {58}
    assert "in the absence of any mandatory requirements" in out["answer"]


def test_a_followed_premise_pointer_stands_when_the_matching_pages_answer_no_better(nist_store):
    """SP 800-61's table of sources (page 36) "refers to a later section for the value of
    centralized logging": the premise's page and its "Section 3.2.4" (pages 37-39) are read
    first. Asked also how many gigabytes of logs to budget for, which 3.2.4 does not say, that
    answer is partial, and so is the one from the pages the question matches; the first, which
    quotes the clock advice of 3.2.4, stands rather than a "Not found". Asked only what 3.2.4
    answers in its own words, the first answer is complete: the premise reports the paragraph
    the pointer closes, which vouches for it (``_described``), and "what decides how long" asks
    for no duration."""
    premise = ("SP 800-61's table of precursor and indicator sources says we should require a baseline level of "
               "logging and refers to a later section for the value of centralized logging. ")
    out = ask(nist_store, premise + "Why should all our hosts' clocks agree, and how many gigabytes of logs should we "
                                    "budget for?", **{"ask__docs": ["SP800-61rev2.pdf"]})
    rs = refs(out)
    assert rs and {r["reference_text"] for r in rs} == {"Section 3.2.4"} and {r["referenced_from"]["page"] for r in rs} == {36}
    assert "Network Time Protocol" in out["answer"] and not out["answer"].startswith("Not found")
    assert out["answer_completeness"] == "partial"
    out = ask(nist_store, premise + "For analysing incidents, why is it worth keeping old log data, what decides how long "
                                    "we keep it, and why should all our hosts' clocks agree?", **{"ask__docs": ["SP800-61rev2.pdf"]})
    rs = refs(out)
    assert rs and {r["reference_text"] for r in rs} == {"Section 3.2.4"} and {r["referenced_from"]["page"] for r in rs} == {36}
    assert "Network Time Protocol" in out["answer"] and "data retention policies and the volume of data" in out["answer"]
    assert out["answer_completeness"] == "complete"


def test_an_item_under_a_bare_label_is_quoted_with_the_rest_of_its_list(nist_store):
    """SP 800-63B p57 -> Section 7: the cookie rules (p48) are a list under the bare label
    "Cookies:"; only its fourth item says "cookies" ("This requirement is intended to limit the
    accumulation of cookies ..."), and the answer quoted that item alone, without "HttpOnly" or
    "only on secure (HTTPS) sessions". An item under such a label comes with the others."""
    out = ask(nist_store, "SP 800-63B's section on session attacks says its session management guidelines are "
                          "essential to keep session integrity against XSS. We hold the session secret in the user's "
                          "browser. Where must we not store it, and how should the session cookies be flagged?")
    assert "HTML5 Local Storage" in out["answer"]
    assert "HttpOnly" in out["answer"] and "only on secure (HTTPS) sessions" in out["answer"]
    assert "minimum practical set of hostnames and paths" in out["answer"]


def test_the_short_subsections_a_followed_chapter_answers_in_are_quoted_whole(nist_store):
    """SP 800-63B p15 -> Section 5 (the whole chapter): the best sentences stand in 5.1.2.1 and
    5.1.2.2 (look-up secret authenticators and verifiers). How the cards reach subscribers ("in
    person, by postal mail ...") shares no word with the question and was left out; a short
    numbered subsection holding the best sentences is quoted whole, as context."""
    out = ask(nist_store, "The AAL1 requirements of SP 800-63B say the permitted authenticator types are defined in "
                          "Section 5. We will hand out look-up secret cards: what entropy do the secrets need, how can "
                          "the cards reach our subscribers, and when may a used secret be thrown away?")
    assert {c["page"] for c in out["citations"] if c["retrieved_via"] == "reference"} >= {26}
    assert "at least 20 bits of entropy" in out["answer"]
    assert "in person, by postal mail" in out["answer"]
    assert "only after a successful authentication" in out["answer"]


def test_a_part_below_the_lines_a_cut_sentence_runs_on_to_is_not_read(nist_store):
    """SP 800-63B p32 says a single-factor cryptographic software verifier's requirements are
    those of Section 5.1.7.2, which starts on p33. The premise's page was read with p33's first
    two lines (the end of a cut sentence), and p33 counted as read whole, so the loop followed
    p32's other pointer (Section 5.2.2, rate limiting) and gave up. p33 is now read only down to
    those lines."""
    out = ask(nist_store, "Our app keeps a single-factor cryptographic software authenticator's key in the keychain. "
                          "SP 800-63B says the requirements for its verifier are identical to those for another verifier "
                          "type described in another section. How long must the challenge nonce be, and must symmetric "
                          "keys be protected against disclosure?")
    assert 32 in {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"}
    assert 33 in {c["page"] for c in refs(out)}
    assert "at least 64 bits" in out["answer"]
    assert "additionally be protected against unauthorized disclosure" in out["answer"]


def test_a_list_that_runs_on_to_the_next_page_is_read_there(nist_store):
    """SP 800-61's change log (Appendix H) ends p69 mid-list; "Expanded discussion of eradication
    and recovery (Section 3.3.4)" is the second item on p70. Only p69 was read for the premise,
    so the loop followed p69's "(Section 3.3.3)" (identifying the attacking host) and the answer
    was partial. A page ending unclosed whose next page opens with list items reads those items."""
    out = ask(nist_store, "According to SP 800-61's change log, Revision 2 expanded the discussion of eradication and "
                          "recovery. After a large incident, how should we sequence the recovery work?")
    assert out["answer_completeness"] == "complete"
    assert 79 in {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"}
    assert "phased approach" in out["answer"] and "recovery may take months" in out["answer"]


@pytest.fixture(scope="module")
def sp80048_store(tmp_path_factory, shared_corpora):
    from docintel import api

    root = tmp_path_factory.mktemp("sp80048") / "store"
    settings = Settings.load(env={}, store=root, quiet=True)
    api.ingest([shared_corpora / "figures" / "SP800-48r1.pdf"], settings)
    api.escalate(settings)  # Table 2-1's rows come from the table parse
    return root


def test_the_way_in_is_found_when_the_best_page_opens_mid_sentence(sp80048_store):
    """SP 800-48 page 13 (Table 2-1) ranks first and opens mid-sentence, so its passages start
    with page 12's cut sentence; page 12, ranked second, says "Table 2-1 ... provides a summary":
    the way in is page 12, not taken for the best page because a passage of it was read."""
    out = ask(sp80048_store, "What was the maximum data rate of the original IEEE 802.11 standard, before the a/b/g "
                             "amendments, and is it still used much?")
    assert 12 in {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"}
    table = [c for c in refs(out) if c["reference_text"] == "Table 2-1"]
    assert table and table[0]["page"] == 13 and table[0]["referenced_from"]["page"] == 12
    assert "2 Mbps" in out["answer"]


def test_a_contents_entry_is_no_way_in(sp80048_store):
    """SP 800-48's contents page (page 6) lists "Appendix A— Summary of IEEE 802.11
    Standards.....A-1": with Appendix A's first page ranked first and the contents page second,
    the contents line is not a way into Appendix A; page 12's "see Appendix A" is."""
    from docintel.orchestrator.loop import _entry_pointer
    from docintel.questions import parse_question
    from docintel.references import Resolver
    from docintel.retrieval import Candidate, candidate_passages, page_lines
    from docintel.store import Store

    s = Store(sp80048_store)
    doc = s.doc_ids()[0]

    def ranked(*pages):
        return [Candidate(doc_id=doc, page_num=n, page_label=str(n), score=1.0 / k, bm25=1.0 / k, line_start=1,
                          line_end=60) for k, n in enumerate(pages, start=1)]

    def lines(doc_id, page):
        rows = page_lines(s, doc_id, [page])
        return list(zip(rows["line_num"], rows["text"]))

    parsed = parse_question("Which IEEE 802.11 standards are there?")
    for order, way_in in (((38, 6), None), ((38, 12), 12)):
        cands = ranked(*order)
        got = _entry_pointer(cands, Resolver(s), set(), parsed,
                             lambda chosen: candidate_passages(s, chosen), lines)
        assert (got and got[1][0].origin.page) == way_in, order


def test_a_pointer_the_premise_names_is_followed_from_the_page_it_describes(nist_store, tmp_path):
    """"The SP 800-63B introduction says Section 5 ...": the introduction's page (15), which
    says so, is read and its "Section 5" followed from there; the answer cites page 15 as
    primary and Section 5 as reached from it, and quotes the length rule."""
    import json

    trace = tmp_path / "trace.json"
    out = ask(nist_store, "The SP 800-63B introduction says Section 5 gives the authenticator requirements. "
                          "How long must a memorized secret chosen by the subscriber be?", **{"ask__trace": trace})
    assert json.loads(trace.read_text())["follow_premise_named"]["pointer"] == "Section 5"
    assert {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"} == {15}
    sections = [c for c in refs(out) if c["reference_text"] == "Section 5"]
    assert sections and all(c["referenced_from"]["page"] == 15 for c in sections)
    assert "at least 8 characters" in out["answer"] and out["verdict"] == "return_to_user"
    # the sentence quoted is the one the pointer is in, not a list item closer to the question
    # ("Memorized Secret (Section 5.1.1)"), whose own pointer would cost a second pass
    assert "are provided in Section 5." in out["answer"] and out["passes"] == 1


def test_of_two_pointers_in_the_sentence_described_the_one_for_what_the_premise_was_sent_for(nist_store, tmp_path):
    """SP 800-61 p18 (2.3.4 Sharing Information With Outside Parties) ends: "See Section 4 for
    additional information on communicating with outside parties, and see Section 2.4 for a
    discussion of communications involving incident response outsourcers." A premise that says the
    section "points elsewhere for communications with incident response outsourcers" was sent to
    Section 2.4 (2.4.2's outsourcing factors, p24-25), not Section 4 (coordination, p54)."""
    import json

    trace = tmp_path / "trace.json"
    out = ask(nist_store, "We're handing part of our incident handling to an offsite provider. SP 800-61's section on "
                          "sharing information with outside parties points elsewhere for communications with incident "
                          "response outsourcers. What should we keep the provider informed about so it can handle our "
                          "incidents sensibly, and what access to our systems will it need to correlate events, and at "
                          "what cost to us?", **{"ask__trace": trace, "ask__docs": ["SP800-61rev2.pdf"]})
    assert json.loads(trace.read_text())["follow_premise_pointer"]["pointer"] == "Section 2.4"
    assert {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"} == {18}
    assert {24, 25} <= {c["page"] for c in refs(out) if c["reference_text"] == "Section 2.4"}
    assert "administrative privileges to critical systems" in out["answer"], out["answer"]


@pytest.fixture(scope="module")
def sp80064_store(tmp_path_factory, shared_corpora):
    from docintel import api

    root = tmp_path_factory.mktemp("sp80064") / "store"
    api.ingest([shared_corpora / "figures" / "SP800-64r2.pdf"], Settings.load(env={}, store=root, quiet=True))
    return root


def test_a_name_asked_about_is_a_definition_question(sp80064_store, tmp_path):
    """"What is the Spiral Model?" asks what a name means, as "What is a spiral model?" would.
    Read as a value question, the page that defines it (Appendix E's "The Spiral Model is a
    development methodology that combines ...", ranked first) was entered from page 11's list of
    "more complex models ... the spiral model. ... Appendix E provides an overview", and the
    answer quoted page 11 as primary; it is answered from the definition."""
    import json

    trace = tmp_path / "trace.json"
    out = ask(sp80064_store, "What is the Spiral Model?", ask__trace=trace)
    assert "enter_by_pointer" not in json.loads(trace.read_text())
    assert {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"} == {59}
    assert "combines the features of the prototype and waterfall models" in out["answer"]
    assert out["answer_completeness"] == "complete"


def test_a_tables_later_page_read_by_the_table_parse_is_not_called_rebuilt(sp80088_store):
    """SP 800-88's Table A-4 is captioned at the foot of page 38, whose flat lines are rebuilt
    into rows; its Clear/Purge/Destroy/Notes rows on page 39 are escalation's table rows. The
    answer quoting page 39 must not say its rows were rebuilt from flat lines."""
    from docintel.references import Resolver
    from docintel.retrieval import fetch_target
    from docintel.schemas.answers import Origin, PendingReference, RefType
    from docintel.store import Store

    s = Store(sp80088_store.store)
    ref = PendingReference(raw_text="Table A-4", ref_type=RefType.table, ref_target="A-4", doc_id=s.doc_ids()[0],
                           origin=Origin(page=20, line=1))
    res = Resolver(s).resolve(ref)
    first, later = fetch_target(s, res.region, "R1", res.next_section)
    assert (first.page, later.page) == (38, 39)
    assert "rebuilt from flat baseline lines" in first.note  # the caption page's rows are
    assert "rebuilt" not in later.note and later.note.endswith("continued on page 39")
    assert later.parsing_method != "pymupdf" and any(ln.text.startswith("Clear:") for ln in later.lines)
    out = ask(sp80088_store.store, "What does Table A-4 in SP 800-88 say to do to clear office equipment?")
    assert "Table A-4 (page 31)" in out["answer"] and "rebuilt" not in out["answer"]


def test_a_table_rows_group_label_counts_as_its_innermost_heading(sp80088_store):
    """SP 800-88 p41 holds the ATA drives' "Notes:" row and, at its foot, the label "SCSI Hard
    Disk Drives ..."; p42 holds the SCSI drives' rows that run on, their "Notes:" word for word
    the ATA one (the ATA label is on p40). Asked about SCSI drives' notes, p41 ranked first: it
    has the word "SCSI", in a label below the notes the answer would quote. A table row's group
    label is its innermost heading, found on the page before when the group runs on, and its
    share of the question counts as a section title's does."""
    from docintel.questions import parse_question
    from docintel.retrieval import _group_of, page_lines, retrieve
    from docintel.store import Store

    store = Store(sp80088_store.store)
    doc = store.resolve_docs(["NIST.SP.800-88r1.pdf"])

    def notes_group(page: int) -> str | None:
        lines = page_lines(store, doc[0], [page])
        notes = lines[lines["row_key"].eq("Notes:")]["line_num"].iloc[0]
        return _group_of(store, doc[0], lines, int(notes), {})

    assert notes_group(41).startswith("ATA Hard Disk Drives")
    assert notes_group(42).startswith("SCSI Hard Disk")
    assert notes_group(46).startswith("NVM Express")
    q = ("We'd like to use cryptographic erase on our self-encrypting SCSI hard drives. SP 800-88's notes for those "
         "drives say whether CE can be relied on depends on attributes identified earlier and in one of its appendices.")
    _, cands, _, _ = retrieve(store, parse_question(q), doc, top_k=1)
    match = {c.page_num: c.section_match for c in cands}
    assert match[42] > match[41] > 0


def test_a_list_question_naming_a_table_is_answered_by_the_row_it_singles_out(sp80063b_store):
    """"Which authenticators ...?" asks for a list, and a list question naming a table was
    answered with the whole table ("What are the six Functions?"). When one row holds what is
    asked as an answer must, the list is that row's: here the columns marked in Table 10-1's
    "Physical input required" row."""
    out = ask(sp80063b_store.store, "Which authenticators require a physical input such as pressing a button, per Table 10-1?")
    assert "Physical input required (such as pressing a button): Single Factor OTP Device \u2b25, " \
           "Single Factor Cryptographic Device \u2b25" in out["answer"]
    assert "Reauthentication" not in out["answer"] and out["answer_completeness"] == "complete"
    whole = ask(sp80063b_store.store, "What usability considerations does Table 10-1 list?")
    assert "Unmasked text entry: Look-up Secrets \u2b25" in whole["answer"] and "Form-factor constraints" in whole["answer"]


def test_a_premise_whose_scene_and_report_prefer_two_like_pages_the_other_way_round_goes_by_the_report(
        sp80063b_store, tmp_path):
    """SP 800-63B has the same biometric sentence under AAL2 (p18: "... the performance
    requirements stated in Section 5.2.3 SHALL be met, and the verifier SHOULD make a
    determination that the biometric sensor and subsequent processing meet these requirements")
    and AAL3 (p20: "When a biometric factor is used in authentication at AAL3, the verifier SHALL
    make a determination ..."). The whole premise, a fingerprint-unlocked smart card, ranks p18
    then p20; what it reports of the AAL3 section ranks p20 then p18. The report decides: the
    answer leaves from AAL3's sentence for Section 5.2.3's false match rate."""
    import json

    trace = tmp_path / "trace.json"
    out = ask(sp80063b_store.store,
              "Our AAL3 authenticator is a multi-factor smart card unlocked by a fingerprint. SP 800-63B's AAL3 "
              "section says the verifier has to confirm the biometric sensor and processing meet performance "
              "requirements given elsewhere. What false match rate must the biometric system achieve?",
              **{"ask__trace": trace})
    got = json.loads(trace.read_text())
    assert got["follow_reported_pointer"]["pointer"] == "Section 5.2.3" and "follow_premise_pointer" not in got
    assert {c["page"] for c in out["citations"] if c["retrieved_via"] == "primary"} == {20}
    assert "at AAL3, the verifier SHALL make a determination" in out["answer"]
    assert "1 in 1000" in out["answer"] and out["answer_completeness"] == "complete"
