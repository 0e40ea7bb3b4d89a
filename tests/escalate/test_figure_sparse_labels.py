"""Figure OCR on a diagram whose labels stand alone among drawings.

Regression: SP 800-48r1 page 17 (Figure 2-3, a raster network diagram) gave no figure_text at
all, because Tesseract's automatic page segmentation (--psm 3) finds no text block there; the
word "Switch" exists only inside the image, so a golden question could not be answered.
"""

from __future__ import annotations

from docintel.parsing import methods
from synth_pages import page_input


def test_sparse_diagram_labels_are_read(shared_corpora):
    result = methods.get("figure_ocr").run(page_input(shared_corpora / "figures" / "SP800-48r1.pdf", 17))
    texts = [r["text"] for r in result.lines]
    assert any("Switch" in t for t in texts), texts
    assert any("Internet" in t for t in texts), texts
    assert sum("STA" in t or "AP" == t for t in texts) >= 3, texts
    # in page points, inside the figure's box (73, 72, 539, 597)
    assert all(72 <= r["x0"] and r["x1"] <= 540 and 71 <= r["y0"] and r["y1"] <= 598 for r in result.lines)
    assert {r["kind"] for r in result.lines} == {"figure_text"}
