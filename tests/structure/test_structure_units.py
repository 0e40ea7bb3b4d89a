"""Unit and property tests of the small pure functions behind build_structure."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docintel.parsing.structure.contents_page import label_to_page, numeric_offset, parse_entry
from docintel.parsing.structure.headings import increasing_subsequence
from docintel.parsing.structure.lines import Lines, furniture_mask, leader_mask, logical_lines
from docintel.parsing.structure.links import anchor_from_lines, anchor_words, dest_hint, word_spans
from docintel.parsing.structure.numbering import (
    number_depth,
    number_key,
    parse_link_anchor,
    parse_object_label,
    plausible_next,
    split_appendix,
    split_section_number,
)
from docintel.parsing.structure.toc import finalize_toc

numbers = st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=5).map(lambda p: ".".join(map(str, p)))
titles = st.from_regex(r"[A-Z][a-z]{2,10}( [A-Za-z][a-z]{1,8}){0,4}", fullmatch=True)


# -- numbering --------------------------------------------------------------------------------


@given(numbers, titles, st.sampled_from([" ", "  ", ". ", "\t"]))
def test_split_section_number_round_trip(number, title, sep):
    assert split_section_number(f"{number}{sep}{title}") == (number, title)


@given(titles)
def test_unnumbered_titles_have_no_number(title):
    assert split_section_number(title) == (None, title)


@given(numbers, numbers)
def test_number_key_orders_like_the_numbers(a, b):
    ta, tb = tuple(map(int, a.split("."))), tuple(map(int, b.split(".")))
    if ta != tb:
        assert (number_key(a) < number_key(b)) == (ta < tb)


@given(numbers)
def test_children_and_siblings_are_plausible_successors(number):
    parts = number.split(".")
    assert plausible_next(number, number + ".1")
    sibling = ".".join(parts[:-1] + [str(int(parts[-1]) + 1)])
    assert plausible_next(number, sibling)
    assert not plausible_next(number, number)  # a repeat is not progress
    assert number_depth(number) == len(parts)


def test_plausible_next_examples():
    assert plausible_next("3.2.2", "3.3") and plausible_next("3.2.2", "4")
    assert not plausible_next("3.2", "3.2.5") and not plausible_next("3", "9")
    assert plausible_next("A", "B") and plausible_next(None, "1")
    assert number_key("9") < number_key("10") < number_key("A") < number_key("A.1") < number_key("B")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("APPENDIX A— TERMS AND DEFINITIONS", ("appendix", "A", "TERMS AND DEFINITIONS")),
        ("Appendix B. CSF Tiers", ("appendix", "B", "CSF Tiers")),
        ("appendix a     terms and definitions", ("appendix", "A", "terms and definitions")),
        ("Annex C: Scope", ("annex", "C", "Scope")),
        ("Schedule 2 Fees", ("schedule", "2", "Fees")),
        ("Appendix to this report", None),
        ("Appendices", None),
    ],
)
def test_split_appendix(text, expected):
    assert split_appendix(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Table 3: Variations", ("table", "3")),
        ("TABLE 1: POTENTIAL IMPACT", ("table", "1")),
        ("Fig. 4. CSF Tiers", ("figure", "4")),
        ("Figure 2-3. Extended Service Set", ("figure", "2-3")),
        ("Table A-1: Hard Copy", ("table", "A-1")),
        ("Table A4-12 Flash", ("table", "A4-12")),
        ("Appendix B", ("appendix", "B")),
        ("Schedule B", ("schedule", "B")),
        ("Annex C", ("annex", "C")),
        ("Exhibit 2", ("exhibit", "2")),
        ("Table of Contents", None),
        ("Tablet computers", None),
        ("Figures show", None),
    ],
)
def test_parse_object_label(text, expected):
    got = parse_object_label(text)
    assert (got[:2] if got else None) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Table 3", ("table", "3", None)),
        ("Table 3 row (E)", ("table", "3", "E")),
        ("3.5", ("section", "3.5", None)),
        ("Section 3.5", ("section", "3.5", None)),
        ("(§3.3).", ("section", "3.3", None)),
        ("Sections 3.1-3.3,", ("section", "3.1", None)),
        ("[12]", ("citation", "12", None)),
        ("Vaswani et al., 2017", ("citation", "Vaswani et al., 2017", None)),
        ("(2019)", ("citation", "2019", None)),
        ("in Appendix D.", ("appendix", "D", None)),
        ("Figure 2-1.", ("figure", "2-1", None)),
        ("page 12", ("page", "12", None)),
        ("2.3.4.3 Incident Reporting Organizations ........ 9", ("section", "2.3.4.3", None)),
        ("the model", ("other", None, None)),
        ("", ("other", None, None)),
    ],
)
def test_parse_link_anchor(text, expected):
    assert parse_link_anchor(text) == expected


@given(st.text(max_size=60))
def test_parse_link_anchor_never_raises(text):
    kind, target, _ = parse_link_anchor(text)
    assert kind in {"section", "table", "figure", "appendix", "annex", "schedule", "exhibit", "equation", "page", "citation", "other"}
    assert (target is None) == (kind == "other")


@pytest.mark.parametrize(
    "name, expected",
    [
        ("subsection.3.2", ("section", "3.2")),
        ("cite.vaswani2017", ("citation", "vaswani2017")),
        ("table.3", ("table", "3")),
        ("figure.caption.7", ("figure", None)),
        ("Hfootnote.1", None),
        ("PAX@./papers/608.pax@1", None),
        (None, None),
    ],
)
def test_dest_hint(name, expected):
    assert dest_hint(name) == expected


# -- sequencing and contents pages ---------------------------------------------------------------


@settings(max_examples=60)
@given(st.lists(st.integers(0, 9), max_size=9))
def test_increasing_subsequence_is_longest_and_increasing(values):
    idx = increasing_subsequence([(v,) for v in values])
    assert idx == sorted(idx)
    assert all(values[a] < values[b] for a, b in zip(idx, idx[1:]))
    best = 0
    for r in range(len(values), 0, -1):
        if any(all(c[i] < c[i + 1] for i in range(r - 1)) for c in itertools.combinations(values, r)):
            best = r
            break
    assert len(idx) == best


@pytest.mark.parametrize(
    "line, expected",
    [
        ("5.1.3 Out-of-Band Devices .......... 26", ("5.1.3 Out-of-Band Devices", "26")),
        ("Appendix A— Strength of Memorized Secrets ............ 67", ("Appendix A— Strength of Memorized Secrets", "67")),
        ("Executive Summary . . . . . . . . . ES-1", ("Executive Summary", "ES-1")),
        ("Foreword ........ iii", ("Foreword", "iii")),
        ("Some sentence without a page", None),
    ],
)
def test_parse_contents_entry(line, expected):
    assert parse_entry(line) == expected


def test_label_to_page_prefers_the_body_run_of_a_repeated_label():
    labels = ["1", "2", "ii", "iii", "1", "2", "3", "4"]  # cover pages numbered like the body
    m = label_to_page(labels, len(labels))
    assert m["1"] == 5 and m["2"] == 6 and m["ii"] == 3
    assert numeric_offset(m) == 4


# -- lines ------------------------------------------------------------------------------------------


def _lines(rows: list[tuple]) -> Lines:
    cols = ["page_num", "line_num", "text", "x0", "y0", "x1", "y1", "block_num", "block_line", "font_size", "bold", "font"]
    return Lines.from_frame(pd.DataFrame(rows, columns=cols))


def test_logical_lines_join_a_number_with_its_heading_text():
    lines = _lines(
        [
            (6, 25, "3.5", 108, 213.8, 120.5, 223.8, 2, 0, 10.0, True, "Medi"),
            (6, 26, "Positional Encoding", 130.4, 213.8, 215.2, 223.8, 2, 1, 10.0, True, "Medi"),
            (6, 27, "Since our model contains no recurrence", 108, 232, 504, 242, 3, 0, 10.0, False, "Regu"),
        ]
    )
    out = logical_lines(lines)
    assert out.text == ["3.5 Positional Encoding", "Since our model contains no recurrence"]
    assert out.line_num.tolist() == [25, 27] and out.line_end.tolist() == [26, 27]
    assert out.box[0].tolist() == [108, 213.8, 215.2, 223.8]


def test_logical_lines_keep_two_columns_apart():
    lines = _lines(
        [
            (1, 1, "the left column text", 70, 100, 290, 110, 1, 0, 10.0, False, "R"),
            (1, 2, "the right column text", 306, 100, 526, 110, 2, 0, 10.0, False, "R"),
        ]
    )
    assert logical_lines(lines).text == ["the left column text", "the right column text"]


def test_furniture_and_leaders():
    rows = []
    for p in range(1, 6):
        rows.append((p, 1, "ACME Report 2024", 72, 30, 200, 40, 0, 0, 9.0, False, "R"))
        rows.append((p, 2, f"Body text on page {p}", 72, 300, 300, 310, 1, 0, 10.0, False, "R"))
        rows.append((p, 3, str(p), 300, 750, 306, 760, 2, 0, 9.0, False, "R"))
    rows.append((5, 4, "2.1 Data .................... 3", 72, 400, 500, 410, 3, 0, 10.0, False, "R"))
    lines = _lines(rows)
    furn = furniture_mask(lines, 5)
    assert [lines.text[i] for i in np.flatnonzero(furn)] == ["ACME Report 2024", "1", "ACME Report 2024", "2",
                                                             "ACME Report 2024", "3", "ACME Report 2024", "4",
                                                             "ACME Report 2024", "5"]
    assert [lines.text[i] for i in np.flatnonzero(leader_mask(lines))] == ["2.1 Data .................... 3"]


# -- anchors and toc -----------------------------------------------------------------------------


def test_word_spans_cover_the_line_in_order():
    spans = word_spans("see Table 3 for details", 100.0, 300.0)
    assert [w for w, _, _ in spans] == ["see", "Table", "3", "for", "details"]
    assert spans[0][1] == pytest.approx(100.0) and spans[-1][2] == pytest.approx(300.0)
    assert all(a < b for _, a, b in spans)


def test_anchor_from_lines_pulls_in_the_number_of_a_label():
    texts = ["as shown in Table 3 of the paper"]
    boxes = np.array([[100.0, 100.0, 300.0, 110.0]])
    spans = word_spans(texts[0], 100.0, 300.0)
    table = next(s for s in spans if s[0] == "Table")
    # the link covers only the word "Table" (hyperref often stops short of the number)
    text, parsed = anchor_from_lines(texts, boxes, (table[1], 99.0, table[2], 111.0), parse=True)
    assert text == "Table 3" and parsed[:2] == ("table", "3")


def test_anchor_words_reads_the_words_inside_the_rect():
    words = [(100, 100, 120, 110, "see", 0, 0, 0), (125, 100, 150, 110, "Table", 0, 0, 1), (152, 100, 158, 110, "3", 0, 0, 2)]
    assert anchor_words(words, (124, 99, 160, 111)) == "Table 3"
    assert anchor_words([], (0, 0, 1, 1)) == ""


def test_finalize_toc_page_end_and_synthetic_ids():
    entries = [
        {"toc_id": None, "title": "Abstract", "level": 1, "page_start": 1, "y0": 100.0},
        {"toc_id": "1", "title": "Intro", "level": 1, "page_start": 2, "y0": 72.0},
        {"toc_id": "1.1", "title": "Scope", "level": 2, "page_start": 2, "y0": 300.0},
        {"toc_id": "2", "title": "Method", "level": 1, "page_start": 4, "y0": 72.0},
        {"toc_id": "2", "title": "Duplicate", "level": 1, "page_start": 5, "y0": 400.0},
    ]
    rows = finalize_toc(entries, "d", n_pages=6, first_content_y={4: 72.0, 5: 60.0})
    assert [r["toc_id"] for r in rows] == ["#0", "1", "1.1", "2", "#4"]
    # "2" starts at the top of page 4: sections before it end on page 3
    assert [r["page_end"] for r in rows] == [2, 3, 3, 5, 6]
    assert [r["toc_order"] for r in rows] == [0, 1, 2, 3, 4]


_obj_ids = st.one_of(
    st.integers(1, 99).map(str),
    st.tuples(st.integers(1, 20), st.integers(1, 99)).map(lambda t: f"{t[0]}-{t[1]}"),
    st.tuples(st.sampled_from("ABCDEFG"), st.integers(1, 30)).map(lambda t: f"{t[0]}-{t[1]}"),
    st.tuples(st.sampled_from("ABCD"), st.integers(1, 9), st.integers(1, 20)).map(lambda t: f"{t[0]}{t[1]}-{t[2]}"),
)


@given(st.sampled_from([("Table", "table"), ("TABLE", "table"), ("Figure", "figure"), ("Fig.", "figure"),
                        ("Exhibit", "exhibit")]), _obj_ids, st.sampled_from([":", ".", " -", ""]), titles)
def test_parse_object_label_round_trip(word_kind, ident, punct, title):
    word, kind = word_kind
    got = parse_object_label(f"{word} {ident}{punct} {title}")
    assert got is not None and got[:2] == (kind, ident)


@given(st.sampled_from(["see", "in", "shown in", "and"]), _obj_ids)
def test_mentions_inside_short_anchors(prefix, ident):
    assert parse_link_anchor(f"{prefix} Table {ident}.")[:2] == ("table", ident)


def test_finalize_toc_front_matter_ends_at_a_contents_page():
    entries = [
        {"toc_id": None, "title": "Acknowledgments", "level": 1, "page_start": 2, "y0": 72.0},
        {"toc_id": "1", "title": "Intro", "level": 1, "page_start": 6, "y0": 72.0},
        {"toc_id": "2", "title": "Body", "level": 1, "page_start": 8, "y0": 300.0},
    ]
    rows = finalize_toc(entries, "d", n_pages=9, first_content_y={6: 72.0}, breaks={3, 4})
    assert [r["page_end"] for r in rows] == [2, 8, 9]
