"""Load golden files (YAML) into validated :class:`GoldenFile` records.

A malformed file raises :class:`GoldenFileError` (exit 2) naming the file and the line that is
wrong: the YAML is composed once into nodes (which carry their line marks) and each pydantic
error location is walked down that node tree to the offending key or value.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from docintel.errors import UsageError
from docintel.schemas.evaluation import GoldenFile


class GoldenFileError(UsageError):
    """A golden file cannot be used as written (exit 2)."""


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _node_at(node: yaml.Node | None, loc: Sequence[Any]) -> yaml.Node | None:
    """The deepest node of ``node`` reachable along a pydantic error location."""
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == key:
                    node = v
                    break
            else:
                return node
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            if key >= len(node.value):
                return node
            node = node.value[key]
        else:
            return node
    return node


def _key_node(node: yaml.Node | None, loc: Sequence[Any]) -> yaml.Node | None:
    """For an unknown key (extra field), the key node itself rather than its parent mapping."""
    parent = _node_at(node, loc[:-1])
    if isinstance(parent, yaml.MappingNode):
        for k, _ in parent.value:
            if k.value == loc[-1]:
                return k
    return None


def _loc_text(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def load_golden(path: Path | str) -> GoldenFile:
    """Read and validate one golden file; raises GoldenFileError naming file:line."""
    path = Path(path)
    shown = _display(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GoldenFileError(f"{shown}: golden file not found")
    except (OSError, UnicodeDecodeError) as e:
        raise GoldenFileError(f"{shown}: cannot read golden file ({e})")
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f":{mark.line + 1}" if mark else ""
        raise GoldenFileError(f"{shown}{line}: not valid YAML: {e.problem or e.context}")
    except yaml.YAMLError as e:
        raise GoldenFileError(f"{shown}: not valid YAML: {e}")
    if not isinstance(data, dict):
        raise GoldenFileError(f"{shown}:1: a golden file is a mapping with 'documents' and 'questions'")
    try:
        golden = GoldenFile.model_validate({**data, "path": path.resolve()})
    except ValidationError as e:
        err = e.errors()[0]
        loc = err["loc"]
        node = _key_node(root, loc) if err["type"] == "extra_forbidden" else _node_at(root, loc)
        line = (node.start_mark.line + 1) if node is not None else 1
        more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
        raise GoldenFileError(f"{shown}:{line}: {_loc_text(loc)}: {err['msg']}{more}")
    _check_consistency(golden, root, shown)
    return golden


def _check_consistency(golden: GoldenFile, root: yaml.Node, shown: str) -> None:
    """Things pydantic cannot see: duplicate ids, missing documents, an unknown `doc`."""

    def line_of(*loc: Any) -> int:
        node = _node_at(root, loc)
        return node.start_mark.line + 1 if node is not None else 1

    for i, (rel, full) in enumerate(zip(golden.documents, golden.document_paths())):
        if not full.is_file() and not golden.skip_missing_documents:
            raise GoldenFileError(f"{shown}:{line_of('documents', i)}: document {rel} not found (paths are relative to the golden file)")
    names = {Path(d).name for d in golden.documents}
    seen: dict[str, int] = {}
    for i, q in enumerate(golden.questions):
        if q.id in seen:
            raise GoldenFileError(
                f"{shown}:{line_of('questions', i, 'id')}: duplicate question id {q.id!r} (first on line {seen[q.id]})"
            )
        seen[q.id] = line_of("questions", i, "id")
        if q.doc and names and q.doc not in names:
            raise GoldenFileError(
                f"{shown}:{line_of('questions', i, 'doc')}: doc {q.doc!r} is not one of this file's documents"
            )


def load_golden_files(paths: Sequence[Path | str]) -> list[GoldenFile]:
    """Load several golden files; question ids must be unique across them."""
    if not paths:
        raise GoldenFileError("no golden file given: docintel eval corpora/golden/*.yaml")
    files = [load_golden(p) for p in paths]
    owner: dict[str, str] = {}
    for g in files:
        for q in g.questions:
            if q.id in owner and owner[q.id] != str(g.path):
                raise GoldenFileError(f"{_display(g.path)}: question id {q.id!r} is also used in {_display(Path(owner[q.id]))}")
            owner[q.id] = str(g.path)
    return files
