"""Model activities read the conversation state by reference: the version the turn loaded,
from PostgreSQL, with the turn's own changes on top. Their prompts are the same as when the
state came whole; a version saved past, or another user's conversation, is refused."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.llm.gateway import LlmGateway
from activities.llm.script_provider import ScriptProvider
from activities.model_nodes import NodeActivities
from activities.payloads import (
    ActRequest,
    BeginTurnRequest,
    ReplyRequest,
    StateRef,
    SummarizeRequest,
    UnderstandRequest,
)
from activities.saved_state import SavedStates
from activities.turn_state import TurnStateActivities
from domain import turn_store
from domain.conversation import (
    ConversationState,
    StepResult,
    TurnExecutionSummary,
    TurnRecord,
)
from domain.nodes import ThinkStep
from domain.registry import SessionIdRegistry
from tests.activities.saved_conversation import save
from tests.workflows import script

Sessions = async_sessionmaker[AsyncSession]
RICE = {"id": str(uuid.uuid4()), "name": "rice", "quantity": 1, "unit": "kg"}


async def saved(sessions: Sessions, user: uuid.UUID, turns: int = 1) -> tuple[str, int]:
    """A conversation whose state is saved ``turns`` times (the last state knows rice as
    inv_1, has two turns on record and an archived suggestion); its id and version."""
    registry = SessionIdRegistry()
    registry.begin_turn(1)
    registry.translate_read_output([dict(RICE)], "inventory")
    state = ConversationState(
        registry=registry,
        recent_turns=[
            TurnRecord(turn=1, user_message="what rice do I have", assistant_response="1 kg"),
            TurnRecord(turn=2, user_message="suggest a risotto", assistant_response="Here."),
        ],
        history_summary="The user cooks rice dishes.",
        content_archive={"gen_recipe_1": {"name": "Risotto"}},
    )
    return await save(sessions, user, state, turns)


def this_turn(stored: SessionIdRegistry) -> SessionIdRegistry:
    """Turn 3 reads the rice again and registers a new shopping-list row."""
    registry = stored.clone()
    registry.begin_turn(3)
    registry.translate_read_output([dict(RICE)], "inventory")
    registry.translate_read_output([{"id": str(uuid.uuid4()), "name": "milk"}], "shopping_list")
    return registry


async def test_the_saved_version_is_read_with_the_turns_changes_on_top(sessions, user):
    conversation, version = await saved(sessions, user)
    stored = (await turn_store.load_conversation(sessions, str(user), conversation))[0]
    registry = this_turn(stored.registry)
    ref = StateRef(
        user_id=str(user),
        conversation_id=conversation,
        version=version,
        registry=registry.delta_since(stored.registry),
        archived=["gen_recipe_2"],
        unarchived=["gen_recipe_1"],
    )
    state, read = await SavedStates(sessions).read(ref)
    assert read == registry
    assert read.last_referenced("inv_1") == 3
    assert state.content_archive == {"gen_recipe_2": None}  # the keys, as prompts show them
    assert state.registry == SessionIdRegistry()
    assert [t.turn for t in state.recent_turns] == [1, 2]
    assert state.history_summary == "The user cooks rice dishes."


async def test_a_version_saved_past_is_refused_for_good(sessions, user):
    conversation, version = await saved(sessions, user, turns=2)
    ref = StateRef(user_id=str(user), conversation_id=conversation, version=version - 1)
    with pytest.raises(ApplicationError) as raised:
        await SavedStates(sessions).read(ref)
    assert raised.value.type == "state_moved" and raised.value.non_retryable
    assert f"at version {version}, not {version - 1}" in str(raised.value)


async def test_the_state_a_turn_began_with_is_read_by_reference_without_another_query(
    sessions, user, monkeypatch
):
    conversation, version = await saved(sessions, user)
    states = SavedStates(sessions)
    activity = TurnStateActivities(
        sessions, LlmGateway(ScriptProvider.from_responses([])), states=states
    )
    begun = await ActivityEnvironment().run(
        activity.begin_turn,
        BeginTurnRequest(
            conversation_id=conversation,
            user_id=str(user),
            turn_number=2,
            workflow_id="wf-begun",
            message="and now?",
        ),
    )

    async def no_query(*args, **kwargs):
        raise AssertionError("the saved state was queried again")

    monkeypatch.setattr(turn_store, "load_state_at", no_query)
    ref = StateRef(user_id=str(user), conversation_id=conversation, version=begun.version)
    state, registry = await states.read(ref)
    assert begun.version == version
    assert registry.resolve("inv_1") == RICE["id"]
    assert state.history_summary == "The user cooks rice dishes."


async def test_another_users_conversation_is_not_read(sessions, user, other_user):
    conversation, version = await saved(sessions, user)
    ref = StateRef(user_id=str(other_user), conversation_id=conversation, version=version)
    with pytest.raises(ApplicationError) as raised:
        await SavedStates(sessions).read(ref)
    assert raised.value.type == "conversation_not_found" and raised.value.non_retryable


async def prompt(sessions, answer: dict, request, *, summarize: bool = False) -> str:
    """The user prompt a node renders from ``request`` (``answer``: the scripted model's
    answer, in ``tests.workflows.script``'s words)."""
    script = ScriptProvider.from_responses([answer])
    gateway = LlmGateway(script)
    if summarize:
        activity = TurnStateActivities(sessions, gateway).summarize
    else:
        activity = getattr(NodeActivities(gateway, states=SavedStates(sessions)), answer["node"])
    await ActivityEnvironment().run(activity, request)
    return script.calls[0].user


async def test_every_node_is_shown_the_saved_state_with_the_turns_changes(sessions, user):
    conversation, version = await saved(sessions, user)
    stored = (await turn_store.load_conversation(sessions, str(user), conversation))[0]
    registry = this_turn(stored.registry)
    ref = StateRef(
        user_id=str(user),
        conversation_id=conversation,
        version=version,
        registry=registry.delta_since(stored.registry),
    )
    milk = next(r for r in registry.known_refs() if registry.label(r) == "milk")

    understand = UnderstandRequest(message="add milk", mode="plan", state_ref=ref)
    shown = await prompt(sessions, script.understand(), understand)
    assert "inv_1" in shown and milk in shown and "suggest a risotto" in shown

    step = ThinkStep(description="Read the rice", step_type="read", subdomain="inventory")
    act = ActRequest(goal="g", plan=[step], step_index=0, mode="plan", state_ref=ref)
    assert "inv_1" in await prompt(sessions, script.complete("Found 1 kg of rice."), act)

    result = StepResult(
        step_index=0, description="Read the rice", step_type="read", subdomain="inventory"
    )
    reply = ReplyRequest(message="rice?", mode="plan", step_results=[result], state_ref=ref)
    assert "suggest a risotto" in await prompt(sessions, script.reply("You have rice."), reply)

    record = TurnRecord(turn=3, user_message="rice?", assistant_response="You have rice.")
    summarize = SummarizeRequest(
        state_ref=ref, record=record, summary=TurnExecutionSummary(turn_num=3)
    )
    answer = {
        "node": "summarize",
        "output": {
            "assistant_summary": "Said there is rice.",
            "engagement_summary": "Cooking rice.",
            "conversation_phase": "exploring",
        },
    }
    assert "suggest a risotto" in await prompt(sessions, answer, summarize, summarize=True)
