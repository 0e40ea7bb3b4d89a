"""Word helpers shared by the bricks (questions, retrieval, generation): one stemmer, one word
pattern, one sentence splitter, so a keyword matches the same way in every brick.

Bricks do not import each other; they all import this module (it sits below them, with schemas).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Mapping

from docintel.glyphs import MARKS

SUFFIXES = (
    "ations",
    "ation",
    "ings",
    "ing",
    "ness",
    "ments",
    "ment",
    "ies",
    "es",
    "s",
    "ed",
    "al",
    "ly",
)
WORD = re.compile(r"(?:[A-Za-z0-9]+_)+[A-Za-z0-9]+|[A-Za-z][A-Za-z0-9\-]*|\d+(?:[.,]\d+)*")
"""A word: an identifier joined by underscores is one ("d_model", the drive cycle "2012_2"),
as a question's keywords read it (:mod:`docintel.questions.parse`)."""
SPLIT = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.[A-Z]\.)(?!(?<= al\.)\s+\((?:19|20)\d\d)[\"')\]]*\s+(?:\d{1,2}(?:\s+(?=[A-Z][a-z])|\s*\n\s*)|(?=[A-Z(\[\"']))|\s*\n\s*")
"""Sentence boundaries, and a newline (a heading or list item starts afresh). A footnote mark
after a full stop goes with the boundary ("... for more than 5 seconds. 6 Flight data ...").
"et al." before a year ends no sentence ("discussed in Tang et al. (2022) for ..."), nor does an
initialism ("See Dispositions of U.S. Real Property Interests on page 6.")."""


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude suffix stripper ("configurations" -> "configur"); keeps at least 4 letters. A
    word's double "s" is no plural: "access" is the stem of "accessed" and "accesses", not
    "acces" ("address", "process", "class", "guess" likewise)."""
    w = word.lower().strip("'")
    for suf in SUFFIXES:
        if suf == "s" and w.endswith("ss"):
            continue
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            w = w[: -len(suf)]
            break
        if (suf in _VERB_ENDINGS and w.endswith(suf) and len(w) - len(suf) == 3
                and w[1] in "aeiou" and w[2] not in "aeiouwxy"):
            return w[:3] + "e"  # "making" -> "make", "noted" -> "note", "based" -> "base"
    # "objective" and "objectives" (-> "objectiv"), "phase" and "phases": one stem
    w = w[:-1] if w.endswith("e") and len(w) > 4 else w
    # "authenticated", "authenticate" and "authentication" (-> "authentic"): one stem
    return w[:-2] if w.endswith("at") and len(w) >= 7 else w


_VERB_ENDINGS = frozenset({"ing", "ings", "ed"})
"""A 3-letter stem left by these is a verb that drops its e: "mak(e)ing"."""


def held(have: set[str], weights: dict[str, float]) -> float:
    """The question weight (stem -> weight) the stems ``have`` hold: the numerator of every
    coverage and sentence score. A hyphenated word counts as held by its parts (:func:`holds`)."""
    return sum(w for s, w in weights.items() if s in have or ("-" in s and holds(have, s)))


def holds(have: set[str], s: str) -> bool:
    """Whether the stems ``have`` hold stem ``s``. A hyphenated word of the question is held by
    its parts written apart too ("side-channel attacks" by SP 800-63B's "Side Channel Attack",
    "net-basis" by "net basis"). Written with the hyphen, the word is held as it is."""
    if s in have:
        return True
    parts = _hyphen_parts(s)
    return bool(parts) and all(p in have for p in parts)


@lru_cache(maxsize=4096)
def _hyphen_parts(s: str) -> tuple[str, ...]:
    return tuple(stem(p) for p in s.split("-") if p) if "-" in s else ()


def folded(text: str) -> str:
    """``text`` as compared case- and spacing-blind ("Section  2" and "section 2" are one)."""
    return " ".join(text.lower().split())


def stems(text: str, parts: bool = True) -> set[str]:
    """Stems of the words of ``text``; a hyphenated or underscored word also gives its parts
    ("work-arounds", "d_model") unless ``parts`` is False."""
    out = set()
    for w in WORD.findall(text):
        out.add(stem(w))
        if parts and ("-" in w or "_" in w):
            out.update(stem(part) for part in re.split(r"[-_]", w) if part)
    return out


_NOT_INITIALS = frozenset({"SHALL", "SHOULD", "MAY", "MUST", "NOT", "AND", "THE", "FOR", "ALL", "ANY", "NOR"})
"""Capitals that are words, not initials: SP 800-63B's "SHALL NOT", "MAY"."""


@lru_cache(maxsize=256)
def initials_of(terms: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """The question's multi-word terms by their initials: "HSA" -> the stems of "health savings
    account", "NDA" -> those of "non-disclosure agreement" (a hyphenated word gives an initial
    per part), "AP" -> those of "access point"."""
    out: dict[str, set[str]] = {}
    for term in terms:
        words = term.split()
        parts = [p for w in words for p in w.split("-") if p]
        if len(words) < 2 or not all(p.isalpha() for p in parts):
            continue
        letters = "".join(p[0] for p in parts).upper()
        if letters not in _NOT_INITIALS:
            out.setdefault(letters, set()).update(stem(w) for w in words)
    return {k: frozenset(v) for k, v in out.items()}


_INITIALS = re.compile(r"\b([A-Z]{2,6})s?\b")


def named_by_initials(text: str, initials: Mapping[str, frozenset[str]], shortest: int = 3) -> set[str]:
    """Stems of the terms ``text`` names by their initials (:func:`initials_of`), of ``shortest``
    letters or more: "... from your IRA to your HSA" holds "health savings account" for a
    question that spells it out. Scoring a sentence reads three letters or more ("IT" would
    stand for a question's "ira trustee"); whether an answer names a term at all reads two
    ("three APs" names "access points")."""
    if not initials:
        return set()
    out: set[str] = set()
    for a in _INITIALS.findall(text):
        if len(a) >= shortest:
            out |= initials.get(a, frozenset())
    return out


_LINKING = r"(?:(?:of|and|for|on|the|in)\s+)?"
"""Small words an acronym skips ("National Institute of Standards and Technology": NIST)."""
_FUNCTION_WORDS = "|".join(
    "the and for over with from into onto upon that this these those than then when where which while who whom whose "
    "are was were been being has have had its our your their his her not nor any all some each such out off".split())
"""Words of three letters or more that stand for no initial of an acronym spelled out in lower case."""


@lru_cache(maxsize=1024)
def _spelled(acronym: str, capitals: bool) -> re.Pattern[str]:
    if capitals:
        return re.compile(r"\b" + rf"\s+{_LINKING}".join(rf"{c}[a-z]+" for c in acronym.upper()) + r"\b")
    word = rf"(?!(?:{_FUNCTION_WORDS})\b)"  # "over the public" is no OTP
    return re.compile(r"(?i)\b" + rf"[\s\-]+{_LINKING}".join(rf"{word}{c}[a-z]{{2,}}" for c in acronym.upper()) + r"\b")


def spells_out(acronym: str, text: str, capitals: bool = True) -> bool:
    """Whether ``text`` spells out ``acronym``: words whose initials are its letters, small linking
    words between them ("the National Institute of Standards and Technology" for NIST). With
    ``capitals`` each word is capitalised; without, any case will do and a hyphen joins words
    ("one-time password" for OTP, "public switched telephone network" for PSTN), each word of
    three letters or more and none a function word, so that "of the past" and "over the public"
    are no OTP."""
    return bool(_spelled(acronym, capitals).search(text))


@lru_cache(maxsize=256)
def acronyms_in(question: str, shortest: int = 3) -> tuple[str, ...]:
    """The question's acronyms of ``shortest`` to six capitals ("OTP", "SDLC"), not words set in
    capitals ("SHALL")."""
    return tuple(dict.fromkeys(a for a in _INITIALS.findall(question) if len(a) >= shortest and a not in _NOT_INITIALS))


def spelled_out(text: str, acronyms: tuple[str, ...]) -> set[str]:
    """Stems of the question's acronyms ``text`` spells out, in any case (:func:`spells_out`):
    "a one-time password" holds a question's "OTP"."""
    return {stem(a) for a in acronyms if spells_out(a, text, capitals=False)}


_UNIT_SIGNS = ((re.compile(r"\$\s?\d"), "dollar"), (re.compile(r"\d\s?%"), "percent"), (re.compile(r"€\s?\d"), "euro"),
               (re.compile(r"£\s?\d"), "pound"))


def unit_stems(text: str) -> set[str]:
    """The units ``text`` writes by their sign beside a number: "a cost of over $100,000" names
    dollars, "5%" a percent. "What dollar figure ...?" is answered by "$100,000"."""
    return {unit for sign, unit in _UNIT_SIGNS if sign.search(text)}


def acronym_stems(text: str, terms: tuple[str, ...], question: str) -> set[str]:
    """What a sentence holds of the question through an acronym, either way round: a term the
    question spells out named by its initials ("your HSA"), an acronym the question uses spelled
    out ("a one-time password" for "OTP"). Every sentence score reads it."""
    return named_by_initials(text, initials_of(terms)) | spelled_out(text, acronyms_in(question))


_BULLET_GLYPHS = f"•●○◦▪■□{MARKS}\ue000-\uf8ff"
BULLET = re.compile(
    rf"^\s*(?:[{_BULLET_GLYPHS}\u2013\u2014*]|-\s|\(?[a-z0-9]{{1,2}}\)\s|\d{{1,2}}\.\s(?=[A-Z])|o(?:\s+(?=[A-Z0-9\"\u201c(\[])|\s*$))"
)
"""A list item's start; U+E000-U+F8FF are Symbol / Webdings glyphs ("\uf0b7", "\uf03c") that
PDFs set as bullets (Wingdings' are read as the marks they draw, "\u25aa", "\u2b25": see
``docintel.glyphs``). "2. SHALL be ..." is an item of a numbered list (its number is
not the end of the sentence before). A letter "o" before a capital is Word's second-level
bullet, set in Courier ("o GV.SC-06: Planning and due diligence ..."); before a lower-case word
it is no bullet."""
LONE_BULLET = re.compile(rf"^\s*(?:[{_BULLET_GLYPHS}]|o)\s*$")
"""A bullet set on a line of its own, its item on the next line."""
CAPTION_LINE = re.compile(r"^(?:Figure|Fig\.|Table|Exhibit)\s+[A-Z]?\d[\w.\-]*(?:[.:]|\s+[\-–—])\s+\S")
"""A caption set on its own line ("Figure 2-2. IEEE 802.11 Infrastructure Mode", SP 800-63B's
"Table 7-1 - AAL Reauthentication Requirements"): a heading, not the start of the sentence
below it."""
REFERENCE_ENTRY = re.compile(r"^\s*\[(\d{1,3})\]\s+(?=\S)")
"""A line that opens an entry of a numbered reference list: "[11] Kaiming He, Xiangyu Zhang, ..."."""
HEADING_NUM = re.compile(r"^(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)*)\.?$")


IDENTIFIER = re.compile(r"(?<![\w.\-])[A-Z]{2}\.[A-Z]{2}(?:-\d{1,3})?(?![\w\-]|\.\w)")
"""An outcome's identifier in a framework's core: CSF 2.0's Category "GV.SC" and Subcategory
"GV.SC-06" (CSF 1.1: "ID.AM-1"). Prose names one ("The Subcategories within the CSF C-SCRM
Category [GV.SC] provide a connection ...") where the core defines it ("Cybersecurity Supply
Chain Risk Management (GV.SC): ..."): a section pointer to that definition, which the resolver's
``identifier`` step reads to where the next one of its rank begins."""
_TITLE_WORDS = r"[A-Z][\w\-]*(?:\s+(?:[A-Z(][\w\-/),]*|and|of|the|to|for|in|on|or|with|by|from|at|into|within|between|through|a|an|&))*$"
TITLED = re.compile(rf"^{_TITLE_WORDS}")
"""A line of capitalised words ("Spiral Model", "Team Model Selection"): a heading's, not the
first words of a sentence wrapped in a narrow column ("You may have to pay an")."""
NUMBERED_HEADING = re.compile(rf"^(?:\d+(?:\.\d+)+|[A-Z](?:\.\d+)+)\s+{_TITLE_WORDS}")
"""A numbered heading of any length, its words capitalised ("2.3.4 Sharing Information With
Outside Parties"); not a line a sentence wraps onto ("2.4 GHz band, where ...")."""
_CAPITALS_HEADING = re.compile(r"^[^a-z.:;,]*[A-Z]{2,}[^a-z.:;,]*\s[^a-z.:;,]*[A-Z]{2,}[^a-z.:;,]*$")
"""A line of capitals, two words or more and no end punctuation ("ESTIMATED COSTS"); not one
word (1040NR's bold "CAUTION" label beside a sentence it sits in, an acronym list's "CSIRT")."""
_SENTENCE_END_IN = re.compile(r"[a-z]\.\s+[A-Z]")
"""A sentence ending inside a line ("Standard deduction. You cannot take"): no heading's words."""
_FINISHED = re.compile(r"[.!?:]\)?(?:\s*\d{1,2})?$")
"""A finished sentence, perhaps with a footnote mark after it ("... in this publication. 5")."""


def runs_on(text: str) -> bool:
    """Whether a line (or sentence) carries on the sentence before it: it opens with a lower-case
    letter and is no list item ("o GV.SC-05: ..." is a bullet, "continuously improving." runs on)."""
    t = text.lstrip()
    return t[:1].islower() and BULLET.match(t) is None


_MAX_TITLE_WORDS = 12
"""The most words a line of capitalised words set as a heading has (a numbered heading's too)."""


def is_heading(t: str, prev_text: str) -> bool:
    """A short line without end punctuation after a finished sentence ("5.3", "Optimizer"), or a
    numbered heading ("3.4.1 Software Inventory Management")."""
    t = t.strip()
    if t.endswith((".", ",", ";", ":", "-")) or _SENTENCE_END_IN.search(t):
        return False
    if NUMBERED_HEADING.match(t) and len(t.split()) <= _MAX_TITLE_WORDS:
        return True
    return len(t.split()) <= 5 and (
        not prev_text or _FINISHED.search(prev_text.rstrip()) is not None or HEADING_NUM.match(t) is not None
    )


def _set_as_heading(t: str) -> bool:
    """Whether a line its type sets apart as a heading (``"heading"``) is one wherever it stands,
    whatever ends before it: a line of capitals ("ESTIMATED COSTS"), or of two to
    _MAX_TITLE_WORDS capitalised words without end punctuation (FIPS 199's bold "Security
    Categorization Applied to Information Types" after "... threatening injuries.", the 1040NR's
    bold "Student Loan Interest Deduction" after "... within the United States;"). One word is
    none: the 1040NR's bold "CAUTION" label sits inside the sentence it stands beside, and an
    acronym list sets each acronym bold."""
    if _CAPITALS_HEADING.match(t) is not None:
        return True
    return 2 <= len(t.split()) <= _MAX_TITLE_WORDS and TITLED.match(t) is not None


def join_lines(lines: list[tuple[int, str]], set_as: Mapping[int, str] | None = None) -> tuple[str, list[tuple[int, int]]]:
    """Join ``(line_num, text)`` lines into running text (de-hyphenating; headings and list
    items on lines of their own), with the char offset where each line starts.

    ``set_as``: line_num -> how the line's type sets it among its neighbours, where the parse
    knows (:func:`docintel.retrieval.region.mark_type`). A short line set as ``"body"`` that the
    next line runs on is the start of a sentence wrapped in a narrow column ("Generally, you are
    considered a" | "resident alien if you meet ..."), not a heading, however short. A line of
    capitals or capitalised words set as ``"heading"`` is a heading wherever it stands
    (:func:`_set_as_heading`: "ESTIMATED COSTS" between two lines of one sentence). After a
    line set ``"beside"`` the line after it, the next cell of a table's row, starts afresh
    unless it runs on ("File integrity checking software" | "File integrity checking software
    can detect ...") or the line set beside it is a label ending in a colon ("1. Number of
    qualifying children:" | "X $1,000."). A line set ``"aside"`` (a margin icon's "CAUTION") is
    left out."""
    set_as = set_as or {}
    text = ""
    spans: list[tuple[int, int]] = []
    heading_open = False
    marker = False  # the line before was a bullet alone ("•" / "What percentage ...?")
    cell = False  # the line before was set beside this one
    box = False  # the line before was a row's box number, set after a line beside it
    kept = [(num, t.strip()) for num, t in lines if t.strip() and set_as.get(num) != "aside"]
    for i, (num, t) in enumerate(kept):
        wrapped = set_as.get(num) == "body" and i + 1 < len(kept) and runs_on(kept[i + 1][1])
        heading = not marker and ((is_heading(t, text) and (not wrapped or NUMBERED_HEADING.match(t) is not None)) or (
            heading_open and not wrapped and len(t.split()) <= 5 and not t.endswith(".") and not _SENTENCE_END_IN.search(t)
        ) or (CAPTION_LINE.match(t) is not None and not t.endswith(".")) or (
            set_as.get(num) == "heading" and _set_as_heading(t)))
        if marker:  # the item a lone bullet marks goes on its line
            text += " "
        elif (
            heading or heading_open or (BULLET.match(t) and not (t[:1].isdigit() and _TAKES_A_NUMBER.search(text)))
            or (cell and not runs_on(t)) or box
        ):  # a heading, a list item, a table's next cell or what follows a row's box number starts afresh
            text += "\n"
        elif (
            text.endswith("-")
            and t[:1].islower()
            and len(text) > 1
            and text[-2].isalpha()
        ):
            # "manage-/ment" is one word; "SCAP-/formatted", "800-/53" and a compound broken after
            # one of its hyphens ("peer-to-/peer") keep their hyphen
            word = re.search(r"(\w+)-$", text)
            if not (word and (any(c.isupper() for c in word.group(1)[1:]) or any(c.isdigit() for c in word.group(1))
                              or text[:word.start()].endswith("-"))):
                text = text[:-1]
        elif text:
            text += " "
        marker = LONE_BULLET.match(t) is not None
        heading_open = heading and not marker
        box = cell and _ITEM_NUMBER.match(t) is not None  # a worksheet row's last cell ("8."), its box number
        cell = set_as.get(num) == "beside" and not t.endswith(":")  # "Description:" | "When developing ..." is one
        spans.append((len(text), num))
        text += t
    return text, spans


_BARE_POINTER = re.compile(r"^\(?(?:see|refer\s+to|cf\.)\b", re.IGNORECASE)


def bare_pointer(text: str) -> bool:
    """A sentence that only sends the reader on ("(See Flightcrew Training section in this
    preamble for further information.)", "See Section 5.1.3.3."): it annotates the one before."""
    return bool(_BARE_POINTER.match(text.strip())) and len(text.split()) <= 15


def sentence_at(text: str, start: int, end: int, before: int = 0) -> str:
    """The sentence of running ``text`` (see ``join_lines``) that holds ``text[start:end]``, cut
    where ``split_sentences`` cuts (a sentence end, a footnote mark after it, a line break; a
    run-in heading is not joined to it here: the lines are gone); with the ``before`` sentences
    before it ("... credit (saver's credit). See the instructions for line 48 ..." for one)."""
    cuts = list(SPLIT.finditer(text))
    ends = [m.end() for m in cuts if m.end() <= start]
    a = ends[-1 - before] if len(ends) > before else 0
    b = min((m.start() for m in cuts if m.start() >= end), default=len(text))
    return text[a:b].strip()


def split_sentences(lines: list[tuple[int, str]], set_as: Mapping[int, str] | None = None) -> list[tuple[str, list[int]]]:
    """The sentences of the joined ``lines``, each with the line_nums it spans (``set_as``: see
    :func:`join_lines`)."""
    text, spans = join_lines(lines, set_as)
    out: list[tuple[str, list[int]]] = []
    starts = {off for off, _ in spans}  # where a line starts in ``text``
    set_as = set_as or {}
    order = [num for _, num in spans]
    # a row's last cell: the line after one set beside it (a worksheet step's box number "3.")
    last_cells = {num for prev, num in zip(order, order[1:]) if set_as.get(prev) == "beside"}
    pos = 0
    run_in = False
    for piece in SPLIT.split(text):
        start = text.find(piece, pos)
        end = start + len(piece)
        pos = end
        if not piece.strip():
            continue
        first = [n for off, n in spans if off <= start]
        nums = sorted(
            {n for off, n in spans if start <= off < end}
            | ({first[-1]} if first else set())
        )
        nums = nums or ([spans[0][1]] if spans else [0])
        if out and ((_ITEM_NUMBER.match(out[-1][0]) and out[-1][1][0] not in last_cells)
                    or (run_in and start not in starts)):
            # "1." opens the item it numbers (not a box number, the last cell of the row before:
            # "3." then step "4. Enter ..."); a run-in heading ("Standard deduction. You cannot
            # take the standard deduction ...") the sentence its line goes on with
            prev, prev_nums = out.pop()
            piece, nums = f"{prev} {piece.strip()}", sorted(set(prev_nums) | set(nums))
        out.append((piece.strip(), nums))
        run_in = start in starts and _RUN_IN_HEADING.match(piece.strip()) is not None
    return out


_TAKES_A_NUMBER = re.compile(r"(?i)\b(?:pages?|lines?|sections?|chapters?|tables?|figures?|steps?|box(?:es)?|items?|columns?|rows?|parts?|appendix|no\.)$")
"""A word a number follows ("... Worksheet on page" | "21. Use Form 8812 ..."): the number at the
next line's start ends its sentence, and numbers no list item."""
_ITEM_NUMBER = re.compile(r"^(?:\d{1,2}|[a-z])\.$")
"""A list item's number or letter, split from its text by the full stop after it ("c." |
"Electricity, natural gas, ...")."""
_RUN_IN_HEADING = re.compile(
    r"^(?!(?:It|This|That|These|Those|They|We|You|He|She|There|Here|See|Yes|No|Not)\b)"
    r"[A-Z][a-z]+(?:[ \-](?!(?:the|a|an|this|that|your|our|its|their|is|are|was|were)\b)[A-Za-z][a-z]*){0,3}\.$"
)
"""A heading a paragraph opens with on its first line ("Standard deduction.", "Head of
household.", "Joint return."): up to four words, the first capitalised, ending in a full stop;
no pronoun to start it, no article or verb "to be" in it ("It works.", "Use the column.")."""


def row_text(cells: list[tuple[str, str]]) -> str:
    """A table row as one sentence of "header: value" cells. A header repeated from the cell
    before (a title spanning the columns) is said once, and a label cell ending with a colon
    runs into its value: "Hard Copy Storage: Destroy: Destroy paper using ...", not
    "Hard Copy Storage: Destroy:; Hard Copy Storage: Destroy paper using ...". A header ending
    with a colon takes none more ("Volume servers in: Server closets")."""
    out = ""
    prev_header = None
    for header, value in cells:
        part = (f"{header} {value}" if header.endswith(":") else f"{header}: {value}") if header and header != prev_header else value
        if out:
            out += " " if out.rstrip().endswith(":") else "; "
        out += part
        prev_header = header or prev_header
    return out


# 1,000 / 1,000.5 / 25.70 / .5 / 10−9 (minus sign U+2212) / 3.5x / 25% / 100K / 17M
NUMBER = re.compile(
    r"(?<![\w.])"  # not glued to a word or another number
    r"([-+\u2212]?)"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?!\d)"
    r"([kKM](?![A-Za-z]))?"  # 100K steps, 17M sentences (not 5 MB, not 10 km)
)
SCALE = {"k": 1e3, "K": 1e3, "M": 1e6}


def normalise_number(text: str) -> float | None:
    """'1,000' -> 1000.0, '25.70' -> 25.7, '−3' -> -3.0, '100K' -> 100000.0; None if not a number."""
    m = NUMBER.fullmatch(text.strip())
    if not m:
        return None
    sign = -1.0 if m.group(1) in ("-", "\u2212") else 1.0
    return sign * float(m.group(2).replace(",", "")) * (SCALE[m.group(3)] if m.group(3) else 1.0)


_MONEY = r"[$€£]\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
"""A money amount: a number after a currency sign (the number is the group)."""
_AMOUNT = re.compile(_MONEY)


@lru_cache(maxsize=64)
def money_amounts(question: str) -> tuple[float, ...]:
    """The money amounts a question names ("taxable income ... is $8,000"): a number after a
    currency sign. Read once per question, not once per table row or page scored."""
    return tuple(v for v in (normalise_number(m.group(1)) for m in _AMOUNT.finditer(question)) if v is not None)


_AMOUNT_CONDITION = re.compile(
    rf"(?i)\b(less\s+than|under|below|not\s+(?:more|over)\s+than|up\s+to|more\s+than|over|above|greater\s+than"
    rf"|exceed(?:s|ing)?|at\s+least)\s+{_MONEY}|{_MONEY}\s+or\s+(more|greater|less|fewer)\b"
)
_AMOUNT_TEST = {"less": float.__lt__, "under": float.__lt__, "below": float.__lt__, "not": float.__le__,
                "up": float.__le__, "at": float.__ge__, "more": float.__gt__, "over": float.__gt__,
                "above": float.__gt__, "greater": float.__gt__, "exceed": float.__gt__}
"""x <op> limit, by the first word of a condition: "less than $100,000" (x < 100,000), "not more
than" (<=), "at least" (>=), "more than", "over", "exceeds" (>)."""
_OR_TEST = {"more": float.__ge__, "greater": float.__ge__, "less": float.__le__, "fewer": float.__le__}
"""x <op> limit of "$100,000 or more" (>=) and "$X or less" (<=)."""


def _amount_conditions(text: str):
    """(test, limit) of each condition ``text`` sets on an amount: "less than $100,000" (x <
    100,000), "$100,000 or more" (x >= 100,000)."""
    for m in _AMOUNT_CONDITION.finditer(text):
        if m.group(1):
            word = m.group(1).split()[0].lower()
            test, limit = _AMOUNT_TEST["exceed" if word.startswith("exceed") else word], normalise_number(m.group(2))
        else:
            test, limit = _OR_TEST[m.group(4).lower()], normalise_number(m.group(3))
        if limit is not None:
            yield test, limit


def amount_excluded(text: str, amounts: tuple[float, ...]) -> bool:
    """Whether a condition ``text`` sets on an amount ("If your taxable income (line 40) is less
    than $100,000, ...", "If your taxable income is $100,000 or more, ...") holds for none of
    ``amounts`` (the question's: "$71,420"): what the sentence goes on to say is for someone
    else. False when it sets none, or the question names no amount."""
    return bool(amounts) and any(not _met_by(amounts, test, limit) for test, limit in _amount_conditions(text))


def amount_met(text: str, amounts: tuple[float, ...]) -> bool:
    """Whether ``text`` sets a condition on an amount and one of ``amounts`` meets every one it
    sets: what the sentence goes on to say is for the asker ("If your taxable income (line 40)
    is less than $100,000, you must use the Tax Table ..." for "$71,420")."""
    conditions = list(_amount_conditions(text)) if amounts else []
    return bool(conditions) and all(_met_by(amounts, test, limit) for test, limit in conditions)


def _met_by(amounts: tuple[float, ...], test, limit: float) -> bool:
    """Whether one of ``amounts`` meets a condition (``test`` against ``limit``)."""
    return any(test(float(x), limit) for x in amounts)


def bracket_ranges(cells: list[tuple[str, str]]) -> list[tuple[int, float, float]]:
    """The ranges a row of a bracket table spans (a tax rate schedule's "7,650 | 10,450 |
    1,777.00 + 33%", a tax table's "14,000 | 14,050 | 1,713"), as (first cell, low, high): its
    first two cells, or those of a group of columns repeated side by side (which starts under
    the first column's header), when both are plain numbers, the first below the second, under
    two headers: "23,000 | 26,000 | 29,000", the thousands over each of three groups of a tax
    table's columns, all under "At least", is no range. (header, value) per cell."""
    if len(cells) < 2:
        return []
    values = [normalise_number(v.lstrip("$€£ ")) for _, v in cells]
    out = []
    for k in range(len(cells) - 1):
        if k and not (cells[k][0] and cells[k][0] == cells[0][0]):
            continue
        if cells[k][0] and cells[k + 1][0] == cells[k][0]:
            continue
        lo, hi = values[k], values[k + 1]
        if lo is not None and hi is not None and lo < hi:
            out.append((k, lo, hi))
    return out


def bracket_group(cells: list[tuple[str, str]], amounts: tuple[float, ...]) -> slice:
    """The cells of the group of columns whose range holds one of ``amounts``: a tax table sets
    three groups side by side ("25,300 | 25,350 | 3,408 | ... | 28,300 | 28,350 | 3,858 | ..."),
    and only the first answers "$25,320". The whole row when no range holds one."""
    ranges = bracket_ranges(cells)
    for i, (k, lo, hi) in enumerate(ranges):
        if any(lo <= x < hi for x in amounts):
            return slice(k, ranges[i + 1][0] if i + 1 < len(ranges) else len(cells))
    return slice(0, len(cells))


SUPERLATIVE = re.compile(
    r"(?i)(?<!at )\b(?:(?P<max>longest|highest|largest|biggest|greatest|most|maximum)"
    r"|(?P<min>shortest|lowest|smallest|fewest|least|minimum))\b(?!\s+of\b)(?P<what>(?:\s+[^\W\d_][\w\-]*){0,3})"
)
"""A question asking for a table's extreme row ("Which dataset has the longest summaries?"), and
the words after it that may name the column ("summaries"). "At least", "at most" and "most of"
ask no extreme."""


ASKS_WHICH = re.compile(r"(?i)(?:^\W*|[,;:]\s*)(?:which|what|who)\s+(?!is\b|are\b|was\b|were\b|does\b|do\b|did\b|can\b|should\b)[^\W\d_]")
"""A question asking which thing ("Which dataset has ...", "Of the models tested, which one
gives ..."), not for a value ("What's the most interest I can count?", "What is the maximum data
rate ...?")."""


def superlative(asked: str, which: bool = False) -> tuple[str, bool, set[str]] | None:
    """(the superlative, True for the highest, the stems of the words after it), or None; with
    ``which``, only in a question asking which thing (:data:`ASKS_WHICH`)."""
    m = SUPERLATIVE.search(asked)
    if m is None or which and not ASKS_WHICH.search(asked):
        return None
    return (m.group("max") or m.group("min")), bool(m.group("max")), stems(m.group("what") or "")


_DEFINITION_START = r"(?-i:An?|The|Any|To|[A-Z][a-z]+ing)\s"
"""A definition's first word: "A method of ...", "Any ...", "To reduce the magnetic flux ...",
"Ensuring timely and reliable access ..." (not a table row's "Degauss in ...", "See Destroy")."""

_HEADWORD_ENTRY = re.compile(rf"(?m)^[ \t]*(?-i:[A-Z])[^\W\d_]*(?:[ \t\-/][^\W\d_()]+){{0,4}}[ \t]*\n[ \t]*{_DEFINITION_START}")
"""A headword (up to five words, no number, no stop) on its own line over a line opening as a
definition does: "Degauss" over "To reduce the magnetic flux ..."."""

GLOSSARY_ENTRIES = 3
"""Headword entries (:data:`_HEADWORD_ENTRY`) that make a page a glossary, whose other entries
may open with a bare noun: SP 800-88's "Erasure" over "Process intended to render magnetically
stored information irretrievable ...", "Electronic Media" over "General term that refers to ..."."""


def _term_pattern(term: str) -> str:
    """A term as a pattern: its words apart or hyphenated, its last word singular or plural."""
    words = term.split()
    last = words[-1][:-1] if re.search(r"[^s]s$", words[-1]) else words[-1]  # "secrets", not "degauss"
    return r"[\s\-]+".join([*map(re.escape, words[:-1]), re.escape(last) + r"s?"])


@lru_cache(maxsize=256)
def _definition_of(term: str) -> re.Pattern[str]:
    words = term.split()
    t = _term_pattern(term)
    # the term opening a line or a sentence, after a bullet, an article and up to two words of its
    # own ("A computer security incident"), up to three words after it ("... authenticator",
    # "Revocation of an authenticator") and an aside
    # ("(CE)", "— commonly referred to as a password —")
    opening = (rf"(?:^|(?<=[.;!?]\s)|(?<=[.;!?]\s\s))[^\w\n]{{0,3}}(?:(?:an?|the)\s+)?(?:[^\W\d_]+[ \t]+){{0,2}}{t}"
               rf"(?:[ \t]+[^\W\d_]+){{0,3}}(?:\s*(?:\([^)\n]{{1,40}}\)|[—–][^—–]{{1,100}}[—–]))?")
    article = _DEFINITION_START
    return re.compile(
        rf"(?im){opening}(?:[ \t]*(?::|–|—|[ \t]-)[ \t]*{article}"  # "Target Data: The ..." ("Purge: Degauss ..." is a method)
        r"|\s+(?:is|are)\s+(?:an?|the|any|defined)\b|\s+are\s+[a-z]+s\s+(?:that|which|of|for|used)\b"  # "... are mappings that"
        r"|\s+(?:means|refers\s+to|denotes)\b)"
        # a list item's run-in term: "– Traffic analysis (also known as ...). The attacker ..."
        # (not a sentence's end: "... may support\nCryptographic Erase. Refer to ...")
        rf"|^[ \t]*[–—•·▪◦*\-][ \t]*{t}(?:\s*\([^)\n]{{1,40}}\))?\.[ \t]+(?-i:[A-Z])"
        # a glossary's headword, its definition on the next line ("Purge" over "A method of ..."; a
        # heading over its paragraph, "Purge" over "Some methods of purging ...", is none, nor is
        # a table's row label over its cell, "Purge:" over "The capabilities of Android devices ...")
        rf"|^{t}[ \t]*(?:\n[ \t]*\([^)\n]{{1,20}}\)[ \t]*)?\n[ \t]*{article}"  # ... its acronym between: "(COTS)"
        rf"|^{t}\s+{article}[a-z]"  # the two lines read as one sentence: "Purge A method of ..."
        # an acronym asked about, spelled out before it: "Computer Security Incident Response Team
        # (CSIRT): A capability set up ..."
        rf"|\({t}\)(?:[ \t]*(?::|–|—)[ \t]*{article}|\s+(?:is|are)\s+(?:an?|the)\b|[ \t]*\n[ \t]*{article})"
        # a sentence saying what one does: "1. A Current Profile specifies the Core outcomes ..."
        rf"|(?:^|(?<=[.;!?]\s)|(?<=[.;!?]\s\s))[^\w\n]{{0,4}}(?-i:An?)\s+{t}\s+[a-z]{{3,}}(?<!s)s\b"
        # ... or just spelled out, when it is one (up to six characters): "Security Information
        # and Event Management (SIEM) products are similar to IDPS products, but ..."
        + (rf"|(?-i:[A-Z][\w\-]*)(?:\s+(?:(?-i:[A-Z][\w\-]*)|and|of|for|the|in|on|to|&)){{1,8}}\s*\({t}\)"
           if len(words) == 1 and len(term) <= 6 else "")
    )


def defining(text: str, term: str, page: str | None = None) -> bool:
    """Whether ``text`` (a sentence, or a page's lines joined by newlines) defines ``term``: a
    glossary entry (the term alone on its line, the definition on the next: "Purge" over "A
    method of Sanitization ..."), or a line or sentence opening with the term and a defining word
    ("A look-up secret authenticator is a physical or electronic record ...", "Target Data: The
    information ...", "... means ..."). On a glossary page (``page``: the lines ``text`` is
    from, itself when None; :data:`GLOSSARY_ENTRIES`), the term alone on its line over a line
    opening with any capitalised word ("Erasure" over "Process intended to ...")."""
    term = " ".join(term.lower().split())
    if not term:
        return False
    if _definition_of(term).search(text) is not None:
        return True
    return (_bare_entry_of(term).search(text) is not None
            and len(_HEADWORD_ENTRY.findall(text if page is None else page)) >= GLOSSARY_ENTRIES)


@lru_cache(maxsize=256)
def _bare_entry_of(term: str) -> re.Pattern[str]:
    # on its own line, or read as one sentence with it ("Erasure Process intended to ...")
    return re.compile(rf"(?im)^[^\w\n]{{0,3}}{_term_pattern(term)}[ \t]*\n?[ \t]*(?-i:[A-Z][a-z]+)[ \t]+[a-z]")


def alike(a: str, b: str) -> bool:
    """Two stems of one word as :func:`stem` may leave them ("summar" for "summaries", "summary")."""
    return a == b or (min(len(a), len(b)) >= 5 and a[:5] == b[:5])


def names_column(header: str, words: set[str]) -> int:
    """How many of the stems ``words`` name a word of a column's ``header`` (:func:`alike`):
    the superlative's "summaries" names "|summary| (words)"."""
    hs = stems(header)
    return sum(any(alike(h, w) for h in hs) for w in words)
