"""`escalate` end to end on real ingested stores: acceptance, idempotence, dry run, caps, failures."""

from __future__ import annotations

import json
import re

import pytest

from docintel.parsing import methods
from docintel.parsing.escalate import run_escalate
from docintel.schemas.escalate import ItemStatus
from docintel.store import Store
from docintel.store.view import best_lines
from synth_pages import ingest_into

pytestmark = pytest.mark.usefixtures("shared_corpora")


@pytest.fixture(scope="module")
def transformer_store(tmp_path_factory, shared_corpora):
    """Transformer paper + FIPS 199, ingested and escalated once (default routes)."""
    root = tmp_path_factory.mktemp("esc")
    settings = ingest_into(root, shared_corpora / "papers" / "1706.03762v7.pdf", shared_corpora / "nist" / "NIST.FIPS.199.pdf")
    report = run_escalate(settings)
    return settings, report


def _doc(store, name):
    return store.resolve_docs([name])[0]


def _cells(row):
    return {c["header"]: c["value"] for c in json.loads(row["cells"])}


def test_transformer_table3_rows_in_the_view(transformer_store):
    settings, report = transformer_store
    assert report.failed == 0 and report.exit_code == 0
    store = Store(settings.store)
    doc = _doc(store, "1706.03762v7.pdf")
    view = best_lines(store, doc, [9])
    rows = view[(view["kind"] == "table_row") & (view["object_key"] == "table:3")]
    e = rows[rows["row_key"] == "(E)"]
    assert len(e) == 1
    text = e.iloc[0]["text"]
    assert "positional embedding instead of sinusoids" in text and "4.92" in text and "25.7" in text
    assert _cells(e.iloc[0])["PPL (dev)"] == "4.92" and _cells(e.iloc[0])["BLEU (dev)"] == "25.7"
    base = rows[rows["row_key"] == "base"]
    assert len(base) == 1
    assert _cells(base.iloc[0])["PPL (dev)"] == "4.92" and _cells(base.iloc[0])["BLEU (dev)"] == "25.8"
    # stacked sub-rows keep their group key: row (A) selects four rows
    assert (rows["row_key"] == "(A)").sum() == 4
    assert rows[rows["row_key"] == "header"].shape[0] == 1
    # the flattened baseline lines of the table are replaced in the view, the prose stays
    assert not ((view["parsing_method"] == "pymupdf") & (view["text"] == "positional embedding instead of sinusoids")).any()
    assert view["text"].str.contains("In Table 3 rows", regex=False).any()
    assert set(view["parsing_method"]) == {"pymupdf", "pymupdf_tables"}
    # escalation adds: page 6's and page 9's baseline lines are still in line_df
    lines = store.read_table("line_df", [doc])
    assert ((lines["page_num"] == 6) & (lines["parsing_method"] == "pymupdf")).sum() > 20
    assert ((lines["page_num"] == 9) & (lines["parsing_method"] == "pymupdf")).sum() > 20
    pages = store.read_table("page_df", [doc])
    p9 = pages[(pages["page_num"] == 9) & (pages["parsing_method"] == "pymupdf_tables")].iloc[0]
    assert bool(p9["context_structured"]) and p9["coverage"] == "region" and p9["n_lines"] > 20


def test_fips199_table1_rows(transformer_store):
    settings, _ = transformer_store
    store = Store(settings.store)
    view = best_lines(store, _doc(store, "NIST.FIPS.199.pdf"), [10])
    rows = view[view["kind"] == "table_row"]
    for key, word in (("Confidentiality", "disclosure"), ("Integrity", "modification"), ("Availability", "disruption")):
        hit = rows[rows["row_key"] == key]
        assert len(hit) == 1, key
        cells = json.loads(hit.iloc[0]["cells"])
        by_level = {lvl: next(c["value"] for c in cells if c["header"].endswith(lvl)) for lvl in ("LOW", "MODERATE", "HIGH")}
        assert "limited adverse effect" in by_level["LOW"] and word in by_level["LOW"]
        assert "serious adverse effect" in by_level["MODERATE"]
        assert "severe or catastrophic" in by_level["HIGH"]


def test_figure1_labels_and_image_df(transformer_store):
    settings, _ = transformer_store
    store = Store(settings.store)
    doc = _doc(store, "1706.03762v7.pdf")
    view = best_lines(store, doc, [3])
    labels = view[view["kind"] == "figure_text"]["text"].tolist()
    assert any("Multi-Head Attention" in t for t in labels), labels
    assert any("Add & Norm" in t for t in labels), labels
    assert any("Feed Forward" in t for t in labels), labels
    assert (view["kind"] == "text").sum() > 10  # the page's own text stays
    images = store.read_table("image_df", [doc])
    assert images[images["page_num"] == 3]["parsing_method"].tolist() == ["figure_ocr"]


def test_rerun_is_idempotent_and_force_replaces(transformer_store):
    settings, _ = transformer_store
    store = Store(settings.store)
    before = len(store.read_table("line_df"))
    pages_before = len(store.read_table("page_df"))
    again = run_escalate(settings)
    assert again.done == 0 and again.skipped > 0 and again.exit_code == 0
    assert len(store.read_table("line_df")) == before
    forced = run_escalate(settings.model_copy(update={"escalate": settings.escalate.model_copy(update={"force": True})}),
                          docs=["NIST.FIPS.199.pdf"])
    assert forced.done == 1
    assert len(store.read_table("line_df")) == before
    assert len(store.read_table("page_df")) == pages_before


def test_dry_run_plans_without_writing(tmp_path, shared_corpora):
    settings = ingest_into(tmp_path, shared_corpora / "papers" / "1706.03762v7.pdf")
    store = Store(settings.store)
    before = len(store.read_table("line_df"))
    dry = settings.model_copy(update={"escalate": settings.escalate.model_copy(update={"dry_run": True})})
    report = run_escalate(dry)
    assert report.dry_run and report.done == 0
    assert len(store.read_table("line_df")) == before
    items = {i.page: i for i in report.items}
    assert items[9].method == "pymupdf_tables" and items[9].status == ItemStatus.planned
    assert re.search(r"flat_table: 'Table 3' caption \+ \d+ short cells", items[9].reasons[0])
    assert items[3].method == "figure_ocr" and items[3].est_seconds > 0
    assert report.est_seconds == pytest.approx(sum(i.est_seconds for i in report.items), abs=0.05)
    # a configured vision model shows up as tokens in the plan; nothing is called in a dry run
    vis = dry.model_copy(update={"escalate": dry.escalate.model_copy(update={"vision_model": "some-vlm"})})
    assert next(i for i in run_escalate(vis).items if i.page == 3).est_tokens > 0
    # cap
    capped = dry.model_copy(update={"escalate": dry.escalate.model_copy(update={"max_pages": 2})})
    report = run_escalate(capped)
    assert report.planned == 2 and report.capped == len(report.items) - 2


class Boom:
    """A method that crashes on page 9 and finds nothing elsewhere."""

    name = "boom"
    reasons = ()
    coverage = "page"
    structured = False
    description = "test method that fails"

    def estimate(self, page_row, settings):
        return 0.01, 0

    def run(self, page):
        if page.page_num == 9:
            raise RuntimeError("synthetic crash")
        from docintel.parsing.methods.base import MethodResult

        return MethodResult(lines=[])


def test_a_failing_method_keeps_the_baseline_and_exits_1(tmp_path, shared_corpora, monkeypatch):
    monkeypatch.setitem(methods._FACTORIES, "boom", Boom)
    settings = ingest_into(tmp_path, shared_corpora / "papers" / "1706.03762v7.pdf")
    run = settings.model_copy(update={"escalate": settings.escalate.model_copy(update={"method": "boom"})})
    report = run_escalate(run, pages=[8, 9])
    assert report.failed == 1 and report.done == 1 and report.exit_code == 1
    failed = next(i for i in report.items if i.status == ItemStatus.failed)
    assert failed.page == 9 and "synthetic crash" in failed.error
    store = Store(settings.store)
    doc = store.doc_ids()[0]
    pages = store.read_table("page_df", [doc])
    err = pages[(pages["page_num"] == 9) & (pages["parsing_method"] == "boom")]
    assert len(err) == 1 and "synthetic crash" in err.iloc[0]["error"]
    view = best_lines(store, doc, [9])
    assert set(view["parsing_method"]) == {"pymupdf"} and len(view) > 20
    # the failed page is retried on the next run (not skipped as done)
    again = run_escalate(run, pages=[9])
    assert again.failed == 1 and again.skipped == 0
    assert len(store.read_table("page_df", [doc]).query("page_num == 9 and parsing_method == 'boom'")) == 1


@pytest.mark.slow
def test_rotated_skew_scan_comes_out_upright(tmp_path, shared_corpora):
    settings = ingest_into(tmp_path, shared_corpora / "scanned" / "rotated_skew.pdf")
    report = run_escalate(settings)
    item = next(i for i in report.items if i.method == "ocr_hires")
    assert item.status == ItemStatus.done, item
    store = Store(settings.store)
    view = best_lines(store, store.doc_ids()[0], [1])
    assert set(view["parsing_method"]) == {"ocr_hires"}
    got = re.findall(r"[a-z0-9]+", " ".join(view["text"]).lower())
    ref = re.findall(r"[a-z0-9]+", (shared_corpora / "scanned" / "linn.txt").read_text().lower())
    from collections import Counter

    recall = sum((Counter(got) & Counter(ref)).values()) / len(ref)
    assert recall >= 0.9, recall
    assert view["confidence"].mean() > 80


def test_view_places_figure_labels_at_the_figure():
    import pandas as pd

    from docintel.store.view import combine

    def line(n, text, y, method="pymupdf", **kw):
        return dict(doc_id="d", page_num=3, line_num=n, text=text, x0=10.0, x1=300.0, y0=y, y1=y + 8,
                    kind=kw.pop("kind", "text"), parsing_method=method, **kw)

    lines = pd.DataFrame([
        line(1, "text above the figure", 50),
        line(2, "Figure 1: caption", 400),
        line(3, "text below", 420),
        line(1, "Multi-Head Attention", 120, method="figure_ocr", kind="figure_text", object_key="figure:1"),
        line(2, "Add & Norm", 100, method="figure_ocr", kind="figure_text", object_key="figure:1"),
    ])
    pages = pd.DataFrame([
        {"page_num": 3, "parsing_method": "pymupdf", "coverage": "page", "error": None},
        {"page_num": 3, "parsing_method": "figure_ocr", "coverage": "addition", "error": None},
    ])
    view = combine(lines, pages)
    assert list(view["text"]) == ["text above the figure", "Multi-Head Attention", "Add & Norm", "Figure 1: caption", "text below"]


def test_a_moved_pdf_fails_its_pages_and_says_what_to_do(tmp_path, synth_dir):
    import shutil

    pdf = tmp_path / "ruled.pdf"
    shutil.copy(synth_dir / "ruled.pdf", pdf)
    settings = ingest_into(tmp_path / "store", pdf)
    pdf.unlink()
    run = settings.model_copy(update={"escalate": settings.escalate.model_copy(update={"method": "pymupdf_tables"})})
    report = run_escalate(run, pages=[1])
    assert report.exit_code == 1 and report.failed == 1
    assert "re-ingest" in report.items[0].error


def test_a_pdf_changed_in_place_is_not_escalated_into_the_old_version(tmp_path, synth_dir):
    """Same path, new content, not re-ingested: the page numbers now belong to another
    document, so its pages must not be parsed into the stored version's rows."""
    import shutil

    from docintel.store import Store

    pdf = tmp_path / "doc.pdf"
    shutil.copy(synth_dir / "ruled.pdf", pdf)
    settings = ingest_into(tmp_path / "store", pdf)
    before = Store(settings.store).read_table("line_df")
    shutil.copy(synth_dir / "booktabs.pdf", pdf)
    run = settings.model_copy(update={"escalate": settings.escalate.model_copy(update={"method": "pymupdf_tables"})})
    report = run_escalate(run, pages=[1])
    assert report.exit_code == 1 and report.failed == 1
    assert "changed since it was ingested" in report.items[0].error and "docintel ingest" in report.items[0].error
    assert len(Store(settings.store).read_table("line_df")) == len(before)
