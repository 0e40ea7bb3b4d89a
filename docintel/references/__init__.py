"""Pointers: detection (``detect``) and the resolver ladder (``resolve``)."""

from docintel.references.detect import find_citations, find_mentions, find_pointers
from docintel.references.resolve import Resolution, Resolver

__all__ = ["Resolution", "Resolver", "find_citations", "find_mentions", "find_pointers"]
