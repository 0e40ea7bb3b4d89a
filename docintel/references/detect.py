"""Pointer detection: find "see Table 3 row (E)", "as defined in Section 7.2", "SP 800-53".

Pure functions of text. Internal pointers name a part of the same document (section, table,
figure, appendix, annex, schedule, exhibit, clause, equation, page, "the previous section", an
outcome's identifier such as CSF's "GV.SC-06");
external pointers name another document (ISO/IEC 27001 Annex A, SP 800-53, FIPS 200,
44 U.S.C. 3542) and are only ever named, never fetched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docintel.schemas.answers import PendingReference, RefType
from docintel.text import IDENTIFIER

# -- vocabulary ----------------------------------------------------------------------------

_TYPE_WORDS: list[tuple[RefType, str]] = [
    (RefType.section, r"sub-?sections?|sections?|secs?\.|§§?|chapters?|paragraphs?|para\."),
    (RefType.table, r"tables?|tab\.|charts?"),
    (RefType.figure, r"figures?|figs?\."),
    (RefType.appendix, r"appendix|appendices|app\."),
    (RefType.annex, r"annex(?:es)?"),
    (RefType.schedule, r"schedules?"),
    (RefType.exhibit, r"exhibits?"),
    (RefType.clause, r"clauses?|articles?"),
    (RefType.equation, r"equations?|eqs?\.|eqn\.?"),
    (RefType.page, r"pages?|pp?\."),
]
_TYPE_OF_WORD = [(t, re.compile(rf"^(?:{w})$", re.IGNORECASE)) for t, w in _TYPE_WORDS]

# an id: 3 | 3.2.2 | 7.2(b) | A | A.1 | A-1 | 2-1 | IV | D-3a
_ID = r"(?:[A-Z]{1,2}[.\-]?\d+(?:[.\-]\d+)*[a-z]?|\d+(?:[.\-]\d+)*[a-z]?(?:\([a-z0-9]{1,3}\))?|[A-Z](?![A-Za-z])|[IVXL]{1,5}(?![A-Za-z])|[ivxl]{1,5}(?![A-Za-z]))"
_SUB = r"(?:\s*,?\s*(?:(?:rows?|lines?|items?|entry|entries)\s+\(?(?P<sub>[A-Za-z0-9]{1,6})\)?(?![A-Za-z0-9])|\((?P<sub2>[a-z0-9]{1,3})\)))"
_TYPES = "|".join(w for _, w in _TYPE_WORDS)
_INTERNAL = re.compile(
    rf"(?<![A-Za-z])(?P<word>(?i:{_TYPES}))\s*(?P<id>{_ID})(?P<more>(?:\s*(?:,?\s*(?:and|or)|,|&|to|through|-|–)\s*{_ID}(?![.\-]?\d))*){_SUB}?"
)
_ROW_FIRST = re.compile(
    rf"(?<![A-Za-z])(?i:rows?)\s+\(?(?P<sub>[A-Za-z0-9]{{1,6}})\)?\s+(?i:of|in)\s+(?:the\s+)?(?P<word>(?i:tables?|tab\.))\s*(?P<id>{_ID})"
)
_ROW_POSITION = re.compile(
    rf"(?i)\b(?:the\s+)?(?P<pos>bottom|last|final|top|first)\s+(?:line|row|entry)\s+(?:of|in)\s+(?:the\s+)?"
    rf"(?P<word>tables?|tab\.)\s*(?P<id>(?-i:{_ID}))"
)
_RELATIVE = re.compile(
    r"(?i)\bthe\s+(?P<dir>previous|preceding|prior|next|following|subsequent)\s+(?P<word>section|chapter|table|chart|figure)"
    r"|\bthe\s+(?P<word2>table|chart|figure)\s+(?P<dir2>below|above|on\s+this\s+page)\b"
)
"""A part named by where it sits from the mention: "the previous section", "the following
table", "the chart below" (next), "the table above" (previous), "the chart on this page" (here)."""
_TRIGGER = re.compile(
    r"(?i)(?:\bsee(?:\s+also)?|\bcf\.?|\bper|\bas\s+per|\bdefined\s+in|\bdescribed\s+in|\bin\s+accordance\s+with"
    r"|\bsubject\s+to|\bset\s+(?:out|forth)\s+in|\bstated\s+in|\bshown\s+in|\blisted\s+in|\bspecified\s+in"
    r"|\bgiven\s+in|\bprovided\s+in|\brefer\s+to|\breferenced\s+in|\bpursuant\s+to|\bunder|\bnoted\s+in"
    r"|\bdetailed\s+in|\bfound\s+in|\bsummari[sz]ed\s+in|\breported\s+in|\bpresented\s+in|\bin|\bof|\bfrom|\bby|\bfor)"
    r"(?:\s+(?:the|this|that|our))?\s*[(\[]?\s*$"
)

_EXTERNAL = [
    re.compile(r"\bISO(?:/IEC)?(?:/IEEE)?\s*\d{3,5}(?:-\d+)*(?::\d{4})?(?:\s*,?\s*Annex\s+[A-Z](?![A-Za-z]))?"),
    re.compile(
        r"(?:\b(?i:nist)\s+)?(?:\b(?i:sp)|\bSpecial\s+Publication)\s*\d{3}-\d{1,3}[A-Za-z]?(?:\s*(?:Rev(?:ision)?\.?|r)\s*\d+)?(?:\s*Vol(?:ume)?\.?\s*\d+)?"
    ),  # "sp 800-48" as users type it names the document as "SP 800-48" does
    re.compile(r"\b(?i:fips)(?:\s+PUB(?:LICATION)?)?\s*\d{2,3}(?:-\d+)?"),
    re.compile(r"\[?\b\d{1,2}\s+U\.\s?S\.\s?C\.?,?\s*(?:(?i:sec(?:tion)?s?)\.?|§§?)?\s*\d+[a-z]?(?:\([a-z0-9]+\))*\]?"),
    re.compile(r"\b\d{1,2}\s+C\.?F\.?R\.?\s*(?:(?i:part)\s*)?\d+(?:\.\d+)?"),
    re.compile(r"\bOMB\s+(?:Circular|Memorandum|M)\s*[A-Z]?-?\d+(?:-\d+)?"),
    re.compile(r"\bRFC\s*\d{3,5}"),
    re.compile(r"\bPublic\s+Law\s+(?:\(P\.\s?L\.\)\s*)?\d+-\d+|\bP\.\s?L\.\s*\d+-\d+"),
    re.compile(r"\bNISTIR\s*\d{4}"),
]


_POINTS_VERB = re.compile(
    r"\s+(?:below\s+|above\s+)?(?:[a-z]+ly\s+)?(?:lists|shows|provides|summari[sz]es|contains|gives|presents|describes"
    r"|defines|illustrates|depicts|specifies|details|sets\s+out|identifies|discusses|covers|explains|outlines"
    r"|addresses|highlights|examines|explores|introduces|reviews|includes)\b"
)
_OF_EXTERNAL = re.compile(
    r"\s*,?\s+of\s+(?:the\s+)?(?:(?:NIST\s+)?(?:SP|Special\s+Publication|FIPS|ISO|NISTIR|RFC|OMB)\b[^,;.()]{0,40}"
    r"|(?:[A-Z][\w\-]*\s+){1,8}(?:Act|Law|Code|Regulation|Directive|Standard|Framework)\b(?:\s+of\s+\d{4})?)"
)

_OF_FORM = re.compile(r"\s+of\s+(?:the\s+)?(?:Form|Schedule)\s+[A-Z0-9][\w\-]*")
"""What a page pointer narrows to a form ("on page 4 of Form 1040NR"): the form's page, another
document than the instructions that say it."""


FORM_LINE_ID = r"\d{1,3}[a-z]?"
"""A form line's number: "55", "16a"."""
FORM_LINE_TARGET = re.compile(rf"(?i)line ({FORM_LINE_ID})")
"""The target detection writes for a form line's instructions: "line 55", "line 16a"."""
_FORM_LINE_ID = rf"{FORM_LINE_ID}(?![\w.\-]\d)"
_FORM_LINE = re.compile(
    rf"(?i)\binstructions\s+for\s+(?:the\s+)?(?P<word>lines?)\s+(?P<id>{_FORM_LINE_ID})"
    rf"(?P<more>(?:\s*(?:,|,?\s*and|,?\s*or|through)\s*{_FORM_LINE_ID})*)"
    r"(?P<where>\s*,?\s*(?:(?:that\s+|which\s+)?begins?\s+|beginning\s+|starting\s+)?on\s+(?:this\s+page|page\s+\d{1,3}))?"
)
"""A form line's instructions: "see the instructions for line 55 on page 22", "described in the
instructions for line 39". Tax and benefit form instructions are cut by line ("Line
55\u2014Additional tax on IRAs ..."), and say which line's part they mean, with or without the
page it begins on. Its target is "line 55". Like a bare page mention ("on page 22"), it is a
mention the loop may follow by its own choice (the premise's page, the way in, a linked or the
closest mention), not a pointer the generator flags: flagged, it was followed from a
worksheet's "(see the instructions for line 34 on this page)" and back to a definition, and two
golden answers got worse. A question's "the line 47 instructions tell me ..." is not read as
one: it says where the premise was read, which retrieval finds by its words (as a pointer named
in the question, that part was read as a reference and the worksheet it sends to was lost)."""

_ON_PAGE = re.compile(r"(?i)\bon\s+(?:(?P<this>this\s+page)|page\s+(?P<page>\d{1,3}))\s*$")


def form_line_page(raw_text: str, origin_page: int | None = None) -> int | None:
    """The page a form line's instructions begin on, as its pointer says ("... for line 55 on
    page 22": 22; "... on this page": ``origin_page``); None when it does not say."""
    m = _ON_PAGE.search(raw_text)
    if not m:
        return None
    return origin_page if m.group("this") else int(m.group("page"))


_SPECIFICALLY = re.compile(r"(?i)(?:specifically|in\s+particular|particularly|especially|namely)\s*[,:\u2014\u2013-]?\s*(?:in\s+|see\s+)?$")


def _named_before(text: str, start: int, found: list["Mention"]) -> "Mention | None":
    """The external document a part mentioned at ``start`` belongs to when the sentence named it
    just before and narrows it down ("See NIST SP 800-125, Guide to ..., for additional
    information\u2014specifically, Section 3.3 discusses ..."); None otherwise."""
    if not _SPECIFICALLY.search(text[max(0, start - 40):start]):
        return None
    ext = [f for f in found if f.ref.ref_type == RefType.external and f.end <= start
           and not re.search(r"[.;!?]\s", text[f.end:start])]
    return max(ext, key=lambda f: f.end) if ext else None


@dataclass
class Mention:
    """One pointer found in a text, with its character span."""

    ref: PendingReference
    start: int
    end: int
    triggered: bool


def _external(raw: str, start: int, end: int) -> Mention:
    """A mention of another document's part ("SP 800-53", "Section 3 of SP 800-124"): always a
    pointer, never resolved here."""
    return Mention(PendingReference(raw_text=raw, ref_type=RefType.external, ref_target=raw), start, end, True)


def ref_type_of(word: str) -> RefType:
    w = word.strip().lower()
    for t, rx in _TYPE_OF_WORD:
        if rx.match(w):
            return t
    return RefType.other


def _norm_id(raw: str) -> str:
    return raw.strip().rstrip(".")


def _clean_sub(sub: str | None) -> str | None:
    if not sub:
        return None
    return sub.strip("() ")


_LEVEL = r"[a-z]{1,2}|\d{1,2}"
_DESIGNATOR = rf"\((?:{_LEVEL})\)"
DESIGNATOR = re.compile(rf"\(({_LEVEL})\)")
"""One level of a rule's paragraph number: "(q)", "(1)", "(ii)" (the group is its letters)."""


def is_designator(target: str) -> bool:
    """A rule's paragraph number: "(q)", "(q)(1)", "(p)(4)(ii)"."""
    chain = DESIGNATOR.findall(target)
    return bool(chain) and "".join(f"({d})" for d in chain) == target

_PARAGRAPH = re.compile(
    rf"(?<![A-Za-z])(?P<word>(?i:paragraphs?|para\.))\s*(?P<id>{_DESIGNATOR}(?:{_DESIGNATOR}){{0,3}})"
    rf"(?P<more>(?:\s*(?:,?\s*(?:and|or)|,|through)\s*{_DESIGNATOR}(?:{_DESIGNATOR}){{0,3}})*)"
    r"(?P<of>\s+of\s+(?!this\b)\S+)?"
)
"""A rule's lettered paragraph: "paragraph (q)(1) of this AD", "paragraphs (g) and (h)". Followed by
"of" something other than "this ..." it is another text's ("paragraph (c) of 14 CFR 39.5")."""

_PART_OF_PARAGRAPH = re.compile(r"(?i)\b(?:figures?|tables?)\s+\d+(?:\s+(?:through|to|and)\s+\d+)?\s+to\s+$")
"""What names a figure by the paragraph it belongs to: "figure 10 to " paragraph (i)."""

_TITLE_WORD = r"(?:[A-Z][A-Za-z'\u2019\-]*|\([A-Z]{2,}\))"
_NAMED = re.compile(
    rf"(?P<title>{_TITLE_WORD}(?:\s+(?:(?:of|and|the|to|for|in|on|or|with|by|&)\s+)?{_TITLE_WORD}){{0,7}})"
    r"\s+(?P<word>section|subsection|heading)(?![\w\-])(?!\s*(?:\d|[A-Z](?![a-z])|\u00a7))"
)
"""A part named by its heading: "(See Flightcrew Training section in this preamble ...)", "by the
means identified in the ADDRESSES section". The title is the run of capitalised words before
"section" ("as described in the Verify Methods subsection"); a sentence's first word or a
trigger ("See", "The", "This") is not part of it. Plural
"the AAL sections" names several parts by what they share, not one heading's title."""

_NOT_TITLE = frozenset(
    "see also refer under in the this that these those every our its their a an next previous following "
    "preceding same other any which first last new entire whole per as for from by of and or to what where "
    "when how why each another such one both all subsequent later earlier above below remaining relevant "
    "corresponding appropriate several various two three".split()
)


def _named_title(raw: str) -> str | None:
    """The heading title in a :data:`_NAMED` match, without leading triggers and determiners;
    None when nothing is left or the "title" is a part type ("Appendix section")."""
    words = raw.split()
    if words and words[-1].lower() in _NOT_TITLE and not words[-1].isupper():
        return None  # "... Levels This section describes": "this section", after a heading
    while words and ((words[0].lower() in _NOT_TITLE and not (words[0].isupper() and len(words[0]) > 1)) or words[0].islower()):
        words.pop(0)
    if not words or ref_type_of(words[0]) != RefType.other or words[-1].islower():
        return None
    return " ".join(words)


def find_mentions(text: str) -> list[Mention]:
    """Every pointer-like mention in ``text`` (external first, then internal), no overlaps."""
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for rx in _EXTERNAL:
        for m in rx.finditer(text):
            if not free(m.start(), m.end()):
                continue
            raw = m.group(0).strip().strip("[]").strip()
            taken.append((m.start(), m.end()))
            found.append(_external(raw, m.start(), m.end()))
    for m in _ROW_FIRST.finditer(text):
        if not free(m.start(), m.end()):
            continue
        taken.append((m.start(), m.end()))
        ref = PendingReference(
            raw_text=m.group(0).strip(),
            ref_type=RefType.table,
            ref_target=_norm_id(m.group("id")),
            sub_selector=_clean_sub(m.group("sub")),
        )
        found.append(Mention(ref, m.start(), m.end(), _triggered(text, m.start())))
    for m in _ROW_POSITION.finditer(text):
        if not free(m.start(), m.end()):
            continue
        taken.append((m.start(), m.end()))
        pos = "last" if m.group("pos").lower() in ("bottom", "last", "final") else "first"
        ref = PendingReference(raw_text=m.group(0).strip(), ref_type=RefType.table, ref_target=_norm_id(m.group("id")),
                               sub_selector=pos)
        found.append(Mention(ref, m.start(), m.end(), _triggered(text, m.start()) or True))
    for m in _PARAGRAPH.finditer(text):
        if not free(m.start(), m.end()):
            continue
        taken.append((m.start(), m.end()))
        if m.group("of"):  # "paragraph (c) of 14 CFR 39.5": another text's paragraph
            found.append(_external(m.group(0).strip().rstrip(".,;"), m.start(), m.end()))
            continue
        first = re.findall(_DESIGNATOR, m.group("id"))
        # "figure 10 to paragraph (i) of this AD": the figure is the paragraph's, reached through it
        part = _PART_OF_PARAGRAPH.search(text, max(0, m.start() - 40), m.start())
        start = part.start() if part and free(part.start(), m.start()) else m.start()
        taken[-1] = (start, m.end())
        ids = [m.group("id")]
        for other in re.findall(rf"{_DESIGNATOR}(?:{_DESIGNATOR}){{0,3}}", m.group("more") or ""):
            # "paragraphs (h)(1) through (10)": the second names (h)(10)
            own = re.findall(_DESIGNATOR, other)
            ids.append("".join(first[: max(0, len(first) - len(own))] + own))
        for ident in dict.fromkeys(ids):
            lead = text[start:m.start()] if start < m.start() and len(ids) == 1 else ""
            ref = PendingReference(raw_text=f"{lead}paragraph {ident}", ref_type=RefType.section, ref_target=ident)
            found.append(Mention(ref, start, m.end(), True))
    for m in _FORM_LINE.finditer(text):
        if not free(m.start(), m.end()):
            continue
        if _OF_FORM.match(text, m.end()):
            continue  # "the instructions for line 7 of Form 1116": another form's
        taken.append((m.start(), m.end()))
        # "the instructions for lines 16a and 16b": one part, headed "Lines 16a and 16b\u2014IRA ..."
        ref = PendingReference(raw_text=m.group(0).strip().rstrip(".,;"), ref_type=RefType.section,
                               ref_target=f"line {m.group('id').lower()}")
        found.append(Mention(ref, m.start(), m.end(), False))  # see _FORM_LINE: never flagged
    for m in _NAMED.finditer(text):
        title = _named_title(m.group("title"))
        start = m.start("title") + m.group("title").rfind(title) if title else m.start()
        if title is None or not free(start, m.end()):
            continue
        taken.append((start, m.end()))
        ref = PendingReference(raw_text=f"{title} {m.group('word').lower()}", ref_type=RefType.section, ref_target=title)
        found.append(Mention(ref, start, m.end(), True))
    for m in _INTERNAL.finditer(text):
        if not free(m.start(), m.end()):
            continue
        word = m.group("word")
        rtype = ref_type_of(word)
        ident = _norm_id(m.group("id"))
        if rtype == RefType.page and not re.match(r"^(?:\d+|[ivxlc]+|[A-Z]-\d+)$", ident):
            continue
        if rtype == RefType.section and word.lower().startswith("para") and not ident[:1].isdigit():
            continue
        if rtype == RefType.section and _STATUTE_ID.match(ident):
            # "section 401(k)(11)", "section 403(b)", "section 1441": a tax-code or statute
            # section, not a part of this document (its own sections are numbered 7.2, 7.2(b))
            raw = m.group(0).strip().rstrip(".,;")
            taken.append((m.start(), m.end()))
            found.append(_external(raw, m.start(), m.end()))
            continue
        if ident in {"I"} and rtype not in (RefType.appendix, RefType.annex, RefType.schedule, RefType.exhibit):
            continue  # "Table I" is rare, "in section I" mostly prose
        sub = _clean_sub(m.group("sub") or m.group("sub2"))
        titled = False
        if rtype == RefType.page and sub is None:
            sub = _page_subject(text, m.start())
            titled = sub is not None  # "use the Tax Table that begins on page 34": a reader turns there
        raw = m.group(0).strip().rstrip(".,;")
        trig = titled or _triggered(text, m.start()) or _parenthesised(text, m.start()) or bool(_POINTS_VERB.match(text, m.end()))
        named = _named_before(text, m.start(), found)
        if named is not None:  # "See NIST SP 800-125 ... for more—specifically, Section 3.3 ...": its part
            raw_ext = f"{raw} of {named.ref.raw_text}"
            taken.append((m.start(), m.end()))
            found.append(_external(raw_ext, m.start(), m.end()))
            continue
        of_ext = _OF_EXTERNAL.match(text, m.end()) or (_OF_FORM.match(text, m.end()) if rtype == RefType.page else None)
        if of_ext:  # "Section 3 of SP 800-124", "Section 5131 of the ... Act": another document's part
            ext_end = of_ext.end()
            for s0, e0 in taken:
                if s0 >= m.end() and s0 <= of_ext.end() + 1:
                    ext_end = max(ext_end, e0)
            raw_ext = text[m.start():ext_end].strip().rstrip(".,;")
            found = [f for f in found if not (m.end() <= f.start < ext_end)]
            taken = [(a, b) for a, b in taken if not (m.end() <= a < ext_end)]
            taken.append((m.start(), ext_end))
            found.append(_external(raw_ext, m.start(), ext_end))
            continue
        taken.append((m.start(), m.end()))
        singular = _singular(word)
        main_raw = raw if not m.group("more") else f"{singular} {m.group('id')}"
        found.append(
            Mention(
                PendingReference(raw_text=main_raw, ref_type=rtype, ref_target=ident, sub_selector=sub),
                m.start(),
                m.end(),
                trig,
            )
        )
        more = m.group("more") or ""
        if more:
            for other in re.finditer(_ID, more):
                oid = _norm_id(other.group(0))
                if oid == ident:
                    continue
                found.append(
                    Mention(
                        PendingReference(raw_text=f"{singular} {oid}", ref_type=rtype, ref_target=oid),
                        m.start(),
                        m.end(),
                        trig,
                    )
                )
    for m in IDENTIFIER.finditer(text):
        if not free(m.start(), m.end()):
            continue
        taken.append((m.start(), m.end()))
        ref = PendingReference(raw_text=m.group(0), ref_type=RefType.section, ref_target=m.group(0))
        found.append(Mention(ref, m.start(), m.end(), _triggered(text, m.start()) or _parenthesised(text, m.start())))
    for m in _RELATIVE.finditer(text):
        if not free(m.start(), m.end()):
            continue
        where = (m.group("dir") or m.group("dir2")).lower()
        direction = ("previous" if where in ("previous", "preceding", "prior", "above")
                     else "here" if where.startswith("on") else "next")
        taken.append((m.start(), m.end()))
        found.append(
            Mention(
                PendingReference(
                    raw_text=m.group(0).strip(), ref_type=ref_type_of(m.group("word") or m.group("word2")), ref_target=direction
                ),
                m.start(),
                m.end(),
                _triggered(text, m.start()),
            )
        )
    found.sort(key=lambda x: x.start)
    # "see Section 10.2.1 for memorized secrets and Section 10.4 for biometrics": a mention
    # coordinated with a triggered one in the same clause is pointed at by the same "see"
    for prev, cur in zip(found, found[1:]):
        if prev.triggered and not cur.triggered and cur.ref.ref_type != RefType.external:
            between = text[prev.end:cur.start]
            if len(between) <= 60 and _COORDINATED.search(between) and not re.search(r"[.;:]\s", between):
                cur.triggered = True
    return found


_STATUTE_ID = re.compile(r"^\d{3,}(?:\([a-zA-Z0-9]{1,4}\))+$|^\d{4,}$")
"""A section id of three or more digits with a lettered subsection, or of four or more digits
("section 1441", "Section 5131", "Section 44701"): a statute's, not the document's."""

_COORDINATED = re.compile(r"(?i)(?:\band\b|\bor\b|,)\s*(?:in\s+|to\s+)?(?:the\s+)?$")
"""What joins a second pointer to the first: "..., and Section 10.4", "or in Table 3"."""


def _singular(word: str) -> str:
    if word.lower().endswith("ices"):
        return word[:-4] + "ix"
    if word.lower().endswith("es") and word.lower()[:-2].endswith(("x", "ss")):
        return word[:-2]
    if word.lower().endswith("s") and not word.lower().endswith("ss"):
        return word[:-1]
    return word


def _triggered(text: str, start: int) -> bool:
    return bool(_TRIGGER.search(text[max(0, start - 40) : start]))


_SEE_TITLE_ON = re.compile(
    r"(?:^|\s)(?i:see|under|use)\s+(?:the\s+)?(?P<subject>[A-Z][^;:()\n]{2,100}?)\s+"
    r"(?:(?:that\s+|which\s+)?begins?\s+|beginning\s+|starting\s+)?on\s+$"
)
"""A part a page pointer names by its title: "see Dispositions of U.S. Real Property Interests
on page 6"."""
_TERM_DEFINED_ON = re.compile(
    r"(?P<subject>[A-Za-z][\w'\u2019\-]*(?:\s+[A-Za-z][\w'\u2019\-]*){0,3})\s*\(\s*"
    r"(?:(?:as\s+)?defined|described|explained|discussed|see)\s+(?:on\s+)?$"
)
"""A term whose explanation a page pointer gives: "identifying number (defined on page 8)"."""
_SENTENCE_END = re.compile(r"[a-z\d)]{2}[.!?]\s")
_LEADING = re.compile(r"(?i)^(?:(?:the|a|an|your|my|our|their|its|his|her|this|that|each|any|and|or|of|in|on|to|for)\s+)+")


def _page_subject(text: str, start: int) -> str | None:
    """What a page pointer at ``start`` says it sends the reader to, by title or term ("see
    Services performed partly inside and partly outside the United States on page 10": that
    title; "Enter your name, identifying number (defined on page 8)": "identifying number");
    None when its sentence names none. The page holds other parts too: the target is where that
    one starts on it (:func:`docintel.retrieval.region.subject_lines`)."""
    before = text[max(0, start - 140):start]
    m = _SEE_TITLE_ON.search(before) or _TERM_DEFINED_ON.search(before)
    if m is None:
        return None
    subject = _LEADING.sub("", " ".join(m.group("subject").split())).rstrip(",")
    if _SENTENCE_END.search(subject + " ") or len(subject) < 6:
        return None
    return subject


def _parenthesised(text: str, start: int) -> bool:
    return text[max(0, start - 2) : start].strip().endswith(("(", "["))


def find_pointers(text: str) -> list[PendingReference]:
    """Pointers a reader would follow: internal mentions introduced by a trigger ("see",
    "as defined in", "in", "(…)") and every external mention. No origin set."""
    return [m.ref for m in find_mentions(text) if m.triggered or m.ref.ref_type == RefType.external]


_CITATION = re.compile(r"(?<![\w\[(])\[(?P<ids>\d{1,3}(?:\s*[,;\u2013\-]\s*\d{1,3}){0,11})\](?![\w(\[])")
"""A numbered citation: "[11]", "[35, 2, 5]", "[5-7]"; not an index ("x[1]") or a pair ("[0, 1]")."""
MAX_CITED_RANGE = 10
"""A range "[n-m]" longer than this is an interval of values, not citations."""


_CITATION_NAMED = re.compile(r"(?i)\b(?:references?|refs?\.|citations?)\s+(?:no\.\s*|number\s+)?(?P<id>\d{1,3})\b(?![.,]?\d)")
"""A numbered citation named in words: "reference 20", "ref. 12", "citation no. 3"."""
_AUTHOR = r"(?P<name>(?-i:[A-Z])[\w'\u2019\-]+)(?:\s+et\s+al\.?|\s+(?:and|&)\s+(?-i:[A-Z])[\w'\u2019\-]+)?"
_YEAR = r"(?P<year>(?:19|20)\d{2}[a-z]?)(?!\d)"
_CITED_IN_PARENS = re.compile(rf"{_AUTHOR},\s*{_YEAR}")
"""One work of a parenthesised author-year citation: "Fabbri et al., 2021" in "(e.g., Fabbri et al.,
2021; Dou et al., 2021)"."""
_CITED_IN_TEXT = re.compile(rf"{_AUTHOR}\s+\({_YEAR}\)")
"""A narrative author-year citation: "Tang et al. (2022)", "Gehrmann and Rush (2018)"."""


def find_citations(text: str) -> list[tuple[PendingReference, int, int]]:
    """The citations in ``text``, numbered ("... layer normalization [1]", one per number;
    "reference 20") or by author and year ("(Fabbri et al., 2021)", "Tang et al. (2022)"), each with the span of its
    bracket or of its author and year. A citation points at an entry of the document's reference
    list; unlike the pointers of :func:`find_pointers` it is soft: a reader follows it only to
    learn where something comes from (the generator asks for it when the question asks for a
    source). An author-year citation's target is "Surname YEAR"."""
    found: list[tuple[PendingReference, int, int]] = []
    for m in _CITATION.finditer(text):
        ids: list[int] = []
        for part in re.split(r"\s*[,;]\s*", m.group("ids")):
            lo, _, hi = re.sub(r"\s", "", part).replace("\u2013", "-").partition("-")
            a, b = int(lo), int(hi or lo)
            if b < a or b - a > MAX_CITED_RANGE:
                ids = []
                break
            ids.extend(range(a, b + 1))
        if not ids or 0 in ids:
            continue  # "[0, 1]", "[1-100]": values, not citations
        for n in dict.fromkeys(ids):
            found.append((PendingReference(raw_text=f"[{n}]", ref_type=RefType.citation, ref_target=str(n)), m.start(), m.end()))
    for m in _CITATION_NAMED.finditer(text):
        n = m.group("id")
        found.append((PendingReference(raw_text=f"[{n}]", ref_type=RefType.citation, ref_target=n), m.start(), m.end()))
    for group in re.finditer(r"\(([^()]{4,300})\)", text):
        for m in _CITED_IN_PARENS.finditer(group.group(1)):
            found.append((_by_author(m), group.start(), group.end()))
    for m in _CITED_IN_TEXT.finditer(text):
        found.append((_by_author(m), m.start(), m.end()))
    found.sort(key=lambda f: f[1])
    return found


def _by_author(m: re.Match[str]) -> PendingReference:
    raw = re.sub(r"\s+", " ", m.group(0))
    return PendingReference(raw_text=raw, ref_type=RefType.citation, ref_target=f"{m.group('name')} {m.group('year')}")


def is_external(ref: PendingReference) -> bool:
    return ref.ref_type == RefType.external
