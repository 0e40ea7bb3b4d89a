"""Deeper parsing methods, registered by name (``docintel escalate --list-methods``).

Each implements :class:`docintel.parsing.methods.base.Method`: a page in, line_df rows out.
``ROUTES`` maps a page_df reason (the text before the colon in ``reasons``) to the method that
handles it by default; ``--method`` overrides the route.
"""

from __future__ import annotations

from typing import Callable

from docintel.errors import UsageError
from docintel.parsing.methods.base import Method, MethodResult, PageInput

_FACTORIES: dict[str, Callable[[], Method]] = {}


def register(name: str, factory: Callable[[], Method]) -> None:
    _FACTORIES[name] = factory


def names() -> list[str]:
    return sorted(_FACTORIES)


def get(name: str) -> Method:
    """The method registered as ``name``; unknown names fail with the valid ones."""
    try:
        return _FACTORIES[name]()
    except KeyError:
        raise UsageError(f"unknown method {name!r}; valid methods: {', '.join(names())} (see --list-methods)") from None


def route(reason: str) -> str | None:
    """Default method name for a reason ("flat_table: ..." or "flat_table")."""
    key = reason.split(":", 1)[0].strip()
    for name in names():
        if key in _FACTORIES[name]().reasons:
            return name
    return None


def _builtin() -> None:
    from docintel.parsing.methods.figure_ocr import FigureOCRMethod
    from docintel.parsing.methods.ocr_hires import OCRHiresMethod
    from docintel.parsing.methods.reading_order import ReadingOrderMethod
    from docintel.parsing.methods.tables import TableMethod

    for cls in (TableMethod, FigureOCRMethod, ReadingOrderMethod, OCRHiresMethod):
        register(cls.name, cls)


_builtin()

__all__ = ["Method", "MethodResult", "PageInput", "get", "names", "register", "route"]
