"""Answer generators, chosen by name.

``create_generator("extractive", settings, find_pointers=...)``; an unknown name fails with the
list of valid ones. Implementations are imported lazily (the OpenAI client only when used).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from docintel.errors import UsageError

if TYPE_CHECKING:
    from docintel.generation.base import Generator
    from docintel.settings import Settings

GENERATORS: dict[str, str] = {
    "extractive": "docintel.generation.extractive:create",
    "openai": "docintel.generation.openai_gen:create",
}
"""name -> "module:factory"; factory(settings, **deps) -> Generator."""

LLM_GENERATORS = frozenset({"openai"})
"""Generators that call a language model (the resolver may ask them for a guess)."""


def create_generator(name: str, settings: "Settings", **deps: Any) -> "Generator":
    """Build the generator registered as ``name``."""
    target = GENERATORS.get(name)
    if target is None:
        valid = ", ".join(sorted(GENERATORS))
        raise UsageError(f"unknown generator {name!r}; valid generators: {valid}")
    module_name, _, attr = target.partition(":")
    try:
        module = import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name == module_name:
            raise UsageError(f"generator {name!r} is not available in this build ({module_name} missing)") from None
        raise
    return getattr(module, attr)(settings, **deps)


__all__ = ["GENERATORS", "LLM_GENERATORS", "create_generator"]
