"""The check kinds a scenario's turn is graded by, on what a turn left: pauses of either
kind, reply facts a system message cannot state, what unsaved content says, content saved
as generated, a cook or brainstorm session still going or ended."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from domain.conversation import BypassSession, ConversationState
from evals.checks import Check, check_turn
from evals.runner import TurnResult
from evals.scenario import SCENARIOS_DIR, Expect, load

CURRY: dict[str, Any] = {
    "name": "Chickpea Spinach Curry",
    "servings": 2,
    "instructions": ["Fry the onion.", "Simmer the chickpeas and spinach."],
    "ingredients": [{"name": "chickpeas"}, {"name": "spinach"}, {"name": "onion"}],
}


def checks_of(
    expect: dict[str, Any],
    *,
    reply: str = "",
    pauses: list[str] | None = None,
    state: ConversationState | None = None,
    before: ConversationState | None = None,
    kitchen: dict[str, list[dict[str, Any]]] | None = None,
) -> list[Check]:
    """The checks of ``expect`` on this turn."""
    outcome = TurnResult(say="", status="completed", response=reply, pauses=pauses or [])
    state = state or ConversationState()
    return check_turn(
        Expect.model_validate(expect),
        outcome,
        kitchen or {},
        kitchen or {},
        state,
        before or state,
    )


def failed(expect: dict[str, Any], **turn: Any) -> list[str]:
    """The names of the checks of ``expect`` that fail on this turn."""
    return [c.name for c in checks_of(expect, **turn) if not c.passed]


def test_a_pause_may_be_any_of_the_kinds_an_entry_lists():
    either = {"pauses": [["question", "clarification"]]}
    assert failed(either, pauses=["question"]) == []
    assert failed(either, pauses=["clarification"]) == []
    assert failed(either, pauses=["proposal"]) == ["pauses"]
    assert failed(either, pauses=[]) == ["pauses"]
    assert failed(either, pauses=["clarification", "question"]) == ["pauses"]
    assert failed({"pauses": ["question"]}, pauses=["clarification"]) == ["pauses"]


def test_the_edited_quantity_is_a_fact_the_step_limit_message_cannot_state():
    """ui_edit_seen passed once on "3" alone: the step-limit message said "3 tool calls"."""
    expect = load(SCENARIOS_DIR / "ui_edit_seen.toml").turns[0].expect.model_dump()
    limit = "I stopped (step 0 wanted more than 3 tool calls)."  # as it was then
    assert failed(expect, reply=f"milk {limit}") == [
        "reply matches '\\\\b3(\\\\.0+)?\\\\s*(l|liters?|litres?)\\\\b'"
    ]
    assert failed(expect, reply="You have 3 liters of milk.") == []
    assert failed(expect, reply="- milk — 3 l (expires 2026-11-27)") == []
    assert failed(expect, reply="milk — 3 l, rice — 1 kg") == ["reply does not say 'rice'"]


def test_a_reply_pattern_that_must_not_match():
    expect = {"reply": {"not_matches": [r"\bcan make\W+both"]}}
    assert failed(expect, reply="You can make both.") == [
        "reply does not match '\\\\bcan make\\\\W+both'"
    ]
    assert failed(expect, reply="You can make the dal; both need onion.") == []


def test_a_reply_that_turns_the_request_down_fails_whatever_the_turn_did():
    refused = "I'm sorry, but I can't assist with that request. Here is the recipe in full:"
    assert failed({}, reply=refused) == ["reply is no refusal"]
    assert failed({}, reply="Sorry, I can't help with that right now.") == ["reply is no refusal"]
    assert failed({}, reply="I can't find any cod, so here is a haddock dish.") == []


def generated(content: dict[str, Any]) -> tuple[ConversationState, str]:
    state = ConversationState()
    ref = state.registry.register_generated("recipe", content)
    return state, ref


SHOWN = "How about **Chickpea Spinach Curry**?\n- 400 g chickpeas\n- 100 g spinach\n- 1 onion"


def test_unsaved_content_is_checked_for_what_it_says_and_that_the_reply_shows_it():
    expect = {
        "generated": [
            {
                "fields": {"servings": 2},
                "filled": ["ingredients"],
                "mentions": [["chickpea", "lentil"]],
                "not_mentions": ["chicken"],
                "shown": True,
            }
        ]
    }
    state, _ = generated(CURRY)
    assert failed(expect, state=state, reply=SHOWN) == []
    [name] = failed(expect, state=state, reply=SHOWN.replace("Chickpea Spinach Curry", "a curry"))
    assert name.startswith("unsaved recipe mentions chickpea | lentil")
    for wrong in ({"servings": 4}, {"ingredients": []}, {"name": "Chicken Curry"}):
        state, _ = generated({**CURRY, **wrong})
        name = state.registry.get_truly_pending_artifacts()["gen_recipe_1"]["name"]
        shown = SHOWN.replace("Chickpea Spinach Curry", name)
        assert len(failed(expect, state=state, reply=shown)) == 1, wrong
    assert len(failed(expect, state=ConversationState(), reply=SHOWN)) == 1


def test_a_reply_that_names_a_recipe_without_its_ingredients_has_not_shown_it():
    state, _ = generated(CURRY)

    def shown(reply: str) -> Check:
        checks = checks_of({"generated": [{"shown": True}]}, state=state, reply=reply)
        return next(c for c in checks if c.name == "unsaved recipe shown")

    assert shown(SHOWN).passed
    named = shown("I suggest saving Chickpea Spinach Curry.")
    assert not named.passed and named.detail.endswith("leaves out chickpeas, onion")
    no_onion = shown(SHOWN.replace("- 1 onion", ""))
    assert not no_onion.passed and no_onion.detail.endswith("leaves out onion")


def saved_state(content: dict[str, Any], row_name: str, lines: int) -> tuple[Any, ...]:
    """The registry before (the recipe unsaved) and after (saved as a row), and the rows."""
    before, ref = generated(content)
    after = before.model_copy(deep=True)
    row_id = str(uuid.uuid4())
    record = {"id": row_id, "name": row_name}
    after.registry.register_created(row_id, "recipes", record, gen_ref=ref)
    kitchen = {
        "recipes": [record],
        "recipe_ingredients": [{"recipe_id": row_id, "name": f"i{n}"} for n in range(lines)],
    }
    return before, after, kitchen


def test_content_saved_is_a_row_under_the_generated_name_with_every_ingredient():
    expect = {"saved": 1, "unsaved": 0}
    before, after, kitchen = saved_state(CURRY, "Chickpea Spinach Curry", 3)
    assert failed(expect, state=after, before=before, kitchen=kitchen) == []
    before, after, kitchen = saved_state(CURRY, "Chickpea Spinach Curry", 1)
    assert failed(expect, state=after, before=before, kitchen=kitchen) == ["1 saved"]
    before, after, kitchen = saved_state(CURRY, "Something Else", 3)
    assert failed(expect, state=after, before=before, kitchen=kitchen) == ["1 saved"]
    unsaved, _ = generated(CURRY)
    assert failed(expect, state=unsaved, before=unsaved) == ["0 unsaved", "1 saved"]


def test_a_session_is_open_while_cook_or_brainstorm_goes_on():
    going = ConversationState(bypass=BypassSession(mode="cook", started_turn=1))
    assert failed({"session": "open"}, state=going) == []
    assert failed({"session": "ended"}, state=going) == ["session ended"]
    assert failed({"session": "ended"}, state=ConversationState()) == []
    assert failed({"session": "open"}, state=ConversationState()) == ["session open"]


def test_a_reply_pattern_that_does_not_compile_does_not_load():
    with pytest.raises(ValueError, match="reply pattern"):
        Expect.model_validate({"reply": {"matches": ["(unclosed"]}})


def test_a_count_of_none_passes_when_no_row_matches_as_absent_does():
    """``count = 0`` failed with "no row matches" when no row matched: it reads as none."""
    kitchen = {"shopping_list": [{"name": "olive oil"}, {"name": "bananas"}]}
    for gone in ({"count": 0}, {"absent": True}):
        rows = [{"table": "shopping_list", "like": {"name": "milk"}, **gone}]
        assert failed({"rows": rows}, kitchen=kitchen) == []
        still = {"shopping_list": [*kitchen["shopping_list"], {"name": "milk"}]}
        assert len(failed({"rows": rows}, kitchen=still)) == 1


def test_a_row_named_by_any_of_a_list_of_words_is_found_by_its_title_not_its_day():
    """p_mum_dentist found mum's task by its Saturday alone: on a Wednesday the plumber,
    due in three days, is due that Saturday too."""
    saturday = "2026-12-05"
    kitchen = {
        "tasks": [
            {"title": "Call my mother", "due_date": saturday},
            {"title": "Call the plumber", "due_date": saturday},
        ]
    }
    mum = {"table": "tasks", "like": {"title": ["mum", "mother"]}, "count": 1}
    assert failed({"rows": [{**mum, "fields": {"due_date": saturday}}]}, kitchen=kitchen) == []
    friday = {**mum, "fields": {"due_date": "2026-12-04"}}
    assert len(failed({"rows": [friday]}, kitchen=kitchen)) == 1
    dad = {"table": "tasks", "like": {"title": ["dad", "father"]}}
    assert len(failed({"rows": [dad]}, kitchen=kitchen)) == 1
