"""One writer per store: an advisory file lock held for the length of a writing run."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from docintel.errors import StoreLockedError, UsageError


@contextmanager
def write_lock(store_root: Path, command: str) -> Iterator[None]:
    """Hold ``<store>/.lock`` exclusively, or fail at once with who holds it."""
    path = store_root / ".lock"
    try:
        store_root.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:  # read-only mount, another user's folder, a file in the way
        raise UsageError(
            f"store {store_root} is not writable ({e.strerror}); "
            "fix its permissions or pass --store with a writable folder"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            raise StoreLockedError(
                f"store {store_root} is being written by {holder}; "
                "wait for that run to finish (or point --store elsewhere) and retry"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"docintel {command} (pid {os.getpid()})".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
