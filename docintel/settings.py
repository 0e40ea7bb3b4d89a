"""One Settings tree: flags, ``DOCINTEL_*`` environment variables and defaults meet here.

This is the only module that reads the environment. The CLI builds a Settings from its flags
with :meth:`Settings.load`; library callers may build one directly.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

DEFAULT_STORE = Path(".docintel")


class IngestSettings(BaseModel):
    """How `ingest` parses."""

    workers: int = Field(1, ge=1, description="Documents parsed in parallel processes.")
    force: bool = Field(False, description="Re-parse documents whose hash is already stored.")
    ocr_lang: str = Field("eng", description="Tesseract language(s) for scanned pages.")
    ocr_dpi: int = Field(300, ge=72, description="Render resolution for the Tesseract baseline.")
    prune: bool = Field(False, description="Remove stored documents whose file under the given paths is gone.")


class EscalateSettings(BaseModel):
    """How `escalate` spends its budget."""

    method: str | None = Field(None, description="Force one method for every selected page.")
    max_pages: int | None = Field(None, ge=0, description="Cap on pages escalated in this run.")
    dry_run: bool = Field(False, description="Print the plan, spend nothing.")
    force: bool = Field(False, description="Re-run a method on pages it already parsed.")
    ocr_dpi: int = Field(400, ge=72, description="Render resolution for high-resolution OCR.")
    vision_model: str | None = Field(
        None, description="Vision model on the OpenAI-compatible endpoint for figure descriptions."
    )


class LLMSettings(BaseModel):
    """An OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server)."""

    base_url: str | None = Field(None, description="OPENAI_BASE_URL; None means api.openai.com.")
    api_key: str | None = Field(None, description="OPENAI_API_KEY.")
    model: str = Field("gpt-4o-mini", description="Model name sent to the endpoint.")
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout in seconds.")
    cache: bool = Field(True, description="Cache responses on disk keyed by model and prompt.")


class AskSettings(BaseModel):
    """How `ask` retrieves and loops."""

    top_k: int = Field(1, ge=1, description="Pages retrieved in the first pass.")
    max_loops: int = Field(1, ge=0, description="Reference-resolution passes; 0 disables.")
    generator: str = Field("extractive", description="Generator name: extractive or openai.")
    meaning: bool = Field(True, description="Extractive answers also quote the sentences closest in meaning to "
                          "what is asked (the embedding model, when installed); DOCINTEL_MEANING=0 turns it off.")
    docs: list[str] = Field(default_factory=list, description="Doc scope (doc_id or file name).")
    trace: Path | None = Field(None, description="Write a JSON trace of every pass here.")


class EvalSettings(BaseModel):
    """How `eval` runs golden questions."""

    own_store: bool = Field(
        True,
        description="Ingest and escalate each golden file's documents into eval's own store "
        "(<golden dir>/.docintel-eval, incremental) instead of using `store` as is; "
        "the CLI sets False when --store is given.",
    )


class Settings(BaseModel):
    """Everything a docintel run needs to know."""

    store: Path = Field(DEFAULT_STORE, description="Store folder (flag, $DOCINTEL_STORE, ./.docintel).")
    json_output: bool = Field(False, description="Print one JSON document on stdout.")
    quiet: bool = Field(False, description="No progress and no summary on stderr.")
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    escalate: EscalateSettings = Field(default_factory=EscalateSettings)
    ask: AskSettings = Field(default_factory=AskSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)

    @classmethod
    def load(cls, env: dict[str, str] | None = None, **overrides: Any) -> "Settings":
        """Defaults, then environment, then explicit (non-None) overrides.

        ``overrides`` take dotted section names with double underscores:
        ``Settings.load(store=..., ask__top_k=3)``.
        """
        env = dict(os.environ if env is None else env)
        data: dict[str, Any] = {"ingest": {}, "escalate": {}, "ask": {}, "llm": {}}
        if env.get("DOCINTEL_STORE"):
            data["store"] = Path(env["DOCINTEL_STORE"])
        if env.get("DOCINTEL_WORKERS"):
            data["ingest"]["workers"] = env["DOCINTEL_WORKERS"]  # pydantic converts and checks
        if env.get("DOCINTEL_OCR_LANG"):
            data["ingest"]["ocr_lang"] = env["DOCINTEL_OCR_LANG"]
        if env.get("DOCINTEL_GENERATOR"):
            data["ask"]["generator"] = env["DOCINTEL_GENERATOR"]
        if env.get("DOCINTEL_MEANING") in ("0", "false", "no", "off"):
            data["ask"]["meaning"] = False
        if env.get("DOCINTEL_VISION_MODEL"):
            data["escalate"]["vision_model"] = env["DOCINTEL_VISION_MODEL"]
        if env.get("OPENAI_BASE_URL"):
            data["llm"]["base_url"] = env["OPENAI_BASE_URL"]
        if env.get("OPENAI_API_KEY"):
            data["llm"]["api_key"] = env["OPENAI_API_KEY"]
        if env.get("DOCINTEL_MODEL"):
            data["llm"]["model"] = env["DOCINTEL_MODEL"]
        if env.get("DOCINTEL_LLM_TIMEOUT"):
            data["llm"]["timeout_s"] = env["DOCINTEL_LLM_TIMEOUT"]
        if env.get("DOCINTEL_LLM_CACHE") in ("0", "false", "no", "off"):
            data["llm"]["cache"] = False
        for key, value in overrides.items():
            if value is None:
                continue
            section, _, name = key.partition("__")
            if name:
                data.setdefault(section, {})[name] = value
            else:
                data[section] = value
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            from docintel.errors import UsageError

            err = e.errors()[0]
            field = ".".join(str(part) for part in err["loc"])
            where = _ENV_OF.get(field)
            if where is None or not env.get(where) or overrides.get(field.replace(".", "__")) is not None:
                where = field  # set by a flag or an argument, not the environment
            raise UsageError(f"{where}={err.get('input')!r}: {err['msg'][:1].lower() + err['msg'][1:]}") from None


_ENV_OF = {"ingest.workers": "DOCINTEL_WORKERS", "llm.timeout_s": "DOCINTEL_LLM_TIMEOUT"}
"""Settings read from environment variables whose values need converting (named in errors)."""
