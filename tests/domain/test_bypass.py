"""cook and brainstorm sessions: their own history, the recipe they cook, and the handoff
they leave for the next plan turn."""

from __future__ import annotations

import uuid

import pytest
from pydantic import ValidationError

from domain.bypass import SESSION_EXCHANGES, after_exchange, handoff_section, open_session
from domain.conversation import (
    BypassSession,
    ConversationState,
    TurnEnding,
    TurnExecutionSummary,
    TurnRecord,
    end_turn,
    record_turn,
)
from domain.nodes import BypassOutput, Handoff
from domain.registry import SessionIdRegistry
from domain.turn_context import FreshEntity, TurnContext

DAL = {"name": "Dal", "servings": 2, "instructions": ["Rinse.", "Simmer."]}


def exchange(
    state: ConversationState, registry: SessionIdRegistry, session, **said
) -> ConversationState:
    """One bypass message as the workflow ends it (its working copies of the registry and
    archive changed in place) and ``finish_turn`` saves it."""
    archive = dict(state.content_archive)
    ending = after_exchange(registry, archive, session, **said)
    return end_turn(
        state,
        TurnEnding(
            registry=registry.delta_since(state.registry), content_archive=archive, bypass=ending
        ),
    )


def registry_at(turn: int) -> SessionIdRegistry:
    registry = SessionIdRegistry()
    registry.begin_turn(turn)
    return registry


def mentioned(ref: str = "recipe_1") -> TurnContext:
    entity = FreshEntity(
        table="recipes", id=str(uuid.UUID(int=1)), action="mentioned:user", data=DAL, ref=ref
    )
    return TurnContext(entities=[entity])


def test_cook_cooks_the_mentioned_recipe_else_the_newest_unsaved_one():
    registry = registry_at(1)
    session = open_session(ConversationState(), registry, "cook", 1, mentioned())
    assert (session.recipe_ref, session.recipe) == ("recipe_1", DAL)
    registry.register_generated("recipe", {"name": "Old"})
    newest = registry.register_generated("recipe", {"name": "Soup"})
    session = open_session(ConversationState(), registry, "cook", 1, TurnContext())
    assert (session.recipe_ref, session.recipe) == (newest, {"name": "Soup"})
    bare = open_session(ConversationState(), registry_at(1), "cook", 1, TurnContext())
    assert bare.recipe is None
    assert open_session(ConversationState(), registry, "brainstorm", 1, mentioned()).recipe is None


def test_a_message_in_the_same_mode_continues_the_session_another_mode_starts_over():
    running = BypassSession(mode="cook", started_turn=1, recipe=DAL)
    state = ConversationState(bypass=running)
    assert open_session(state, registry_at(2), "cook", 2, TurnContext()) == running
    fresh = open_session(state, registry_at(2), "brainstorm", 2, TurnContext())
    assert (fresh.mode, fresh.started_turn, fresh.history) == ("brainstorm", 2, [])


def test_the_session_keeps_its_own_short_history_and_the_conversation_is_untouched():
    state, registry = ConversationState(), registry_at(1)
    session = open_session(state, registry, "cook", 1, mentioned())
    for n in range(SESSION_EXCHANGES + 2):
        state = exchange(
            state,
            registry,
            session,
            turn=n + 1,
            message=f"next {n}",
            output=BypassOutput(response=f"step {n}"),
        )
        session = state.bypass
    assert len(session.history) == SESSION_EXCHANGES
    assert session.history[-1].user == f"next {SESSION_EXCHANGES + 1}"
    assert state.recent_turns == [] and state.handoff is None


def test_a_save_handoff_lands_as_unsaved_content_a_plan_turn_can_save():
    state, registry = ConversationState(), registry_at(3)
    session = open_session(state, registry, "brainstorm", 3, TurnContext())
    handoff = Handoff(summary="Settled on a lime slaw.", action="save", recipe={"name": "Slaw"})
    state = exchange(
        state,
        registry,
        session,
        turn=3,
        message="save that",
        output=BypassOutput(response="Saved for later.", exit=True, handoff=handoff),
    )
    assert state.bypass is None
    assert state.handoff.recipe_ref == "gen_recipe_1" and state.handoff.action == "save"
    saved = state.registry
    assert saved.get_truly_pending_artifacts() == {"gen_recipe_1": {"name": "Slaw"}}
    assert state.content_archive["gen_recipe_1"] == {"name": "Slaw"}
    (record,) = state.recent_turns
    assert (
        record.entities == ["gen_recipe_1"]
        and "Settled on a lime slaw." in record.assistant_response
    )
    text = handoff_section(state)
    assert "From brainstorm mode (turn 3): Settled on a lime slaw." in text
    assert "`gen_recipe_1` (generated, not saved): save it on request." in text


def test_an_update_handoff_names_the_cooked_recipe_and_carries_the_changes():
    state, registry = ConversationState(), registry_at(2)
    session = open_session(state, registry, "cook", 2, mentioned("recipe_4"))
    changed = {**DAL, "instructions": ["Rinse.", "Simmer with more garlic."]}
    state = exchange(
        state,
        registry,
        session,
        turn=2,
        message="done, keep the garlic",
        output=BypassOutput(
            response="Enjoy!",
            exit=True,
            handoff=Handoff(summary="More garlic.", action="update", recipe=changed),
        ),
    )
    assert state.handoff.recipe_ref == "recipe_4"
    assert "Changes to `recipe_4` (saved): update it on request." in handoff_section(state)
    assert "more garlic" in handoff_section(state)


def test_the_next_plan_turn_sees_the_handoff_once():
    state = ConversationState()
    state.handoff = None
    assert handoff_section(state) == ""
    state, registry = ConversationState(), registry_at(1)
    session = open_session(state, registry, "cook", 1, mentioned())
    state = exchange(
        state,
        registry,
        session,
        turn=1,
        message="done",
        output=BypassOutput(
            response="Bye", exit=True, handoff=Handoff(summary="Cooked dal.", action="close")
        ),
    )
    assert handoff_section(state).startswith("From cook mode (turn 1): Cooked dal.")
    after, _ = record_turn(
        state, TurnRecord(turn=2, user_message="thanks"), TurnExecutionSummary(turn_num=2), []
    )
    assert after.handoff is None


def test_the_model_must_say_what_an_exit_leaves_and_give_content_to_save_or_update():
    with pytest.raises(ValidationError, match="exit requires handoff"):
        BypassOutput(response="bye", exit=True)
    with pytest.raises(ValidationError, match="requires recipe"):
        Handoff(summary="x", action="save")
    assert Handoff(summary="x", action="close").recipe is None
