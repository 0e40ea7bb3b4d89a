"""Superscript footnote marks are set off from the word they follow (baseline.join_spans).

Regression: SP 800-40r3 p10 read "NIST Special Publication (SP) 800-532 requires", a footnote
mark glued onto the publication number, and answers quoted the invented "SP 800-532".
"""

from __future__ import annotations

from docintel.parsing.baseline import extract_page, join_spans
from docintel.parsing.fitz import pymupdf


def _span(text, flags=4):
    return {"text": text, "flags": flags, "size": 10.0, "font": "Times"}


def test_superscript_mark_gets_a_space():
    assert join_spans([_span("(SP) 800-53"), _span("2", flags=1), _span(" requires")]) == "(SP) 800-53 2 requires"
    assert join_spans([_span("Program."), _span("1", flags=1)]) == "Program. 1"


def test_ordinary_spans_join_as_written():
    assert join_spans([_span("d"), _span("model")]) == "dmodel"  # a subscript is no footnote mark
    assert join_spans([_span("word "), _span("2", flags=1)]) == "word 2"
    assert join_spans([_span("see"), _span(" superscripted words", flags=1)]) == "see superscripted words"


def test_sp800_40_publication_number_is_not_glued(shared_corpora):
    doc = pymupdf().open(shared_corpora / "crossref" / "SP800-40r3.pdf")
    text = " ".join(r["text"] for r in extract_page(doc[9], "d", 10)[0])
    assert "800-53 2 requires" in text
    assert "800-532" not in text
