"""Parsing: the cheap baseline, per-page signals, document structure, deeper methods."""
