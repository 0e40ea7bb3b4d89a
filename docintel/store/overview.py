"""What ingest stored, as plain records for `docintel docs`, `docintel pages DOC`, `docintel toc DOC`."""

from __future__ import annotations

from typing import Any

from docintel.settings import Settings


def _records(df) -> list[dict[str, Any]]:
    import math

    out = []
    for rec in df.to_dict("records"):
        clean = {}
        for k, v in rec.items():
            if hasattr(v, "tolist"):
                v = v.tolist()
            elif isinstance(v, float) and math.isnan(v):
                v = None
            elif hasattr(v, "isoformat"):
                v = v.isoformat()
            clean[k] = v
        out.append(clean)
    return out


def list_documents(settings: Settings) -> list[dict[str, Any]]:
    """One record per stored document (the documents table), sorted by file name, with
    ``parsed_by`` (the parsing code's fingerprint its manifest entry records, None before
    documents recorded it) and ``parse_current`` (whether this docintel's parsers wrote it)."""
    from docintel.store import Store
    from docintel.store.fingerprint import parsed_by_other_code

    store = Store(settings.store)
    store.require_documents()
    df = store.documents().sort_values(["file_name", "doc_id"])
    entries = store.manifest()["documents"]
    stale = parsed_by_other_code(entries)
    rows = _records(df)
    for row in rows:
        row["parsed_by"] = entries.get(row["doc_id"], {}).get("parsed_by")
        row["parse_current"] = row["doc_id"] not in stale
    return rows


def stale_files(settings: Settings, doc_ids: set[str]) -> list[str]:
    """File names of the documents among ``doc_ids`` that other (older) parsing code wrote."""
    from docintel.store import Store
    from docintel.store.fingerprint import parsed_by_other_code

    entries = Store(settings.store).manifest()["documents"]
    return sorted({entries[d].get("file_name") or d for d in parsed_by_other_code(entries) & doc_ids})


def page_signals(settings: Settings, doc: str) -> dict[str, Any]:
    """{"doc_id", "file_name", "pages": page_df rows (every parsing method) sorted by page}."""
    from docintel.store import Store

    store = Store(settings.store)
    doc_id = _one(store, doc)
    df = store.read_table("page_df", [doc_id]).sort_values(["page_num", "parsing_method"], kind="stable")
    return {"doc_id": doc_id, "file_name": _name(store, doc_id), "pages": _records(df)}


def table_of_contents(settings: Settings, doc: str) -> dict[str, Any]:
    """{"doc_id", "file_name", "toc": toc_df rows in reading order}."""
    from docintel.store import Store

    store = Store(settings.store)
    doc_id = _one(store, doc)
    df = store.read_table("toc_df", [doc_id])
    if not df.empty:
        df = df.sort_values(["toc_order", "page_start"], kind="stable")
    return {"doc_id": doc_id, "file_name": _name(store, doc_id), "toc": _records(df)}


def _one(store, doc: str) -> str:
    from docintel.errors import UsageError

    ids = store.resolve_docs([doc])
    if len(ids) > 1:
        raise UsageError(f"{doc!r} matches {len(ids)} documents ({', '.join(ids)}); pass a doc_id")
    return ids[0]


def _name(store, doc_id: str) -> str:
    return store.manifest()["documents"].get(doc_id, {}).get("file_name", doc_id)
