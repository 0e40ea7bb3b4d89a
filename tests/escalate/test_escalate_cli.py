"""`docintel escalate` through typer's CliRunner: exit codes, JSON, plan, usage errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.escalate import parse_pages
from cli.main import app
from docintel.errors import UsageError
from synth_pages import ingest_into

runner = CliRunner()


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory, shared_corpora):
    root = tmp_path_factory.mktemp("cli")
    ingest_into(root, shared_corpora / "nist" / "NIST.FIPS.199.pdf")
    return root


def test_list_methods():
    res = runner.invoke(app, ["escalate", "--list-methods", "--json"])
    assert res.exit_code == 0
    names = {m["name"] for m in json.loads(res.stdout)}
    assert {"pymupdf_tables", "figure_ocr", "reading_order", "ocr_hires"} <= names


def test_unknown_method_is_a_usage_error(store_dir):
    res = runner.invoke(app, ["escalate", "--store", str(store_dir), "--method", "camelot"])
    assert res.exit_code == 2
    assert "pymupdf_tables" in res.output and "camelot" in res.output


def test_bad_pages_and_unknown_doc(store_dir):
    assert runner.invoke(app, ["escalate", "--store", str(store_dir), "--pages", "9-3"]).exit_code == 2
    assert runner.invoke(app, ["escalate", "--store", str(store_dir), "--pages", "x"]).exit_code == 2
    res = runner.invoke(app, ["escalate", "--store", str(store_dir), "--doc", "nope.pdf"])
    assert res.exit_code == 2 and "NIST.FIPS.199.pdf" in res.output
    res = runner.invoke(app, ["escalate", "--store", str(store_dir), "--pages", "99"])
    assert res.exit_code == 2 and "13 pages" in res.output


def test_empty_store_is_a_usage_error(tmp_path):
    assert runner.invoke(app, ["escalate", "--store", str(tmp_path / "none")]).exit_code == 2


def test_dry_run_json_then_run_then_idempotent(store_dir):
    res = runner.invoke(app, ["escalate", "--store", str(store_dir), "--dry-run", "--json"])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout)
    assert plan["dry_run"] and plan["planned"] == 1
    item = plan["items"][0]
    assert item["page"] == 10 and item["method"] == "pymupdf_tables" and item["reasons"][0].startswith("flat_table:")
    res = runner.invoke(app, ["escalate", "--store", str(store_dir), "--json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["done"] == 1
    res = runner.invoke(app, ["escalate", "--store", str(store_dir)])
    assert res.exit_code == 0 and "skipped" in res.stdout


def test_parse_pages():
    assert parse_pages("3,9-10") == [3, 9, 10]
    assert parse_pages(None) is None
    with pytest.raises(UsageError):
        parse_pages("0")


def test_a_file_gone_since_ingest_fails_in_one_line_not_one_per_page(tmp_path, shared_corpora):
    """SP 800-48 has 16 flagged pages; when its file is deleted after ingest, the reason is the
    document's, so it is said once, naming the pages that keep their baseline."""
    import shutil

    pdf = shutil.copy(shared_corpora / "figures" / "SP800-48r1.pdf", tmp_path / "SP800-48r1.pdf")
    ingest_into(tmp_path / "store", pdf)
    (tmp_path / "SP800-48r1.pdf").unlink()
    plan = json.loads(runner.invoke(app, ["escalate", "--store", str(tmp_path / "store"), "--dry-run", "--json"]).stdout)
    res = runner.invoke(app, ["escalate", "--store", str(tmp_path / "store"), "--quiet"])
    assert res.exit_code == 1
    failed = [ln for ln in res.stderr.splitlines() if ln.startswith("failed:")]
    assert len(failed) == 1 and plan["planned"] > 1, res.stderr
    assert f"{plan['planned']} pages (p{plan['items'][0]['page']}, " in failed[0]
    assert "is gone" in failed[0] and failed[0].endswith("(pages keep their baseline)")
