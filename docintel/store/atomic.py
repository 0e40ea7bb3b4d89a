"""Write-then-rename helpers: a killed process never leaves a half-written file or folder."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


def _temp_beside(path: Path) -> tuple[int, str]:
    """A temporary file next to ``path`` with the permissions a plain ``open()`` would give
    (mkstemp makes it 0600: a store written by a cron user would be unreadable to others)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)
    return fd, tmp


def write_bytes(path: Path, data: bytes) -> None:
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_bytes(path, json.dumps(data, indent=2, sort_keys=True, default=str).encode())


def write_parquet(path: Path, table: pa.Table) -> None:
    fd, tmp = _temp_beside(path)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def replace_dir(staged: Path, target: Path) -> None:
    """Move a fully written ``staged`` folder to ``target``, replacing any old one.

    The old folder is renamed aside first, so at every instant either the old or the new
    version is complete at ``target`` (bar the two renames' instant, which
    :func:`recover_dir` repairs on the next run).
    """
    old = target.with_name(f".old-{target.name}")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.replace(target, old)
    os.replace(staged, target)
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)


def recover_dir(parent: Path) -> None:
    """Clean up after a killed run: drop staged folders, restore an old version left aside."""
    if not parent.exists():
        return
    for p in parent.iterdir():
        if p.name.startswith(".tmp-"):
            shutil.rmtree(p, ignore_errors=True)
        elif p.name.startswith(".old-"):
            target = p.with_name(p.name[len(".old-"):])
            if target.exists():
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.replace(p, target)
