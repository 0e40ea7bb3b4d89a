"""`docintel eval` end to end on a real PDF: own store built by ingest + escalate, real ask.

The golden question is the FIPS 199 SCADA example (physical page 9, checked by hand); the test
runs it as written, then breaks one expectation (primary_page) on purpose and checks that eval
exits 1 and that the JUnit failure names the broken check. Whether the other checks pass is the
golden sets' business (`docintel eval corpora/golden/*.yaml`), not this test's.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cli import evaluate

ROOT = Path(__file__).resolve().parents[2]
FIPS = ROOT / "corpora" / "nist" / "NIST.FIPS.199.pdf"

GOLDEN = """\
documents: [NIST.FIPS.199.pdf]
questions:
  - id: scada
    question: "What final security category did the power plant give its SCADA system after raising the confidentiality impact?"
    expect:
      primary_page: 9
      answer_contains: ["MODERATE"]
      completeness: complete
      max_llm_calls: 0
    tags: [no-pointer]
"""

app = typer.Typer()
app.callback()(lambda: None)
evaluate.register(app)


@pytest.fixture(scope="module")
def golden_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("golden")
    shutil.copy(FIPS, d / FIPS.name)
    return d


def _run(golden_dir: Path, text: str, junit: Path):
    g = golden_dir / "fips.yaml"
    g.write_text(text)
    return CliRunner().invoke(app, ["eval", str(g), "--junit", str(junit)], env={"OMP_THREAD_LIMIT": "1"})


def test_real_question_then_a_broken_expectation_fails_naming_the_check(golden_dir, tmp_path):
    ok = _run(golden_dir, GOLDEN, tmp_path / "ok.xml")
    assert ok.exit_code in (0, 1), ok.output  # 1 would be a pipeline regression, shown by the golden sets
    assert (golden_dir / ".docintel-eval" / "manifest.json").exists()  # eval built its own store
    case = ET.parse(tmp_path / "ok.xml").getroot().find(".//testcase[@name='scada']")
    assert case is not None and case.find("error") is None
    before = case.find("failure")
    assert before is None or "primary_page" not in before.get("type"), before.get("message")

    broken = _run(golden_dir, GOLDEN.replace("primary_page: 9", "primary_page: 10"), tmp_path / "broken.xml")
    assert broken.exit_code == 1, broken.output
    assert "primary_page: expected page 10" in broken.stdout
    failure = ET.parse(tmp_path / "broken.xml").getroot().find(".//testcase[@name='scada']/failure")
    assert failure is not None
    assert "primary_page" in failure.get("type").split(",")
    assert "primary_page: expected page 10, got primary pages [9]" in failure.get("message")
