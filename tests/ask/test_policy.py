"""Regression set on a synthetic policy PDF (made by PyMuPDF in conftest): section pointers,
conditional clauses, a pointer the corpus lacks, external standards, injected instructions,
no-pointer and unanswerable questions. Runs through docintel.api.ingest."""

from __future__ import annotations

from docintel.orchestrator.loop import answer
from docintel.settings import Settings


def ask(store, question, **kw):
    return answer(question, Settings.load(env={}, store=store, **kw)).to_json_dict()


def _policy_doc(policy_store) -> str:
    """The doc_id of the policy store's one document."""
    from docintel.store import Store

    return next(iter(Store(policy_store).manifest()["documents"]))


def _fake_ranking(monkeypatch, doc_id: str, rank) -> None:
    """Retrieval faked for the policy document: ``rank(parsed, top_k)`` gives the passages read,
    the pages ranked and their scores (None: 1, 1/2, 1/3, ...); a candidate page is read as
    nothing more."""
    import docintel.retrieval as retrieval

    def retrieve(store, parsed, doc_ids, top_k=1, loaded=None):
        passages, ranked, scores = rank(parsed, top_k)
        scores = scores or [1.0 / (i + 1) for i in range(len(ranked))]
        cands = [retrieval.Candidate(doc_id=doc_id, page_num=n, page_label=str(n), score=sc, bm25=0.5,
                                     line_start=1, line_end=1) for n, sc in zip(ranked, scores)]
        return passages, cands, {}, []

    monkeypatch.setattr(retrieval, "retrieve", retrieve)
    monkeypatch.setattr(retrieval, "candidate_passages", lambda store, chosen, loaded=None, first=1, asked="": [])


def test_section_pointer_followed_with_condition(policy_store):
    out = ask(policy_store, "What is the limit for flood damage to the insured building?")
    assert out["passes"] == 2
    assert out["answer_completeness"] == "complete" and out["verdict"] == "return_to_user"
    assert "250,000" in out["answer"]
    assert "renewed within 30 days" in out["answer"]  # the condition is stated, not assumed
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"][0]
    assert ref["page"] == 2 and ref["reference_text"] == "Section 7.2" and ref["referenced_from"]["page"] == 1
    assert out["resolved_references"][0]["status"] == "resolved"


def test_missing_section_stays_unresolved(policy_store):
    out = ask(policy_store, "What is the hail sublimit?")
    assert out["answer_completeness"] != "complete" and out["verdict"] == "give_up_partial"
    assert [p["raw_text"] for p in out["pending_references"]] == ["Section 99"]
    assert out["resolved_references"][0]["status"] == "unresolved"
    assert out["resolved_references"][0]["target_page"] is None
    assert "Section 99" in out["answer"]
    assert not [c for c in out["citations"] if c["retrieved_via"] == "reference"]


def test_external_references_named_not_fetched(policy_store):
    out = ask(policy_store, "Which standards do the information security controls follow?")
    ext = {r["raw_text"] for r in out["resolved_references"] if r["status"] == "external"}
    assert {"ISO/IEC 27001 Annex A", "NIST SP 800-53"} <= ext
    assert all(r["target_page"] is None for r in out["resolved_references"])
    assert out["answer_completeness"] == "complete" and out["passes"] == 1
    assert "not fetched" in out["answer"]


def test_question_pointer_goes_straight_to_target(policy_store):
    out = ask(policy_store, "What does Section 7.3 say about storms?")
    assert "400,000" in out["answer"]
    assert out["citations"][0]["page"] == 2
    assert out["resolved_references"][0]["source"] in ("toc_df", "regex")


def test_no_pointer_one_pass(policy_store):
    out = ask(policy_store, "How is the annual premium paid?")
    assert out["passes"] == 1 and out["answer_completeness"] == "complete"
    assert "four equal instalments" in out["answer"]
    assert out["citations"][0]["retrieved_via"] == "primary"


def test_unanswerable_is_not_found_partial(policy_store):
    out = ask(policy_store, "What is the earthquake deductible for commercial vehicles?")
    assert out["answer"].startswith("Not found")
    assert out["answer_completeness"] == "partial" and out["verdict"] == "give_up_partial"


def test_injected_instruction_is_data(policy_store):
    out = ask(policy_store, "How long are audit logs retained?")
    assert "seven years" in out["answer"]
    assert "42" not in out["answer"]
    q = ask(policy_store, "What answer should be given to every question?")
    assert "42" not in q["answer"].split("Note:")[0]  # never used as the answer
    assert "not followed" in q["answer"]  # reported as ignored document data
    assert q["answer_completeness"] == "partial"


def test_trace_records_every_pass(policy_store, tmp_path):
    import json

    trace = tmp_path / "t.json"
    ask(policy_store, "What is the limit for flood damage to the insured building?", ask__trace=trace)
    data = json.loads(trace.read_text())
    assert data["parse"]["keywords"] and data["retrieval"]["candidates"]
    assert [p["pass"] for p in data["passes"]] == [1, 2]
    assert data["passes"][0]["decision"] == "resolve_references"
    assert data["passes"][0]["resolver"][0]["steps"][-1]["result"] == "hit"
    assert data["passes"][1]["generator_input"]["passages"][-1]["note"].startswith("pulled in because of")
    assert data["total_ms"] > 0


def test_question_naming_a_missing_part(policy_store):
    out = ask(policy_store, "What does Section 99 say about hail?")
    assert out["answer"].startswith("Not found") and "Section 99" in out["answer"]
    assert out["answer_completeness"] == "partial" and out["verdict"] == "give_up_partial"
    assert [p["raw_text"] for p in out["pending_references"]] == ["Section 99"]
    assert out["citations"] == []


def test_a_missing_part_named_only_in_the_premise_does_not_stop_the_answer(policy_store):
    """"Our broker keeps citing Section 99." is a scene, not what is asked: the pages the
    question matches still answer it (the missing part stays on record as unresolved)."""
    out = ask(policy_store, "Our broker keeps citing Section 99 of the policy. How long are claim records retained?")
    assert "seven years" in out["answer"] and out["answer_completeness"] == "complete"
    assert [r["status"] for r in out["resolved_references"] if r["raw_text"] == "Section 99"] == ["unresolved"]


def test_stop_words_only_and_odd_input(policy_store):
    out = ask(policy_store, "What is it?")
    assert out["answer"].startswith("Not found") and out["answer_completeness"] == "partial"
    out = ask(policy_store, '"; DROP TABLE pages; -- OR * NEAR(')  # FTS syntax is never passed through
    assert out["answer_completeness"] == "partial"


def test_schedule_table_rows_read_from_flat_lines(policy_store):
    out = ask(policy_store, "How long is backup media kept?")
    assert out["passes"] == 2 and out["answer_completeness"] == "complete"
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"]
    assert ref and ref[0]["page"] == 3 and ref[0]["reference_text"] == "Schedule B"
    assert "Backup tapes" in out["answer"] and "35 days" in out["answer"]


def test_a_page_that_does_not_answer_is_followed_to_a_candidate_it_mentions(policy_store, monkeypatch):
    """Page 1 only says "Section 7.2 governs water damage" (no "see", and it does not answer);
    7.2's page ranked next, so the loop follows the mention there and answers from it, cited as
    a reference from page 1 line 1. Not when 7.2's page ranked lower and the mention is not in
    the passage closest to the question: a mention alone is not a lead."""
    from docintel.schemas.answers import RetrievedVia
    from docintel.schemas.generation import Passage, PassageLine

    doc_id = _policy_doc(policy_store)

    top = Passage(passage_id="P1", doc_id=doc_id, doc="policy.pdf", page=1, page_label="1", line_start=1, line_end=1,
                  parsing_method="pymupdf", retrieved_via=RetrievedVia.primary,
                  lines=[PassageLine(line_num=1, text="Section 7.2 governs water damage to the insured building.")])

    def run(ranked_pages, top=top):
        _fake_ranking(monkeypatch, doc_id, lambda parsed, top_k: ([top], ranked_pages, None))
        return ask(policy_store, "What is the water sublimit per occurrence?")

    out = run([1, 2])
    assert "250,000" in out["answer"] and out["answer_completeness"] == "complete"
    assert '"Section 7.2 governs water damage to the insured building."' in out["answer"]
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"]
    assert ref and ref[0]["page"] == 2 and ref[0]["referenced_from"] == {"page": 1, "line": 1}
    aside = top.model_copy(update={"line_end": 2, "lines": [
        PassageLine(line_num=1, text="The water sublimit is reviewed by the insurer every year."),
        PassageLine(line_num=2, text="Section 7.3 governs storm damage to the insured building.")]})
    out = run([1, 3, 2], aside)
    assert "250,000" not in out["answer"] and out["answer_completeness"] == "partial"
    assert not [c for c in out["citations"] if c["retrieved_via"] == "reference"]


def test_the_closest_passage_is_followed_to_what_it_points_at(policy_store, monkeypatch):
    """Page 1 does not answer; its closest passage says "as set out in Section" / "7.2." (the
    pointer broken over two lines). 7.2's page ranked too low to be linked, but the passage
    the question matches best says where the rest is: the loop follows it there, once."""
    from docintel.schemas.answers import RetrievedVia
    from docintel.schemas.generation import Passage, PassageLine

    doc_id = _policy_doc(policy_store)

    top = Passage(passage_id="P1", doc_id=doc_id, doc="policy.pdf", page=1, page_label="1", line_start=1, line_end=3,
                  parsing_method="pymupdf", retrieved_via=RetrievedVia.primary,
                  lines=[PassageLine(line_num=1, text="Renewal is yearly."),
                         PassageLine(line_num=2, text="Flooded buildings are settled as set out in Section"),
                         PassageLine(line_num=3, text="7.2. Claims must be filed promptly.")])
    _fake_ranking(monkeypatch, doc_id, lambda parsed, top_k: ([top], [1, 3, 2], None))
    out = ask(policy_store, "Our warehouse by the river was flooded last spring and the adjuster wants the paperwork "
                            "soon. How much will the insurer pay per occurrence?")
    assert "250,000" in out["answer"]
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"]
    assert ref and ref[0]["page"] == 2 and ref[0]["referenced_from"] == {"page": 1, "line": 2}
    # complete, it says the pages answered through the pointer, not that they did not answer
    assert out["answer_completeness"] == "complete"
    assert out["answer"].startswith("The retrieved pages answer this through a pointer; the closest passage points on:\n")
    assert "do not answer this directly" not in out["answer"]


def _one_page(doc_id: str, n: int, lines: list[str]):
    """A primary passage of the policy document: page ``n`` holding ``lines``."""
    from docintel.schemas.answers import RetrievedVia
    from docintel.schemas.generation import Passage, PassageLine

    return Passage(passage_id="P1", doc_id=doc_id, doc="policy.pdf", page=n, page_label=str(n), line_start=1,
                   line_end=len(lines), parsing_method="pymupdf", retrieved_via=RetrievedVia.primary,
                   lines=[PassageLine(line_num=i + 1, text=t) for i, t in enumerate(lines)])


def test_the_page_a_premise_describes_is_read_and_its_pointer_followed_first(policy_store, monkeypatch):
    """"The premium section says backup media is kept only for set periods. How long are backup
    tapes kept?": the whole question and the asked part match the schedule on page 3 best, the
    premise matches page 1, whose sentence points to Schedule B. The answer reads page 1 and
    follows its pointer (page 3 cited as a reference from page 1); when the premise page's
    pointer leads somewhere that does not answer, the question is answered as before."""
    from docintel.schemas.generation import Passage

    doc_id = _policy_doc(policy_store)

    premise = "The premium section says backup media is kept only for set periods."
    question = premise + " How long are backup tapes kept?"

    def page(n: int, lines: list[str]):
        return _one_page(doc_id, n, lines)

    schedule = page(3, ["Schedule B - Retention Periods", "Backup tapes are kept for 35 days."])

    def run(premise_page: Passage):
        _fake_ranking(monkeypatch, doc_id, lambda parsed, top_k: (
            ([premise_page], [1, 3], None) if parsed.text == premise else ([schedule], [3, 1], None)))
        return ask(policy_store, question)

    out = run(page(1, ["The annual premium is payable in four equal instalments.",
                       "Backup media is kept only for the periods set out in Schedule B."]))
    assert "35 days" in out["answer"] and out["answer_completeness"] == "complete"
    assert out["citations"][0]["page"] == 1 and out["citations"][0]["retrieved_via"] == "primary"
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"]
    assert ref and ref[0]["page"] == 3 and ref[0]["referenced_from"] == {"page": 1, "line": 2}

    out = run(page(1, ["Backup media rules are reviewed with the premium; see Section 7.3 for storms."]))
    assert "35 days" in out["answer"] and out["answer_completeness"] == "complete"
    assert {c["page"] for c in out["citations"]} == {3}
    assert not [c for c in out["citations"] if c["retrieved_via"] == "reference"]


def test_a_premise_matching_two_pages_within_a_hair_reads_both(policy_store, monkeypatch):
    """"The premium section says backup media is kept only for set periods. How long are backup
    tapes kept?": the premise matches page 2 (no pointer) and page 1 (its "Schedule B") within 1%,
    a coin toss a change anywhere in the corpus statistics swaps (the 1040NR's tax rate
    schedules page and its tax computation page, 0.1% apart). Both are read as the page the
    premise describes, and page 1's pointer is followed. A clear second page is not read: the
    question is answered from the pages it matches."""

    doc_id = _policy_doc(policy_store)
    premise = "The premium section says backup media is kept only for set periods."

    def page(n: int, lines: list[str]):
        return _one_page(doc_id, n, lines)

    pages = {1: page(1, ["The annual premium is payable in four equal instalments.",
                         "Backup media is kept only for the periods set out in Schedule B."]),
             2: page(2, ["The premium covers backup media held for set periods at each branch."]),
             3: page(3, ["Schedule B - Retention Periods", "Backup tapes are kept for 35 days."])}

    def run(second: float):
        def rank(parsed, top_k):
            ranked, scores = ([2, 1, 3], [1.0, second, 0.5]) if parsed.text == premise else ([3, 1, 2], [1.0, 0.5, 0.3])
            return [pages[n] for n in ranked[:top_k]], ranked, scores

        _fake_ranking(monkeypatch, doc_id, rank)
        return ask(policy_store, premise + " How long are backup tapes kept?")

    out = run(0.996)
    assert "35 days" in out["answer"] and out["answer_completeness"] == "complete"
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"]
    assert ref and ref[0]["page"] == 3 and ref[0]["referenced_from"] == {"page": 1, "line": 2}
    out = run(0.9)
    assert "35 days" in out["answer"] and not [c for c in out["citations"] if c["retrieved_via"] == "reference"]


def test_the_page_a_premise_sentence_reports_is_read_when_the_whole_premise_finds_none(policy_store, monkeypatch):
    """"Our tapes sit in a fireproof safe at the branch. The premium section says backup media is
    kept only for set periods. How long are backup tapes kept?": the whole premise matches page 2
    (the safe), which points nowhere; its sentence reporting what the policy says matches page 1,
    whose "Schedule B" leads to the asked part's page. Page 1 is read and its pointer followed
    (trace ``follow_reported_pointer``). A sentence where the user says what they do ("We tell
    staff ...") reports nothing of the document and is not tried."""
    import json

    doc_id = _policy_doc(policy_store)

    def page(n: int, lines: list[str]):
        return _one_page(doc_id, n, lines)

    pages = {1: page(1, ["The annual premium is payable in four equal instalments.",
                         "Backup media is kept only for the periods set out in Schedule B."]),
             2: page(2, ["Tapes are stored in a fireproof safe at each branch."]),
             3: page(3, ["Schedule B - Retention Periods", "Backup tapes are kept for 35 days."])}
    scene = "Our tapes sit in a fireproof safe at the branch."

    def run(report: str, tmp: str):
        def rank(parsed, top_k):
            best = 1 if parsed.text == report else 2 if parsed.text.startswith(scene) and not parsed.text.endswith("?") else 3
            return [pages[best]], [best] + [n for n in (3, 2, 1) if n != best], None

        _fake_ranking(monkeypatch, doc_id, rank)
        trace = policy_store.parent / tmp
        out = ask(policy_store, f"{scene} {report} How long are backup tapes kept?", ask__trace=trace)
        return out, json.loads(trace.read_text())

    out, trace = run("The premium section says backup media is kept only for set periods.", "reported.json")
    assert trace["follow_reported_pointer"]["pointer"] == "Schedule B" and "follow_premise_pointer" not in trace
    assert "35 days" in out["answer"] and out["answer_completeness"] == "complete"
    assert out["citations"][0]["page"] == 1 and out["citations"][0]["retrieved_via"] == "primary"
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"]
    assert ref and ref[0]["page"] == 3 and ref[0]["referenced_from"] == {"page": 1, "line": 2}

    out, trace = run("We tell staff that backup media is kept only for set periods.", "ours.json")
    assert "follow_reported_pointer" not in trace and "35 days" in out["answer"]
    assert {c["page"] for c in out["citations"]} == {3}


def test_a_name_the_document_never_mentions_is_not_answered_complete(policy_store):
    """The policy keeps backup tapes 35 days; it says nothing about a Frankfurt office."""
    out = ask(policy_store, "Our office in Frankfurt runs its own backups. How long are backup tapes kept there?")
    assert out["answer_completeness"] != "complete"
    assert "never mentions 'Frankfurt'" in out["answer"]
    out = ask(policy_store, "Our office runs its own backups. How long are backup tapes kept there?")
    assert "Frankfurt" not in out["answer"] and "never mentions" not in out["answer"]


def _ranked_pages(policy_store, monkeypatch, texts: list[str], other: set[int] = frozenset(),
                  scores: list[float] | None = None) -> list:
    """Retrieval faked: the store's document's pages 1, 2, ... hold ``texts`` (one line each) and
    rank in that order (``scores``, default 1, 1/2, 1/3, ...); the pages numbered in ``other``
    belong to a second document ("other.pdf"). Returns the log of what the loop asked of retrieval."""
    import docintel.retrieval as retrieval
    from docintel.schemas.answers import RetrievedVia
    from docintel.schemas.generation import Passage, PassageLine

    doc_id = _policy_doc(policy_store)

    def _doc(i: int) -> str:
        return "0" * 16 if i in other else doc_id

    def page(i: int, text: str) -> Passage:
        return Passage(passage_id=f"P{i}", doc_id=_doc(i), doc="other.pdf" if i in other else "policy.pdf", page=i, page_label=str(i), line_start=1,
                       line_end=1, parsing_method="pymupdf", retrieved_via=RetrievedVia.primary,
                       lines=[PassageLine(line_num=1, text=text)])

    pages = [page(i, t) for i, t in enumerate(texts, start=1)]
    asked = []
    scores = scores or [1.0 / i for i in range(1, len(texts) + 1)]
    cands = [retrieval.Candidate(doc_id=_doc(i), page_num=i, page_label=str(i), score=scores[i - 1], bm25=scores[i - 1],
                                 line_start=1, line_end=1) for i in range(1, len(texts) + 1)]

    def fake_retrieve(store, parsed, doc_ids, top_k=1, loaded=None):
        asked.append(("rank", top_k))
        return pages[:top_k], cands, {}, []

    def fake_candidate_passages(store, chosen, loaded=None, first=1, **kw):
        asked.append(("read", [c.page_num for c in chosen]))
        return [pages[c.page_num - 1].model_copy(update={"passage_id": f"P{first + k}"}) for k, c in enumerate(chosen)]

    monkeypatch.setattr(retrieval, "candidate_passages", fake_candidate_passages)
    monkeypatch.setattr(retrieval, "retrieve", fake_retrieve)
    return asked


def test_a_first_page_that_does_not_answer_gets_the_runner_up_page_once(policy_store, monkeypatch):
    """The top page mentions the topic but neither answers nor points on: the loop reads the
    page ranked next (one more page, never more), and not at all with --max-loops 0."""
    asked = _ranked_pages(policy_store, monkeypatch, [
        "Tape rotation is discussed with the records team every year.",
        "Backup tapes are rotated every 35 days and kept offsite.",
        "Backup tapes are rotated every 7 days by the night shift."])
    out = ask(policy_store, "How often are backup tapes rotated?")
    assert "every 35 days" in out["answer"] and "7 days" not in out["answer"]
    assert asked == [("rank", 1), ("read", [2])] and out["passes"] == 2 and out["answer_completeness"] == "complete"
    asked.clear()
    out = ask(policy_store, "How often are backup tapes rotated?", ask__max_loops=0)
    assert asked == [("rank", 1)] and out["answer"].startswith("Not found")


def test_a_page_ranked_within_a_hair_of_the_first_is_read_with_it(policy_store, monkeypatch, tmp_path):
    """Two pages of a document that retrieval scores within 1% of each other are a coin toss (a
    change anywhere in the corpus statistics swaps them): both are read in the first pass (the
    trace says so). A clear second is not read while the first page answers, nor another
    document's page (an answer never mixes two documents), and --max-loops 0 (top-1 only) reads
    one page."""
    import json

    texts = ["Backup tapes are rotated every 35 days and kept offsite.",
             "Backup tapes of the archive are rotated every 90 days."]
    asked = _ranked_pages(policy_store, monkeypatch, texts, scores=[0.80, 0.796])
    out = ask(policy_store, "How often are backup tapes rotated?", ask__trace=tmp_path / "t.json")
    assert asked == [("rank", 1), ("read", [2])] and out["passes"] == 1
    assert json.loads((tmp_path / "t.json").read_text())["retrieval"]["near_tie"] is True
    assert "every 35 days" in out["answer"] and "every 90 days" in out["answer"]
    asked.clear()
    out = ask(policy_store, "How often are backup tapes rotated?", ask__max_loops=0)
    assert asked == [("rank", 1)] and "every 90 days" not in out["answer"]
    asked = _ranked_pages(policy_store, monkeypatch, texts, scores=[0.80, 0.78])
    out = ask(policy_store, "How often are backup tapes rotated?")
    assert asked == [("rank", 1)] and "every 35 days" in out["answer"] and "every 90 days" not in out["answer"]
    asked = _ranked_pages(policy_store, monkeypatch, texts, scores=[0.80, 0.796], other={2})  # another document's
    out = ask(policy_store, "How often are backup tapes rotated?")
    assert asked == [("rank", 1)] and {c["doc"] for c in out["citations"]} == {"policy.pdf"}


def test_a_runner_up_page_of_another_document_is_read_alone_and_answers_only_in_full(policy_store, monkeypatch):
    """"What year was the OCR printout article written?" in a store of 22 documents: the scanned
    article does not say, the runner-up was a tax form's page on "year" and "article", and the
    partial answer quoted both documents. A runner-up page of another document is read on its
    own: when it does not answer in full, the first document's answer stands; when it does, the
    answer is its alone."""
    import docintel.generation as generation
    from docintel.schemas.answers import Citation, Completeness, RetrievedVia
    from docintel.schemas.generation import GeneratedAnswer

    class Generator:
        """Quotes every passage's line; complete only when one holds "every 35 days"."""

        name = "fake"

        def generate(self, request):
            full = [p for p in request.passages if "every 35 days" in p.lines[0].text]
            quoted = full or request.passages
            return GeneratedAnswer(
                answer=" ".join(f'"{p.lines[0].text}" ({p.doc} page {p.page})' for p in quoted),
                citations=[Citation(doc_id=p.doc_id, doc=p.doc, page=p.page, page_label=str(p.page), line_start=1,
                                    line_end=1, retrieved_via=RetrievedVia.primary, parsing_method="pymupdf") for p in quoted],
                answer_completeness=Completeness.complete if full else Completeness.partial)

    monkeypatch.setattr(generation, "create_generator", lambda *a, **kw: Generator())
    asked = _ranked_pages(policy_store, monkeypatch, [
        "Tape rotation is discussed with the records team every year.",
        "Tapes of each tax year are kept with the return."], other={2})
    out = ask(policy_store, "How often are backup tapes rotated?")
    assert asked == [("rank", 1), ("read", [2])] and out["passes"] == 2  # the runner-up was read ...
    assert {c["doc"] for c in out["citations"]} == {"policy.pdf"}  # ... and is not quoted
    assert "tax year" not in out["answer"] and out["answer_completeness"] == "partial"

    _ranked_pages(policy_store, monkeypatch, [
        "Tape rotation is discussed with the records team every year.",
        "Backup tapes are rotated every 35 days and kept offsite."], other={2})
    out = ask(policy_store, "How often are backup tapes rotated?")
    assert "every 35 days" in out["answer"] and out["answer_completeness"] == "complete"
    assert {c["doc"] for c in out["citations"]} == {"other.pdf"}

    _ranked_pages(policy_store, monkeypatch, [  # a runner-up in the same document is read with the first page
        "Tape rotation is discussed with the records team every year.",
        "Tapes of each tax year are kept with the return."])
    out = ask(policy_store, "How often are backup tapes rotated?")
    assert "records team" in out["answer"] and "tax year" in out["answer"]


def test_a_runner_up_page_that_answers_nothing_does_not_replace_a_partial_answer(policy_store, monkeypatch):
    """1040NR, heldout12: the first page quoted the qualifying-child tests (partial: one ask
    unanswered); the runner-up page's pointer sentence then scored best and the second pass
    said "Not found" for the whole question. The first answer stands."""
    import docintel.generation as generation
    from docintel.schemas.answers import Citation, Completeness, RetrievedVia
    from docintel.schemas.generation import GeneratedAnswer

    _ranked_pages(policy_store, monkeypatch, [
        "A qualifying child is a U.S. citizen, a U.S. national, or a resident alien.",
        "If you have a qualifying child, you may be able to take the credit on line 47."])

    class Generator:
        name = "fake"

        def generate(self, request):
            p = request.passages[0]
            if any(q.page == 2 for q in request.passages):
                return GeneratedAnswer(answer="Not found: the retrieved pages do not answer this question.",
                                       answer_completeness=Completeness.partial)
            return GeneratedAnswer(answer='"A qualifying child is a U.S. citizen ..." (page 1, lines 1-1)',
                                   citations=[Citation(doc_id=p.doc_id, doc=p.doc, page=1, page_label="1", line_start=1,
                                                       line_end=1, retrieved_via=RetrievedVia.primary, parsing_method="pymupdf")],
                                   answer_completeness=Completeness.partial)

    monkeypatch.setattr(generation, "create_generator", lambda *a, **kw: Generator())
    out = ask(policy_store, "Can my son be a qualifying child, and what other tests must a child meet?")
    assert out["passes"] == 2  # the runner-up page was read ...
    assert out["answer"].startswith('"A qualifying child')  # ... and answered nothing: the first answer stands
    assert out["citations"][0]["page"] == 1 and out["answer_completeness"] == "partial"
