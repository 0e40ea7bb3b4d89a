"""Golden-file loading: valid files load, malformed ones name the file and the wrong line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docintel.errors import ExitCode
from docintel.evaluation.golden import GoldenFileError, load_golden, load_golden_files

ROOT = Path(__file__).resolve().parents[2]


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def _error(path: Path) -> GoldenFileError:
    with pytest.raises(GoldenFileError) as e:
        load_golden(path)
    assert e.value.exit_code == ExitCode.USAGE
    return e.value


def test_valid_file_loads(write_golden, golden_text):
    g = load_golden(write_golden())
    assert [q.id for q in g.questions] == ["positional", "plain"]
    assert g.questions[0].expect.answer_numbers == [4.92, 25.7]
    assert g.questions[0].expect.completeness.value == "complete"
    assert g.questions[1].expect.primary_page is None


@pytest.mark.parametrize(
    "bad, good, what",
    [
        ("primary_page: 6", "primary_page: six", "primary_page"),
        ("reference_pages: [9]", "reference_pages: [0]", "reference_pages"),
        ("completeness: complete", "completeness: done", "completeness"),
        ("max_llm_calls: 0", "max_llm_calls: -1", "max_llm_calls"),
        ("answer_numbers: [4.92, 25.7]", "answer_numbers: [4.92, lots]", "answer_numbers"),
        ("verdict: return_to_user", "verdikt: return_to_user", "verdikt"),
    ],
)
def test_malformed_value_names_file_and_line(write_golden, golden_text, bad, good, what):
    text = golden_text.replace(bad, good)
    err = _error(write_golden(text))
    line = _line_of(text, good)
    assert f"golden.yaml:{line}: questions[0].expect.{what}" in str(err), str(err)


def test_unknown_key_points_at_the_key(write_golden, golden_text):
    text = golden_text.replace("    tags: [no-pointer]", "    tags: [no-pointer]\n    expected_page: 3")
    err = _error(write_golden(text))
    line = _line_of(text, "expected_page")
    assert re.search(rf"golden\.yaml:{line}: questions\[1\]\.expected_page", str(err)), str(err)


def test_yaml_syntax_error_names_line(write_golden, golden_text):
    text = golden_text.replace('answer_contains: ["nearly identical"]', 'answer_contains: ["nearly identical"')
    err = _error(write_golden(text))
    assert "not valid YAML" in str(err) and re.search(r"golden\.yaml:\d+:", str(err))
    # the reported line is at or just after the broken flow sequence
    reported = int(re.search(r"golden\.yaml:(\d+):", str(err)).group(1))
    assert _line_of(text, 'answer_contains: ["nearly identical"') <= reported <= _line_of(text, "completeness: complete")


def test_question_without_text_and_empty_file(write_golden, golden_text):
    err = _error(write_golden("documents: []\nquestions:\n  - id: x\n    expect: {}\n"))
    assert ":3: questions[0].question: Field required" in str(err)
    err = _error(write_golden("", name="empty.yaml"))
    assert "empty.yaml:1:" in str(err)
    err = _error(write_golden("documents: []\nquestions: []\n", name="none.yaml"))
    assert "none.yaml:2: questions" in str(err)


def test_duplicate_id_and_missing_document(write_golden, tmp_path, golden_text):
    text = golden_text.replace("id: plain", "id: positional")
    err = _error(write_golden(text))
    first, second = [i for i, line in enumerate(text.splitlines(), 1) if "id: positional" in line]
    assert f"golden.yaml:{second}: duplicate question id 'positional' (first on line {first})" in str(err)

    text = golden_text.replace("documents: []", "documents:\n  - ../nowhere/missing.pdf")
    err = _error(write_golden(text, name="docs.yaml"))
    assert "docs.yaml:2: document ../nowhere/missing.pdf not found" in str(err)


def test_doc_must_be_one_of_the_documents(write_golden, tmp_path, golden_text):
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4\n")
    text = golden_text.replace("documents: []", "documents: [a.pdf]").replace(
        "    question: \"What does row E change?\"", "    question: \"What does row E change?\"\n    doc: b.pdf")
    err = _error(write_golden(text))
    assert f"golden.yaml:{_line_of(text, 'doc: b.pdf')}: doc 'b.pdf'" in str(err)


def test_ids_unique_across_files(write_golden, golden_text):
    a = write_golden(name="a.yaml")
    b = write_golden(name="b.yaml")
    with pytest.raises(GoldenFileError, match="also used in"):
        load_golden_files([a, b])
    with pytest.raises(GoldenFileError, match="no golden file"):
        load_golden_files([])


def test_committed_golden_sets_load():
    files = sorted((ROOT / "corpora" / "golden").glob("*.yaml"))
    assert files, "corpora/golden/*.yaml is the committed golden set"
    loaded = load_golden_files(files)
    questions = [q for g in loaded for q in g.questions]
    tags = [t for q in questions for t in q.tags]
    assert len(questions) >= 30
    assert tags.count("pointer") >= 12
    assert tags.count("no-pointer") >= 5
    assert tags.count("unanswerable") >= 3
    assert tags.count("injection") >= 2
    for q in questions:
        if "pointer" in q.tags:  # a pointer question says where the pointer is and where it leads
            assert q.expect.primary_page and q.expect.reference_pages, q.id
        if "unanswerable" in q.tags:
            assert q.expect.completeness and q.expect.completeness.value == "partial", q.id
            assert q.expect.numbers_grounded, q.id
