"""Every ending of a turn says what was written, from the turn's own record of its writes
(``TurnState.written``, the writes' results), whatever a model said: the rows by name
when there were writes, "Nothing was changed." only when there were none. One test per
point where a model can fail for good (Understand, Think, an Act step before and after its
first write, Reply, Summarize), then the other ways a turn stops short of its plan."""

from __future__ import annotations

import uuid

from domain.registry import SessionIdRegistry
from domain.turn_store import load_conversation
from tests.kitchen_helper import PANTRY, Kitchen
from tests.workflows.conftest import Turns, keep_history, send, wait_for
from tests.workflows.script import (
    act,
    ask,
    complete,
    plan,
    propose,
    reply,
    step,
    tool,
    understand,
)
from tests.workflows.wire import http_error
from workflows.interface import TurnLimits, UserInput

MESSAGE = "add eggs, milk and flour to my shopping list"
ADD = step("Add eggs, milk and flour to the shopping list", "write", "shopping")
ADDED = "Added 3 items to your shopping list: eggs, milk, flour."
"""What the three rows' write says of itself (``format_write_confirmation``)."""
NOTHING = "Nothing was changed."


def add_three(at_step: int | None = None) -> dict:
    data = [{"name": "eggs"}, {"name": "milk"}, {"name": "flour"}]
    return tool("db_create", at_step, table="shopping_list", data=data)


def section(user_message: str, title: str) -> str:
    """The body of one ``## title`` section of a request's user message."""
    _, found, rest = user_message.partition(f"## {title}\n")
    assert found, f"no section {title!r} in: {user_message[:500]}"
    return rest.split("\n## ", 1)[0]


def sent_to(turns: Turns, node: str) -> str:
    """The user message of the last ``node`` request the fake OpenAI server received."""
    assert turns.wire is not None
    return turns.wire.requests_of(node)[-1].body["messages"][1]["content"]


def answer(action: str, text: str | None = None) -> UserInput:
    return UserInput(input_id=uuid.uuid4().hex, action=action, text=text)


# --- a model fails for good ------------------------------------------------------------------


async def test_understand_failing_says_nothing_was_changed(turns: Turns):
    script = turns.script(http_error("understand", 400))
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
    assert result.status == "completed"
    assert NOTHING in result.response
    assert [c.node for c in script.calls] == ["understand"]


async def test_understand_failing_after_a_write_names_the_rows(turns: Turns):
    """Understand reads the answer to an Act question; when it fails there, the turn fails,
    and its ending names what the step had already written."""
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        add_three(),
        ask("Anything else to add?"),
        http_error("understand", 400),
    )
    async with turns.worker(script):
        handle = await turns.start(MESSAGE)
        await wait_for(handle, lambda p: p.status == "awaiting_input")
        await send(handle, answer("answer", "no, that's all"))
        response = (await wait_for(handle, lambda p: p.status == "failed")).response or ""
    assert ADDED in response and NOTHING not in response


async def test_think_failing_says_nothing_was_changed(turns: Turns):
    script = turns.script(understand(), http_error("think", 400))
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
    assert result.status == "completed"
    assert result.response.startswith("I couldn't plan this") and NOTHING in result.response


async def test_an_act_step_failing_before_its_first_write_says_nothing_was_changed(
    turns: Turns,
):
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        http_error("act", 503),
        reply("Sorry, I couldn't add your items."),
    )
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
    assert result.response == f"Sorry, I couldn't add your items.\n\n{NOTHING}"
    summary = section(sent_to(turns, "reply"), "Execution summary")
    assert "→ blocked" in summary and NOTHING in summary


async def test_an_act_step_failing_after_its_first_write_names_the_rows(turns: Turns, executor):
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        add_three(),
        http_error("act", 503),
        reply("Sorry, I couldn't finish adding your items."),
    )
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
    # The reply model said nothing of the rows; the ending names them all the same.
    assert result.response == (
        f"Sorry, I couldn't finish adding your items.\n\nChanges made: {ADDED}"
    )
    # Reply was shown them: the blocked step's writes count in its execution summary.
    summary = section(sent_to(turns, "reply"), "Execution summary")
    assert f"Changes made: {ADDED}" in summary and "nothing was executed" not in summary
    assert f"tool result: {ADDED}" in summary  # the blocked step's own write, as said


async def test_reply_failing_after_writes_names_the_rows(turns: Turns):
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        add_three(),
        complete("Added eggs, milk and flour"),
        http_error("reply", 400),
    )
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
    assert result.fallbacks == ["reply: http_400"]
    assert ADDED in result.response and NOTHING not in result.response


async def test_a_write_the_answer_already_says_word_for_word_is_not_said_twice(turns: Turns):
    """The answer made without the model gives the step's summary, here the write's own
    sentence: "Changes made:" would repeat it."""
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        add_three(),
        complete(ADDED),
        http_error("reply", 400),
    )
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
    assert result.response == f"Here is what I got done: {ADDED}"


async def test_summarize_failing_keeps_the_rows_in_the_reply_and_the_turns_record(
    turns: Turns,
):
    task = step("Add a task to buy bread", "write", "tasks", group=1)
    script = turns.script(
        understand(),
        plan("Stock up", ADD, task),
        add_three(at_step=0),
        complete("Added eggs, milk and flour", at_step=0),
        http_error("act", 503),  # step 2 gets no decision
        reply("I added your items but couldn't add the task."),
        http_error("summarize", 400),
        http_error("understand", 400),  # the next turn's, once it has been shown the record
        summarize=False,
    )
    async with turns.worker(script):
        # create mode: a plan that writes twice runs without a proposal
        result = await (await turns.start(MESSAGE, mode="create")).result()
        await (await turns.start("what did you add?")).result()
    assert result.fallbacks == ["act step 2: http_503", "summarize: http_400"]
    assert result.response.endswith(f"Changes made: {ADDED}")
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert state.recent_turns[0].assistant_response == result.response
    assert state.turn_summaries[0].written == [ADDED]
    # the next turn is told, whatever became of the reply's wording
    assert ADDED in section(sent_to(turns, "understand"), "Previous turns' plans")


# --- other ways a turn stops short --------------------------------------------------------------


async def test_a_question_rejected_after_a_write_names_the_rows(turns: Turns):
    script = turns.script(
        understand(), plan("Stock up", ADD), add_three(), ask("Anything else to add?")
    )
    async with turns.worker(script):
        handle = await turns.start(MESSAGE)
        await wait_for(handle, lambda p: p.status == "awaiting_input")
        await send(handle, answer("reject"))
        result = await handle.result()
    assert ADDED in result.response and "nothing was changed" not in result.response.lower()


async def test_a_limit_reached_after_a_write_names_the_rows(turns: Turns):
    script = turns.script(understand(), plan("Stock up", ADD), add_three())
    async with turns.worker(script):
        handle = await turns.start(MESSAGE, limits=TurnLimits(max_llm_calls=3))
        result = await handle.result()
    assert result.breakers and result.response.endswith(f"Changes made: {ADDED}")
    assert "may already have taken effect" not in result.response


async def test_a_rejected_proposal_says_nothing_was_changed(turns: Turns):
    script = turns.script(understand(), propose("Stock up", "Add three items?", ADD))
    async with turns.worker(script):
        handle = await turns.start(MESSAGE)
        await wait_for(handle, lambda p: p.status == "awaiting_input")
        await send(handle, answer("reject"))
        result = await handle.result()
    assert NOTHING.lower() in result.response.lower()


async def test_a_question_left_unanswered_after_a_write_leaves_the_rows_in_the_note(
    turns: Turns,
):
    script = turns.script(
        understand(), plan("Stock up", ADD), add_three(), ask("Anything else to add?")
    )
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()  # the test server skips time
    assert result.status == "expired"
    state, _ = await load_conversation(turns.sessions, turns.user_id, turns.conversation_id)
    assert any(note.endswith(f"Changes made: {ADDED}") for note in state.notes)
    assert state.turn_summaries[0].written == [ADDED]


# --- a reply that speaks as if nothing was written ------------------------------------------


async def test_a_reply_that_never_speaks_of_the_writes_is_followed_by_them(turns: Turns):
    """Reply answered with the list it was shown, not with what was done: the ending says
    what was written. A reply that says it gets nothing added."""
    ignored = "You have eggs, milk and flour."
    said = "I've added eggs, milk and flour to your list."
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        add_three(),
        complete("Added eggs, milk and flour"),
        reply(ignored),
        understand(),
        plan("Stock up", ADD),
        add_three(),
        complete("Added eggs, milk and flour"),
        reply(said),
    )
    async with turns.worker(script):
        first = await (await turns.start(MESSAGE)).result()
        second = await (await turns.start(MESSAGE)).result()
    assert first.response == f"{ignored}\n\nChanges made: {ADDED}"
    assert second.response == said


async def test_a_reply_that_says_nothing_was_changed_after_a_write_says_what_was(turns: Turns):
    """The 1.5B local model ended a reply with "Nothing was changed.", the sentence its
    prompt quotes, after the turn wrote: the sentence goes, and the writes the rest of the
    reply does not speak of are said."""
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        add_three(),
        complete("Added eggs, milk and flour"),
        reply("Your list has eggs, milk and flour. Nothing was changed."),
        understand(),
        plan("Stock up", ADD),
        add_three(),
        complete("Added eggs, milk and flour"),
        reply("Nothing was changed."),
    )
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
        alone = await (await turns.start(MESSAGE)).result()
    assert result.response == f"Your list has eggs, milk and flour.\n\nChanges made: {ADDED}"
    assert alone.response == f"Changes made: {ADDED}"  # all the reply said was false


async def test_a_reply_that_gives_back_its_prompt_is_replaced_by_the_outcome(turns: Turns):
    """Reply answered with its own prompt's sections ("## User request …"): that is no
    answer, so the turn answers from the steps' summaries and says what was written."""
    echoed = f"## User request\n{MESSAGE}\n## Goal\nStock up\n## Execution summary\nStep 0"
    script = turns.script(
        understand(),
        plan("Stock up", ADD),
        add_three(),
        complete("Added eggs, milk and flour"),
        reply(echoed),
    )
    async with turns.worker(script):
        result = await (await turns.start(MESSAGE)).result()
    assert result.fallbacks == ["reply: repeated_the_prompt"]
    assert result.response == (
        f"Here is what I got done: Added eggs, milk and flour.\n\nChanges made: {ADDED}"
    )


async def test_a_reply_that_describes_its_prompt_is_replaced_by_what_was_found(
    turns: Turns, executor
):
    """Asked "what goes in the chili", the 1.5B local model answered "The primary output is
    the saved Chili recipe … The execution summary shows …", naming no ingredient: the
    turn answers with what the read found."""
    kitchen = Kitchen(executor, turns.user_id, SessionIdRegistry())
    chili = {
        "name": "Weeknight Chili",
        "instructions": ["Brown the mince."],
        "recipe_ingredients": [{"name": "beef mince", "quantity": 500, "unit": "g"}],
    }
    await kitchen.create("recipes", [chili])
    described = (
        "The primary output is the saved Chili recipe with its ingredients. The execution "
        "summary shows that the recipe was read successfully. The suggested next step is to "
        "explore the recipe further."
    )
    script = turns.script(
        understand(),
        plan("The chili's ingredients", step("Read the chili recipe", "read", "recipes")),
        tool(
            "db_read",
            table="recipes",
            filters=[{"field": "name", "op": "ilike", "value": "%chili%"}],
            columns=["name", "recipe_ingredients"],
        ),
        complete("Read the chili recipe"),
        reply(described),
    )
    async with turns.worker(script):
        result = await (await turns.start("what goes in the chili")).result()
    assert result.fallbacks == ["reply: repeated_the_prompt"]
    assert "primary output" not in result.response
    assert "Weeknight Chili" in result.response and "beef mince" in result.response


async def test_the_outcome_leaves_out_what_a_step_claimed_without_support(turns: Turns):
    """The 1.5B local model's analyze step said "the meal plan for Saturday is Red Lentil
    Dal" of a read that found no row, naming a ref that does not exist; Reply gave back its
    prompt and the turn answered with the steps' summaries, that claim among them as done.
    A flagged completion is no outcome: only what the other steps did is said."""
    made_up = "Tonight is the Red Lentil Dal, planned as meal_7"
    script = turns.script(
        understand(),
        plan(
            "Tonight's dinner",
            step("Read tonight's meal plan", "read", "meal_plans"),
            step("Find tonight's dinner", "analyze", "meal_plans", group=1),
        ),
        tool("db_read", table="meal_plans"),
        complete("Read tonight's meal plan"),
        complete(made_up),
        reply(f"## User request\nwhats for dinner\n## Execution summary\n{made_up}"),
    )
    async with turns.worker(script):
        result = await (await turns.start("whats for dinner tonight")).result()
    assert result.fallbacks == ["reply: repeated_the_prompt"]
    assert made_up not in result.response and "meal_7" not in result.response
    assert result.response == "You have no meals planned."  # what the read found


REFUSAL = "I'm sorry, but I can't assist with that request."


async def test_a_refusal_after_the_plan_ran_is_replaced_by_the_outcome(turns: Turns):
    """The 1.5B local model refused ("I can't generate new content or recipes") after the
    turn had invented the recipe: the turn did what it planned, so the refusal is no
    answer; the steps' summaries and the unsaved recipe stand in for it."""
    tart = {"name": "Lemon Tart", "ingredients": [{"name": "butter"}], "instructions": ["Bake"]}
    script = turns.script(
        understand(),
        plan("A tart", step("Invent a lemon tart", "generate", "recipes")),
        complete("Invented Lemon Tart", artifacts=[{"type": "recipe", "content": tart}]),
        reply(REFUSAL),
    )
    async with turns.worker(script):
        result = await (await turns.start("invent a lemon tart")).result()
    assert result.fallbacks == ["reply: refused_what_was_done"]
    assert result.response.startswith("Here is what I got done: Invented Lemon Tart.")
    assert "butter" in result.response.split("\n\n", 1)[1]  # the recipe, shown in full
    assert "sorry" not in result.response.lower()


async def test_a_refusal_after_a_blocked_step_is_replaced_by_why_it_was_blocked(turns: Turns):
    """A stock refusal says less than the blocked step's reason, which the turn has."""
    blocked = {
        "action": "blocked",
        "reason_code": "no_recipes",
        "details": "No recipes saved",
        "suggested_next": "Save a recipe first",
    }
    script = turns.script(
        understand(),
        plan("Cook", step("Read recipes", "read", "recipes")),
        act(blocked),
        reply(REFUSAL),
    )
    async with turns.worker(script):
        result = await (await turns.start("cook something")).result()
    assert result.fallbacks == ["reply: refused_what_was_blocked"]
    assert result.response == (
        "I couldn't finish any step of this. No recipes saved. Save a recipe first."
    )


async def test_a_refusal_after_writes_of_a_turn_a_breaker_stopped_is_replaced_by_the_outcome(
    turns: Turns, executor
):
    """For "dal on sunday for dinner, and put spinach on the list" the 1.5B local model's
    turn wrote both rows, a read step of it was stopped, and Reply said "I'm sorry, but I
    can't assist with that request.": not all the plan ran, but what was written is the
    answer. Text only: the turn issues the same commands (docs/HOWTO.md)."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create("inventory", PANTRY)
    fridge = [{"field": "location", "op": "=", "value": "fridge"}]
    reads = [
        tool("db_read", at_step=1, table="inventory", filters=fridge, limit=n)
        for n in (10, 20, 30, 40)
    ]
    script = turns.script(
        understand(),
        plan(
            "Spinach",
            step("Put spinach on the shopping list", "write", "shopping"),
            step("Read the fridge", "read", "inventory"),
        ),
        tool("db_create", at_step=0, table="shopping_list", data=[{"name": "spinach"}]),
        complete("Put spinach on the list", at_step=0),
        *reads,
        reply(REFUSAL),
    )
    async with turns.worker(script):
        handle = await turns.start("put spinach on the list, and what's in the fridge")
        result = await handle.result()
        await keep_history(handle, "refused_what_was_written")
    assert result.fallbacks == ["reply: refused_what_was_written"]
    assert result.response.startswith("Here is what I got done: Put spinach on the list.")
    assert "sorry" not in result.response.lower()


async def test_a_refusal_after_a_change_that_matched_nothing_names_the_rows_in_user_words(
    turns: Turns, executor
):
    """The notes of a write that matched no row are written for Act (filters, how many
    rows the table holds); the answer made without Reply says what they mean."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "shopping_list", [{"name": "banana bread"}, {"name": "banana chips"}]
    )
    where = [{"field": "name", "op": "=", "value": "bananas"}]
    remove = tool("db_delete", table="shopping_list", filters=where)
    script = turns.script(
        understand(),
        plan("Remove bananas", step("Remove bananas from the list", "write", "shopping")),
        remove,
        remove,  # the same miss again: held, the step blocked (``hold_act``)
        reply(REFUSAL),
    )
    async with turns.worker(script):
        result = await (await turns.start("remove the bananas from my list")).result()
    assert result.fallbacks == ["reply: refused_what_was_blocked"]
    assert 'I found nothing by that name to change. Similar names: "banana bread", ' in (
        result.response
    )
    assert "filters" not in result.response and "row(s)" not in result.response
    assert result.response.endswith(NOTHING)


async def test_the_reply_the_user_reads_names_rows_never_by_their_refs(turns: Turns, executor):
    """The 1.5B local model listed the saved recipes as "Weeknight Chili (recipe_1)"."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "recipes", [{"name": "Weeknight Chili"}]
    )
    script = turns.script(
        understand(),
        plan("Recipes", step("Read the recipes", "read", "recipes")),
        tool("db_read", table="recipes"),
        complete("Read 1 recipe"),
        reply("Here are your recipes:\n- Weeknight Chili (recipe_1)\n\nCook recipe_1 tonight?"),
    )
    async with turns.worker(script):
        result = await (await turns.start("what recipes do i have")).result()
    assert result.response == (
        "Here are your recipes:\n- Weeknight Chili\n\nCook Weeknight Chili tonight?"
    )


async def test_reply_failing_after_a_read_shows_what_the_read_found(turns: Turns, executor):
    """Reply looped into its cap three times on "what's still on my to-do list?", and the
    answer made without it said "Read 2 row(s) from tasks": the rows are the answer."""
    await Kitchen(executor, turns.user_id, SessionIdRegistry()).create(
        "tasks", [{"title": "Defrost the chicken"}, {"title": "Clean the fridge"}]
    )
    script = turns.script(
        understand(),
        plan("Open tasks", step("Read the tasks not completed", "read", "tasks")),
        tool("db_read", table="tasks", filters=[{"field": "completed", "op": "=", "value": False}]),
        complete("Read 2 row(s) from tasks"),
        http_error("reply", 400),
    )
    async with turns.worker(script):
        result = await (await turns.start("what's still on my to-do list?")).result()
    assert result.fallbacks == ["reply: http_400"]
    assert "Defrost the chicken" in result.response and "Clean the fridge" in result.response
    assert "row(s)" not in result.response and "Here is what I got done" not in result.response
