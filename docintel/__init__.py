"""docintel: ask questions of local PDF corpora and get finished answers."""

__version__ = "0.1.0"
