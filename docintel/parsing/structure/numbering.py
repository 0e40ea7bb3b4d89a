"""Section numbers and object labels: small pure functions over strings.

A section number is what a reader cites: "3.5", "5.1.3.3", "A.2", or an appendix letter "A".
Object labels are the caption/heading prefixes "Table 3", "Fig. 4", "Figure 2-3", "Table A-1",
"Appendix B", "Schedule B", "Annex C", "Exhibit 2".
"""

from __future__ import annotations

import re

# "3", "3.5", "5.1.3.3", "A.1", "A.1.2" (letter only with a dotted tail); optional trailing dot
_NUM = r"(?:\d{1,2}(?:\.\d{1,3}){0,5}|[A-Z](?:\.\d{1,3}){1,4})"
SECTION_NUMBER = re.compile(rf"^(?:(?:section|sec\.|§)\s*)?({_NUM})\.?(?=\s|$)", re.IGNORECASE)
BARE_NUMBER = re.compile(rf"^§?\s*{_NUM}\.?$")

APPENDIX_WORDS = ("appendix", "annex", "schedule", "exhibit", "attachment", "supplement")
# "Appendix A", "APPENDIX B—", "Annex C:", "Schedule 2", "Appendix A-2"? (no: A-2 is a table id style)
APPENDIX_HEADING = re.compile(
    r"^(appendix|annex|schedule|exhibit|attachment|supplement)\s+([A-Z]{1,2}|\d{1,2}|[IVX]{1,4})(?![\w-])\s*[.:\u2014\u2013\-]*\s*(.*)$",
    re.IGNORECASE,
)

# Object labels: table / figure / appendix family. Ids: "3", "2-3", "A-1", "A4-12", "A.1", "3a", "B"
_OBJ_ID = r"(?:[A-Z]{1,2}\d{0,2}[-.\u2013]\d{1,3}|\d{1,3}(?:[-.\u2013]\d{1,3}){0,2}[a-z]?|[A-Z]{1,2}|[IVX]{1,5})"
OBJECT_TYPES = {
    "table": "table",
    "tab": "table",
    "figure": "figure",
    "fig": "figure",
    "exhibit": "exhibit",
    "appendix": "appendix",
    "annex": "annex",
    "schedule": "schedule",
    "equation": "equation",
    "eq": "equation",
}
OBJECT_LABEL = re.compile(
    rf"^(table|tab\.|figure|fig\.?|exhibit|appendix|annex|schedule|equation|eq\.)\s*({_OBJ_ID})(?![\w])",
    re.IGNORECASE,
)

_UNNUMBERED_TITLES = {
    "abstract", "acknowledgments", "acknowledgements", "acknowledgment", "references", "bibliography",
    "executive summary", "foreword", "preface", "contents", "table of contents", "index", "glossary",
    "list of figures", "list of tables", "appendices", "notes", "errata", "authority", "keywords",
    "abbreviations", "acronyms", "attention visualizations", "limitations", "ethics statement",
}


def split_section_number(text: str) -> tuple[str | None, str]:
    """("3.5", "Positional Encoding") from "3.5 Positional Encoding"; (None, text) if unnumbered.

    >>> split_section_number("5.1.3.3. Out-of-Band Verifiers")
    ('5.1.3.3', 'Out-of-Band Verifiers')
    """
    text = " ".join(text.split())
    m = SECTION_NUMBER.match(text)
    if not m:
        return None, text
    return m.group(1), text[m.end():].strip(" .:\u2014\u2013-\t")


def split_appendix(text: str) -> tuple[str, str, str] | None:
    """("appendix", "A", "Terms and Definitions") from "APPENDIX A— TERMS AND DEFINITIONS"."""
    m = APPENDIX_HEADING.match(" ".join(text.split()))
    if not m:
        return None
    word, ident, rest = m.group(1).lower(), m.group(2), m.group(3).strip().lstrip("\u00b7\u2022\u2014\u2013-:. ")
    if ident.isalpha():
        if len(ident) > 1 and not ident.isupper():
            return None  # "Appendix to this report"
        ident = ident.upper()
    return word, ident, rest


def number_depth(number: str) -> int:
    """Nesting depth: "3" -> 1, "3.2.2" -> 3, "A" -> 1, "A.1" -> 2."""
    return number.count(".") + 1


def number_key(number: str) -> tuple:
    """Sort key in document order: numbers before appendix letters; "3.10" after "3.9"."""
    parts = number.split(".")
    head = parts[0]
    if head.isdigit():
        first: tuple = (0, int(head), "")
    else:
        first = (1, 0, head.upper())
    return (first,) + tuple(int(p) if p.isdigit() else 0 for p in parts[1:])


def parent_number(number: str) -> str | None:
    return number.rsplit(".", 1)[0] if "." in number else None


def plausible_next(prev: str | None, cur: str) -> bool:
    """True when ``cur`` can directly follow ``prev`` in a numbered outline.

    "3.2" -> "3.2.1" (first child), "3.2.1" -> "3.2.2" (sibling), "3.2.2" -> "3.3" or "4" (up).
    Skipping a number or two is tolerated (headings a parse missed).
    """
    if prev is None:
        return cur.split(".")[-1] in {"1", "0", "A"} or number_depth(cur) == 1
    p, c = prev.split("."), cur.split(".")
    if len(c) == len(p) + 1 and c[:-1] == p:
        return c[-1] in {"0", "1"}
    for depth in range(min(len(p), len(c)), 0, -1):
        if len(c) == depth and c[: depth - 1] == p[: depth - 1]:
            a, b = p[depth - 1], c[depth - 1]
            if a.isdigit() and b.isdigit():
                return 0 < int(b) - int(a) <= 3
            if a.isalpha() and b.isalpha() and len(a) == len(b) == 1:
                return 0 < ord(b.upper()) - ord(a.upper()) <= 3
            return False
    return False


def is_unnumbered_title(title: str) -> bool:
    """Front/back matter that documents leave unnumbered (Abstract, References, ...)."""
    return " ".join(title.lower().split()).strip(" .:") in _UNNUMBERED_TITLES


def parse_object_label(text: str) -> tuple[str, str, int] | None:
    """(object_type, object_id, end offset) for a text starting with an object label.

    >>> parse_object_label("Table A-1. Sanitization")
    ('table', 'A-1', 9)
    """
    m = OBJECT_LABEL.match(text)
    if not m:
        return None
    word = m.group(1).lower().rstrip(".")
    ident = m.group(2).replace("\u2013", "-")
    if ident.isalpha() and not ident.isupper() and not (word in {"appendix", "annex", "schedule"} and len(ident) == 1):
        return None  # "Table of Contents", "Figure in ..."
    if word in {"appendix", "annex", "schedule"} and ident.isalpha():
        ident = ident.upper()
    return OBJECT_TYPES[word], ident, m.end()


_POINTER = re.compile(
    r"^\s*(?:(section|sec\.|§§?|chapter|clause|part)\s*)?"
    r"(\d{1,2}(?:\.\d{1,3}){0,5}|[A-Z](?:\.\d{1,3}){1,4})\.?"
    r"(?:\s*\(([^)]{1,20})\))?\s*$",
    re.IGNORECASE,
)
_CITATION = re.compile(r"^\s*\[\s*([\w.,;\- ]{1,40})\s*\]\s*$|^\s*\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\s*$")
_LABEL_INSIDE = re.compile(r"\s(?:table|tab\.|figure|fig|exhibit|appendix|annex|schedule|equation|eq\.|section|sec\.|§|chapter|clause)", re.IGNORECASE)
_AUTHOR_YEAR = re.compile(r"\bet al\b|^\(?(?:1[89]|20)\d\d[a-z]?\)?$|^[A-Z][\w'\-]+(?: and [A-Z][\w'\-]+)?,? \(?(?:1[89]|20)\d\d[a-z]?\)?$")
_RANGE = re.compile(r"^(?:§|sections?\s*)?(\d{1,2}(?:\.\d{1,3}){0,4})\s*[-\u2013]\s*\d{1,2}(?:\.\d{1,3}){0,4}$", re.IGNORECASE)
_PAGE = re.compile(r"^\s*(?:page|p\.|pp\.)\s*([ivxlc]+|\d{1,4})\s*$", re.IGNORECASE)


def parse_link_anchor(text: str) -> tuple[str, str | None, str | None]:
    """(ref_type, ref_target, sub_selector) for the text under an internal link.

    "Table 3" -> ("table", "3", None); "Section 3.5" / "3.5" -> ("section", "3.5", None);
    "Table 3 row (E)" -> ("table", "3", "E"); "[12]" -> ("citation", "12", None);
    "Appendix B" -> ("appendix", "B", None); anything else -> ("other", None, None).
    A bare number like "12" under a link is a citation marker only when ``text`` is bracketed;
    callers with a named destination ("cite.x") know better and may override.
    """
    t = " ".join(text.split()).strip(" ,;:").rstrip(".,;:")
    if t.startswith("(") and t.count("(") > t.count(")"):
        t = t[1:]
    t = t.strip(" ()").rstrip(".,;:")
    if not t:
        return "other", None, None
    label = parse_object_label(t)
    if label is not None:
        kind, ident, end = label
        rest = t[end:].strip(" ,.:")
        sub = None
        m = re.match(r"^(?:row|column|col\.?|item|line)?\s*\(?([\w.\-]{1,20})\)?$", rest, re.IGNORECASE)
        if rest and m:
            sub = m.group(1)
        elif rest:
            # "Table 3: Variations ..." (a caption/list entry) keeps the label
            pass
        return kind, ident, sub
    m = _POINTER.match(t)
    if m:
        return "section", m.group(2), m.group(3)
    m = split_appendix(t)
    if m:
        word, ident, _ = m
        return (word if word in {"appendix", "annex", "schedule", "exhibit"} else "appendix"), ident, None
    m = _PAGE.match(t)
    if m:
        return "page", m.group(1), None
    if t.startswith("[") and _CITATION.match(text.strip()):
        return "citation", t.strip("[] "), None
    if _AUTHOR_YEAR.search(t):
        return "citation", t.strip("[]() ,;."), None
    m = _RANGE.match(t)
    if m:
        return "section", m.group(1), None
    num, title = split_section_number(t)
    if num is not None and title:
        return "section", num, None
    words = t.split()
    if 1 < len(words) <= 6 and _LABEL_INSIDE.search(t):  # "in Appendix D", "see Table 3"
        for k in range(1, len(words)):
            kind, target, sub = parse_link_anchor(" ".join(words[k:]))
            if kind in ("table", "figure", "appendix", "annex", "schedule", "exhibit", "equation"):
                return kind, target, sub
            if kind == "section" and re.match(r"(?i)^(section|sec\.|§|chapter|clause)", words[k]):
                return kind, target, sub
    return "other", None, None
