"""A turn started while the one before it is still saving (``queued``) opens nothing until
that save is done, then opens on the saved state, in the one ``open_turn`` activity."""

from __future__ import annotations

from domain.turn_store import get_turn, load_conversation
from tests.replay import opened_by
from tests.workflows.conftest import Turns, keep_history, wait_for
from tests.workflows.held_summaries import HeldSummaries
from tests.workflows.script import complete, plan, reply, step, tool, understand

LOOK = (
    understand(),
    plan("Look in the pantry", step("Read the inventory", "read", "inventory")),
    tool("db_read", table="inventory"),
    complete("Read it"),
)


async def test_a_turn_queued_behind_an_unsaved_one_opens_once_it_is_saved(turns: Turns):
    script = turns.script(*LOOK, reply("Nothing yet."), *LOOK, reply("Still nothing."))
    model = HeldSummaries(script)
    async with turns.worker(model):
        first = await turns.start("anything in the pantry?")
        await wait_for(first, lambda p: p.status == "replied")
        second = await turns.start("and now?")
        await wait_for(second, lambda p: p.status == "queued")
        # Queued: nothing of the second turn is started or loaded yet.
        assert await get_turn(turns.sessions, turns.user_id, turns.conversation_id, 2) is None
        model.release.set()
        assert (await first.result()).status == "completed"
        assert (await second.result()).status == "completed"
        await keep_history(second, "queued_turn")
    openings = opened_by(await second.fetch_history())
    assert len(openings) >= 2 and set(openings) == {"open_turn"}  # asked again, then opened
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert [(t.turn, t.user_message) for t in state.recent_turns] == [
        (1, "anything in the pantry?"),
        (2, "and now?"),
    ]
