"""Benchmark: extractive `ask` latency (p50 / p95) on stores of ~15, 500 and 5,000 pages.

Stores are built by replicating corpus PDFs under different hashes (a trailing PDF comment
changes the bytes, so every replica gets its own doc_id):

- ``--mode pdf``: every replica goes through ``docintel.api.ingest`` (the real path; slow for
  5,000 pages on a small machine);
- ``--mode copy`` (default): the base PDFs are ingested once and each replica's tables are
  copied under its replica doc_id (what ingest would have written for those bytes), then the
  page index is brought up to date with ``update_index``.

Usage: .venv/bin/python bench/ask.py [--sizes 15,500,5000] [--mode copy|pdf] [--reps 3] [--out DIR]
Prints one JSON line per store size (pages, docs, index build seconds, p50/p95 ms) on stdout:
first with the extractive generator's meaning quotes off (``ask.meaning``, the baseline: words
alone), then on (the default when the embedding model is installed), and their p50/p95 ratios.

With meaning on, each ask is timed twice over: ``cold`` (``cold_p50_ms`` ...) with the
sentence-vector cache emptied before it, as a ``docintel ask`` from the shell starts with one
(its one-time model load, ``model_load_ms``, is measured apart), and warm (``p50_ms`` ...), the
cache kept from ask to ask, as in one ``docintel eval`` run. The warm figures alone flattered the
shell: replicas repeat their pages' sentences, so by the 5,000-page store every vector was cached.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "corpora"
BASE_PDFS = [
    SHARED / "papers" / "1706.03762v7.pdf",
    SHARED / "nist" / "NIST.FIPS.199.pdf",
    SHARED / "crossref" / "SP800-61rev2.pdf",
    SHARED / "crossref" / "NIST.SP.800-63b.pdf",
]
QUESTIONS = [
    "Do learned positional embeddings give similar results to sinusoidal ones in the Transformer paper?",
    "What optimizer was used to train the Transformer?",
    "What are the security categories of information systems?",
    "What is the minimum length of a memorized secret?",
    "What should an incident response team do after containment?",
    "What is the potential impact when the loss of availability has a severe effect?",
    "How many GPUs were used for training?",
    "What is the earthquake deductible for commercial vehicles?",
    "What is a precursor?",  # a definition question: the pages defining the term are looked up too
]


def replicate_pdf(src: Path, dst: Path, i: int) -> Path:
    dst.write_bytes(src.read_bytes() + f"\n% docintel bench replica {i}\n".encode())
    return dst


def build(store: Path, pages_wanted: int, mode: str, work: Path) -> dict:
    from docintel import api
    from docintel.parsing.fitz import pymupdf
    from docintel.retrieval.index import update_index
    from docintel.settings import Settings
    from docintel.store import Store

    settings = Settings.load(env={}, store=store, quiet=True)
    m = pymupdf()
    sizes = {p: len(m.open(p)) for p in BASE_PDFS if p.exists()}
    bases = [p for p in BASE_PDFS if p in sizes]
    # pick replicas until the page count is reached (first document always the Transformer paper)
    plan: list[tuple[Path, int]] = []
    total, i = 0, 0
    while total < pages_wanted:
        src = bases[i % len(bases)]
        plan.append((src, i // len(bases)))
        total += sizes[src]
        i += 1
    t0 = time.perf_counter()
    if mode == "pdf":
        files = [replicate_pdf(src, work / f"{src.stem}-r{k}.pdf", k) if k else src for src, k in plan]
        api.ingest(files, settings)
    else:
        originals = sorted({src for src, _ in plan})
        api.ingest(originals, settings)
        s = Store(store)
        manifest = s.manifest()["documents"]
        by_name = {e["file_name"]: d for d, e in manifest.items()}
        import pyarrow.parquet as pq

        with s.lock("bench"):
            for src, k in plan:
                if k == 0:
                    continue
                data = replicate_pdf(src, work / "tmp.pdf", k).read_bytes()
                sha = hashlib.sha256(data).hexdigest()
                new_id = sha[:16]
                old_id = by_name[src.name]
                tables = {}
                for f in s.doc_dir(old_id).glob("*.parquet"):
                    t = pq.read_table(f)
                    if "doc_id" in t.column_names:
                        import pyarrow as pa

                        t = t.set_column(t.column_names.index("doc_id"), "doc_id", pa.array([new_id] * t.num_rows, pa.string()))
                    tables[f.stem] = t
                entry = dict(manifest[old_id], sha256=sha, file_name=f"{src.stem}-r{k}.pdf", path=str(work / f"{src.stem}-r{k}.pdf"))
                s.write_document(new_id, tables, entry)
        update_index(s)
    return {"pages": total, "docs": len(plan), "build_s": round(time.perf_counter() - t0, 1)}


def model_load_ms() -> float | None:
    """Milliseconds the embedding model takes to load, once per process (None: not installed)."""
    from docintel import embedding

    if not embedding.available():
        return None
    embedding.encoder.cache_clear()
    t = time.perf_counter()
    embedding.encoder()
    return round((time.perf_counter() - t) * 1000, 1)


def measure(store: Path, reps: int, meaning: bool = True, cold: bool = False) -> dict:
    """p50 / p95 / max ms of ``reps`` rounds of QUESTIONS; ``cold``: the sentence-vector cache
    emptied before each ask (the model stays loaded)."""
    from docintel import api, embedding
    from docintel.settings import Settings

    settings = Settings.load(env={}, store=store, ask__meaning=meaning)
    api.ask(QUESTIONS[0], settings)  # warm: imports, page cache
    times = []
    for _ in range(reps):
        for q in QUESTIONS:
            if cold:
                embedding._CACHE.clear()
            t = time.perf_counter()
            api.ask(q, settings)
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return {"n": len(times), "p50_ms": round(statistics.median(times), 1), "p95_ms": round(p95, 1),
            "max_ms": round(times[-1], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="15,500,5000")
    ap.add_argument("--mode", choices=("copy", "pdf"), default="copy")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None, help="Keep the stores here (default: a temp folder).")
    args = ap.parse_args()
    base = args.out or Path(tempfile.mkdtemp(prefix="docintel-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    for size in [int(x) for x in args.sizes.split(",")]:
        store = base / f"store-{size}"
        work = base / f"pdfs-{size}"
        work.mkdir(exist_ok=True)
        info = build(store, size, args.mode, work) if not store.exists() else {"pages": None, "reused": True}
        off = measure(store, args.reps, meaning=False)
        cold = measure(store, args.reps, meaning=True, cold=True)
        on = measure(store, args.reps, meaning=True)
        info.update({f"words_{k}": v for k, v in off.items() if k != "n"})
        info.update({f"cold_{k}": v for k, v in cold.items() if k != "n"})
        info.update(on)
        info["cold_p50_ratio"] = round(cold["p50_ms"] / off["p50_ms"], 2)
        info["cold_p95_ratio"] = round(cold["p95_ms"] / off["p95_ms"], 2)
        info["p50_ratio"] = round(on["p50_ms"] / off["p50_ms"], 2)
        info["p95_ratio"] = round(on["p95_ms"] / off["p95_ms"], 2)
        info["model_load_ms"] = model_load_ms()
        info["target_pages"] = size
        print(json.dumps(info), flush=True)


if __name__ == "__main__":
    main()
