"""Question parsing: keywords, multi-word terms, pointers named in the question, answer shape,
document hints. Pure functions; pointer detection is passed in by the orchestrator."""

from __future__ import annotations

import re
from typing import Callable

from docintel.schemas.answers import PendingReference
from docintel.schemas.questions import AnswerShape, ParsedQuestion

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can cannot could couldn't did didn't do does doesn't doing don't down
    during each either few for from further get gets give given gives had hadn't has hasn't have haven't
    having he her here hers herself him himself his how however i if in into is isn't it it's its itself
    just let me more most must my myself no nor not now of off on once one ones only or other ought our ours
    ourselves out over own per please same she should shouldn't so some such tell than that that's the
    their theirs them themselves then there there's these they this those through to too under until up
    upon us very via was wasn't we were weren't what what's whats when where which while who whom whose why will
    with within without won't would wouldn't yes you your yours yourself yourselves
    according described define defined definition describe explain list lists name named say says said
    state stated show shows shown mean means meant meaning much many whether compare compared comparison
    doc pdf see sees
    exactly precisely really actually basically still already rather
    currently specifically particularly
    may might shall i'm i've i'd i'll we're we've we'd we'll you're you've you'd you'll they're they've
    they'd they'll he's she's let's can't won't
    thing things stuff like well
    something anything everything nothing someone anyone somebody anybody happen happens happened happening
    """.split()
)

# words that say something about the answer's shape but carry no topic
_SHAPE_WORDS = frozenset("similar similarly different differ differs better worse same versus vs".split())

_FRAME = re.compile(r"(?i)\b(?:looks?|looked|looking)\s+like\b|\b(?:as\s+a|on\s+the)\s+whole\b"
                    r"|\bas\s+(?:distinct|distinguished)\s+from\b|\bas\s+opposed\s+to\b")
"""A question frame ("what does X look like?" asks to describe X), idiom ("how secure the SOA
is as a whole") or phrase setting two things apart ("upgrades, as distinct from patches"): its
words are not the topic."""

_HOW_WORDS = frozenset("long often far large big small quickly soon old fast frequently early late".split())
_TOKEN = re.compile(r"[^\W\d_][\w\-']*[^\W_]|[^\W\d_]|\d+(?:_[^\W_]+)+|\d+(?:[.,]\d+)*(?:[a-z]{1,3}\b)?%?")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*(?:[a-z]{1,3})?%?$")
_DOC_HINT = re.compile(
    r"(?i)\b(?:in|from|of|per|under)\s+(?:the\s+)?(?P<name>[A-Za-z0-9][\w\-./]*(?:\s+[A-Za-z0-9][\w\-./]*){0,2})\s+"
    r"(?P<kind>paper|document|report|standard|publication|guide|guideline|spec|specification|pdf|contract|agreement"
    r"|addendum|policy|handbook|manual|framework)\b"
)

PointerFinder = Callable[[str], list[PendingReference]]

_OF = re.compile(r"\s*,?\s+of\s+(?:the\s+)?", re.I)


def split_of(raw: str) -> tuple[str | None, str]:
    """("Appendix A", "SP 800-63B") from "Appendix A of SP 800-63B"; (None, raw) without "of"."""
    m = _OF.search(raw)
    if not m or m.start() == 0:
        return None, raw
    return raw[: m.start()].strip(), raw[m.end():].strip().rstrip("?.!,;")


def tokens(text: str) -> list[str]:
    return [re.sub(r"'s$", "", t.strip("'")).lower() for t in _TOKEN.findall(text.replace("’", "'"))]


def _clauses(text: str) -> list[str]:
    """The sentences and colon/semicolon clauses ``text`` is set out in."""
    return [x for x in re.split(r"(?<=[.:;])\s+", text.strip()) if x]


def split_premise(text: str) -> tuple[str, str]:
    """(premise, asked): a question that sets a scene first ("We get thousands of alerts a
    day. What can handlers do ...?", "Legacy 802.11 has weak integrity: what is ...?") split
    before its last sentence or clause; ("", text) when it is one sentence. What the asked
    part sets aside first ("Apart from the reporter's details, what should ...?") is premise."""
    parts = _clauses(text)
    if len(parts) < 2 or not parts[-1].rstrip().endswith("?"):
        return set_aside(text)
    aside, asked = set_aside(parts[-1])
    return " ".join([*parts[:-1], aside]).strip(), asked


_SET_ASIDE = re.compile(r"(?i)^(?:besides|apart\s+from|aside\s+from|other\s+than|except(?:\s+for)?)\s+[^,?]+,\s*(?=\S)")
"""What an ask sets aside before it asks ("Besides checking the drives themselves, what does
verification expect ...?", "Apart from the reporter's details, what should ...?"): what it is
not asking about."""


def set_aside(ask: str) -> tuple[str, str]:
    """(what ``ask`` sets aside, the rest of it): ("", ask) when it sets nothing aside."""
    m = _SET_ASIDE.match(ask.strip())
    return ("", ask.strip()) if m is None else (m.group(0).strip().rstrip(","), ask.strip()[m.end():])


_POINTING = r"refers?|referred|points?|pointed|directs?|directed"
_SENDING = r"sends?|sent"
"""The verbs a document points the reader on with, in the tenses a premise reports them in
("points me to", "pointed me to", "refers readers to"), one list for every pattern below.
"send" stands apart: :func:`pointed_to` takes it only with whom it sends ("sends me to", not
"the form is sent to the IRS")."""

_REPORTED = re.compile(
    r"(?i)\b(?:sp|fips|nist|csf|guide|guidelines?|instructions|table|section|appendix|chapter|part|document"
    r"|publication|standard|overview|introduction|notes|list|log|errata|summary|figure|schedule|worksheet|page"
    r"|discussion|recommendations|requirements)\b[^.;:?]*?"
    r"\b(?:says?|said|tells?|told|states?|lists?|mentions?|" + _POINTING + "|" + _SENDING +
    r"|covers?|covered|describes?|described|defines?|defined|notes?|explains?|discuss(?:es)?"
    r"|has\s+an?\s+(?:section|table|chapter|part|appendix|list))\b"
)
"""A sentence that reports what the document or one of its parts says ("The Tax Table says to
check the line 41 instructions", "The legacy 802.11 guide has a section on threats and
vulnerabilities"); not one where the user says what they do ("We tell subscribers to ...")."""


def reported(premise: str) -> str:
    """The sentences of ``premise`` that report what the document says ("Before we wipe a batch
    of retired file servers, ... SP 800-88 says one of its sections covers roles and
    responsibilities." -> its last sentence); "" when none does."""
    return " ".join(s for s in _clauses(premise) if _REPORTED.search(s))


_POINTED_TO = re.compile(
    r"(?i)\b(?:" + _POINTING + "|" + _SENDING + r")\s+(?:me|us|you|readers?|the\s+reader)\s+"
    r"(?:on\s+)?(?:to|at)\b|\b(?:" + _POINTING + r")\s+(?:on\s+)?to(?=\s+(?:the|its|their|a|an)\b)"
)
"""A pointing verb and where it sends the reader ("the filing instructions point me to the direct
deposit instructions", "refers readers to its appendix on the 802.11 standards")."""


def pointed_to(premise: str) -> str | None:
    """When ``premise`` reports that the document sent the reader to one of its parts (a sentence
    of it that reports what the document says, :func:`reported`, holds a pointing verb and where
    it points), what it says of that part: the rest of that sentence ("... the filing instructions
    point me to the direct deposit instructions." -> "the direct deposit instructions"). None when
    it reports no such pointer."""
    report = reported(premise)
    m = _POINTED_TO.search(report)
    return None if m is None else _rest_of_sentence(report[m.end():])


def _rest_of_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence (a stop that a space or the end follows: not
    the one inside "802.11")."""
    return re.split(r"[.;?!](?=\s|$)", text, maxsplit=1)[0].strip()


_ELSEWHERE = re.compile(
    r"(?i)\b(?:" + _POINTING + "|" + _SENDING + r")\s+(?:(?:me|us|you|readers?)\s+)?"
    r"(?:to\s+)?(?:elsewhere|somewhere(?:\s+else)?|(?:another|other|an?\s+(?:later|earlier|different|separate|other))"
    r"\s+(?:[\w\-]+\s+){0,2}?(?:part|section|subsection|chapter|appendix|table|figure|schedule|worksheet|form"
    r"|page|line|item|paragraph|publication|document|guide|instructions|place|discussion)s?(?:'s)?)\b"
)
"""A premise sentence saying the document sends the reader on without naming where: a pointing
verb, then "elsewhere" or an unnamed part of a document ("another part", "a later section",
"another line's instructions"); not "refers to other incident response teams"."""


def elsewhere(premise: str) -> str | None:
    """When ``premise`` says the document points on without naming where ("... go on Schedule D
    and line 14, and refer me to another part of the instructions"), what it says of the part it
    was sent to: the rest of that sentence ("... points elsewhere for communications with incident
    response outsourcers." -> "for communications with incident response outsourcers"; "" when
    nothing). None when it reports no such pointer. The parts it does name are where the user
    read, not where the document sends them."""
    m = _ELSEWHERE.search(premise)
    return None if m is None else _rest_of_sentence(premise[m.end():])


_ASK_BREAK = re.compile(
    r"(?<=\?)\s+(?=\S)"  # "... guesses? And is there anything ...?"
    r"|,\s+(?:and\s+(?:also\s+)?|but\s+)(?=(?:how|what|which|when|where|who|why|whether|is|are|was|were|do|does|did"
    r"|can|could|should|must|will|would|may|has|have)\b"  # "..., and what extra requirements apply ...?"
    r"|(?:by|from|for|in|on|at|to|with|under|until|since|about)\s+(?:what|which|when|whom)\b)"  # "..., and by what date ...?"
    r"|\s+and\s+(?=(?:how|what|which|when|where|who|why)\b)",  # "... on Form 1040NR and how often ...?"
    re.I,
)
_ASK_LEAD = re.compile(r"(?i)^(?:and|also|but|so|then)\s+")
_AUX = r"(?:do|does|did|is|are|was|were|can|could|should|must|will|would|may|might|has|have)\b"
_QUESTION = rf"(?:(?:how|what|which|when|where|who|why)\b(?:\s+[\w'\-]+){{0,3}}?\s+{_AUX}|{_AUX})"
"""A clause that asks: a question word and its auxiliary ("which form do I", "how long must"),
or an auxiliary first ("is there")."""
_SERIAL_BREAK = re.compile(rf",\s+(?={_QUESTION})", re.I)
"""", which form do I use": the next question of a series ("From what level of tips does that
apply, which form do I use to figure the tax, and is there a penalty ...?"); not a relative
clause (", which the agency publishes")."""
_CLAUSE_ASKS = re.compile(rf"(?:^|,\s+)(?:(?:from|for|in|on|at|to|with|by|under|about)\s+)?{_QUESTION}", re.I)


def split_asks(asked: str) -> list[str]:
    """The questions one asked part holds: "How many attempts ...? And is there anything ...?"
    and "Does X have to be encrypted, and what extra requirements apply ...?" ask two things,
    each answered by its own sentences. Alternatives ("... for every drive, or can we ...?") are
    one question. A piece of fewer than three words stays with the one before it."""
    asks: list[str] = []
    for piece in [p for part in _ASK_BREAK.split(asked.strip()) for p in _series(part)]:
        piece = _ASK_LEAD.sub("", piece.strip())
        if not piece:
            continue
        if asks and len(piece.split()) < 3:
            asks[-1] = f"{asks[-1]} {piece}"
        else:
            asks.append(piece)
    return asks or [asked.strip()]


_LEAD_IN = re.compile(r",\s+(?:and|but)\s+(?=[^,]+$)", re.I)
"""", and besides checking the drives themselves": the last conjunction before a question of a
series, when what follows it sets the scene for that question."""


def _series(piece: str) -> list[str]:
    """``piece`` cut before each question of a series ("What does it do, how long must the nonce
    be, ..."): at a comma before a question word, when what comes before it since the last cut
    is itself a question ("In the middle of an incident, how much ...?" is one). A scene set
    after "and" belongs to the question it leads into ("Who should do that sampling, and
    besides checking the drives themselves, what does verification expect ...?"): the cut is
    at the "and"."""
    out, start = [], 0
    for m in _SERIAL_BREAK.finditer(piece):
        before = piece[start:m.start()]
        if _CLAUSE_ASKS.search(before.strip()):
            lead = _LEAD_IN.search(before)
            if lead and not _CLAUSE_ASKS.search(before[lead.end():].strip()) and _CLAUSE_ASKS.search(before[:lead.start()].strip()):
                out.append(before[:lead.start()])
                start += lead.end()
                continue
            out.append(before)
            start = m.end()
    return out + [piece[start:]]


def names_in(question: str) -> dict[str, str]:
    """lower-cased -> as written, of the capitalised words inside the question's sentences:
    names ("the Partial tier", "a resident of Germany"), never the word that starts a sentence."""
    return {w.lower(): w for w in re.findall(r"(?<=[\w,;)] )[A-Z][a-z][\w\-]*", question)}


def unknown_names(parsed: ParsedQuestion) -> list[str]:
    """The names ("Germany") and identifiers ("802.11ax") of the question that the answer's
    document never uses (``parsed.unused``): no quote from it is about them. So is the term a
    definition question asks about, when the document never uses a word of it ("What is residual
    risk according to FIPS 199?")."""
    unused = set(parsed.unused)
    names = names_in(parsed.text) | {k: k for k in unused if re.search(r"\d", k) and re.search(r"[a-z]", k)}
    out = sorted(names[k] for k in names.keys() & unused)
    if parsed.defines and unused & set(tokens(parsed.defines)):
        out.append(parsed.defines)
    return out


def part_of(parsed: ParsedQuestion, i: int) -> ParsedQuestion:
    """The question as asked by its i-th ask: the other asks join the premise (they say what
    the ask is about: "Which Categories sit under DETECT, and what identifiers do they have?"),
    and the answer's shape and focus come from the ask alone."""
    aside, ask = set_aside(parsed.asks[i])
    others = " ".join(a for j, a in enumerate(parsed.asks) if j != i)
    return parsed.model_copy(update={
        "premise": " ".join(x for x in (parsed.premise, aside, others) if x),
        "asked": ask,
        "asks": [ask],
        "shape": answer_shape(ask),
        "focus": _asked_focus(ask),
        "source": asks_source(ask),
    })


_BARE_TERM = re.compile(
    r"^what\s+(?:is|are)\s+(?!(?:the|this|that|these|those|its|their|your|our|my|his|her|it|there|they|we|you)\b)"
    r"(?![\w\-]+ed(?:\s+(?:of|for|to|by|in|from|with|on|at)\b|\s*\??$))"  # "What is required of the nonce?": what a rule requires
    r"[^\W\d_][\w\-/]*(?:\s+(?!(?:in|under|according|the|a|an|this|that)\b)[\w\-/]+){0,3}"
    r"(?:\s+(?:in|under|according\s+to)\s+(?:the\s+)?(?:[A-Z]{2,}|SP|FIPS|NIST|CSF)\b[^?]{0,20})?\s*\??$",
    re.I,
)
"""A question naming a term and nothing else ("What is cryptographic erase?", "What are
memorized secrets?"), but the document ("What is traffic analysis in SP 800-48?"): it asks what
the term means."""
_DEFINITION_FRAME = frozenset("refer refers stand stands term terms word phrase acronym abbreviation uses used explain".split())
"""Words of a definition question's frame ("What does the term X refer to?", "Define X as FIPS
199 uses the term.", "Explain what X is.")."""
_NAMED_TERM = re.compile(
    r"^(?i:what\s+(?:is|are)|what'?s)\s+the\s+[A-Z][\w\-]*[a-z][\w\-]*(?:\s+[A-Z][\w\-]*){1,3}\s*\??$"
)
""""What is the Spiral Model?": a name, each word capitalised, and nothing else asks what it is
(not "What is the minimum length?", a value, nor "What is the AAL?", read as any other term)."""
_WHATS = re.compile(r"(?i)\bwhat'?s\b")
""""What's a ...?", typed "Whats a POA&M": "what is"."""
_SCOPE_FIRST = re.compile(r"(?i)^(?:in|according\s+to|under|per)\s+[^,?]{1,40},\s*")
"""A document named before the question ("In SP 800-61, what is a precursor?")."""


def _as_definition_ask(q: str) -> str:
    """``q`` as the definition patterns read it: "what's" / "whats" as "what is", and without a
    document named first ("In SP 800-61, what's a precursor?" -> "what is a precursor?")."""
    return _SCOPE_FIRST.sub("", _WHATS.sub("what is", q.replace("’", "'")))


_DEFINIENDUM = re.compile(
    r"^(?:what\s+(?:is|are)\s+(?:meant\s+by\s+|the\s+(?:definition|meaning)\s+of\s+)?"
    r"|what\s+does\s+(?=.+\s+(?:mean|refer\s+to|stand\s+for)\b)|define\s+|(?:give\s+)?the\s+(?:definition|meaning)\s+of\s+"
    r"|explain\s+what\s+(?=.+\s+(?:is|are|means)\s*[?.!]*$))"
    r"(?:the\s+(?:term|word|phrase|acronym|abbreviation)\s+)?(?:(?:an?|the)\s+)?(?P<term>.+?)"
    r"(?:\s+(?:mean|means|refer\s+to|stand\s+for|is|are))?(?:\s+(?:in|according\s+to|under|as\s+used\s+in|as)\s+(?:the\s+)?(?:[A-Z]{2,}|SP|FIPS|NIST|this|that)\b.*)?"
    r"\s*[?.!]*$",
    re.I,
)


def defined_term(asked: str) -> str | None:
    """The term a definition question asks about: "What does purge mean in SP 800-88?" ->
    "purge", "What is a look-up secret?" -> "look-up secret"; None for any other question, or a
    term of more than four words (a definition is asked of a term, not of a clause)."""
    q = " ".join(asked.split())
    if answer_shape(q) != AnswerShape.definition:
        # "What is JAD and what is it for?": the ask that asks what a term means
        asks = split_asks(q)
        return next((t for a in asks for t in [defined_term(a)] if t), None) if len(asks) > 1 else None
    m = _DEFINIENDUM.match(_as_definition_ask(q))
    if m is None:
        return None
    term = " ".join(m.group("term").lower().split()).strip("\"'“”‘")
    return term if term and len(term.split()) <= 4 and re.search(r"[^\W\d_]", term) else None


def answer_shape(text: str) -> AnswerShape:
    """The shape of answer the asked part of ``text`` wants (its premise says nothing of it)."""
    asked = split_premise(text)[1].strip()
    q = asked.lower()
    first = q.split()[0] if q.split() else ""
    if re.search(r"\b(compare|comparison|versus|vs\.?|differ|difference|better|worse|higher|lower|more than|less than)\b", q):
        if first in {"is", "are", "do", "does", "did", "can", "could", "was", "were", "has", "have", "should", "will"}:
            return AnswerShape.yes_no
        return AnswerShape.comparison
    if first in {"is", "are", "do", "does", "did", "can", "could", "was", "were", "has", "have", "should", "will", "would", "must", "may"}:
        return AnswerShape.yes_no
    bare = _as_definition_ask(q)
    if re.match(r"^(what|who)\s+(is|are)\s+(a|an|the\s+definition|meant)\b", bare) \
            or re.search(r"\b(define|definition of|what does .+ (?:mean|refer to|stand for)|meaning of)\b", q) \
            or re.match(r"^explain\s+what\s+.+\s+(?:is|are|means)\s*[?.!]*$", bare) \
            or _BARE_TERM.match(bare) or _NAMED_TERM.match(asked):
        return AnswerShape.definition
    if re.match(r"^(list|enumerate|name)\b", q) or re.match(r"^(which|what)\s+(are|(?!(?:does|is|was|has)\b)\w+s)\b", q) or re.match(
        r"^(which|what)\s+(?:\S+\s+){1,3}?(?!(?:does|is|was|has|this|its)\b)[\w\-]+s\s+(?:can|could|should|must|do|does|did|are|were|have|might|may|would|will|exist)\b", q
    ):  # "Which existing data exchange standards could we use?"
        return AnswerShape.list
    if re.match(r"^(how\s+(many|much|long|often|large|big|small)|what\s+(is|was|are)\s+the\s+\w*\s*(value|number|score|rate|size|amount|limit|period|length|duration|percentage|count|minimum|maximum))", q) or re.search(r"\b(how many|how much|what percentage|what value|which value)\b", q):
        return AnswerShape.value
    if re.match(r"^what\s+(role|purpose|part)\b", q):  # "what role does SCAP play": a description
        return AnswerShape.other
    if first in {"what", "when", "how"}:
        return AnswerShape.value
    return AnswerShape.other


_FOCUS = re.compile(
    r"(?i)^\s*(?:what|which|whose)\s+(?:(?-i:[A-Z0-9])[\w.\-]*\s+){0,2}(?P<w>[^\W\d_][\w\-]*)\s+"
    r"(?:does|do|did|can|could|should|must|are|is|was|were|will|would|has|have|may|might)\b"
)
_NOT_FOCUS = frozenset(
    "is are was were do does did can could should would will must may has have the a an it this that these those "
    "kind kinds type types sort role roles purpose part".split()
)


def focus_word(text: str) -> str | None:
    """The noun a wh-question asks for: "What fine does ..." -> "fine"; None when unclear."""
    m = _FOCUS.match(text)
    if m:
        w = m.group("w").lower()
        if w not in _NOT_FOCUS and w not in STOP_WORDS:
            return w
    m = re.match(r"(?i)^\s*how\s+much\s+(?:does|do|did|will|would)\s+.{0,40}?\b(cost|charge|pay|fee)s?\b", text)
    if m:
        return m.group(1).lower()
    return None


_SOURCE = re.compile(
    r"(?i)\b(?:which|what|whose)\s+(?:[\w\-]+\s+){0,2}?(?:papers?|articles?|publications?|studies|study"
    r"|references?|sources?|citations?|(?:prior|previous|earlier|related|original)\s+works?)\b"
    r"|\bwho\s+(?:first\s+|originally\s+)?(?:proposed|introduced|invented|developed|devised|described|created)\b"
    r"|\b(?:cites?|cited|citing)\b"
    r"|\b(?:taken|borrowed|adopted|adapted|derived)\s+from\b"
    r"|\bwhere\s+(?:does|do|did)\b.{1,80}?\bcome\s+from\b"
    r"|\b(?:first|originally)\s+(?:proposed|introduced|described)\b"
)
"""An ask for where something comes from: "Which paper is the layer normalization taken from?",
"Who proposed label smoothing?", "What work does the model build on?"."""

_SOURCE_WORDS = frozenset(
    "paper papers work works article articles publication publications study studies reference references "
    "source sources citation citations cite cites cited citing proposed introduced invented developed devised "
    "created originally first taken borrowed adopted adapted derived come comes came describes introduces proposes".split()
)
"""Words of a source question that say what kind of answer it wants (a citation), not its topic."""


def asks_source(asked: str) -> bool:
    """True when ``asked`` asks where something comes from (see :data:`_SOURCE`)."""
    return bool(_SOURCE.search(asked))


def _asked_focus(asked: str) -> str | None:
    """The focus word of an ask, none for a source question's own ("Which paper ...?" asks for
    a citation, not for the word "paper")."""
    focus = focus_word(asked)
    return None if focus in _SOURCE_WORDS and asks_source(asked) else focus


def parse_question(text: str, find_pointers: PointerFinder | None = None) -> ParsedQuestion:
    """Take a question apart. ``find_pointers`` (from docintel.references) detects "in Table 3"."""
    text = " ".join(text.split())
    toks = tokens(_FRAME.sub(" ", text))
    keywords: list[str] = []
    for i, t in enumerate(toks):
        if t in STOP_WORDS or t in _SHAPE_WORDS or (len(t) < 2 and not t.isdigit()):
            continue
        if i > 0 and toks[i - 1] == "how" and t in _HOW_WORDS:  # "how long", "how often": the shape, not the topic
            continue
        if t not in keywords:
            keywords.append(t)
    hints: list[str] = []
    kinds: set[str] = set()
    for m in _DOC_HINT.finditer(text):
        words = [w for w in tokens(m.group("name")) if w not in STOP_WORDS]
        hints.extend(w for w in words if w not in hints)
        kinds.add(m.group("kind").lower())
    # multi-word terms: runs of 2-3 adjacent content words
    terms: list[str] = []
    run: list[str] = []
    for t in toks + [""]:
        if t and t not in STOP_WORDS and t not in _SHAPE_WORDS and not _NUMBER.match(t):
            run.append(t)
            continue
        if len(run) >= 2:
            for n in (3, 2):
                for i in range(0, len(run) - n + 1):
                    term = " ".join(run[i : i + n])
                    if term not in terms:
                        terms.append(term)
        run = []
    numbers = [t for t in toks if _NUMBER.match(t)]
    # words naming the document ("the Transformer paper") scope the search, not the page
    keywords = [k for k in keywords if k not in hints and k not in kinds] or keywords
    terms = [t for t in terms if not any(w in hints for w in t.split())]
    pointers = find_pointers(text) if find_pointers else []
    # an external name in a question ("in FIPS 199") names a document to look in, not a pointer;
    # "Appendix A of SP 800-63B" is a pointer into that document, which the corpus may hold
    for p in [p for p in pointers if p.ref_type.value == "external"]:
        part, named = split_of(p.raw_text)
        names = [p.raw_text]
        if part and find_pointers is not None:
            names = [q.raw_text for q in find_pointers(named) if q.ref_type.value == "external"] or [named]
            inner = [q for q in find_pointers(text.replace(p.raw_text, part, 1))
                     if q.ref_type.value != "external" and q.raw_text == part]
            # kept whole: the orchestrator follows it only inside the named document
            pointers.extend(q.model_copy(update={"raw_text": f"{part} of {names[0]}"}) for q in inner[:1])
        for name in names:
            hints.extend(w for w in tokens(name) if w not in hints)
    pointers = [p for p in pointers if p.ref_type.value != "external"]
    premise, asked = split_premise(text)
    source = asks_source(asked)
    asks = split_asks(asked)
    if source:  # "Which paper is X taken from?": the topic is X
        keywords = [k for k in keywords if k not in _SOURCE_WORDS] or keywords
        terms = [t for t in terms if not any(w in _SOURCE_WORDS for w in t.split())]
        # "Which optimizer was used, and which paper describes it?": a source ask with no topic
        # of its own asks for the source of the other ask's answer; the two are one question
        if any(asks_source(a) and not [t for t in tokens(a) if t not in STOP_WORDS and t not in _SOURCE_WORDS]
               for a in asks):
            asks = [asked]
    defines = defined_term(asked)
    if defines:  # "What does the term signature refer to?": the frame's words are no topic
        keywords = [k for k in keywords if k not in _DEFINITION_FRAME or k in tokens(defines)] or keywords
    return ParsedQuestion(
        text=text,
        keywords=keywords,
        terms=terms,
        numbers=numbers,
        pointers=pointers,
        shape=answer_shape(text),
        focus=_asked_focus(asked),
        doc_hints=hints,
        premise=premise,
        asked=asked,
        source=source,
        defines=defines,
        asks=asks,
    )
