"""On-disk cache of LLM answers: ``<store>/cache/llm/<key[:2]>/<key>.json``.

The key is the SHA-256 of the model name, the full prompt (every message sent) and the JSON
schema the answer must follow, plus a format version. Only answers that passed validation are
stored, so a cache hit never needs a corrective retry, and a CI re-run of the same questions on
the same store sends nothing to the endpoint. The endpoint URL is deliberately not part of the
key: the same model behind a different URL gives a hit. Delete the folder to start afresh.

Entries are written atomically (write, then rename); an unreadable entry is treated as a miss
and overwritten by the next answer.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from docintel.store import atomic

CACHE_FORMAT = 1
"""Bump when the stored record or the meaning of a key changes."""


def cache_key(model: str, messages: list[dict[str, Any]], schema: dict[str, Any]) -> str:
    """SHA-256 hex of (format, model, messages, schema) in canonical JSON."""
    canonical = json.dumps(
        {"format": CACHE_FORMAT, "model": model, "messages": messages, "schema": schema},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class LLMCache:
    """A folder of cached answers. ``root`` is usually ``Store(...).cache_dir / "llm"``."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored record, or None on a miss (or an unreadable entry)."""
        try:
            record = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("format") != CACHE_FORMAT or "content" not in record:
            return None
        return record

    def put(self, key: str, *, model: str, content: str, usage: dict[str, int], llm_calls: int, mode: str) -> None:
        """Store a validated answer's raw JSON ``content`` with what it cost when first made."""
        atomic.write_json(
            self.path(key),
            {
                "format": CACHE_FORMAT,
                "key": key,
                "model": model,
                "content": content,
                "usage": usage,
                "llm_calls": llm_calls,
                "response_format": mode,
                "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            },
        )
