"""A turn never holds its conversation without a live workflow, answers count once per
pause, and a turn whose history cannot be replayed still reads as what the database knows."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RetryConfig
from temporalio.worker import Worker

from api.abandoned import free_if_abandoned
from api.stuck import end_stuck, find_stuck
from api.temporal import TurnClient
from domain import turn_store
from tests.api.conftest import Api
from tests.api.test_turns import SHOP, add_milk, script, settled
from tests.workflows.script import propose, understand
from tests.workflows.variants import ReorderedTurnWorkflow
from workflows.worker import turn_activities

MILK = (understand(), propose("Add milk", "Add milk?", SHOP))


async def say(api: Api, conversation: str, text: str, **query):
    return await api.post(
        f"/v1/conversations/{conversation}/messages", json={"text": text}, **query
    )


async def test_a_turn_reserved_but_never_started_is_ended_by_the_next_message(api: Api):
    conversation = await api.conversation()
    # The API died between reserving turn 1 and starting its workflow.
    orphan = (
        await turn_store.reserve_turn(api.services.sessions, str(api.user_id), conversation, "hi")
    ).turn
    api.services.settings.turn_start_grace_seconds = 3600
    refused = await say(api, conversation, "add milk")
    assert refused.status_code == 409  # within the grace period it may still be starting
    api.services.settings.turn_start_grace_seconds = 0
    async with api.worker(script(*MILK)):
        started = await say(api, conversation, "add milk")
        assert started.status_code == 202, started.text
        assert started.json()["turn_number"] == 2
        ended = (await api.get(f"/v1/turns/{orphan.id}")).json()
        assert ended["status"] == "failed"
        assert "never started" in ended["response"]
        state, _ = await turn_store.load_conversation(
            api.services.sessions, str(api.user_id), conversation
        )
        assert any("Turn 1 ended without finishing" in note for note in state.notes)


async def test_a_terminated_turn_frees_its_conversation(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(*MILK)):
        first = (await say(api, conversation, "add milk", params={"wait": "true"})).json()
        assert first["status"] == "awaiting_input"
        await api.services.turns.handle(first["workflow_id"]).terminate("operator")
    # Turn 1's row still says awaiting_input; the message is not an answer to a dead turn.
    async with api.worker(script(understand(), propose("Add eggs", "Add eggs?", SHOP))):
        second = await say(api, conversation, "add eggs instead")
        assert second.status_code == 202, second.text
        assert second.json()["turn_number"] == 2
    ended = (await api.get(f"/v1/turns/{first['id']}")).json()
    assert ended["status"] == "failed" and "stopped by an operator" in ended["response"]


async def test_ten_simultaneous_answers_to_one_proposal_one_counts(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(*MILK, *add_milk())):
        turn = (await say(api, conversation, "add milk", params={"wait": "true"})).json()
        pause_id = turn["pending"]["pause_id"]
        answers = await asyncio.gather(
            *(
                api.post(
                    f"/v1/turns/{turn['id']}/input",
                    json={"action": "confirm", "pause_id": pause_id},
                )
                for _ in range(10)
            )
        )
        done = await settled(api, turn["id"], "completed")
    codes = sorted(r.status_code for r in answers)
    assert codes == [202] + [409] * 9
    accepted = next(r.json() for r in answers if r.status_code == 202)
    assert accepted["accepted_input"]["pause_id"] == pause_id
    reasons = {r.json()["error"]["code"] for r in answers if r.status_code == 409}
    assert reasons <= {"already_answered", "not_awaiting_input"}
    assert done["response"] == "Added milk."


async def test_a_retried_answer_gets_the_same_receipt(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(*MILK, *add_milk())):
        turn = (await say(api, conversation, "add milk", params={"wait": "true"})).json()
        body = {"action": "confirm", "input_id": uuid.uuid4().hex}
        first = await api.post(f"/v1/turns/{turn['id']}/input", json=body)
        again = await api.post(f"/v1/turns/{turn['id']}/input", json=body)
        await settled(api, turn["id"], "completed")
    assert first.status_code == again.status_code == 202
    assert first.json()["accepted_input"] == again.json()["accepted_input"]


async def test_an_answer_to_another_pause_is_a_409_with_the_reason(api: Api):
    conversation = await api.conversation()
    async with api.worker(script(*MILK, *add_milk())):
        turn = (await say(api, conversation, "add milk", params={"wait": "true"})).json()
        wrong = await api.post(
            f"/v1/turns/{turn['id']}/input", json={"action": "confirm", "pause_id": "pause-9"}
        )
        assert wrong.status_code == 409
        error = wrong.json()["error"]
        assert error["code"] == "not_the_open_pause"
        open_pause = turn["pending"]["pause_id"]
        assert error["message"] == f"pause-9 is not the open question; {open_pause} is"
        assert (await api.get(f"/v1/turns/{turn['id']}")).json()["status"] == "awaiting_input"
        await api.post(f"/v1/turns/{turn['id']}/input", json={"action": "reject"})
        await settled(api, turn["id"], "completed")


async def test_a_turn_whose_history_no_longer_replays_reads_from_the_database(api: Api):
    conversation = await api.conversation()
    turn_client = api.services.turns
    async with api.worker(script(*MILK)):
        turn = (await say(api, conversation, "add milk", params={"wait": "true"})).json()
    # A worker whose code cannot replay this history: every query fails on the worker.
    async with Worker(
        turn_client.client,
        task_queue=turn_client.task_queue,
        workflows=[ReorderedTurnWorkflow],
        activities=list(turn_activities(api.services.sessions, script()).values()),
        max_cached_workflows=0,
    ):
        response = await api.get(f"/v1/turns/{turn['id']}")
    assert response.status_code == 200
    assert response.json()["status"] == "awaiting_input"  # what the row says


async def test_end_stuck_ends_a_turn_whose_history_does_not_replay(api: Api):
    conversation = await api.conversation()
    client, sessions = api.services.turns.client, api.services.sessions
    async with api.worker(script(*MILK)):
        turn = (await say(api, conversation, "add milk", params={"wait": "true"})).json()
    assert await find_stuck(client, [turn["workflow_id"]]) == []  # today's code replays it
    # Code whose control flow changed without a patch cannot replay it: the turn is stuck.
    stuck = await find_stuck(client, [turn["workflow_id"]], workflows=[ReorderedTurnWorkflow])
    assert [s.workflow_id for s in stuck] == [turn["workflow_id"]]
    assert stuck[0].user_id == str(api.user_id) and "activation completion failed" in stuck[0].error
    assert await end_stuck(client, sessions, stuck[0])
    described = await client.get_workflow_handle(turn["workflow_id"]).describe()
    assert described.status == WorkflowExecutionStatus.TERMINATED
    ended = (await api.get(f"/v1/turns/{turn['id']}")).json()
    assert ended["status"] == "failed" and "ended by an operator" in ended["response"]
    async with api.worker(script(*MILK)):
        assert (await say(api, conversation, "add milk again")).status_code == 202


async def test_an_answer_no_worker_takes_is_a_503_and_counts_once_when_sent_again(api: Api):
    conversation = await api.conversation()
    # No cache, so no sticky queue the time-skipping server would hold the next task on.
    async with api.worker(script(*MILK), max_cached_workflows=0):
        turn = (await say(api, conversation, "add milk", params={"wait": "true"})).json()
    body = {"action": "confirm", "input_id": uuid.uuid4().hex}
    waiting = await api.post(f"/v1/turns/{turn['id']}/input", json=body)
    assert waiting.status_code == 503
    assert waiting.json()["error"]["code"] == "worker_unavailable"
    assert waiting.headers["Retry-After"]
    async with api.worker(script(*add_milk())):
        again = await api.post(f"/v1/turns/{turn['id']}/input", json=body)
        assert again.status_code == 202, again.text
        done = await settled(api, turn["id"], "completed")
    assert done["response"] == "Added milk."


async def test_a_turn_is_never_ended_on_a_guess_when_temporal_is_unreachable(api: Api):
    unreachable = await Client.connect(
        "127.0.0.1:1", lazy=True, retry_config=RetryConfig(max_retries=0)
    )
    turn_client = TurnClient(unreachable, task_queue="nowhere")
    assert await turn_client.liveness("turn-x-1") == "unknown"
    conversation = await api.conversation()
    sessions, user = api.services.sessions, str(api.user_id)
    reserved = (await turn_store.reserve_turn(sessions, user, conversation, "hi")).turn
    services = dataclasses.replace(api.services, turns=turn_client)
    services.settings = services.settings.model_copy(update={"turn_start_grace_seconds": 0})
    assert not await free_if_abandoned(services, user, reserved)
    assert (await turn_store.turn_by_id(sessions, user, reserved.id)).status == "running"
