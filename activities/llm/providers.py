"""Choose the LLM provider from settings (read at the edge, passed in)."""

from __future__ import annotations

from activities.llm.base import LlmProvider
from activities.llm.openai_provider import OpenAIProvider
from activities.llm.script_provider import ScriptProvider
from domain.settings import Settings


def provider_from_settings(settings: Settings) -> LlmProvider:
    """``ALFRED_LLM_PROVIDER`` when set; otherwise openai with an API key, else the script
    named by ``ALFRED_LLM_SCRIPT``."""
    choice = settings.llm_provider
    if choice is None:
        choice = "openai" if settings.openai_api_key else "script" if settings.llm_script else None
    if choice == "openai":
        return OpenAIProvider.from_settings(settings)
    if choice == "script":
        if settings.llm_script is None:
            raise ValueError("the script provider needs ALFRED_LLM_SCRIPT (a JSON file)")
        return ScriptProvider.from_file(settings.llm_script)
    raise ValueError(
        "no model configured: set OPENAI_API_KEY, or ALFRED_LLM_PROVIDER=script with "
        "ALFRED_LLM_SCRIPT"
    )
