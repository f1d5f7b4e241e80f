"""Choose the LLM provider from settings (read at the edge, passed in)."""

from __future__ import annotations

from activities.llm.demo_provider import DemoProvider
from activities.llm.openai_provider import OpenAIProvider
from activities.llm.provider import LlmProvider
from activities.llm.script_provider import ScriptProvider
from domain.settings import Settings


def provider_from_settings(settings: Settings) -> LlmProvider:
    """``ALFRED_LLM_PROVIDER`` when set; otherwise openai with an API key, else the script
    named by ``ALFRED_LLM_SCRIPT``, else the offline ``demo`` model (rules, not an LLM)."""
    choice = settings.llm_provider
    if choice is None:
        choice = (
            "openai" if settings.openai_api_key else "script" if settings.llm_script else "demo"
        )
    if choice == "openai":
        return OpenAIProvider.from_settings(settings)
    if choice == "script":
        if settings.llm_script is None:
            raise ValueError("the script provider needs ALFRED_LLM_SCRIPT (a JSON file)")
        return ScriptProvider.from_file(settings.llm_script)
    if choice == "demo":
        return DemoProvider()
    raise ValueError(
        f"unknown ALFRED_LLM_PROVIDER {choice!r}: use openai (with OPENAI_API_KEY), script "
        "(with ALFRED_LLM_SCRIPT) or demo"
    )
