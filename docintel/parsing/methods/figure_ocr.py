"""OCR of opaque figures (reason ``opaque_figure``): labels inside diagrams become ``figure_text``.

Each figure image on the page (big enough, with almost no text layer inside) is rendered at
300 dpi and read by Tesseract (``--psm 3``); lines are split where labels stand side by side and
short labels stacked in one box are joined ("Multi-Head" + "Attention"). When ``settings.escalate.vision_model`` is set, the image is also
described by that model on the OpenAI-compatible endpoint of ``settings.llm``; the description
goes to ``image_df.description``. Without it, no network is touched.
"""

from __future__ import annotations

import base64
import re
from typing import Any, ClassVar

from docintel.parsing.fitz import pymupdf
from docintel.parsing.methods.base import MethodResult, PageInput, number_lines
from docintel.parsing.methods.ocr_common import ocr_lines, pixmap_to_pil
from docintel.settings import Settings

METHOD = "figure_ocr"
DPI = 300
MIN_AREA = 0.01  # share of the page
MAX_CHARS_INSIDE = 20
VISION_TOKENS = 900  # estimate per image: a low-detail image plus a short answer
_FIG_RE = re.compile(r"^\s*(?:Figure|FIGURE|Fig\.)\s+([A-Z]?\d+(?:[.\-]\d+)*)")
PROMPT = (
    "Describe this figure from a document in 2-4 sentences for someone who cannot see it: what "
    "kind of figure it is, its main parts and labels, and what it shows. Plain text only."
)


def _figures(page: PageInput) -> list[dict[str, Any]]:
    """Image rows (image_idx, bbox, ...) worth reading, from image_df or the page itself."""
    if page.images is not None and len(page.images):
        rows = page.images.to_dict("records")
    else:
        area = page.page.rect.width * page.page.rect.height
        rows = []
        for i, info in enumerate(page.page.get_image_info()):
            b = info["bbox"]
            rows.append({"image_idx": i, "bbox": list(b), "area_ratio": abs((b[2] - b[0]) * (b[3] - b[1])) / area,
                         "text_chars_inside": 0})
    picked = [r for r in rows if (r.get("area_ratio") or 0) >= MIN_AREA and int(r.get("text_chars_inside") or 0) < MAX_CHARS_INSIDE]
    return picked or [r for r in rows if (r.get("area_ratio") or 0) >= MIN_AREA]


def _figure_key(page: Any, bbox: list[float], fallback: str) -> str:
    best = None
    flags = pymupdf().TEXT_MEDIABOX_CLIP  # no images: decoding them is most of the cost
    for x0, y0, x1, y1, text, *_ in page.get_text("blocks", flags=flags):
        m = _FIG_RE.match(text.strip())
        if not m:
            continue
        dist = min(abs(y0 - bbox[3]), abs(bbox[1] - y1))
        if dist < 80 and (best is None or dist < best[0]):
            best = (dist, m.group(1))
    return f"figure:{best[1]}" if best else fallback


def describe(image_png: bytes, settings: Settings) -> tuple[str, int]:
    """(description, tokens) from the configured vision model; raises on HTTP failure."""
    from openai import OpenAI

    client = OpenAI(base_url=settings.llm.base_url, api_key=settings.llm.api_key or "not-needed",
                    timeout=settings.llm.timeout_s, max_retries=1)
    url = "data:image/png;base64," + base64.b64encode(image_png).decode()
    resp = client.chat.completions.create(
        model=settings.escalate.vision_model,
        messages=[{"role": "user", "content": [{"type": "text", "text": PROMPT},
                                                {"type": "image_url", "image_url": {"url": url, "detail": "low"}}]}],
        max_tokens=300,
    )
    text = (resp.choices[0].message.content or "").strip()
    tokens = int(getattr(resp.usage, "total_tokens", 0) or 0) if resp.usage else 0
    return text, tokens


def merge_stacked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join short labels stacked in one box ("Multi-Head" over "Attention") into one line."""
    rows = sorted(rows, key=lambda r: (r["y0"], r["x0"]))
    out: list[dict[str, Any]] = []
    for r in rows:
        h = r["y1"] - r["y0"]
        cx = (r["x0"] + r["x1"]) / 2
        host = None
        for o in reversed(out[-8:]):
            oh = o["y1"] - o["y0"]
            ocx = (o["x0"] + o["x1"]) / 2
            width = max(o["x1"] - o["x0"], r["x1"] - r["x0"])
            if 0 <= r["y0"] - o["y1"] < 0.9 * max(h, oh) and abs(cx - ocx) < 0.3 * width \
                    and len(o["text"].split()) + len(r["text"].split()) <= 5:
                host = o
                break
        if host is None:
            out.append(dict(r))
            continue
        n = len(host["text"].split())
        host["text"] = f"{host['text']} {r['text']}".replace("- ", "-")
        host["confidence"] = round((host["confidence"] * n + r["confidence"] * len(r["text"].split())) / (n + len(r["text"].split())), 2)
        host["x0"], host["x1"] = min(host["x0"], r["x0"]), max(host["x1"], r["x1"])
        host["y1"] = max(host["y1"], r["y1"])
    return out


class FigureOCRMethod:
    """opaque_figure -> figure_text lines from the image region; image_df updated."""

    name: ClassVar[str] = METHOD
    reasons: ClassVar[tuple[str, ...]] = ("opaque_figure",)
    coverage: ClassVar[str] = "addition"
    structured: ClassVar[bool] = False
    description: ClassVar[str] = "Tesseract on each figure image, labels regrouped; vision description when configured"

    def estimate(self, page_row: dict[str, Any], settings: Settings) -> tuple[float, int]:
        n = max(1, int(page_row.get("image_count") or 1))
        tokens = VISION_TOKENS * n if settings.escalate.vision_model else 0
        return round(0.4 + 0.5 * n, 1), tokens  # one Tesseract start per page + reading each figure

    def run(self, page: PageInput) -> MethodResult:
        m = pymupdf()
        figs = []
        for k, fig in enumerate(_figures(page)):
            bbox = [float(v) for v in fig["bbox"]]
            clip = m.Rect(bbox) & page.page.rect
            if clip.is_empty:
                continue
            pix = page.page.get_pixmap(dpi=DPI, clip=clip, colorspace=m.csGRAY)
            figs.append((fig, clip, pix, _figure_key(page.page, bbox, f"figure:p{page.page_num}.{k + 1}")))
        per_fig = read_figures([(clip, pix) for _, clip, pix, _ in figs], page.settings.ingest.ocr_lang)
        lines: list[dict[str, Any]] = []
        images: list[dict[str, Any]] = []
        tokens = 0
        notes = []
        for (fig, clip, pix, key), found in zip(figs, per_fig):
            for row in found:
                row.update(kind="figure_text", object_key=key, column="single")
            lines.extend(found)
            description = None
            if page.settings.escalate.vision_model:
                description, used = describe(pix.tobytes("png"), page.settings)
                tokens += used
            images.append({"image_idx": int(fig["image_idx"]), "parsing_method": METHOD, "description": description})
            notes.append(f"{key}: {len(found)} labels")
        return MethodResult(lines=number_lines(lines, page.doc_id, page.page_num, METHOD), images=images,
                            tokens=tokens, notes=notes or ["no figure image"])


def read_figures(figs: list[tuple[Any, Any]], lang: str) -> list[list[dict[str, Any]]]:
    """OCR lines per figure (clip, pixmap), in page points.

    A page's figures are stacked on one white sheet and read by one Tesseract call: starting
    Tesseract (loading its model) costs about as much as reading a small figure. Automatic page
    segmentation (``--psm 3``) finds no text block in a diagram whose labels stand alone among
    drawings (SP 800-48 Figure 2-3: "Switch", "AP", "STA"); figures it reads nothing from are
    read again as sparse text (``--psm 11``) at 1.5x scale (small grey labels need the pixels),
    with a stricter confidence floor against the noise that mode picks up from drawings.
    """
    if not figs:
        return []
    pils = [pixmap_to_pil(pix) for _, pix in figs]
    out = _read_sheet(figs, pils, list(range(len(figs))), lang, psm=3, min_conf=60)
    empty = [k for k, rows in enumerate(out) if not rows]
    if empty:
        from PIL import Image

        big = [p.resize((int(p.width * SPARSE_SCALE), int(p.height * SPARSE_SCALE)), Image.LANCZOS) if k in empty else p
               for k, p in enumerate(pils)]
        sparse = _read_sheet(figs, big, empty, lang, psm=11, min_conf=SPARSE_MIN_CONF, scale=SPARSE_SCALE)
        for k, rows in zip(empty, sparse):
            out[k] = [r for r in rows if _is_label(r["text"])]
    return [merge_stacked(rows) for rows in out]


SPARSE_MIN_CONF = 75
SPARSE_SCALE = 1.5
_LABEL = re.compile(r"[A-Za-z]{2,}")


def _is_label(text: str) -> bool:
    """Sparse-text OCR keeps words, not the stray marks it reads in drawings ("2)", "~~")."""
    return bool(_LABEL.search(text))


def _read_sheet(
    figs: list[tuple[Any, Any]], pils: list[Any], which: list[int], lang: str, psm: int, min_conf: int,
    scale: float = 1.0,
) -> list[list[dict[str, Any]]]:
    """One Tesseract call over figures ``which`` stacked on a white sheet; lines per figure.

    ``scale`` is how much the images were enlarged over the DPI they were rendered at."""
    from PIL import Image

    chosen = [pils[k] for k in which]
    gap = 60
    sheet = Image.new("L", (max(p.width for p in chosen), sum(p.height for p in chosen) + gap * (len(chosen) - 1)), 255)
    tops = []
    y = 0
    for p in chosen:
        sheet.paste(p, (0, y))
        tops.append(y)
        y += p.height + gap
    raw = ocr_lines(sheet, 1.0, lang=lang, psm=psm, min_conf=min_conf, split_gap=1.5)
    scale = 72.0 / (DPI * scale)
    out: list[list[dict[str, Any]]] = [[] for _ in which]
    for row in raw:
        cy = (row["y0"] + row["y1"]) / 2
        i = max(i for i, top in enumerate(tops) if top <= cy)
        clip = figs[which[i]][0]
        if cy > tops[i] + chosen[i].height:
            continue  # in the gap: noise
        row = dict(row)
        row["x0"], row["x1"] = clip.x0 + row["x0"] * scale, clip.x0 + row["x1"] * scale
        row["y0"], row["y1"] = clip.y0 + (row["y0"] - tops[i]) * scale, clip.y0 + (row["y1"] - tops[i]) * scale
        row["font_size"] = round(row["y1"] - row["y0"], 2)
        out[i].append(row)
    return out
