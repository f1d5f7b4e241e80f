"""The one settings class. Read once at the edges (CLI, worker, API, tests) and passed down."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from domain.plan_examples import DEFAULT_EXAMPLES, ExampleSet

EVAL_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "local": (0.0, 0.0),
    "demo": (0.0, 0.0),
}
"""OpenAI's list prices per million tokens (input, output); ``local`` is a model served on
this machine (the local-llm tool names its model so), ``demo`` the offline demo model.
A dated name an endpoint answers with (``gpt-4.1-2025-04-14``) is priced as its model
(``domain.ledger.price_of``)."""


class Settings(BaseSettings):
    """Configuration from ``ALFRED_*`` environment variables (or a ``.env`` file)."""

    model_config = SettingsConfigDict(env_prefix="ALFRED_", env_file=".env", extra="ignore")

    app_database_url: str | None = None
    """The application role's connection (``alfred_app``): with it, ``alfred worker`` and
    ``alfred api`` connect as that role and never as the owner (compose sets it; the
    migration job sets the role's password). Unset: derived from ``ALFRED_DATABASE_URL``."""
    database_url: str | None = None
    """Owner connection (migrations, admin). Unset: the embedded PostgreSQL under data_dir."""
    app_db_password: SecretStr | None = None
    """Password of the ``alfred_app`` role the application connects as (none with trust auth)."""
    data_dir: Path = Path(".alfred")
    """Where the embedded stack keeps its state (database files, later Temporal's)."""
    database_name: str = "alfred"
    """Database created on the embedded server."""
    test_database_url: str | None = None
    """Server the test suite creates its throw-away database on. Unset: an embedded server."""
    db_pool_size: int = 5
    crud_max_rows: int = 200
    """Hard cap on rows a single db_read returns, whatever limit the model asks for."""

    # --- the model -----------------------------------------------------------------------
    llm_provider: Literal["openai", "script", "demo"] | None = None
    """Unset: ``openai`` when an API key is configured, else the offline ``demo`` model."""
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("ALFRED_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = None
    """Any OpenAI-compatible endpoint; unset means the OpenAI API."""
    openai_model: str = "gpt-4.1"
    """For medium and high complexity calls (seed 004 §8)."""
    openai_mini_model: str = "gpt-4.1-mini"
    """For low complexity calls."""
    openai_node_models: dict[str, str] = Field(default_factory=dict)
    """A model per node, over the two above (``{"think": "gpt-4.1", "act": "..."}``)."""
    openai_response_format: Literal["json_schema", "json_object"] = "json_schema"
    """``json_schema``: the answer's schema is sent with ``strict: true`` (OpenAI and
    servers with structured outputs). ``json_object``: for servers without it, JSON mode
    with the schema written into the system prompt."""
    llm_temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature sent with every model request; unset sends none (the server's
    default). ``0`` makes a small local model's runs comparable (``alfred eval
    --temperature``)."""
    llm_timeout_seconds: float = 60.0
    """One model request's HTTP timeout; the model activities' Temporal timeouts follow it
    (three requests per attempt: the output and up to two repairs)."""
    eval_prices: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(EVAL_PRICES))
    """The price table: model -> USD per million (prompt, completion) tokens
    (``ALFRED_EVAL_PRICES`` as JSON), for ``alfred eval`` and the turn ledger: the worker
    charges each model call at it when the call is made, and the turn keeps that price."""
    llm_script: Path | None = None
    """The script provider's JSON file (``ALFRED_LLM_SCRIPT``)."""

    # --- Temporal and the turn ---------------------------------------------------------------
    temporal_address: str | None = None
    """Unset: ``make run`` starts a dev server; workers and the API use localhost:7233."""
    temporal_namespace: str = "default"
    task_queue: str = "alfred-turns"
    traces: Literal["off", "console", "otlp"] = "off"
    """A turn as one trace (its workflow, activities, model calls, SQL): ``console`` prints
    spans as JSON; ``otlp`` sends them over OTLP/HTTP (``OTEL_EXPORTER_OTLP_ENDPOINT``)."""
    log_format: Literal["text", "json"] = "text"
    """``json``: one JSON object per log line, with workflow, conversation and turn ids."""
    log_level: str = "WARNING"
    metrics_address: str | None = None
    """``host:port`` of a Prometheus endpoint (``/metrics``) with the Temporal SDK's metrics
    and Alfred's (turns, model calls, tokens, repairs, breakers, pause waits); unset: none.
    ``alfred worker --processes N`` gives its workers the next N ports."""
    worker_drain_seconds: float = 10.0
    """On SIGTERM or Ctrl-C, how long a worker lets the activities it runs finish before it
    cancels them (they are retried on the next worker; model calls heartbeat, so a
    cancelled one is noticed within seconds)."""
    pause_timeout_hours: float = 24.0
    """How long a proposal, clarification or question waits for the user before expiring."""
    max_pauses_per_turn: int = 3
    max_llm_calls_per_turn: int = 40
    context_budget_tokens: int = 8_000
    """Understand, Think and Reply context budget (estimated tokens; seed 000)."""
    act_budget_tokens: int = 25_000
    """Act context budget (estimated tokens; seed 000)."""
    llm_context_tokens: int | None = Field(default=None, gt=0)
    """The model's context window in tokens (``ALFRED_LLM_CONTEXT_TOKENS``); unset: the
    budgets above stand. Set it for a model with a small window (a local 8,192-token
    model): each call's context is then held to what the window leaves after the system
    prompt and the answer's token cap, so the server never refuses a prompt as too long."""
    think_examples: ExampleSet = DEFAULT_EXAMPLES
    """The plan examples in Think's prompt (``ALFRED_THINK_EXAMPLES``): ``library`` (the
    default), up to three entries of ``prompts/think_library`` most like the request, the
    abstract patterns when none is like it; ``abstract``, the same step patterns with
    placeholders for every request (``domain.plan_examples``)."""

    # --- the front door and the embedded stack ---------------------------------------------
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_wait_seconds: float = 60.0
    """How long ``?wait=true`` waits for a reply, a pause or the end of the turn."""
    progress_query_timeout_seconds: float = 3.0
    """A turn's live progress waits this long for a worker; then the stored row answers."""
    answer_timeout_seconds: float = 10.0
    """How long an answer to a pause waits for a worker to take it; then a 503 (send it
    again with the same input_id: it counts once)."""
    turn_start_grace_seconds: float = 30.0
    """A reserved turn whose workflow does not exist after this long was never started (the
    API died in between): the next message ends it and goes ahead."""
    sse_poll_seconds: float = 0.25
    sse_max_seconds: float = 3600.0
    """A stream ends after this long; clients resume with Last-Event-ID."""
    temporal_host: str = "127.0.0.1"
    temporal_port: int = 7233
    temporal_ui_port: int = 8233
    temporal_ui_url: str | None = None
    """Base address of the Temporal web UI for turn links; unset: the embedded UI's."""

    @property
    def temporal_target(self) -> str:
        return self.temporal_address or f"{self.temporal_host}:{self.temporal_port}"

    @property
    def temporal_ui_base(self) -> str:
        return self.temporal_ui_url or f"http://{self.temporal_host}:{self.temporal_ui_port}"
