"""A turn opens with one local activity (``open_turn``): it waits for nothing the turn
before has not saved, starts this turn's row, loads the working copy, and reads the profile,
dashboard and mentioned rows, with the saved refs of the rows the message names."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.llm.gateway import LlmGateway
from activities.llm.script_provider import ScriptProvider
from activities.opening import TurnOpening
from activities.payloads import (
    BeginTurnRequest,
    OpenTurnRequest,
    PrepareTurnRequest,
    PreviousTurnRequest,
)
from activities.preparation import TurnContextActivities
from activities.turn_state import TurnStateActivities
from domain import turn_store
from domain.conversation import ConversationState
from tests.activities.saved_conversation import save

TODAY = dt.date(2026, 11, 25)


def opening(sessions) -> TurnOpening:
    state = TurnStateActivities(sessions, LlmGateway(ScriptProvider.from_responses([])))
    return TurnOpening(state, TurnContextActivities(sessions))


def request(user, conversation: str, turn: int, message: str) -> OpenTurnRequest:
    return OpenTurnRequest(
        previous=PreviousTurnRequest(
            conversation_id=conversation, user_id=str(user), turn_number=turn
        ),
        begin=BeginTurnRequest(
            conversation_id=conversation,
            user_id=str(user),
            turn_number=turn,
            workflow_id=turn_store.turn_workflow_id(conversation, turn),
            message=message,
        ),
        prepare=PrepareTurnRequest(user_id=str(user), message=message, today=TODAY),
    )


async def test_a_turn_opens_loaded_and_prepared_with_the_saved_ref_of_a_named_row(sessions, pantry):
    rice = pantry.registry.resolve("inv_3")
    conversation, version = await save(
        sessions, pantry.user, ConversationState(registry=pantry.registry), turns=9
    )
    message = f"how much @[rice](inventory:{rice}) is left?"

    opened = await ActivityEnvironment().run(
        opening(sessions).open_turn, request(pantry.user, conversation, 10, message)
    )

    assert opened.previous is not None and opened.previous.settled
    assert opened.begun is not None and opened.begun.version == version
    # the working copy: nine turns on, the pantry's refs are no longer in it...
    assert opened.begun.state.registry.entries == {}
    row = await turn_store.get_turn(sessions, str(pantry.user), conversation, 10)
    assert row is not None and row.status == "running"
    assert opened.prepared is not None
    assert [(e.table, e.id, e.action) for e in opened.prepared.context.entities] == [
        ("inventory", rice, "mentioned:user")
    ]
    # ...but the mentioned row's saved ref comes with the context, to be adopted
    assert opened.prepared.known is not None
    assert {r: e.uuid for r, e in opened.prepared.known.entries.items()} == {"inv_3": rice}


async def test_a_turn_whose_previous_turn_has_not_saved_starts_nothing(sessions, user):
    conversation = await turn_store.create_conversation(sessions, user)
    await turn_store.start_turn(
        sessions,
        user_id=str(user),
        conversation_id=conversation,
        turn_number=1,
        workflow_id=turn_store.turn_workflow_id(conversation, 1),
        message="hi",
    )

    opened = await ActivityEnvironment().run(
        opening(sessions).open_turn, request(user, conversation, 2, "and then?")
    )

    assert opened.previous is not None and not opened.previous.settled
    assert opened.previous.previous_status == "running"
    assert opened.begun is None and opened.prepared is None
    assert await turn_store.get_turn(sessions, str(user), conversation, 2) is None


async def test_opening_twice_is_opening_once(sessions, user):
    """A retried attempt (the worker died after the first) finds its own row and version."""
    conversation, version = await save(sessions, user, ConversationState())
    env, activity = ActivityEnvironment(), opening(sessions).open_turn
    first = await env.run(activity, request(user, conversation, 2, "what now?"))
    again = await env.run(activity, request(user, conversation, 2, "what now?"))
    assert first.begun is not None and again.begun is not None
    assert first.begun.version == again.begun.version == version
    _, turns = await turn_store.conversation_with_turns(
        sessions, str(user), uuid.UUID(conversation)
    )
    assert [t.turn_number for t in turns] == [1, 2]


async def test_parts_that_name_different_users_are_refused_for_good(sessions, user, other_user):
    conversation, _ = await save(sessions, user, ConversationState())
    mixed = request(user, conversation, 2, "hi")
    mixed.prepare.user_id = str(other_user)
    with pytest.raises(ApplicationError) as refused:
        await ActivityEnvironment().run(opening(sessions).open_turn, mixed)
    assert refused.value.type == "invalid_request" and refused.value.non_retryable
    assert await turn_store.get_turn(sessions, str(user), conversation, 2) is None


async def test_a_read_that_fails_after_the_turn_began_leaves_the_turn_begun(sessions, user):
    """The row is started and the state loaded; the workflow runs ``prepare_turn`` apart."""

    class ReadFails(TurnContextActivities):
        async def prepare_turn(self, request):
            raise RuntimeError("the dashboard read timed out")

    state = TurnStateActivities(sessions, LlmGateway(ScriptProvider.from_responses([])))
    conversation, version = await save(sessions, user, ConversationState())
    opened = await ActivityEnvironment().run(
        TurnOpening(state, ReadFails(sessions)).open_turn,
        request(user, conversation, 2, "what now?"),
    )
    assert opened.begun is not None and opened.begun.version == version
    assert opened.prepared is None
    assert await turn_store.get_turn(sessions, str(user), conversation, 2) is not None
