"""The store: ``<store>/docs/<doc_id>/<table>.parquet`` plus a corpus manifest.

Layout::

    <store>/manifest.json            doc_id -> {path, file_name, sha256, n_pages, ingested_at}
    <store>/docs/<doc_id>/*.parquet  one file per table (schemas.tables.TABLES)
    <store>/runs/*.json              one report per ingest / escalate run
    <store>/index/                   retrieval index (owned by docintel.retrieval)
    <store>/cache/                   generator response cache
    <store>/.lock                    write lock

Readers never lock: every write is a rename of a complete file or folder.
"""

from __future__ import annotations

import json
import shutil
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from docintel.errors import EmptyStoreError, UnknownDocumentError, UsageError
from docintel.schemas.tables import SCHEMA_VERSION, TABLES
from docintel.store import atomic
from docintel.store.lock import write_lock


class Store:
    """A docintel store folder."""

    def __init__(self, root: Path | str):
        self.root = Path(root)
        self.docs_dir = self.root / "docs"
        self.runs_dir = self.root / "runs"
        self.index_dir = self.root / "index"
        self.cache_dir = self.root / "cache"
        self.manifest_path = self.root / "manifest.json"

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def lock(self, command: str) -> Iterator[None]:
        """Exclusive write lock for one run; raises StoreLockedError if taken.

        Leftovers of a killed run are cleaned up only once the lock is held: a run that is
        turned away must not touch the staging folders of the run that holds it.
        """
        with write_lock(self.root, command):
            atomic.recover_dir(self.docs_dir)
            yield

    def write_document(self, doc_id: str, tables: dict[str, pa.Table], entry: dict[str, Any]) -> None:
        """Write all tables of one document version atomically, then record it in the manifest.

        Call under :meth:`lock`.
        """
        missing = set(TABLES) - set(tables)
        if missing:
            raise ValueError(f"write_document({doc_id}) lacks tables {sorted(missing)}")
        staged = self.docs_dir / f".tmp-{doc_id}-{uuid.uuid4().hex[:8]}"
        staged.mkdir(parents=True)
        try:
            for name, table in tables.items():
                pq.write_table(table.cast(TABLES[name]), staged / f"{name}.parquet", compression="zstd")
            atomic.replace_dir(staged, self.doc_dir(doc_id))
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
        manifest = self.manifest()
        manifest["documents"][doc_id] = entry
        self._write_manifest(manifest)

    def add_rows(
        self,
        doc_id: str,
        table: str,
        rows: pa.Table,
        replace_on: Sequence[str] = ("parsing_method", "page_num"),
    ) -> None:
        """Add rows to one table of one document, atomically.

        Existing rows that share ``replace_on`` values with a new row are dropped first, so
        re-running a method on a page replaces its own earlier rows and nothing else:
        escalation adds, it never overwrites another method's rows. Call under :meth:`lock`.
        """
        schema = TABLES[table]
        rows = rows.cast(schema)
        path = self.doc_dir(doc_id) / f"{table}.parquet"
        old = pq.read_table(path) if path.exists() else schema.empty_table()
        if replace_on and rows.num_rows and old.num_rows:
            old_df = old.to_pandas()
            keys = rows.select(list(replace_on)).to_pandas().drop_duplicates()
            merged = old_df.merge(keys, on=list(replace_on), how="left", indicator=True)
            keep = (merged["_merge"] == "left_only").to_numpy()
            old = old.filter(pa.array(keep))
        atomic.write_parquet(path, pa.concat_tables([old.cast(schema), rows]))

    def replace_rows(self, doc_id: str, table: str, rows: pa.Table) -> None:
        """Rewrite one whole table of one document (e.g. image_df after a figure method)."""
        atomic.write_parquet(self.doc_dir(doc_id) / f"{table}.parquet", rows.cast(TABLES[table]))

    def relocate(self, doc_id: str, path: Path) -> None:
        """Record that a stored document now lives at ``path`` (renamed or moved, same content):
        the manifest entry and the documents row. Call under :meth:`lock`."""
        manifest = self.manifest()
        entry = manifest["documents"].get(doc_id)
        if entry is None:
            return
        entry.update(path=str(path), file_name=path.name)
        docs_file = self.doc_dir(doc_id) / "documents.parquet"
        if docs_file.exists():
            table = pq.read_table(docs_file)
            for name, value in (("path", str(path)), ("file_name", path.name)):
                if name in table.column_names:
                    i = table.column_names.index(name)
                    table = table.set_column(i, name, pa.array([value] * table.num_rows, table.schema.field(name).type))
            atomic.write_parquet(docs_file, table)
        self._write_manifest(manifest)

    def remove_document(self, doc_id: str) -> None:
        manifest = self.manifest()
        manifest["documents"].pop(doc_id, None)
        self._write_manifest(manifest)
        shutil.rmtree(self.doc_dir(doc_id), ignore_errors=True)

    def write_run_report(self, command: str, report: dict[str, Any]) -> Path:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        path = self.runs_dir / f"{stamp}-{command}.json"
        atomic.write_json(path, report)
        return path

    # -- reading ---------------------------------------------------------------------------

    def doc_dir(self, doc_id: str) -> Path:
        return self.docs_dir / doc_id

    def manifest(self) -> dict[str, Any]:
        if not self.manifest_path.exists():
            return {"schema_version": SCHEMA_VERSION, "documents": {}}
        data = json.loads(self.manifest_path.read_text())
        data.setdefault("documents", {})
        return data

    def doc_ids(self) -> list[str]:
        """Documents recorded in the manifest whose folder is complete on disk."""
        return sorted(d for d in self.manifest()["documents"] if (self.doc_dir(d) / "documents.parquet").exists())

    def documents(self) -> pd.DataFrame:
        return self.read_table("documents")

    def read_table(
        self,
        table: str,
        doc_ids: Iterable[str] | None = None,
        filters: list[tuple] | None = None,
        columns: list[str] | None = None,
    ) -> pd.DataFrame:
        """One table over the given documents (default: all), as a DataFrame.

        ``filters`` are pyarrow filters, e.g. ``[("page_num", "in", [6, 9])]``.
        """
        schema = TABLES[table]
        frames = []
        for doc_id in self.doc_ids() if doc_ids is None else doc_ids:
            path = self.doc_dir(doc_id) / f"{table}.parquet"
            if path.exists():
                frames.append(pq.read_table(path, filters=filters, columns=columns))
        if not frames:
            empty = schema.empty_table()
            return (empty.select(columns) if columns else empty).to_pandas()
        return pa.concat_tables(frames, promote_options="default").to_pandas()

    def require_documents(self) -> list[str]:
        check_store_path(self.root)
        ids = self.doc_ids()
        if not ids:
            raise EmptyStoreError(
                f"store {self.root} holds no documents; run `docintel ingest PATH` first "
                "(or pass --store / set DOCINTEL_STORE)"
            )
        return ids

    def resolve_docs(self, names: Sequence[str]) -> list[str]:
        """Map --doc values (doc_id, doc_id prefix, file name or path) to doc_ids.

        Empty ``names`` means every document. Unknown names raise UnknownDocumentError with
        the names that would work.
        """
        ids = self.require_documents()
        if not names:
            return ids
        docs = self.manifest()["documents"]
        out: list[str] = []
        for name in names:
            hits = [d for d in ids if d == name or (len(name) >= 6 and d.startswith(name))]
            if not hits:
                base = Path(name).name
                hits = [d for d in ids if docs[d].get("file_name") == base or docs[d].get("path") == name]
            if not hits:
                names_held = sorted(docs[d].get("file_name", d) for d in ids)
                known = ", ".join(names_held[:10]) + (f" and {len(names_held) - 10} more" if len(names_held) > 10 else "")
                raise UnknownDocumentError(
                    f"unknown document {name!r}; the store holds: {known} "
                    "(use a file name or doc_id; `docintel docs` lists them)"
                )
            out.extend(h for h in hits if h not in out)
        return out

    def _write_manifest(self, manifest: dict[str, Any]) -> None:
        manifest["schema_version"] = SCHEMA_VERSION
        manifest["updated_at"] = datetime.now(timezone.utc).isoformat()
        atomic.write_json(self.manifest_path, manifest)


def check_store_path(root: Path) -> None:
    if root.exists() and not root.is_dir():
        raise UsageError(f"--store {root} is a file, not a folder; pass a folder path")
