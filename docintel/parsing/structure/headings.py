"""TOC without an outline: numbered headings in the text, completed by a printed contents page.

Heading candidates are logical lines that start with a section number ("5.1.3.3 Title"), an
appendix word ("Appendix A—Title") or, in the style of the numbered top-level headings, a
bare letter ("A Bootstrap analysis"). A candidate must look like a heading (bold, larger or in
another font than the body; short; capitalised title), must not be a running header, a contents
entry, a footnote or a list item, and the kept numbers must increase through the document (a
longest increasing subsequence drops stray matches). Headings whose number the text layer lost
("Authenticator Assurance Level 1" between "4 ..." and "4.1.1") get it back from their numbered
neighbours when they share the numbered headings' style.

A document that numbers nothing (tax instructions, a Federal Register notice) gets its headings
from type alone (:func:`typeset_headings`): titles set larger than the body (level 1) and bold
titles at body size, alone on their line or run in before the paragraph they head (level 2).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from typing import Any, Sequence

import numpy as np

from docintel.parsing.structure.contents_page import contents_entries
from docintel.parsing.structure.lines import (
    BodyStyle,
    Lines,
    body_style,
    furniture_mask,
    has_leader,
    leader_mask,
    on_contents_mask,
)
from docintel.parsing.structure.numbering import (
    is_unnumbered_title,
    number_depth,
    number_key,
    parent_number,
    plausible_next,
)
from docintel.parsing.structure.outline import match_heading_line

_APP_WORDS = "appendix|annex|schedule|attachment|exhibit|supplement"
HEADING = re.compile(
    r"^(?:(?P<num>\d{1,2}(?:\.\d{1,3}){0,5})\.?"
    r"|(?P<let>[A-Z])(?:\.(?P<sub>\d{1,3}(?:\.\d{1,3}){0,3}))?\.?"
    rf"|(?P<word>(?i:{_APP_WORDS}))\s+(?P<wid>[A-Z]|\d{{1,2}})(?![\w\-])[.:\u2014\u2013\-]*)"
    r"(?:\s+|(?<=[.:\u2014\u2013\-])\s*)(?P<title>\S.*)?$"
)

_APP_PREFIXES = tuple(w for word in _APP_WORDS.split("|") for w in (word.capitalize() + " ", word.upper() + " "))


_SENTENCE_BREAK = re.compile(r"[a-z0-9]{2}[.!] +[A-Z]")
_WORDISH = re.compile(r"[^\W\d_]{3}")


def _style(lines: Lines, i: int) -> tuple[str, float, bool]:
    return (lines.font[i], round(float(lines.size[i]) * 2) / 2, bool(lines.bold[i]))


def distinct_mask(lines: Lines, body: BodyStyle) -> np.ndarray:
    """Lines set apart from body text: bold, clearly larger, or another (non-italic) font at
    body size or more."""
    other_by_code = np.array([f != body.font and "ital" not in f.lower() for f in lines.font_names] or [False])
    other_font = other_by_code[lines.font_code] if len(lines) else np.zeros(0, dtype=bool)
    return lines.bold | (lines.size >= body.size + 0.9) | (other_font & (lines.size >= body.size - 0.3))


def _maybe_heading_start(t: str) -> bool:
    c = t[:1]
    if c.isdigit():
        return True
    if "A" <= c <= "Z":
        return len(t) == 1 or t[1] in " .\u2014\u2013-:" or t.startswith(_APP_PREFIXES)
    return False


def heading_candidates(logical: Lines, skip: np.ndarray, body: BodyStyle) -> list[dict[str, Any]]:
    """Numbered / appendix / lettered heading candidates in document order (before sequencing)."""
    distinct = distinct_mask(logical, body)
    out: list[dict[str, Any]] = []
    text = logical.text
    for i in np.flatnonzero(~skip).tolist():
        t = text[i]
        if len(t) > 160 or not _maybe_heading_start(t):
            continue
        if not distinct[i] and not (t.startswith(_APP_PREFIXES) and t.isupper()):
            continue  # "APPENDIX A TERMS" in capitals stands apart even in the body font
        m = HEADING.match(t)
        if not m:
            continue
        title = (m.group("title") or "").strip().lstrip("\u00b7\u2022\u2014\u2013-:. ")
        kind = "section"
        if m.group("num"):
            ident = m.group("num")
            if int(ident.split(".")[0]) > 40 or not title:
                continue
        elif m.group("word"):
            kind = m.group("word").lower()
            ident = m.group("wid").upper()
        else:
            ident = m.group("let") + ("." + m.group("sub") if m.group("sub") else "")
            kind = "letter" if not m.group("sub") else "section"
            if not title:
                continue
        if title and not (title[0].isupper() or title[0].isdigit() or title[0] in "\"'“‘("):
            continue
        if title.endswith((",", ";")) or (len(title) > 90 and title.endswith(".")):
            continue
        if _SENTENCE_BREAK.search(title):
            continue  # "Student loan interest deduction. Subtract line 7": prose, not a title
        if ". ." in title or "..." in title or not _WORDISH.search(title) or title.endswith((f" {ident}.", f" {ident}")):
            continue  # form steps ("Subtract line 4 from line 3 . . 4.") and number rows
        if i + 1 < len(text) and _continues_title(logical, i, title):
            title = f"{title} {text[i + 1]}".strip()
        out.append(
            {
                "toc_id": ident,
                "kind": kind,
                "title": title,
                "page_start": int(logical.page[i]),
                "line_num": int(logical.line_num[i]),
                "y0": float(logical.box[i, 1]),
                "x0": float(logical.box[i, 0]),
                "style": _style(logical, i),
                "source": "heading",
            }
        )
    return out


def _continues_title(lines: Lines, i: int, title: str) -> bool:
    """The next line wraps the heading's title: same page and block, same style, just below."""
    j = i + 1
    if lines.page[j] != lines.page[i] or lines.block[j] != lines.block[i] or title.endswith("."):
        return False
    nxt = lines.text[j]
    if _style(lines, j) != _style(lines, i) or len(nxt) > 80 or nxt[:1].isdigit():
        return False
    h = float(lines.box[i, 3] - lines.box[i, 1])
    gap = float(lines.box[j, 1] - lines.box[i, 3])
    return -0.4 * h <= gap <= 0.8 * h


def increasing_subsequence(keys: Sequence[tuple]) -> list[int]:
    """Indices of a longest strictly increasing subsequence of ``keys`` (patience sorting)."""
    tails: list[tuple] = []
    tails_idx: list[int] = []
    prev = [-1] * len(keys)
    for i, k in enumerate(keys):
        j = bisect.bisect_left(tails, k)
        if j == len(tails):
            tails.append(k)
            tails_idx.append(i)
        else:
            tails[j] = k
            tails_idx[j] = i
        prev[i] = tails_idx[j - 1] if j > 0 else -1
    out = []
    i = tails_idx[-1] if tails_idx else -1
    while i >= 0:
        out.append(i)
        i = prev[i]
    return out[::-1]


def sequence_headings(cands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep candidates whose numbers increase through the document; lettered headings only in
    the style of the top-level numbered ones."""
    numbered = [c for c in cands if c["kind"] != "letter"]
    top_styles = {c["style"] for c in numbered if c["kind"] == "section" and c["toc_id"].isdigit()}
    # footnotes and list items share no style with real headings at the same depth: keep, per
    # depth, the styles that carry a real share of that depth's candidates
    by_depth: dict[int, dict[tuple, int]] = {}
    for c in numbered:
        d = number_depth(c["toc_id"]) if c["kind"] == "section" else 0
        by_depth.setdefault(d, {}).setdefault(c["style"], 0)
        by_depth[d][c["style"]] += 1
    kept = []
    for c in cands:
        if c["kind"] == "letter":
            if c["style"] not in top_styles:
                continue
            c = dict(c, kind="appendix")
        else:
            d = number_depth(c["toc_id"]) if c["kind"] == "section" else 0
            counts = by_depth.get(d, {})
            if counts and counts.get(c["style"], 0) * 5 < max(counts.values()) and counts.get(c["style"], 0) < 2:
                continue
        kept.append(c)
    if not kept:
        return []
    order = increasing_subsequence([number_key(c["toc_id"]) for c in kept])
    seq = [kept[i] for i in order]
    sections = [c for c in seq if c["kind"] == "section"]
    flat = all("." not in c["toc_id"] for c in sections)
    if sections and flat and not any(c["toc_id"] in ("0", "1", "A") for c in sections):
        # "32 Track MIDI Sequence Recorder", numbered form steps: a flat run of numbers that
        # never starts at 1 is not a document outline
        seq = [c for c in seq if c["kind"] != "section"]
    return seq


def unnumbered_candidates(logical: Lines, skip: np.ndarray, styles: set[tuple], body: BodyStyle) -> list[dict[str, Any]]:
    """Unnumbered lines in a numbered-heading style (numbers lost in the text layer), and
    front/back-matter headings ("References", "Acknowledgments") in any heading style."""
    if not styles:
        return []
    mask = ~skip & (logical.bold | (logical.size >= body.size + 0.9))
    distinct = distinct_mask(logical, body)
    out = []
    for i in np.flatnonzero(mask).tolist():
        t = logical.text[i]
        if len(t) > 90 or not ("A" <= t[:1] <= "Z" or t[:1] in "\"“") or _maybe_heading_start(t) and HEADING.match(t):
            continue
        st = _style(logical, i)
        front_back = is_unnumbered_title(t)
        if st not in styles and not (front_back and distinct[i]):
            continue
        if t.endswith((".", ",", ";", ":")) and not front_back:
            continue
        out.append(
            {
                "toc_id": None,
                "kind": "section",
                "title": t,
                "page_start": int(logical.page[i]),
                "line_num": int(logical.line_num[i]),
                "y0": float(logical.box[i, 1]),
                "x0": float(logical.box[i, 0]),
                "style": st,
                "source": "heading",
            }
        )
    return out


_RUN_IN = re.compile(r"(?<!\b[A-Z])(?<!\bPub)(?<!\bNo)(?<!\bvs)[.:] +(?=\S)")
"""Where a run-in title ends: its first full stop or colon that closes no initial or abbreviation
("Former U.S. citizens"; "see Pub. 519")."""
_PARAGRAPH_MARK = re.compile(r"\([a-z0-9]{1,4}\) +[A-Z]")
_DANGLING = frozenset(
    "a an the of or and to for from in on at by with as if is are be that than this your you".split()
)
"""Last words of a wrapped sentence, never of a title ("Taxable distributions from a")."""
REPEATED_TITLE = 3
"""A distinct line seen this often is a label (TIP, CAUTION, a table's column head), not a title."""


def typeset_headings(lines: Lines, skip: np.ndarray, body: BodyStyle) -> list[dict[str, Any]]:
    """Unnumbered headings of a document that numbers none, told by type: level 1 when set
    clearly larger than the body ("Tax Computation on Income Effectively Connected With A U.S.
    Trade or Business", its wrapped lines joined), level 2 when bold at about body size, a line
    of its own ("Costs of Compliance") or run in before its paragraph ("Line 21—Other income.
    Use this line ..."; "(i) Minimum Equipment List (MEL) Provisions"). Italic lines, labels
    repeated through the document and titles that end mid-sentence are not headings. Their
    ``source`` is "typeset": a guess from type, which ranking does not weigh
    (:func:`docintel.retrieval.index.ranked_toc`)."""
    upright = np.array(["ital" not in f.lower() and "oblique" not in f.lower() for f in lines.font_names] or [True])
    large = lines.size >= body.size + 2.0
    mask = ~skip & upright[lines.font_code] & (lines.bold | large) if len(lines) else np.zeros(0, dtype=bool)
    out: list[dict[str, Any]] = []
    used: set[int] = set()
    for i in np.flatnonzero(mask).tolist():
        if i in used:
            continue
        t = lines.text[i]
        if not ("A" <= t[:1] <= "Z" or _PARAGRAPH_MARK.match(t)):
            continue
        if not large[i] and _continues_sentence(lines, i):
            continue  # "announce the availability of it in the / Federal Register. The FAA will"
        wrapped = _title_lines(lines, i, skip)
        used.update(wrapped)
        text = " ".join(lines.text[j] for j in wrapped)
        cut = _RUN_IN.search(text)
        title = (text[: cut.start()] if cut else text).rstrip(".:").strip()
        words = title.split()
        if not words or len(words) > 14 or not _WORDISH.search(title) or title.endswith((",", ";")):
            continue
        if words[-1].lower() in _DANGLING or _SENTENCE_BREAK.search(title) or has_leader(title):
            continue
        out.append(
            {
                "toc_id": None,
                "kind": "section",
                "title": title,
                "level": 1 if large[i] else 2,
                "page_start": int(lines.page[i]),
                "line_num": int(lines.line_num[i]),
                "y0": float(lines.box[i, 1]),
                "source": "typeset",
            }
        )
    seen = Counter(" ".join(e["title"].lower().split()) for e in out)
    out = [e for e in out if seen[" ".join(e["title"].lower().split())] < REPEATED_TITLE]
    if sum(e["level"] == 1 for e in out) < 2:
        # one large title is the document's own name or masthead ("Proposed Rules"), not a tier
        # of sections: as level 1 it would span, and match for, every page
        out = [dict(e, level=2) for e in out]
    return out


def _set_under(lines: Lines, upper: int, lower: int, h: float) -> bool:
    """Line ``lower`` is the next line under ``upper`` in its column: left edges within 3 pt, its
    top from 0.4 ``h`` above to 0.8 ``h`` below the bottom of ``upper`` (``h``: a line height)."""
    return (abs(float(lines.box[lower, 0] - lines.box[upper, 0])) <= 3.0
            and -0.4 * h <= float(lines.box[lower, 1] - lines.box[upper, 3]) <= 0.8 * h)


def _continues_sentence(lines: Lines, i: int) -> bool:
    """Line ``i`` goes on with a sentence the body line just above it in its column leaves open:
    a bold phrase at a line's start, not a heading."""
    h = float(lines.box[i, 3] - lines.box[i, 1])
    for j in range(i - 1, max(i - 9, -1), -1):
        if lines.page[j] != lines.page[i]:
            return False
        if _set_under(lines, j, i, h):
            above = lines.text[j].rstrip()
            return not lines.bold[j] and not above.endswith((".", ":", ";", "?", "!", ")", "\u201d", '"'))
    return False


def _title_lines(lines: Lines, i: int, skip: np.ndarray, most: int = 4) -> list[int]:
    """Line ``i`` and the lines that wrap its title: same page and style, left edge aligned, just
    below the last (searched a few lines ahead: a page read across its columns interleaves them)."""
    out = [i]
    while len(out) < most and not _RUN_IN.search(lines.text[out[-1]] + " "):
        k = out[-1]
        h = float(lines.box[k, 3] - lines.box[k, 1])
        nxt = next(
            (
                j
                for j in range(k + 1, min(k + 9, len(lines)))
                if lines.page[j] == lines.page[k] and not skip[j] and _set_under(lines, k, j, h)
            ),
            None,
        )
        if nxt is None or _style(lines, nxt) != _style(lines, i) or lines.text[nxt][:1] in "\u2022-":
            break
        out.append(nxt)
    return out


def infer_lost_numbers(seq: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Number unnumbered headings from their numbered neighbours; drop those that stay unsure
    (front/back matter titles keep a synthetic id)."""
    used = {e["toc_id"] for e in seq if e["toc_id"]}
    depth_of_cluster: dict[tuple, int] = {}
    out: list[dict[str, Any]] = []
    for i, e in enumerate(seq):
        if e["toc_id"] is not None:
            out.append(e)
            continue
        if is_unnumbered_title(e["title"]):
            out.append(dict(e, level=1))
            continue
        prev = next((x["toc_id"] for x in reversed(out) if x["toc_id"] and x["kind"] == "section"), None)
        nxt = next((x["toc_id"] for x in seq[i + 1 :] if x["toc_id"] and x["kind"] == "section"), None)
        cluster = e["style"]
        guess = None
        if nxt is not None and nxt.endswith(".1") and parent_number(nxt) and parent_number(nxt) not in used:
            cand = parent_number(nxt)
            if prev is None or plausible_next(prev, cand):
                guess = cand
        if guess is None and prev is not None and cluster in depth_of_cluster:
            want = depth_of_cluster[cluster]
            parts = prev.split(".")
            cand = None
            if len(parts) >= want and parts[want - 1].isdigit():
                cand = ".".join(parts[: want - 1] + [str(int(parts[want - 1]) + 1)])
            elif len(parts) == want - 1:
                cand = prev + ".1"
            if cand:
                if cand not in used and (nxt is None or plausible_next(cand, nxt) or number_key(cand) < number_key(nxt)):
                    guess = cand
        if guess is None:
            continue
        depth_of_cluster.setdefault(cluster, number_depth(guess))
        used.add(guess)
        out.append(dict(e, toc_id=guess))
    return out


def toc_without_outline(
    logical: Lines,
    raw: Lines,
    furniture: np.ndarray,
    on_contents: np.ndarray,
    contents: set[int],
    page_labels: Sequence[str],
    n_pages: int,
    body: BodyStyle | None = None,
) -> list[dict[str, Any]]:
    """TOC entries for a document without an outline: headings first, contents page second;
    headings told by type alone when nothing is numbered, read from the ``raw`` lines (a page
    whose columns share one PyMuPDF block has its columns joined in a logical line)."""
    body = body or body_style(logical)
    skip = furniture | on_contents
    cands = heading_candidates(logical, skip, body)
    printed = contents_entries(logical, on_contents, contents, page_labels, n_pages, cands)
    cands = confirm_by_contents(cands, printed)
    seq = sequence_headings(cands)
    if not seq and not any(p["toc_id"] for p in printed):
        raw_skip = furniture_mask(raw, n_pages) | on_contents_mask(raw, leader_mask(raw), contents)
        return _with_levels(typeset_headings(raw, raw_skip, body))
    styles = {c["style"] for c in seq if c["kind"] == "section"}
    extra = unnumbered_candidates(logical, skip, styles, body)
    if extra:
        merged = sorted(seq + extra, key=lambda e: (e["page_start"], e["line_num"]))
        seq = infer_lost_numbers(merged)
    entries = _with_levels(seq)
    return _merge_contents(entries, printed, logical, skip)


def confirm_by_contents(cands: list[dict[str, Any]], printed: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """When a printed contents page lists most numbered headings, a numbered candidate at a
    depth the contents covers but missing from it is a list item or a question, not a section."""
    listed = {p["toc_id"] for p in printed if p.get("toc_id") and p.get("kind") == "section"}
    if len(listed) < 5:
        return cands
    max_depth = max(number_depth(i) for i in listed)
    at_depth = [c for c in cands if c["kind"] == "section" and number_depth(c["toc_id"]) <= max_depth]
    if not at_depth or sum(c["toc_id"] in listed for c in at_depth) < 0.6 * len(at_depth):
        return cands
    return [
        c
        for c in cands
        if not (c["kind"] == "section" and number_depth(c["toc_id"]) <= max_depth and c["toc_id"] not in listed)
    ]


def _with_levels(seq: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for e in seq:
        e = dict(e)
        if e.get("level") is None:
            e["level"] = 1 if e["toc_id"] is None or e["kind"] != "section" else number_depth(e["toc_id"])
        e.pop("style", None)
        e.pop("x0", None)
        out.append(e)
    return out


def _merge_contents(
    entries: list[dict[str, Any]], printed: list[dict[str, Any]], logical: Lines, skip: np.ndarray
) -> list[dict[str, Any]]:
    """Add contents-page entries the headings missed (ids not seen, page known), placing each
    heading line when the page shows its title."""
    if not printed:
        return entries
    have = {e["toc_id"] for e in entries if e["toc_id"]}
    added = []
    for p in printed:
        if p["page_start"] is None or p["toc_id"] is None or p["toc_id"] in have:
            continue  # an unnumbered entry the headings did not confirm has no citeable id
        sl = logical.page_slice(p["page_start"])
        page_lines = [
            (logical.text[i], int(logical.line_num[i]), float(logical.box[i, 1]))
            for i in range(sl.start, sl.stop)
            if not skip[i]
        ]
        hit = match_heading_line(f"{p['toc_id']} {p['title']}", page_lines, None)
        added.append(dict(p, line_num=hit["line_num"] if hit else None, y0=hit["y0"] if hit else None))
    if not added:
        return entries
    merged = entries + added
    merged.sort(key=lambda e: (e["page_start"], e["line_num"] if e.get("line_num") is not None else 10**9))
    return merged
