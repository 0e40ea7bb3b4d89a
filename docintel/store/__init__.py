"""The Parquet store: one folder per document version, atomic writes, a write lock."""

from docintel.store.store import Store

__all__ = ["Store"]
