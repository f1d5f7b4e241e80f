"""Specification of the ``openai`` provider, through the real client against a local server."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from activities.llm.gateway import LlmGateway
from activities.llm.openai_provider import OpenAIProvider, retry_after
from activities.llm.provider import LlmError, LlmRequest, Usage
from activities.llm.schema import strict_problems, strict_schema
from domain.answers import answer_model
from domain.ledger import Price
from domain.settings import Settings
from domain.tokens import CHAT_OVERHEAD, estimate_tokens
from tests.activities.llm.fake_openai import SNAPSHOT, FakeOpenAI

API_KEY = "sk-test-very-secret-4242"
FULL_MODEL = "gpt-full"
MINI_MODEL = "gpt-mini"
PRICES = {FULL_MODEL: (2.0, 8.0), MINI_MODEL: (0.4, 1.6)}
FULL_PRICE = Price(listed_as=FULL_MODEL, prompt_usd=2.0, completion_usd=8.0)

PROPOSAL = {
    "decision": "propose",
    "steps": [
        {"description": "Read pantry", "step_type": "read", "subdomain": "inventory", "group": 0}
    ],
    "proposal_message": "Shall I plan three dinners from what you have?",
}
VALID_THINK = {"goal": "Plan dinner", "outcome": PROPOSAL}
THINK = answer_model("think", max_steps=8)
WRITE_INVENTORY = answer_model("act", step_type="write", subdomain="inventory")


def reply_request(**overrides: object) -> LlmRequest:
    fields: dict = {
        "node": "reply",
        "system": "You are Alfred, a kitchen assistant.",
        "user": "Say hello.",
        "answer": answer_model("reply"),
        "complexity": "low",
    }
    return LlmRequest(**{**fields, **overrides})


def think_request() -> LlmRequest:
    return LlmRequest(
        node="think",
        system="Plan the turn.",
        user="What's for dinner?",
        answer=THINK,
        complexity="medium",
    )


def make_provider(base_url: str, *, timeout: float = 5.0, **options) -> OpenAIProvider:
    return OpenAIProvider(
        api_key=API_KEY,
        base_url=base_url,
        model=FULL_MODEL,
        mini_model=MINI_MODEL,
        timeout=timeout,
        **options,
    )


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
async def provider(fake: FakeOpenAI) -> AsyncIterator[OpenAIProvider]:
    provider = make_provider(fake.base_url)
    yield provider
    await provider.aclose()


@pytest.fixture
def gateway(provider: OpenAIProvider) -> LlmGateway:
    return LlmGateway(provider, PRICES)


async def call_error(provider: OpenAIProvider, request: LlmRequest) -> LlmError:
    with pytest.raises(LlmError) as caught:
        await provider.complete(request)
    return caught.value


async def gateway_error(gateway: LlmGateway, request: LlmRequest) -> LlmError:
    with pytest.raises(LlmError) as caught:
        await gateway.call(request)
    return caught.value


# ---------------------------------------------------------------- success


async def test_valid_reply_returns_output_usage_and_model(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply(
        '{"response": "Hello!"}', model="gpt-mini-2025", prompt_tokens=30, completion_tokens=4
    )

    result = await gateway.call(reply_request())

    assert result.output == {"response": "Hello!"}
    assert result.usage == Usage(prompt_tokens=30, completion_tokens=4)
    assert result.model == "gpt-mini-2025"
    assert result.attempts == 1


async def test_request_carries_system_and_user_messages(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply('{"response": "Hello!"}')

    await gateway.call(reply_request())

    assert fake.requests[0].body["messages"] == [
        {"role": "system", "content": "You are Alfred, a kitchen assistant."},
        {"role": "user", "content": "Say hello."},
    ]


async def test_request_asks_for_the_answers_strict_json_schema(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply(json.dumps(VALID_THINK))

    await gateway.call(think_request())

    response_format = fake.requests[0].body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "think"
    assert response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert schema == strict_schema(THINK) and strict_problems(schema) == []
    assert fake.requests[0].body["messages"][0]["content"] == "Plan the turn."


async def test_json_object_mode_writes_the_schema_into_the_system_prompt(fake: FakeOpenAI) -> None:
    provider = make_provider(fake.base_url, response_format="json_object")
    fake.reply(json.dumps(VALID_THINK))

    result = await LlmGateway(provider).call(think_request())
    await provider.aclose()

    body = fake.requests[0].body
    assert body["response_format"] == {"type": "json_object"}
    system = body["messages"][0]["content"]
    assert system.startswith("Plan the turn.\n\n# Answer schema\n")
    assert json.dumps(strict_schema(THINK), separators=(",", ":")) in system
    assert result.output["decision"] == "propose"


def test_the_response_format_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALFRED_OPENAI_RESPONSE_FORMAT", "json_object")
    settings = Settings(_env_file=None, openai_api_key="sk-x")
    assert OpenAIProvider.from_settings(settings).response_format == "json_object"


async def test_request_authenticates_with_the_api_key_as_bearer_token(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply('{"response": "Hello!"}')

    await gateway.call(reply_request())

    assert fake.requests[0].headers["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize("complexity", ["medium", "high"])
async def test_medium_and_high_complexity_use_the_full_model(
    fake: FakeOpenAI, gateway: LlmGateway, complexity: str
) -> None:
    fake.reply('{"response": "Hello!"}')

    result = await gateway.call(reply_request(complexity=complexity))

    assert fake.requests[0].body["model"] == FULL_MODEL
    assert result.model == FULL_MODEL + SNAPSHOT  # the dated snapshot that answered
    assert result.price == FULL_PRICE  # charged at the price of the model asked for


async def test_low_complexity_uses_the_mini_model(fake: FakeOpenAI, gateway: LlmGateway) -> None:
    fake.reply('{"response": "Hello!"}')

    result = await gateway.call(reply_request(complexity="low"))

    assert fake.requests[0].body["model"] == MINI_MODEL
    assert result.model == MINI_MODEL + SNAPSHOT
    assert result.price is not None and result.price.listed_as == MINI_MODEL


async def test_missing_usage_counts_as_zero_tokens(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    fake.reply('{"response": "Hello!"}', usage=False)

    reply = await provider.complete(reply_request())

    assert reply.usage == Usage(prompt_tokens=0, completion_tokens=0)


# ---------------------------------------------------------------- HTTP errors


async def test_rate_limit_is_retryable_after_the_server_delay_with_one_request(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    fake.fail(429, "Rate limit reached", type="requests", headers={"retry-after": "7"})

    error = await call_error(provider, reply_request())

    assert error.retryable is True
    assert error.kind == "http_429"
    assert error.retry_after == 7.0
    assert len(fake.requests) == 1


async def test_call_after_a_rate_limit_gets_the_next_response(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.fail(429, "Rate limit reached", headers={"retry-after": "7"})
    fake.reply('{"response": "Hello again"}')
    with pytest.raises(LlmError):
        await gateway.call(reply_request())

    result = await gateway.call(reply_request())

    assert result.output == {"response": "Hello again"}
    assert len(fake.requests) == 2


async def test_server_error_is_retryable_without_a_delay(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    fake.fail(500, "The server had an error", type="server_error")

    error = await call_error(provider, reply_request())

    assert error.retryable is True
    assert error.kind == "http_500"
    assert error.retry_after is None
    assert len(fake.requests) == 1


async def test_retry_after_ms_is_converted_to_seconds(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    fake.fail(503, "Overloaded", headers={"retry-after-ms": "1500", "retry-after": "9"})

    error = await call_error(provider, reply_request())

    assert error.retryable is True
    assert error.kind == "http_503"
    assert error.retry_after == 1.5


async def test_unauthorized_is_final_names_the_status_and_hides_the_key(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    fake.fail(
        401, "Incorrect API key provided", type="invalid_request_error", code="invalid_api_key"
    )

    error = await call_error(provider, reply_request())

    assert error.retryable is False
    assert error.kind == "http_401"
    assert "401" in str(error)
    assert "Incorrect API key provided" in str(error)
    assert API_KEY not in str(error)
    assert API_KEY not in repr(error.args)


async def test_bad_request_is_final_and_carries_the_api_message(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    fake.fail(400, "Invalid schema for response_format 'reply'", type="invalid_request_error")

    error = await call_error(provider, reply_request())

    assert error.retryable is False
    assert error.kind == "http_400"
    assert "Invalid schema for response_format 'reply'" in str(error)


def test_retry_after_http_date_counts_seconds_from_now() -> None:
    now = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
    later = format_datetime(datetime(2025, 3, 1, 12, 0, 30, tzinfo=UTC), usegmt=True)

    assert retry_after({"retry-after": later}, now=now.timestamp()) == 30.0


def test_retry_after_in_the_past_is_zero_not_negative() -> None:
    now = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
    earlier = format_datetime(datetime(2025, 3, 1, 11, 59, 0, tzinfo=UTC), usegmt=True)

    assert retry_after({"retry-after": earlier}, now=now.timestamp()) == 0.0


def test_retry_after_is_none_when_absent_or_unreadable() -> None:
    assert retry_after({}) is None
    assert retry_after({"retry-after": "soon"}) is None


# ---------------------------------------------------------------- validation and repair


async def test_invalid_json_is_repaired_on_the_second_attempt(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply("Hello! {not json", prompt_tokens=20, completion_tokens=3)
    fake.reply('{"response": "Hello!"}', prompt_tokens=25, completion_tokens=4)

    result = await gateway.call(reply_request())

    assert result.output == {"response": "Hello!"}
    assert result.attempts == 2
    assert result.usage == Usage(prompt_tokens=45, completion_tokens=7, repairs=1)


async def test_repair_request_shows_the_invalid_output_and_the_error(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply("Hello! {not json")
    fake.reply('{"response": "Hello!"}')

    await gateway.call(reply_request())

    first, second = (r.body["messages"] for r in fake.requests)
    assert second[:2] == first
    assert second[2] == {"role": "assistant", "content": "Hello! {not json"}
    assert second[3]["role"] == "user"
    assert "failed validation" in second[3]["content"]
    assert "Invalid JSON" in second[3]["content"]
    assert "corrected JSON" in second[3]["content"]


async def test_a_second_repair_is_shown_the_second_error(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply("not json")
    fake.reply('{"response": ""}')
    fake.reply('{"response": "Hello!"}')

    result = await gateway.call(reply_request())

    assert result.output == {"response": "Hello!"} and result.attempts == 3
    third = fake.requests[2].body["messages"]
    assert third[2] == {"role": "assistant", "content": '{"response": ""}'}
    assert "response: Value error, must not be empty" in third[3]["content"]


async def test_invalid_output_three_times_is_a_final_invalid_output_error(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply("not json")
    fake.reply('{"response": ""}')
    fake.reply("still not json")

    with pytest.raises(LlmError) as caught:
        await gateway.call(reply_request())

    assert caught.value.kind == "invalid_output"
    assert caught.value.retryable is False
    assert "failed validation 3 times" in str(caught.value)
    assert len(fake.requests) == 3


async def test_every_request_carries_the_nodes_output_cap(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply('{"response": "Hi"}')

    await gateway.call(reply_request(max_tokens=1200))

    assert fake.requests[0].body["max_tokens"] == 1200


async def test_no_temperature_is_sent_unless_one_is_set(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply('{"response": "Hi"}')

    await gateway.call(reply_request())

    assert "temperature" not in fake.requests[0].body  # the server's own default


async def test_a_set_temperature_is_sent_with_every_request(fake: FakeOpenAI) -> None:
    settings = Settings(
        _env_file=None, openai_api_key="sk-x", openai_base_url=fake.base_url, llm_temperature=0
    )
    provider = OpenAIProvider.from_settings(settings)
    fake.reply('{"response": "Hi"}')
    fake.reply('{"response": "Hi"}')

    await LlmGateway(provider).call(reply_request())
    await LlmGateway(provider).call(reply_request(stream=Pieces()))
    await provider.aclose()

    assert [r.body["temperature"] for r in fake.requests] == [0, 0]


async def test_an_output_cut_off_at_the_cap_is_repaired_even_when_it_parses(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    # A cut can fall where the JSON still parses: the finish reason, not the parser, decides.
    fake.reply('{"response": "Here is the first half"}', finish_reason="length")
    fake.reply('{"response": "Short and whole."}')

    result = await gateway.call(reply_request(max_tokens=50))

    assert result.output == {"response": "Short and whole."} and result.attempts == 2
    repair = fake.requests[1].body["messages"][3]["content"]
    assert "cut off at the 50-token limit" in repair and "shorter" in repair


async def test_an_output_that_loops_into_the_cap_is_told_the_sentence_it_repeats(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    """At t=0 the 1.5B local model wrote one sentence until its cap, and its two repairs,
    told only that the output was cut off, did the same: the repair names the loop."""
    said = "It is not in the inventory or the meal plan for any other day. "
    fake.reply('{"response": "The dal uses spinach. ' + said * 40, finish_reason="length")
    fake.reply('{"response": "The dal uses spinach."}')

    result = await gateway.call(reply_request(max_tokens=400))

    assert result.output == {"response": "The dal uses spinach."}
    repair = fake.requests[1].body["messages"][3]["content"]
    assert (
        "cut off at the 400-token limit, saying 'It is not in the inventory or the meal plan "
        "for any other day.' over and over; answer again, shorter, saying each thing once"
    ) in repair
    shown = fake.requests[1].body["messages"][2]["content"]  # its own output, the loop cut
    assert shown == '{"response": "The dal uses spinach. ' + said.strip() + " …"


async def test_within_a_window_a_repair_shows_what_fits_of_the_cut_output(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    """A small-window model cut off at its answer room: the repair is shown the start of
    the cut output and asks for an answer in what is left, half each, so the repair's
    prompt and answer fit the window too (the whole cut output would overrun it)."""
    cut = '{"response": "' + "lemon " * 1_000
    fake.reply(cut, finish_reason="length")
    fake.reply('{"response": "Short and whole."}')
    window = 2_000
    request = reply_request(max_tokens=1_200, window=window)

    result = await gateway.call(request)

    assert result.output == {"response": "Short and whole."} and result.attempts == 2
    body = fake.requests[1].body
    shown = body["messages"][2]["content"]
    assert shown.startswith('{"response": "lemon lemon') and shown.endswith("budget)")
    sent = sum(estimate_tokens(m["content"]) for m in body["messages"]) + body["max_tokens"]
    assert sent + CHAT_OVERHEAD <= window
    assert 0 < body["max_tokens"] < 1_200
    assert estimate_tokens(cut) + 1_200 > window  # shown whole, it would not have fit


async def test_json_breaking_the_node_rules_goes_through_repair(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    broken = {**VALID_THINK, "outcome": {**PROPOSAL, "proposal_message": None}}
    fake.reply(json.dumps(broken))
    fake.reply(json.dumps(VALID_THINK))

    result = await gateway.call(think_request())

    assert result.attempts == 2
    assert result.output["proposal_message"] == PROPOSAL["proposal_message"]
    repair = fake.requests[1].body["messages"][3]["content"]
    assert "outcome.propose.proposal_message: Input should be a valid string" in repair


async def test_a_nan_in_the_models_json_is_repaired_never_saved_as_null(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    nan_call = (
        '{"decision": {"action": "tool_call", "tool": "db_create", "table": "inventory", '
        '"rows": [{"name": "milk", "quantity": NaN}]}}'
    )
    fixed = nan_call.replace("NaN", "2")
    fake.reply(nan_call)
    fake.reply(fixed)

    result = await gateway.call(
        LlmRequest(node="act", system="s", user="u", answer=WRITE_INVENTORY, step=0)
    )

    assert result.attempts == 2
    assert result.output["tool_call"]["params"]["data"][0]["quantity"] == 2
    repair = fake.requests[1].body["messages"]
    assert repair[2] == {"role": "assistant", "content": nan_call}
    assert "decision.rows[0].quantity: nan is not a number" in repair[3]["content"]


async def test_empty_content_is_returned_as_empty_text(
    fake: FakeOpenAI, provider: OpenAIProvider
) -> None:
    fake.reply(None)

    reply = await provider.complete(reply_request())

    assert reply.content == ""


async def test_refusal_is_a_final_refusal_error(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.reply(None, refusal="I can't help with that.")

    error = await call_error(provider, reply_request())

    assert error.kind == "refusal"
    assert error.retryable is False
    assert "I can't help with that." in str(error)


async def test_a_refusal_after_a_refused_output_is_charged_for_both(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    fake.reply("Hello! {not json", prompt_tokens=20, completion_tokens=3)
    fake.reply(None, refusal="I can't help with that.", prompt_tokens=25, completion_tokens=4)

    error = await gateway_error(gateway, think_request())

    assert error.kind == "refusal"
    assert error.usage == Usage(prompt_tokens=45, completion_tokens=7, repairs=1)
    assert (error.model, error.price) == (FULL_MODEL + SNAPSHOT, FULL_PRICE)


async def test_outputs_refused_after_repairs_are_charged(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    for _ in range(3):
        fake.reply("Hello! {not json", prompt_tokens=20, completion_tokens=3)

    error = await gateway_error(gateway, think_request())

    assert error.kind == "invalid_output"
    assert error.usage == Usage(prompt_tokens=60, completion_tokens=9, repairs=2)
    assert (error.model, error.price) == (FULL_MODEL + SNAPSHOT, FULL_PRICE)


# ---------------------------------------------------------------- transport


async def test_closed_port_is_a_retryable_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = make_provider(f"http://127.0.0.1:{port}/v1", timeout=2.0)
    try:
        error = await call_error(provider, reply_request())
    finally:
        await provider.aclose()

    assert error.kind == "connection"
    assert error.retryable is True


async def test_slow_response_is_a_retryable_timeout(fake: FakeOpenAI) -> None:
    fake.reply('{"response": "Too late"}', delay=1.0)
    provider = make_provider(fake.base_url, timeout=0.2)
    try:
        error = await call_error(provider, reply_request())
    finally:
        await provider.aclose()

    assert error.kind == "timeout"
    assert error.retryable is True
    assert len(fake.requests) == 1


# ---------------------------------------------------------------- settings


def test_from_settings_requires_an_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ALFRED_OPENAI_API_KEY", raising=False)
    settings = Settings(_env_file=None)

    with pytest.raises(ValueError, match="API key"):
        OpenAIProvider.from_settings(settings)


async def test_from_settings_uses_the_configured_models(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ALFRED_OPENAI_API_KEY", raising=False)
    settings = Settings(
        _env_file=None,
        OPENAI_API_KEY=API_KEY,
        openai_base_url=fake.base_url,
        openai_model="gpt-configured",
        openai_mini_model="gpt-configured-mini",
    )
    provider = OpenAIProvider.from_settings(settings)
    fake.reply('{"response": "Hello!"}')
    try:
        await provider.complete(reply_request(complexity="high"))
    finally:
        await provider.aclose()

    assert fake.requests[0].body["model"] == "gpt-configured"


async def test_a_model_per_node_overrides_the_complexity_rule(fake: FakeOpenAI) -> None:
    provider = make_provider(fake.base_url, node_models={"reply": "gpt-reply"})
    fake.reply('{"response": "Hi"}')
    fake.reply(json.dumps(VALID_THINK))
    await LlmGateway(provider).call(reply_request())
    await LlmGateway(provider).call(think_request())
    await provider.aclose()
    assert [r.body["model"] for r in fake.requests] == ["gpt-reply", FULL_MODEL]


class Pieces:
    def __init__(self) -> None:
        self.takes: list[int] = []
        self.pieces: list[str] = []

    def begin(self, take: int) -> None:
        self.takes.append(take)

    def raw(self, delta: str) -> None:
        self.pieces.append(delta)


async def test_a_streamed_answer_arrives_in_pieces_and_reads_as_a_whole(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    sink = Pieces()
    fake.reply('{"response": "Hello there, cook!"}', prompt_tokens=30, completion_tokens=9)

    result = await gateway.call(reply_request(stream=sink))

    assert fake.requests[0].body["stream"] is True
    assert fake.requests[0].body["stream_options"] == {"include_usage": True}
    assert sink.takes == [1] and len(sink.pieces) > 1
    assert "".join(sink.pieces) == '{"response": "Hello there, cook!"}'
    assert result.output == {"response": "Hello there, cook!"}
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (30, 9)


async def test_a_streamed_answer_cut_off_at_the_cap_is_repaired_as_a_new_take(
    fake: FakeOpenAI, gateway: LlmGateway
) -> None:
    sink = Pieces()
    fake.reply('{"response": "Hel', finish_reason="length")
    fake.reply('{"response": "Hi"}')

    result = await gateway.call(reply_request(stream=sink, max_tokens=5))

    assert sink.takes == [1, 2] and result.output == {"response": "Hi"}
