"""`docintel ask --generator openai` end to end: the real CLI in a subprocess, a real store
ingested from a synthetic PDF, and the scripted OpenAI-compatible server on 127.0.0.1.

The fake model here reads the passages the way a model would (ids and line numbers from the
prompt): on the first pass it reports the pointer "Table 1 row (E)" as pending; once a passage
pulled in by that reference is present it answers from it. So these tests check the wire format,
the two-pass loop with an LLM, the cache on re-run, and what a user sees when the endpoint fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import Reply, answer, closed_port_url, malformed, passages_in

QUESTION = "Do learned positional embeddings give similar results to sinusoidal ones?"
DOCINTEL = Path(sys.executable).with_name("docintel")

PAGE1 = [
    "1 Positional encodings",
    "We compare sinusoidal positional encodings with learned positional embeddings.",
    "The two versions produced nearly identical results (see Table 1 row (E)).",
    "Other variations are discussed later in the paper.",
]
TABLE_CAPTION = "Table 1: Variations on the base model"
TABLE = [["", "variant", "PPL", "BLEU"], ["base", "sinusoidal", "4.92", "25.8"],
         ["(E)", "learned positional embedding", "4.92", "25.7"], ["(F)", "smaller model", "5.01", "25.1"]]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    from docintel import api
    from docintel.parsing.fitz import pymupdf
    from docintel.settings import Settings

    root = tmp_path_factory.mktemp("cli_openai")
    fitz = pymupdf()
    doc = fitz.open()
    page = doc.new_page()
    for i, text in enumerate(PAGE1):
        page.insert_text((72, 72 + 18 * i), text, fontsize=11)
    page = doc.new_page()  # a real table layout: caption, then one text run per cell
    page.insert_text((72, 72), TABLE_CAPTION, fontsize=11)
    for r, row in enumerate(TABLE):
        for x, cell in zip((72, 130, 330, 400), row):
            if cell:
                page.insert_text((x, 120 + 16 * r), cell, fontsize=10)
    pdf = root / "positional.pdf"
    doc.save(pdf)
    store = root / "store"
    api.ingest([pdf], Settings(store=store))
    return store


@pytest.fixture
def store(ingested, tmp_path) -> Path:
    """A private copy, so one test's LLM cache never answers for another."""
    return Path(shutil.copytree(ingested, tmp_path / "store"))


def two_pass_model(body: dict) -> Reply:
    passages = passages_in(body)
    primary = {k: v for k, v in passages.items() if k.startswith("P")}
    pulled = {k: v for k, v in passages.items() if not k.startswith("P")}
    pid, (a, b, lines) = next(iter(primary.items()))
    if pulled:
        rid, (ra, rb, rlines) = next(iter(pulled.items()))
        row = next(l for l in rlines if "(E)" in l)
        return answer(
            {
                "answer": f"Nearly identical: {row.split('| ', 1)[1]} (base 25.8).",
                "citations": [
                    {"passage_id": pid, "line_start": a, "line_end": b},
                    {"passage_id": rid, "line_start": int(row.split("|")[0]), "line_end": int(row.split("|")[0])},
                ],
                "pending_references": [],
                "answer_completeness": "complete",
            }
        )
    line = next(int(l.split("|")[0]) for l in lines if "Table 1 row (E)" in l)
    return answer(
        {
            "answer": "The two versions produced nearly identical results; the numbers are in Table 1 row (E).",
            "citations": [{"passage_id": pid, "line_start": line, "line_end": line}],
            "pending_references": [
                {"raw_text": "Table 1 row (E)", "ref_type": "table", "ref_target": "1", "sub_selector": "E",
                 "passage_id": pid, "line": line}
            ],
            "answer_completeness": "references_unresolved",
        }
    )


def run_ask(store: Path, base_url: str, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DOCINTEL_"))}
    full_env.update({"OPENAI_BASE_URL": base_url, "DOCINTEL_MODEL": "fake-model", "OMP_THREAD_LIMIT": "1"})
    full_env.update(env or {})
    return subprocess.run(
        [str(DOCINTEL), "ask", QUESTION, "--store", str(store), "--generator", "openai", *extra],
        capture_output=True, text=True, env=full_env, timeout=120,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert proc.returncode == code, proc.stderr
    assert proc.stdout == "", "stdout carries results only"
    assert "Traceback" not in proc.stderr
    lines = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    assert len(lines) == 1, proc.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_ask_openai_follows_the_pointer_and_rerun_hits_the_cache(fake, store):
    fake.responder = two_pass_model
    first = run_ask(store, fake.base_url, "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["generator"] == "openai"
    assert (out["answer_completeness"], out["verdict"], out["passes"]) == ("complete", "return_to_user", 2)
    assert "25.7" in out["answer"]
    assert out["llm_calls"] == 2 and out["tokens"] == {"prompt": 200, "completion": 40}
    ref = [c for c in out["citations"] if c["retrieved_via"] == "reference"]
    assert ref and ref[0]["page"] == 2 and ref[0]["reference_text"] == "Table 1 row (E)"
    assert ref[0]["referenced_from"]["page"] == 1
    assert [r["status"] for r in out["resolved_references"]] == ["resolved"]
    sent = fake.completions
    assert len(sent) == 2 and all(r["model"] == "fake-model" for r in sent)
    assert all(r["response_format"]["type"] == "json_schema" for r in sent)

    second = run_ask(store, fake.base_url, "--json")
    assert second.returncode == 0, second.stderr
    again = json.loads(second.stdout)
    assert len(fake.completions) == 2, "a re-run on the same store must not reach the endpoint"
    assert again["llm_calls"] == 0 and again["tokens"] == {"prompt": 0, "completion": 0}
    assert {k: v for k, v in again.items() if k not in ("llm_calls", "tokens")} == {
        k: v for k, v in out.items() if k not in ("llm_calls", "tokens")
    }


def test_closed_port_is_one_line_and_exit_2(store):
    url = closed_port_url()
    proc = run_ask(store, url)
    assert_one_line_error(proc, 2, "cannot reach the LLM endpoint", url, "OPENAI_BASE_URL")


def test_timeout_is_one_line_and_exit_1(fake, store):
    fake.default = Reply(content="{}", delay_s=5.0)
    proc = run_ask(store, fake.base_url, "--json", env={"DOCINTEL_LLM_TIMEOUT": "0.5"})
    assert_one_line_error(proc, 1, "did not answer within 0.5 s")


def test_invalid_output_twice_is_one_line_and_exit_1(fake, store):
    fake.queue(malformed("Sure! The answer is yes."), malformed("Yes."))
    proc = run_ask(store, fake.base_url, "--model", "flag-model")
    assert_one_line_error(proc, 1, "invalid output twice", "flag-model")
    assert [r["model"] for r in fake.completions] == ["flag-model"] * 2, "--model beats DOCINTEL_MODEL"
