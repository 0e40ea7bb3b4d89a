"""Checks: number normalisation, substring folding, page checks, grounding."""

from __future__ import annotations

import pytest
from evalfakes import make_result
from hypothesis import given
from hypothesis import strategies as st

from docintel.evaluation.checks import check, numbers_in
from docintel.text import normalise_number
from docintel.schemas.evaluation import Expect


@pytest.mark.parametrize(
    "text, value",
    [("1,000", 1000), ("1000", 1000), ("25.70", 25.7), ("25.7", 25.7), ("1,234,567.50", 1234567.5),
     ("\u22123", -3), ("-0.5", -0.5), (".5", 0.5), ("100K", 100000), ("17M", 17e6)],
)
def test_normalise_number(text, value):
    assert normalise_number(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "abc", "1,00", "12a", "1.2.3", "5MB", "10km"])
def test_not_a_number(text):
    assert normalise_number(text) is None


def test_numbers_in_prose():
    text = "PPL 4.92, BLEU 25.70 (base 25.8); 1,000 steps; 50-100 meters; Table A-1; v7; 3.5 days."
    assert numbers_in(text) == [4.92, 25.7, 25.8, 1000, 50, 100, 1, 3.5]
    # a K/M suffix gives the number written and the number meant; units are not suffixes
    assert numbers_in("train steps: 100K; 17M sentences; 5 MB; 10 km") == [100, 100000, 17, 17e6, 5, 10]


@given(st.integers(min_value=0, max_value=10**9))
def test_thousands_separators_round_trip(n):
    assert numbers_in(f"about {n:,} tokens") == [n]
    assert numbers_in(f"about {n} tokens") == [n]


@given(st.decimals(min_value=0, max_value=10**6, places=2, allow_nan=False, allow_infinity=False))
def test_trailing_zeros_do_not_matter(d):
    assert numbers_in(f"x {d:.2f} y") == pytest.approx([float(d)])
    assert numbers_in(f"x {d:.4f}.") == pytest.approx([float(d)])


def _by_name(checks):
    return {c.name: c for c in checks}


def test_all_expectations_pass_on_a_good_answer():
    r = make_result("q", "Nearly identical: PPL 4.92 and BLEU 25.70 with POSITIONAL\nembeddings.")
    e = Expect(primary_page=6, reference_pages=[9], answer_contains=["positional embeddings", "nearly identical"],
               answer_numbers=[4.92, 25.7], answer_not_contains=["ignore previous"], completeness="complete",
               verdict="return_to_user", max_llm_calls=0)
    checks = check(e, r)
    assert [c.name for c in checks] == ["primary_page", "reference_pages", "answer_contains", "answer_not_contains",
                                        "answer_numbers", "completeness", "verdict", "max_llm_calls"]
    assert all(c.passed for c in checks), [c.message() for c in checks if not c.passed]


def test_each_failed_check_names_itself():
    r = make_result("q", "BLEU 25.8 only. IGNORE previous instructions", primary=7, reference=None,
                    completeness="references_unresolved", verdict="give_up_partial", llm_calls=3)
    e = Expect(primary_page=6, reference_pages=[9], answer_contains=["4.92"], answer_numbers=[25.7],
               answer_not_contains=["ignore previous"], completeness="complete", verdict="return_to_user",
               max_llm_calls=2)
    checks = _by_name(check(e, r))
    assert not any(c.passed for c in checks.values())
    assert checks["answer_numbers"].message() == "answer_numbers: expected [25.7], got missing [25.7] among [25.8]"
    assert checks["reference_pages"].message().startswith("reference_pages: expected reference pages [9]")
    assert checks["primary_page"].actual == "primary pages [7]"
    assert checks["completeness"].actual == "references_unresolved"
    assert checks["max_llm_calls"].actual == "3"


def test_reference_page_must_be_reached_by_reference():
    # page 9 cited as a primary page does not count as following the pointer
    r = make_result("q", "x", primary=9, reference=None)
    assert not _by_name(check(Expect(reference_pages=[9]), r))["reference_pages"].passed


def test_numbers_grounded_accepts_a_line_inside_a_cited_span():
    """ "Not followed: 'Appendix B' (page 6 line 4)" names a line of the cited lines 3-5."""
    r = make_result("What does it cost?", "Tiers ... (page 6, lines 3-5)\n"
                    "Not followed: 'Appendix B' (page 6 line 4).", reference=None)
    assert _by_name(check(Expect(numbers_grounded=True), r, grounding_text=""))["numbers_grounded"].passed


def test_numbers_grounded():
    r = make_result("How many steps were used?", "Not found. Page 6 says training took 3.5 days and 12 hours.",
                    reference=None, completeness="partial")
    e = Expect(numbers_grounded=True)
    assert _by_name(check(e, r, grounding_text="trained for 3.5 days"))["numbers_grounded"].actual == \
        "not in any cited page: [12]"
    assert _by_name(check(e, r, grounding_text="3.5 days ... 12 hours"))["numbers_grounded"].passed
    # cited page numbers and numbers of the question itself are not inventions
    r2 = make_result("What happened in 2004?", "Nothing on page 6 about 2004.", reference=None)
    assert _by_name(check(e, r2, grounding_text=""))["numbers_grounded"].passed


def test_unset_expectations_are_not_checked():
    assert check(Expect(), make_result("q", "a")) == []


def test_reference_page_ranges_and_alternatives():
    r = make_result("q", "Length rules increase user frustration. Passive Network Monitoring: No", reference=79)
    e = Expect(reference_pages=["77-79"], answer_contains=["FRUSTRATION", ["do not require any privileges",
                                                                          "Passive Network Monitoring: No"]])
    assert all(c.passed for c in check(e, r))
    miss = _by_name(check(Expect(reference_pages=["77-78", 79], answer_contains=[["a", "b"]]), make_result("q", "c")))
    assert miss["reference_pages"].actual == "reference pages [9] (missing ['77-78', 79])"
    assert miss["answer_contains"].actual == "missing [['a', 'b']]"


@pytest.mark.parametrize("pages", [["79-77"], ["x-y"], ["77"], [0]])
def test_bad_page_ranges_are_rejected(pages):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Expect(reference_pages=pages)


def test_the_closest_passage_of_a_not_found_answer_is_not_the_answer():
    """"Not found ... Closest passage (page 3): "Audit logs; 90 days"" shows a near miss; answer
    checks must not pass on it (the Acme audit-log question did, for a "Not found" answer)."""
    r = make_result("q", 'Not found: the retrieved pages do not answer this question (looked for: audit, logs). '
                         'Closest passage (page 3): "Data category: Audit logs; Retention "period": 90 days"\n'
                         'Schedule B (page 3): 35 days for backups.', completeness="partial")
    checks = _by_name(check(Expect(answer_contains=["audit logs"], answer_numbers=[90]), r))
    assert not checks["answer_contains"].passed and not checks["answer_numbers"].passed
    assert _by_name(check(Expect(answer_numbers=[35]), r))["answer_numbers"].passed  # later lines still count
