"""The cross-reference loop: the only place that calls brick after brick.

question parsing -> retrieval (top-k pages) -> generation -> decide ->
(resolve pending references -> fetch target regions -> regenerate) x max_loops.

Before the first pass, a question that sets a scene ("The line 32 instructions send me to a
worksheet. What's the most interest I can count?") is checked for the page its premise
describes: when that page points at a page the asked part matches (``follow_premise_pointer``
in the trace), it is read and its pointer followed first; if that does not give a complete
answer, the question is answered as below from the pages it matches, and that answer replaces
the first only if it got further (complete, or waiting on a pointer, where the first was partial).
When the premise says the document sent it to a part ("... the filing instructions point me to the
direct deposit instructions") and the page it matches best is the asked part's best too, that page
is where it was sent from when one of its pointers, in a sentence naming what the premise says it
was sent to (or, when it only points, the sentence before: "... credit (saver's credit). See the
instructions for line 48 ..."), leads to another page the asked part or the whole question
matches: that pointer is followed (``follow_premise_pointer``). Else the page is where it was sent
to, and the next page the premise matches that points at it, in such a sentence, is read and its
pointer followed (``follow_pointer_back``); either answer stands unless the answer from the pages
the question matches got further. The way back is tried too when the premise's page is not the
asked part's best but the pointer the premise route would follow from it names nothing of where
the premise was sent ("The line 32 instructions send me to a worksheet to figure the deduction."
and the worksheet's page first: its "(see page 16)" is the way back, not the way on). When the
premise's page has no pointer to a page the asked part matches and no way back, the way on is
tried from it too: an asked part saying only "it" ("... point me to the instructions for that
credit. Above what AGI can I not take it?") may rank the credit's page low, the whole question
higher (the way on may then reach any page the whole question ranks).
When the whole premise finds no such page, its sentences that report what the document says
("Before we wipe ... SP 800-88 says one of its sections covers roles and responsibilities.")
are tried alone (``follow_reported_pointer``); that answer stands only if it got further.
Else, when a page ranked second to fourth points ahead at the best page ("... notionally
illustrated in Appendix B" and Appendix B ranked first: ``enter_by_pointer``), that page is
read and its pointer followed first, spending no loop; its answer stands if complete, or if
it got further than the answer from the pages the question matches.

A pointer the question names goes straight to its target. When only its premise names it,
saying where it is written ("The overview of SP 800-61's structure says its Section 2
highlights other groups ... What would we need from human resources?"), the page the premise
describes is read instead, and the pointer followed from there (``follow_premise_named``): the
answer cites that page as primary and the target as reached from it. When the premise says the
document sent it on without saying where ("... go on Schedule D and line 14, and refer me to
another part of the instructions"), the parts the question names are not followed at all
(``premise_refers_elsewhere``): the page the premise describes is read and the pointer beside the
sentence it describes followed (``_described_mention``).

The decision reads only ``answer_completeness`` and ``pending_references`` (never a confidence
score):

- partial, no pointer open or followed, first time -> ``read_runner_up``: the next-ranked page
  is added and the answer regenerated (once; off with ``max_loops`` 0). A runner-up page of
  another document is read on its own, and its answer replaces the first only when complete:
  an answer never mixes two documents' quotes;
- still partial, and a page read mentions a part whose page ranked first or second ("Section 5
  discusses metrics ...") or the passage the answer names as closest mentions one ("... as
  described in Section 7.2.") -> ``follow_linked_pointer``: that mention is followed like a
  pointer (one loop); the answer quotes it and what it leads to, and is complete only if the
  target holds as much of the question as an answer must;
- no internal pointer left open -> ``return_to_user`` when the answer is complete, else
  ``give_up_partial`` (nothing more to follow: "not found", or a pointer the corpus lacks);
- internal pointers open and budget left -> ``resolve_references`` (one loop);
- internal pointers open and no budget -> ``give_up_partial``; the answer names what it could
  not follow and completeness is never "complete".

External pointers are recorded as ``external`` and named, never fetched. ``--trace FILE`` gets
every pass: question parse, candidates with scores, generator input and output, resolver
steps, timings.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from docintel.schemas.answers import (
    AskResult,
    Citation,
    Completeness,
    PendingReference,
    RefStatus,
    RefType,
    ResolvedReference,
    RetrievedVia,
    Tokens,
    Verdict,
)
from docintel.settings import Settings
from docintel.text import money_amounts


LINKED_CANDIDATES = 2
"""How far down the ranking a pointer's target may sit and still count as linked: a passage
that does not answer, pointing at a page the question also matches, is followed there."""

_RANK = {Completeness.partial: 0, Completeness.references_unresolved: 1, Completeness.complete: 2}
"""How far an answer got, to choose between two answers to one question."""

NEAR_TIE = 0.01
"""A page ranked next whose score is within this share of the last page read, in the same
document, is read with it (the loop's reading only, not --max-loops 0). Scores that close are a
coin toss: SP 800-48's "Which of the 802.11 data confidentiality and integrity protocols can
provide [FIPS-validated cryptography]?" ranked the 802.11 standards table (p39, 0.854) over the
page on those protocols (p25, 0.849), and a change anywhere in the corpus statistics can swap
such a pair."""
RUNNER_UP_PAGES = 1
"""Pages past top-k the loop reads when the first answer is partial and points nowhere (the
page that ranked next often holds what the best one only mentions); 0 with --max-loops 0."""


def _key(ref: PendingReference | ResolvedReference) -> tuple:
    o = ref.origin
    return (ref.raw_text, o.page if o else None, o.line if o else None)


class _Clock:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.last = self.t0

    def lap(self) -> float:
        now = time.perf_counter()
        ms = (now - self.last) * 1000
        self.last = now
        return round(ms, 2)

    def total(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 2)


def answer(question: str, settings: Settings) -> AskResult:
    """Answer ``question`` from the store at ``settings.store``."""
    from docintel.errors import UsageError
    from docintel.generation import LLM_GENERATORS, create_generator
    from docintel.questions import parse_question
    from docintel.questions.parse import elsewhere, unknown_names
    from docintel.references import Resolver, find_citations, find_pointers
    from docintel.retrieval import candidate_passages, fetch_target, retrieve
    from docintel.store.store import Store, check_store_path

    clock = _Clock()
    question = " ".join((question or "").split())
    if not question:
        raise UsageError('the question is empty; pass it in quotes: docintel ask "What is ...?"')
    check_store_path(Path(settings.store))
    store = Store(settings.store)
    doc_ids = store.resolve_docs(settings.ask.docs)
    ask = settings.ask
    trace: dict[str, Any] = {
        "question": question,
        "store": str(settings.store),
        "docs": doc_ids if len(doc_ids) <= 50 else f"{len(doc_ids)} documents",
        "settings": {"top_k": ask.top_k, "max_loops": ask.max_loops, "generator": ask.generator,
                     "model": settings.llm.model if ask.generator in LLM_GENERATORS else None},
        "passes": [],
    }
    generator = create_generator(ask.generator, settings, find_pointers=find_pointers, find_citations=find_citations)
    resolver = Resolver(store, llm_guess=_llm_guess(generator) if ask.generator in LLM_GENERATORS else None)
    trace["setup_ms"] = clock.lap()

    # a question names its pointers directly ("What does Section 7.3 say?"): no trigger word needed
    parsed = parse_question(question, _named_pointers)
    trace["parse"] = parsed.model_dump(mode="json")
    trace["parse_ms"] = clock.lap()

    loaded: dict[str, Any] = {}  # the candidate pages' lines, read once

    def read(cands: list[Any], first: int = 1) -> list[Any]:
        return candidate_passages(store, cands, loaded, first=first, asked=parsed.asked or parsed.text)

    def lines_of(doc_id: str, page: int) -> list[tuple[int, str]]:
        lines = loaded.get(doc_id)
        if lines is None:
            return []
        lines = lines[lines["page_num"] == page]
        return list(zip(lines["line_num"].astype(int), lines["text"].astype(str)))

    passages, candidates, idf, unused = retrieve(store, parsed, doc_ids, top_k=ask.top_k, loaded=loaded)
    tie = ask.max_loops > 0 and _near_tie(candidates, ask.top_k)
    if tie:
        passages = passages + _runner_up(candidates, passages, read)  # retrieval cannot tell them apart: read both
    parsed = parsed.model_copy(update={"weights": {k: round(v, 4) for k, v in idf.items()}, "unused": unused})
    trace["parse"]["weights"] = parsed.weights
    trace["parse"]["unused"] = parsed.unused
    trace["retrieval"] = {
        "candidates": [c.model_dump() for c in candidates],
        "chosen": [f"{p.doc}#p{p.page} lines {p.line_start}-{p.line_end}" for p in passages],
        "near_tie": tie,  # the page ranked next was read too: its score is within NEAR_TIE
        "ms": clock.lap(),
    }

    resolved: list[ResolvedReference] = []
    ref_passages = []
    attempted: set[tuple] = set()
    resolver_steps: list[dict[str, Any]] = []

    def follow(refs: list[PendingReference], default_doc: str | None) -> None:
        for ref in refs:
            attempted.add(_key(ref))
            scope = [ref.doc_id] if ref.doc_id else ([default_doc] if default_doc else []) + [d for d in doc_ids if d != default_doc]
            res = None
            for doc in scope[:20]:
                res = resolver.resolve(ref, doc)
                if res.region is not None or res.resolved.status == RefStatus.external:
                    break
            assert res is not None
            resolved.append(res.resolved)
            step: dict[str, Any] = {"pointer": ref.raw_text, "origin": ref.origin.model_dump() if ref.origin else None,
                                    "steps": res.steps, "status": res.resolved.status.value,
                                    "source": res.resolved.source, "target_page": res.resolved.target_page}
            if res.region is not None and _holds_origin(res.region, res.next_section, ref.origin):
                # "use the worksheet on this page to figure the amount to enter on line 39", inside
                # line 39's own part: the reader is there already
                step["fetched"] = "nothing: the target is the part the pointer is written in"
            elif res.region is not None:
                fetched = fetch_target(store, res.region, f"R{len(ref_passages) + 1}", res.next_section, parsed)
                if ref.origin is None:
                    fetched = [p.model_copy(update={"note": (p.note or "").replace("in the question", "named in the question")})
                               for p in fetched]
                ref_passages.extend(fetched)
                step["fetched"] = [{"page": p.page, "lines": [p.line_start, p.line_end], "note": p.note,
                                    "parsing_method": p.parsing_method} for p in fetched]
            resolver_steps.append(step)

    def follow_linked(refs: list[PendingReference]) -> None:
        """Follow mentions the loop chose itself: the generator quotes the mention with its target."""
        have = len(ref_passages)
        follow(refs, None)
        ref_passages[have:] = [p.model_copy(update={"linked": True}) for p in ref_passages[have:]]

    # pointers named in the question go straight to their target
    parsed = parsed.model_copy(update={"pointers": _in_named_documents(store, parsed.pointers, doc_ids)})
    if parsed.pointers and parsed.premise and elsewhere(parsed.premise) is not None:
        # "... go on Schedule D and line 14, and refer me to another part of the instructions",
        # "The 1040NR dividend instructions send me to another line's instructions for these. Do I
        # have to attach Schedule D ...?": the document sends the user to a part the question does
        # not name; the parts it names are where the user read and what it is about, not where to go
        trace["premise_refers_elsewhere"] = {"not_followed": [r.raw_text for r in parsed.pointers]}
        parsed = parsed.model_copy(update={"pointers": []})
    if parsed.pointers:
        top_doc = passages[0].doc_id if passages else (doc_ids[0] if doc_ids else None)
        # ... from the page the premise says they are on ("The overview of SP 800-61's structure
        # says its Section 2 highlights ..."): read it and follow them from there, as a reader would
        lead = _premise_named(store, parsed, doc_ids, resolver, attempted) if ask.max_loops > 0 else None
        if lead is not None:
            follow_linked(lead[1])
        if lead is not None and ref_passages:  # the page described is the primary source
            trace["follow_premise_named"] = {"read": [f"{p.doc}#p{p.page} lines {p.line_start}-{p.line_end}" for p in lead[0]],
                                             "pointer": "; ".join(r.raw_text for r in lead[1])}
            passages = lead[0]
        else:
            follow(parsed.pointers, top_doc)
            if ref_passages:
                # the named target is the source: keyword pages would only add noise
                trace["retrieval"]["dropped_for_question_pointer"] = [p.passage_id for p in passages]
                passages = []
            else:  # the question names a part the corpus does not hold: say so, invent nothing
                missing = [r for r in resolved if r.status == RefStatus.unresolved]
                # ... unless only its premise names it ("the Schedule A line 17 instructions send me
                # to a worksheet. How does ...?"): what is asked may still be on the pages found
                asked = parsed.asked.lower()
                if passages and parsed.premise and all(r.raw_text.lower() not in asked for r in missing):
                    gone = {r.raw_text for r in missing}
                    parsed = parsed.model_copy(update={"pointers": [p for p in parsed.pointers if p.raw_text not in gone]})
                    missing = []
                if missing:
                    names = ", ".join(repr(r.raw_text) for r in missing)
                    result = AskResult(
                        question=question,
                        answer=(f"Not found: the selected documents hold no {names} "
                                "(looked up in the TOC, the object registry, the reference list, links and captions)."),
                        answer_completeness=Completeness.partial, verdict=Verdict.give_up_partial,
                        pending_references=[PendingReference(raw_text=r.raw_text, ref_type=r.ref_type, ref_target=r.ref_target,
                                                             sub_selector=r.sub_selector) for r in missing],
                        resolved_references=resolved, passes=0, generator=generator.name,
                    )
                    trace["verdict"] = {"decision": "give_up_partial", "why": "pointer named in the question not in the corpus"}
                    return _finish(result, trace, clock, ask.trace)
        trace["question_pointers"] = {"steps": list(resolver_steps), "ms": clock.lap()}
        resolver_steps.clear()

    if not passages and not ref_passages:
        result = AskResult(
            question=question,
            answer=("Not found: no page of the selected documents matches the question's keywords "
                    f"({', '.join(parsed.keywords) or 'none left after stop words'})."),
            answer_completeness=Completeness.partial, verdict=Verdict.give_up_partial,
            resolved_references=resolved, passes=0, generator=generator.name,
        )
        trace["verdict"] = {"decision": "give_up_partial", "why": "no candidate page"}
        return _finish(result, trace, clock, ask.trace)

    counts = {"pass": 0, "llm_calls": 0, "prompt": 0, "completion": 0}

    def run(passages: list[Any], loops: int, runner_up_left: int) -> tuple[Any, str, Completeness, Verdict, list[PendingReference]]:
        """Generate, decide, follow, regenerate, from ``passages`` (and the reference passages
        already fetched) to a verdict: (last generator output, answer text, completeness, verdict,
        internal pointers still open)."""
        from docintel.schemas.generation import GenerationRequest

        before_runner_up = None  # the answer from the pages read before the runner-up was added
        elsewhere = None  # (pages, answer) before a runner-up page of another document, read alone
        while True:
            counts["pass"] += 1
            pass_no = counts["pass"]
            request = GenerationRequest(
                question=question, parsed=parsed, passages=passages + ref_passages, pass_number=pass_no,
                resolved_references=resolved, model=settings.llm.model if ask.generator in LLM_GENERATORS else None,
            )
            t_gen = time.perf_counter()
            out = generator.generate(request)
            gen_ms = round((time.perf_counter() - t_gen) * 1000, 2)
            counts["llm_calls"] += out.llm_calls
            counts["prompt"] += out.tokens.prompt
            counts["completion"] += out.tokens.completion
            record: dict[str, Any] = {
                "pass": pass_no,
                "generator_input": request.model_dump(mode="json", exclude={"parsed"}),
                "generator_output": out.model_dump(mode="json"),
                "generate_ms": gen_ms,
            }
            trace["passes"].append(record)
            if elsewhere is not None and out.answer_completeness != Completeness.complete:
                # another document's page answers no more than the first one did: the first
                # document's answer stands, never a mix of two documents' quotes
                passages, out = elsewhere
                record["decision_note"] = "the runner-up page, in another document, does not answer: the answer before it stands"
            elif before_runner_up is not None and _found_nothing(out) and not _found_nothing(before_runner_up):
                # the runner-up page drew the best sentence to itself and answers nothing: what
                # the first pages quoted stands (a partial answer beats "Not found")
                out = before_runner_up
                record["decision_note"] = "the runner-up page answers nothing: the answer before it stands"
            before_runner_up = elsewhere = None
            for r in out.pending_references:
                if r.ref_type == RefType.external and not any(_key(x) == _key(r) for x in resolved):
                    resolved.append(ResolvedReference(raw_text=r.raw_text, ref_type=r.ref_type, ref_target=r.ref_target,
                                                      status=RefStatus.external, doc_id=r.doc_id, origin=r.origin))
            internal = [r for r in out.pending_references if r.ref_type != RefType.external]
            new = [r for r in internal if _key(r) not in attempted]
            if not new and out.answer_completeness == Completeness.partial and runner_up_left and not ref_passages:
                # the page read does not answer and points nowhere: read the runner-up page once
                more = _runner_up(candidates, passages, read)
                runner_up_left -= 1
                if more:
                    before_runner_up = out
                    if {p.doc_id for p in more}.isdisjoint(p.doc_id for p in passages):
                        # "What year was the OCR printout article written?": the scan does not
                        # say, and the runner-up is a tax form's page on "year" and "article".
                        # It is read on its own, and answers only if it answers in full
                        elsewhere = (passages, out)
                        passages = more
                    else:
                        passages = passages + more
                    record["decision"] = "read_runner_up"
                    record["runner_up"] = [f"{p.doc}#p{p.page} lines {p.line_start}-{p.line_end}" for p in more]
                    continue
            still_partial = not new and out.answer_completeness == Completeness.partial and not ref_passages
            linked = False
            if still_partial and not runner_up_left and loops < ask.max_loops:
                # the page read does not answer, but one of its pointers leads to a page the
                # question matches too ("... as described in Section 5.2.4" and 5.2.4's page
                # ranked second): follow it, as a reader would
                new = _linked(passages, candidates, resolver, attempted, parsed)
                if not new and not unknown_names(parsed):  # "the capital of France": its document never says "France"
                    new = _closest(passages, out, resolver, attempted, money_amounts(parsed.text))
                linked = bool(new)
            if not new:
                completeness = out.answer_completeness
                if internal and completeness == Completeness.complete:
                    completeness = Completeness.references_unresolved
                verdict = Verdict.return_to_user if completeness == Completeness.complete else Verdict.give_up_partial
                record["decision"] = verdict.value
                return out, out.answer, completeness, verdict, internal
            if loops >= ask.max_loops:
                completeness = out.answer_completeness
                if completeness == Completeness.complete:
                    completeness = Completeness.references_unresolved
                record["decision"] = "give_up_partial"
                names = "; ".join(
                    f"{r.raw_text!r}" + (f" (page {r.origin.page} line {r.origin.line})" if r.origin else "") for r in new
                )
                why = "reference following is off (--max-loops 0)" if ask.max_loops == 0 else f"loop budget of {ask.max_loops} used up"
                return out, out.answer + f"\nNot followed ({why}): {names}.", completeness, Verdict.give_up_partial, internal
            loops += 1
            record["decision"] = "follow_linked_pointer" if linked else "resolve_references"
            t_res = time.perf_counter()
            follow_linked(new) if linked else follow(new, None)
            record["resolver"] = list(resolver_steps)
            resolver_steps.clear()
            record["resolve_ms"] = round((time.perf_counter() - t_res) * 1000, 2)

    runner_up = RUNNER_UP_PAGES if ask.max_loops > 0 and not parsed.pointers else 0
    lead, how = _premise_pointer(store, parsed, doc_ids, resolver, attempted, candidates) if runner_up else (None, "")
    if lead is None and runner_up:
        lead, how = _entry_pointer(candidates, resolver, attempted, parsed, read, lines_of), "enter_by_pointer"
    if lead is not None:
        # the premise describes a page that points where the asked part matches ("The line 32
        # instructions send me to a worksheet. What's the most interest I can count?"), or the
        # best page is where a page ranked just below it points ("... are described in Appendix
        # B"): read that page and follow its pointer first; when that does not answer, start
        # over as usual
        lead_passages, refs = lead
        t_res = time.perf_counter()
        follow_linked(refs)
        trace[how] = {"read": [f"{p.doc}#p{p.page} lines {p.line_start}-{p.line_end}" for p in lead_passages],
                      "pointer": "; ".join(r.raw_text for r in refs), "resolver": list(resolver_steps),
                      "ms": round((time.perf_counter() - t_res) * 1000, 2)}
        resolver_steps.clear()
        # the ranking found both ends of the way in: following it spends no loop
        led = run(lead_passages, 0 if how == "enter_by_pointer" else 1, 0)
        out, text, completeness, verdict, internal = led
        if completeness != Completeness.complete:
            trace[how]["outcome"] = f"{completeness.value}: answered again from the pages the question matches"
            led_resolved = list(resolved)
            ref_passages.clear()
            resolved.clear()
            attempted.clear()
            out, text, completeness, verdict, internal = run(passages, 0, runner_up)
            # no better from the pages the question matches: what the described part holds
            # stands; a way in, or the page a reported sentence alone matches (the part it
            # reports may be the target itself: "SP 800-63B says reauthentication has to be done
            # as described in its section on reauthentication"), only where it got further
            if _RANK[completeness] < _RANK[led[2]] or (how in ("follow_premise_pointer", "follow_pointer_back")
                                                       and completeness == led[2]):
                trace[how]["outcome"] += f" ({completeness.value}: the first answer stands)"
                out, text, completeness, verdict, internal = led
                resolved[:] = led_resolved
    else:
        out, text, completeness, verdict, internal = run(passages, 0, runner_up)

    result = AskResult(
        question=question,
        answer=text,
        answer_completeness=completeness,
        verdict=verdict,
        citations=_dedupe(out.citations),
        pending_references=internal,
        resolved_references=resolved,
        passes=counts["pass"],
        llm_calls=counts["llm_calls"] + resolver.llm_calls,
        tokens=Tokens(prompt=counts["prompt"] + resolver.tokens[0], completion=counts["completion"] + resolver.tokens[1]),
        generator=generator.name,
    )
    trace["verdict"] = {"decision": verdict.value, "completeness": completeness.value, "passes": counts["pass"]}
    return _finish(result, trace, clock, ask.trace)


def _holds_origin(region: Any, next_section: Any, origin: Any) -> bool:
    """Whether a part cut by line (a form line's instructions, a heading's part) holds the line
    its pointer is written on; or the part starts on that line: the "pointer" is its own caption
    or heading ("Table A-4: Equipment Sanitization" at the foot of SP 800-88 p30 is where Table
    A-4 starts, not a pointer to it)."""
    if origin is None or region.line_start is None:
        return False
    if (origin.page, origin.line) == (region.page_start, region.line_start):
        return True
    if not region.by_line:
        return False
    after_start = (origin.page, origin.line) >= (region.page_start, region.line_start)
    if next_section is not None and len(next_section) == 3:
        return after_start and (origin.page, origin.line) < (next_section[0], next_section[2])
    return after_start and origin.page <= region.page_end


def _mentions(passages: list[Any], resolver: Any, attempted: set[tuple], cited: list[Citation] | None = None,
              amounts: tuple[float, ...] = (), lead_in: bool = False):
    """(mention, target region, its sentence, its span) of each internal mention in the passages'
    running text (only in the lines ``cited``, when given; "... as described in Section" / "7.2."
    is one mention) that resolves and has not been followed, and whose sentence sets no condition
    on an amount that none of ``amounts`` (the question's) meets ("If your taxable income is
    $100,000 or more, use the Tax Computation Worksheet on page 46", for "$74,130"). Its origin is
    the line it starts on; the parts of one list ("Sections 4.1.5, 4.2.5, and 4.3.5") share their
    span (page, start). ``lead_in``: a sentence that only points ("See the instructions for line 48
    beginning on page 20.", :func:`docintel.text.bare_pointer`) comes with the one before, which
    it annotates."""
    for p in passages:
        spans = [(c.line_start, c.line_end) for c in cited or [] if c.doc_id == p.doc_id and c.page == p.page]
        if cited is not None and not spans:
            continue
        lines = [(ln.line_num, ln.text) for ln in p.lines if not spans or any(a <= ln.line_num <= b for a, b in spans)]
        yield from _mentions_in(p.doc_id, p.page, lines, resolver, attempted, p.set_as(), amounts, lead_in)


def _mentions_in(doc_id: str, page: int, lines: list[tuple[int, str]], resolver: Any, attempted: set[tuple],
                 set_as: dict[int, str] | None = None, amounts: tuple[float, ...] = (), lead_in: bool = False):
    """:func:`_mentions` of one page's ``lines`` ((line number, text), in order; ``set_as``: how
    their type sets them, :func:`docintel.text.join_lines`)."""
    from docintel.references.detect import find_mentions, is_external
    from docintel.schemas.answers import Origin
    from docintel.text import amount_excluded, bare_pointer, join_lines, sentence_at

    if not lines:
        return
    text, starts = join_lines(lines, set_as)
    for m in find_mentions(text):
        line = max(((at, num) for at, num in starts if at <= m.start), default=(0, lines[0][0]))[1]
        ref = m.ref.model_copy(update={"doc_id": doc_id, "origin": Origin(page=page, line=line)})
        if is_external(ref) or _key(ref) in attempted:
            continue
        res = resolver.resolve(ref, doc_id)
        region = res.region
        if region is None or _holds_origin(region, res.next_section, ref.origin):
            continue
        sentence = sentence_at(text, m.start, m.end)
        if not amount_excluded(sentence, amounts):
            if lead_in and bare_pointer(sentence):
                sentence = sentence_at(text, m.start, m.end, before=1)
            yield ref, region, sentence, (doc_id, page, m.start)


def _linked(passages: list[Any], candidates: list[Any], resolver: Any, attempted: set[tuple],
            parsed: Any) -> list[PendingReference]:
    """The pointer in the primary passages whose target is the best-ranked other candidate page
    among the top LINKED_CANDIDATES (one pointer, or the parts of one list; [] when none points
    at a candidate). Any mention counts ("Section 5 discusses metrics ..."): the ranking has
    confirmed the link."""
    rank = _ranks(candidates, depth=LINKED_CANDIDATES)
    return _best_mention(_mentions(passages, resolver, attempted, amounts=money_amounts(parsed.text)), rank, parsed,
                         lambda ref, region, n: n != ref.origin.page)


def _best_mention(mentions: Any, rank: dict[tuple, int], parsed: Any, counts: Any) -> list[PendingReference]:
    """The mention whose target holds the best-ranked page (``rank``: (doc, page) -> rank; a page
    counts where ``counts(ref, region, page)``); on a tie the one whose sentence holds more of the
    question's weight ("Section 4.3.3: Organizations should balance their security needs ..." for
    a question about that balance, not "Section 4.3.2: ... phased approach.", whose page holds
    4.3.3 too), then the first. With it come the other parts its list names ("Sections 4.1.5,
    4.2.5, and 4.3.5 require ..." says all three do). [] when no target holds a ranked page."""
    from docintel.retrieval.region import keyword_weights
    from docintel.text import held, stems

    weights = keyword_weights(parsed, parsed.weights)
    found = list(mentions)
    best: tuple[int, float, tuple] | None = None
    for ref, region, sentence, span in found:
        hit = [rank[(region.doc_id, n)] for n in range(region.page_start, region.page_end + 1)
               if (region.doc_id, n) in rank and counts(ref, region, n)]
        key = (min(hit), -held(stems(sentence), weights)) if hit else None
        if key is not None and (best is None or key < best[:2]):
            best = (*key, span)
    return [ref for ref, _, _, span in found if best and span == best[2]]


PREMISE_TARGETS = 3
"""How far down the asked part's own ranking a premise page's pointer target may sit."""


def _named_pointers(text: str) -> list[PendingReference]:
    """Every pointer a question names, triggered or not ("What does Section 7.3 say?"), and the
    numbered citations it names ("Which paper is [20]?", "What is reference 20?")."""
    from docintel.references import find_citations, find_mentions

    return [m.ref for m in find_mentions(text)] + [r for r, _, _ in find_citations(text) if r.ref_target.isdigit()]


def _premise_pointer(store: Any, parsed: Any, doc_ids: list[str], resolver: Any, attempted: set[tuple],
                     candidates: list[Any]):
    """((the passages of the page the premise describes, its pointer(s)), how) when that page
    mentions a part on one of the PREMISE_TARGETS pages the asked part alone matches best, and is
    not itself the asked part's best page; (None, "") otherwise (no premise, or no such pointer).
    When the premise says where it was sent, the way on (:func:`_pointing_on`) may also reach one
    of the first pages of the whole question's ranking (``candidates``); from a page that is not
    the asked part's best, when nothing else leads on from it, any page of that ranking.
    The page is the one the whole premise matches best (``follow_premise_pointer``), else the one
    its sentences reporting what the document says match best (``follow_reported_pointer``), that
    one first when the two rankings hold the same two pages first, each the other way round
    (:func:`_swapped`); two pages when the second scores within ``NEAR_TIE`` of the first, in the
    same document."""
    if not parsed.premise or not parsed.asked:
        return None, ""
    from docintel.questions import parse_question
    from docintel.questions.parse import elsewhere, pointed_to, reported
    from docintel.retrieval import retrieve

    _, asked, _, _ = retrieve(store, parse_question(parsed.asked, _named_pointers), doc_ids, top_k=1)
    if not asked:
        return None, ""
    rank = _ranks(asked)
    reach = _ranks(asked, candidates)  # the way on may lead to a page the whole question matches
    # the page the whole premise matches best; then the one its sentences about the document
    # match ("Before we wipe ... legal wants ... SP 800-88 says one of its sections covers roles
    # and responsibilities."): the scene finds the answer's page, the report finds the pointer's
    report = reported(parsed.premise)
    queries = [(parsed.premise, "follow_premise_pointer")] + ([(report, "follow_reported_pointer")]
                                                              if report and report != parsed.premise else [])
    ranked = []
    for query, how in queries:
        said = parse_question(query, _named_pointers)
        loaded: dict[str, Any] = {}
        passages, cands, idf, _ = retrieve(store, said, doc_ids, top_k=1, loaded=loaded)
        ranked.append((query, how, said, passages, cands, (loaded, idf)))
    if len(ranked) == 2 and _swapped(ranked[0][4], ranked[1][4]):
        # two like pages, and the scene prefers one, the report the other: what the document is
        # reported to say tells them apart ("SP 800-63B's AAL3 section says the verifier has to
        # confirm the biometric sensor ... meet performance requirements given elsewhere", with
        # a fingerprint-unlocked smart card for a scene: AAL3's page, not AAL2's like sentence)
        ranked.reverse()
    seen: set[tuple] = set()
    amounts = money_amounts(parsed.text)
    for query, how, said, premise_passages, premise_cands, (loaded, idf) in ranked:
        if _near_tie(premise_cands, 1):
            # the page the premise describes is a coin toss between two: read both
            premise_passages = retrieve(store, said, doc_ids, top_k=2)[0]
        if not premise_passages:
            continue
        first = premise_passages[0]
        described = (premise_cands[0].doc_id, premise_cands[0].page_num)  # the first passage may be the page before's cut sentence
        where = pointed_to(query)
        weights = _sent_to(said, idf, where) if where else {}
        if rank.get(described) == 0:
            # the page the premise describes is where the asked part matches best too; when the
            # premise says the document sent it on, that page is where it was sent from (it
            # points on from a sentence naming where, to a page the asked part matches too) or
            # where it was sent to (the way in is a page pointing at it)
            if not where:
                return None, ""
            on = _pointing_on(premise_passages, described, reach, parsed, weights, resolver, attempted, amounts)
            if on:
                return (premise_passages, on), how
            back = _pointing_back(store, premise_cands, loaded, said, weights, resolver, attempted, amounts)
            return (back, "follow_pointer_back") if back else (None, "")
        if (first.doc_id, first.page) in seen:
            continue
        seen.add((first.doc_id, first.page))
        mentions = list(_mentions(premise_passages, resolver, attempted, amounts=amounts))
        sent_for = elsewhere(query)
        best = ((_described_mention(premise_passages, mentions, said, sent_for) if sent_for is not None else [])
                or _best_mention(mentions, rank, parsed, _unread(premise_passages)))
        if where and not _names_where(best, premise_passages, weights, resolver, attempted, amounts):
            # "The line 32 instructions send me to a worksheet to figure the deduction." and the
            # worksheet's page (p17) ranks first for the premise: it is where the premise was
            # sent, and the way there is a page pointing at it ("Use the worksheet on page 17 to
            # figure your student loan interest deduction." on p16), not p17's "(see page 16)"
            back = _pointing_back(store, premise_cands, loaded, said, weights, resolver, attempted, amounts)
            if back:
                return back, "follow_pointer_back"
        if best:
            return (premise_passages, best), how
        if where:
            # the asked part says only "it" ("... the saver's credit and point me to the
            # instructions for that credit. Above what AGI can I not take it ...?") and ranks
            # another document first: the way on may lead to a page the whole question matches,
            # its first pages first, then any it ranks ("... send me to the instructions for the
            # saver's credit. Who counts as a student for it?": p20 seventh)
            anywhere = {**_ranks(candidates, depth=len(candidates)), **reach}
            on = _pointing_on(premise_passages, described, anywhere, parsed, weights, resolver, attempted, amounts)
            if on:
                return (premise_passages, on), how
    return None, ""


def _ranks(*rankings: list[Any], depth: int = PREMISE_TARGETS) -> dict[tuple, int]:
    """(doc, page) -> its best rank among the first ``depth`` of each ranking (candidates)."""
    rank: dict[tuple, int] = {}
    for cands in rankings:
        for i, c in enumerate(cands[:depth]):
            rank[(c.doc_id, c.page_num)] = min(i, rank.get((c.doc_id, c.page_num), i))
    return rank


def _names_where(refs: list[PendingReference], passages: list[Any], weights: dict[str, float], resolver: Any,
                 attempted: set[tuple], amounts: tuple[float, ...]) -> bool:
    """Whether the sentence of one of ``refs`` (mentions in ``passages``; when it only points, with
    the one before) names where the premise was sent (``weights``: :func:`_sent_to`)."""
    spans = {(r.origin.page, r.origin.line, r.raw_text) for r in refs if r.origin}
    return any(_names(m, weights) for m in _mentions(passages, resolver, attempted, amounts=amounts, lead_in=True)
               if (m[0].origin.page, m[0].origin.line, m[0].raw_text) in spans)


def _sent_to(premise: Any, idf: dict[str, float], where: str) -> dict[str, float]:
    """The keyword weights (``idf``) of ``premise``'s words that say where the document sent it
    (``where``: :func:`docintel.questions.parse.pointed_to`)."""
    from docintel.retrieval.region import keyword_weights
    from docintel.text import stems

    return {k: w for k, w in keyword_weights(premise, idf).items() if k in stems(where)}


def _names(mention: tuple, weights: dict[str, float]) -> bool:
    """Whether a mention's sentence (:func:`_mentions`) holds a word of ``weights`` (``_sent_to``)
    besides the pointer's own: "... (saver's credit). See the instructions for line 48 ..." for
    a premise sent to "the instructions for that credit"."""
    from docintel.text import held, stems

    ref, _, sentence, _ = mention
    return held(stems(sentence) - stems(ref.raw_text), weights) > 0


def _pointing_on(passages: list[Any], described: tuple, rank: dict[tuple, int], parsed: Any, weights: dict[str, float],
                 resolver: Any, attempted: set[tuple], amounts: tuple[float, ...]) -> list[PendingReference]:
    """The pointer on the page the premise describes (``passages``; ``described``: (doc, page))
    when the premise says the document sent it on from there: its sentence (when it only points,
    with the one before) names where (``weights``: :func:`_sent_to`) and its target holds another
    page the asked part or the whole question matches (``rank``: :func:`_ranks`, as
    :func:`_best_mention`). "The IRA deduction instructions in the 1040NR booklet say I might also
    get the saver's credit and send me to the instructions for that credit. Above what AGI ...?",
    with the IRA deduction page (p16) best for premise and asked part: p16's "... credit (saver's
    credit). See the instructions for line 48 beginning on page 20.", for p21 ranked second. []
    when none."""
    return _best_mention([m for m in _mentions(passages, resolver, attempted, amounts=amounts, lead_in=True) if _names(m, weights)],
                         rank, parsed, lambda ref, region, n: (region.doc_id, n) != described)


def _pointing_back(store: Any, cands: list[Any], loaded: dict[str, Any], premise: Any, weights: dict[str, float],
                   resolver: Any, attempted: set[tuple], amounts: tuple[float, ...]):
    """(the passages of a page the premise matches, its pointer) when the premise says the
    document sent the asker to the page it matches best (``cands``: the premise's ranking;
    ``loaded``: the lines it read; ``weights``: the premise's words saying where it was sent,
    :func:`_sent_to`): "... the filing instructions point me to the direct deposit
    instructions", and the 1040NR's direct deposit page (p24) is first for both. The
    first of the next PREMISE_PAGES pages of the premise's ranking, in that document, with a
    pointer whose target holds that page and whose sentence (when it only points, with the one
    before) holds a word of ``weights`` besides the pointer's own ("See Lines 72a through
    72d—Direct deposit of refund on page 24 for more details." on p4, ranked second); not a
    contents entry. None when none has one: 1040NR p19's "See the instructions for line 41 that
    begin on page 18 ..." says nothing of the worksheet "the Schedule A line 17 instructions send
    me to"."""
    from docintel.parsing.structure.lines import has_leader
    from docintel.retrieval import candidate_passages

    target = (cands[0].doc_id, cands[0].page_num)
    for c in cands[1:PREMISE_PAGES + 1]:
        if c.doc_id != target[0] or c.page_num == target[1] or c.doc_id not in loaded:
            continue
        rows = loaded[c.doc_id]
        rows = rows[rows["page_num"] == c.page_num].sort_values("line_num")
        listed = {int(n) for n, text in zip(rows["line_num"], rows["text"]) if has_leader(str(text))}
        marks = {int(n): v for n, v in zip(rows["line_num"], rows["set_as"]) if isinstance(v, str)}
        found = [(ref, region, sentence, span) for ref, region, sentence, span
                 in _mentions_in(c.doc_id, c.page_num, list(zip(rows["line_num"].astype(int), rows["text"].astype(str))),
                                 resolver, attempted, marks, amounts, lead_in=True)
                 if region.page_start <= target[1] <= region.page_end and ref.origin.line not in listed
                 and _names((ref, region, sentence, span), weights)]
        refs = _best_mention(found, {target: 0}, premise, lambda ref, region, n: True)
        if refs:
            at = [r.origin.line for r in refs]
            c = c.model_copy(update={"line_start": min([c.line_start or at[0], *at]), "line_end": max([c.line_end or at[0], *at])})
            return candidate_passages(store, [c], loaded, asked=premise.text), refs
    return None


def _swapped(one: list[Any], other: list[Any]) -> bool:
    """Whether two rankings (candidates) put the same two pages first, in opposite order."""
    def top(cands: list[Any]) -> list[tuple]:
        return [(c.doc_id, c.page_num) for c in cands[:2]]

    return len(one) > 1 and len(other) > 1 and top(one) == top(other)[::-1]


def _described_mention(passages: list[Any], mentions: list[Any], premise: Any, sent_for: str) -> list[PendingReference]:
    """The mention a premise describes when it says the page points on without naming where
    ("The 1040NR capital gain instructions say gains from disposing of US real property interests
    go on Schedule D and line 14, and refer me to another part"): one in, or in the sentence after,
    the sentence of ``passages`` that holds most of the premise's weight ("Gains and losses from
    disposing of U.S. real property interests are reported on Schedule D ... See Dispositions of
    U.S. Real Property Interests on page 6."), the parts the premise names left out (it read them;
    they are not where it was sent). Of several there, the one whose words up to the next hold
    most of what the premise says it was sent for (``sent_for``: "... points elsewhere for
    communications with incident response outsourcers" -> "see Section 2.4 for a discussion of
    communications involving incident response outsourcers", not "See Section 4 for ... outside
    parties"), else the first. [] when no sentence holds any of the premise, or no mention is there."""
    from docintel.retrieval.region import keyword_weights
    from docintel.text import folded, held, split_sentences, stems

    weights = keyword_weights(premise, premise.weights)
    best: tuple[float, int, set[int]] | None = None
    for p in passages:
        sentences = split_sentences([(ln.line_num, ln.text) for ln in p.lines], p.set_as())
        for i, (text, _) in enumerate(sentences):
            weight = held(stems(text), weights)
            if weight > 0 and (best is None or weight > best[0]):
                best = (weight, p.page, {n for _, nums in sentences[i:i + 2] for n in nums})
    if best is None:
        return []
    named = folded(premise.text)
    found = [(ref, sentence, span) for ref, _, sentence, span in mentions
             if ref.origin.page == best[1] and ref.origin.line in best[2] and folded(ref.raw_text) not in named]
    if not found:
        return []
    wanted = {k: w for k, w in weights.items() if k in stems(sent_for)}

    def clause(k: int) -> str:
        """The words of found[k]'s sentence from it up to the next mention in that sentence."""
        ref, sentence, _ = found[k]
        start = sentence.find(ref.raw_text)
        nxt = found[k + 1] if k + 1 < len(found) else None
        end = sentence.find(nxt[0].raw_text, start + 1) if nxt and nxt[1] == sentence else -1
        return sentence[start:end if end > start else len(sentence)]

    scores = [held(stems(clause(k)), wanted) for k in range(len(found))]
    span = found[scores.index(max(scores))][2]
    return [ref for ref, _, s in found if s == span]


def _unread(passages: list[Any]) -> Any:
    """``counts`` for :func:`_best_mention`: whether a target's page was not read in ``passages``.
    The first passage's page was read whole; a page read only for the lines a cut sentence runs
    on to (the next page) or from (the page before) was read down to those lines, so a part that
    starts below them was not (SP 800-63B p32 runs on to p33's first two lines, and p33's "5.1.7.2
    Single-Factor Cryptographic Device Verifiers" is what p32 points at). Measured on the 180 read golden questions: pass +1,
    answer checks +3, none lost."""
    bottom: dict[tuple, float | None] = {}
    for k, p in enumerate(passages):
        ys = [ln.y1 for ln in p.lines if ln.y1 is not None]
        bottom[(p.doc_id, p.page)] = max(ys) if k and ys else None  # None: read whole

    def counts(ref: Any, region: Any, n: int) -> bool:
        if (region.doc_id, n) not in bottom:
            return True
        below = bottom[(region.doc_id, n)]
        return below is not None and n == region.page_start and region.y_start is not None and region.y_start > below

    return counts


PREMISE_PAGES = 3
"""How far down the premise's own ranking the page it describes, holding the pointer the
question names, may sit."""


def _premise_named(store: Any, parsed: Any, doc_ids: list[str], resolver: Any, attempted: set[tuple]):
    """(the passages of the page the premise describes, the pointer(s) the question names as
    written there) when only the premise names them ("The overview of SP 800-61's structure says
    its Section 2 highlights other groups ... What would we need from human resources?") and one
    of the PREMISE_PAGES pages the premise alone matches best mentions them; None otherwise."""
    from docintel.questions import parse_question
    from docintel.retrieval import candidate_passages, retrieve
    from docintel.text import folded

    if not parsed.premise or not parsed.asked:
        return None
    asked, premise = folded(parsed.asked), folded(parsed.premise)
    names = {folded(r.raw_text) for r in parsed.pointers}
    if any(n in asked or n not in premise for n in names):
        return None  # "What does Section 7.3 say?": the question itself goes there

    loaded: dict[str, Any] = {}
    _, ranked, _, _ = retrieve(store, parse_question(parsed.premise, _named_pointers), doc_ids, top_k=PREMISE_PAGES,
                               loaded=loaded)
    for c in ranked[:PREMISE_PAGES]:
        # the page read alone, with the lines a page break cut: CSWP 29 p18's "[GV.SC] provide a
        # connection between outcomes that focus purely on cybersecurity and those that focus"
        # ends on p19, itself among the premise's pages
        source = candidate_passages(store, [c], loaded, asked=parsed.premise)
        refs = [ref for ref, _, _, _ in _mentions(source, resolver, attempted, amounts=money_amounts(parsed.text))
                if folded(ref.raw_text) in names]
        if refs:
            return source, refs[:len(names)]
    return None


ENTRY_CANDIDATES = 8
"""How far down the ranking (the rerank pool, ``RERANK_POOL``) a page may sit and still be the way
in to the best page it points at."""
ENTRY_CLOSE = 4
"""A page ranked this high is a way in by its pointer alone; one further down only where the
sentence holding the pointer is a near miss of the question (what a generator's lead must be):
"Appendix F discusses additional planning considerations for the development / acquisition
phase" on SP 800-64 page 9, ranked seventh, is; the overview's "Section 3 examines the
challenges inherent in performing patch management", ranked fifth for a question on keeping
patch logs, is not. Measured on the 180 read golden questions, from pages ranked 2-4 only: pass
97, pointer pass 52; from every page of the pool by its pointer alone: 97 and 54, two
unanswerable questions answered complete from such an overview; with this rule: 99 and 54,
none lost. The sentence is weighed as the generator weighs the question (``extractive.near_miss``):
weighed by bare idf, the premise's rare words and the document's name kept SP 800-64's
"Appendix F discusses ..." from being a near miss (read pass 100 -> 101, nothing lost)."""

_READ_ON = {RefType.section, RefType.page, RefType.clause}
"""Pointers a reader follows by reading on when the page they lead to is the next page."""


def _entry_pointer(candidates: list[Any], resolver: Any, attempted: set[tuple], parsed: Any, read: Any,
                   lines_of: Any):
    """(the passages of a candidate page ranked below the best one, its pointer) when that
    page points ahead at the best page ("The Tiers are described in Appendix B" on page 12, and
    Appendix B's page ranked first): the document's own way in, read with what it points at,
    so the answer says where the pointer was. A pointer back ("as discussed in Section 5.1.2")
    recaps and is no way in; nor is a section or page pointer when the best page is the next
    page (reading on gets there), nor a contents entry. ``read``: candidates -> their
    passages; ``lines_of``: (doc, page) -> the page's (line number, text), already read, to
    look for such a pointer before reading the page's passages. None when no page points there,
    or when the best page defines the term a definition question asks about ("What is an
    out-of-band authenticator?": SP 800-63B's "An out-of-band authenticator is a physical device
    ...", not the list on page 17 pointing at its section)."""
    from docintel.generation.extractive import near_miss
    from docintel.parsing.structure.lines import has_leader

    if not candidates or candidates[0].defines or _titled_term(candidates[0], parsed):
        return None  # the best page defines the term asked about, or its section is titled so: no way in is needed
    best = (candidates[0].doc_id, candidates[0].page_num)  # the first passage may be the page before's cut sentence
    listed: set[tuple[int, int]] = set()  # (page, line) of contents entries ("Appendix A— Summary ....A-1")
    amounts = money_amounts(parsed.text)

    def ahead(mentions: Any) -> Any:
        return ((ref, region, sentence, span) for ref, region, sentence, span in mentions
                if region.page_start > ref.origin.page and best[1] > ref.origin.page + (ref.ref_type in _READ_ON)
                and region.page_start <= best[1] <= region.page_end and (ref.origin.page, ref.origin.line) not in listed)

    for rank, c in enumerate(candidates[1:ENTRY_CANDIDATES], start=2):
        if c.doc_id != best[0] or c.page_num == best[1]:
            continue
        lines = lines_of(c.doc_id, c.page_num)
        listed |= {(c.page_num, num) for num, text in lines if has_leader(text)}
        if not any(ahead(_mentions_in(c.doc_id, c.page_num, lines, resolver, attempted, amounts=amounts))):
            continue
        source = read([c])
        listed |= {(p.page, ln.line_num) for p in source for ln in p.lines if has_leader(ln.text)}
        found = ahead(_mentions(source, resolver, attempted, amounts=amounts))
        if rank > ENTRY_CLOSE:
            found = [m for m in found if near_miss(m[2], parsed)]
        refs = _best_mention(found, {best: 0}, parsed, lambda ref, region, n: True)
        if refs:
            return source, refs
    return None


def _titled_term(candidate: Any, parsed: Any) -> bool:
    """Whether ``candidate``'s section is titled with the term a definition question asks about
    ("What does authentication intent mean?" and SP 800-63B's "5.2.9 Authentication Intent",
    which says what it is without a "means"): the section is what the term means, and a page
    pointing at it ("... SHOULD demonstrate authentication intent ... as discussed in Section
    5.2.9", whose AAL2 requirements were quoted first) is no way in."""
    from docintel.text import stems

    if not parsed.defines or not candidate.section:
        return False
    title = re.sub(r"^(?:[A-Z]|\d+)(?:[.\-]\d+)*\.?\s+(?=\S)", "", candidate.section.strip())
    return stems(title) == stems(parsed.defines)


def _closest(passages: list[Any], out: Any, resolver: Any, attempted: set[tuple],
             amounts: tuple[float, ...] = ()) -> list[PendingReference]:
    """The first mention in the passage the answer names as closest ("Not found ... Closest
    passage: 'Periodic reauthentication SHALL be performed as described in Section 7.2.'"):
    the question matches it best, and it says where the rest is ([] when it names nothing)."""
    cited = [c for c in out.citations if c.retrieved_via == RetrievedVia.primary]
    if not cited:
        return []
    found = list(_mentions(passages, resolver, attempted, cited, amounts))
    for ref, region, _, span in found:
        if not region.page_start <= ref.origin.page <= region.page_end:
            return [r for r, _, _, at in found if at == span]  # with the other parts its list names
    return []


def _found_nothing(out: Any) -> bool:
    """Whether a generator's answer says it found nothing ("Not found: ...", the form both
    generators give when the passages do not answer)."""
    return out.answer.lstrip().startswith("Not found")


def _near_tie(candidates: list[Any], k: int) -> bool:
    """Whether the page ranked after the ``k`` read scores within ``NEAR_TIE`` of the last of them,
    in the same document (pages of two documents are never quoted in one answer)."""
    if len(candidates) <= k:
        return False
    last, nxt = candidates[k - 1], candidates[k]
    return nxt.doc_id == last.doc_id and nxt.score >= last.score * (1 - NEAR_TIE)


def _runner_up(candidates: list[Any], have: list[Any], read: Any) -> list[Any]:
    """The primary passages (``read``: candidates -> passages) of the best-ranked candidate page
    not read yet (with the lines a page break cut), numbered after ``have``; [] when every
    candidate was read."""
    seen = {(p.doc_id, p.page) for p in have}
    nxt = next((c for c in candidates if (c.doc_id, c.page_num) not in seen), None)
    if nxt is None:
        return []
    first = 1 + len({p.passage_id.rstrip("az") for p in have})
    return [p for p in read([nxt], first=first) if (p.doc_id, p.page) not in seen]


def _in_named_documents(store: Any, pointers: list[PendingReference], doc_ids: list[str]) -> list[PendingReference]:
    """"Appendix A of SP 800-63B" in a question: followed only inside the document whose file
    name carries that name ("NIST.SP.800-63b.pdf"); with no such document it is an external
    pointer (named in the answer, never resolved against some other document's Appendix A)."""
    import re

    from docintel.questions import split_of

    files = {d: str(e.get("file_name") or "").lower() for d, e in store.manifest()["documents"].items()}
    out = []
    for p in pointers:
        part, name = split_of(p.raw_text)
        words = re.findall(r"[a-z0-9]+", name.lower())
        if p.ref_type == RefType.external or part is None or not words:
            out.append(p)
            continue
        # "SP 800-88" is NIST.SP.800-88r1.pdf (a revision), "SP 800-63" is not NIST.SP.800-63b.pdf
        rx = re.compile(r"(?<![a-z0-9])" + r"\W*".join(map(re.escape, words)) + r"(?:(?![a-z0-9])|(?=r(?:ev)?\d))")
        hits = [d for d in doc_ids if rx.search(files.get(d, ""))]
        if hits:
            out.append(p.model_copy(update={"doc_id": hits[0]}))
        else:
            out.append(PendingReference(raw_text=p.raw_text, ref_type=RefType.external, ref_target=p.raw_text))
    return out


def _dedupe(citations: list[Citation]) -> list[Citation]:
    """Drop repeated citations. A target the question itself named ("What does Table 1 say?") was
    reached without a pointer in any passage: it is the primary retrieval, cited as ``primary``
    (DESIGN.md: a ``reference`` citation always carries the ``referenced_from`` it was read at)."""
    seen, out = set(), []
    for c in citations:
        if c.retrieved_via == RetrievedVia.reference and c.referenced_from is None:
            c = c.model_copy(update={"retrieved_via": RetrievedVia.primary, "reference_text": None})
        k = (c.doc_id, c.page, c.line_start, c.line_end, c.retrieved_via, c.reference_text)
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def _llm_guess(generator: Any):
    """Adapt an LLM generator's ``guess`` to the resolver's LLMGuess callable (or None)."""
    guess = getattr(generator, "guess", None)
    if guess is None:
        return None

    def call(pointer: str, candidates: list[str], context: str):
        g = guess(pointer, candidates, context=context)
        return g.index, g.llm_calls, g.tokens.prompt, g.tokens.completion

    return call


def _finish(result: AskResult, trace: dict[str, Any], clock: _Clock, path: Path | None) -> AskResult:
    trace["result"] = result.to_json_dict()
    trace["total_ms"] = clock.total()
    if path is not None:
        from docintel.errors import DocintelError
        from docintel.store.atomic import write_bytes

        try:
            write_bytes(Path(path), json.dumps(trace, indent=2, default=str, ensure_ascii=False).encode())
        except OSError as e:
            raise DocintelError(f"could not write the trace to {path}: {e.strerror or e}; pass a writable --trace path") from None
    return result
