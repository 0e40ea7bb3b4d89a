"""Import PyMuPDF without its layout model.

``import pymupdf`` also imports ``pymupdf.layout`` (an ONNX model, ~0.4 s) and pymupdf4llm.
The baseline never needs them, so they are kept out until a method asks for the layout model
with :func:`load_layout`.
"""

from __future__ import annotations

import sys
from types import ModuleType

_BLOCKED = ("pymupdf.layout", "pymupdf4llm")


def pymupdf() -> ModuleType:
    """PyMuPDF, imported lazily and without the layout model."""
    if "pymupdf" not in sys.modules:
        for name in _BLOCKED:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # import -> ImportError
        import pymupdf as mod

        for name in _BLOCKED:
            if sys.modules.get(name) is None:
                del sys.modules[name]
        mod.no_recommend_layout()
        mod.TOOLS.mupdf_display_errors(False)
        return mod
    return sys.modules["pymupdf"]


def load_layout() -> ModuleType:
    """PyMuPDF with its layout model loaded (for methods that need ``page.get_layout``)."""
    mod = pymupdf()
    import importlib

    importlib.import_module("pymupdf.layout")  # registers the layout hook on import
    return mod
