"""Fixtures for the generator tests: a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fake_openai import FakeOpenAI  # noqa: E402


@pytest.fixture
def fake():
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _fresh_mode_memory():
    """Each test starts with no remembered response_format downgrade."""
    from docintel.generation import openai_gen

    openai_gen._MODE_MEMORY.clear()
    yield
    openai_gen._MODE_MEMORY.clear()
