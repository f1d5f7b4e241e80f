"""``alfred eval``'s model flags become the settings the run's provider is built from."""

from __future__ import annotations

from api.cli import parser
from domain.settings import Settings
from evals.command import _model_settings


def flags(*argv: str) -> Settings:
    return _model_settings(Settings(_env_file=None), parser().parse_args(["eval", *argv]))


def test_a_temperature_flag_is_sent_with_every_model_request_of_the_run():
    assert flags("--temperature", "0").llm_temperature == 0
    assert flags().llm_temperature is None  # the server's default


def test_the_endpoint_and_models_come_from_the_flags():
    settings = flags("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--mini-model", "s")
    assert (settings.openai_base_url, settings.openai_model, settings.openai_mini_model) == (
        "http://127.0.0.1:9/v1",
        "m",
        "s",
    )


def test_a_context_window_flag_holds_every_calls_context_within_it():
    assert flags("--context-tokens", "8192").llm_context_tokens == 8_192
    assert flags().llm_context_tokens is None  # the node budgets stand
