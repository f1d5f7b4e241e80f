"""The conversation keeps 3 turns in full, 2 turn summaries, 2 turns of step results."""

from __future__ import annotations

from domain.conversation import (
    ARCHIVE_LIMIT,
    ConversationState,
    StepResult,
    TurnExecutionSummary,
    TurnRecord,
    add_history,
    prune_archive,
    record_turn,
    summarize_assistant_message,
)


def play(turns: int) -> tuple[ConversationState, list[int]]:
    state = ConversationState()
    evicted: list[int] = []
    for n in range(1, turns + 1):
        result = StepResult(
            step_index=0, description=f"read {n}", step_type="read", subdomain="inventory"
        )
        state, out = record_turn(
            state,
            TurnRecord(turn=n, user_message=f"m{n}"),
            TurnExecutionSummary(turn_num=n, think_goal=f"g{n}"),
            [result],
        )
        if out is not None:
            evicted.append(out.turn)
            state = add_history(state, f"turn {out.turn} compressed")
    return state, evicted


def test_the_last_three_turns_stay_in_full_and_older_ones_are_compressed():
    state, evicted = play(5)
    assert [t.turn for t in state.recent_turns] == [3, 4, 5]
    assert evicted == [1, 2]
    assert state.history_summary == "turn 1 compressed\nturn 2 compressed"


def test_the_last_two_turn_summaries_stay_and_older_ones_fold_into_reasoning():
    state, _ = play(4)
    assert [s.turn_num for s in state.turn_summaries] == [3, 4]
    assert state.reasoning_summary.splitlines()[0].startswith("Turn 1: no plan (g1)")
    assert len(state.reasoning_summary.splitlines()) == 2


def test_step_results_persist_for_two_turns():
    state, _ = play(4)
    assert sorted(state.turn_step_results) == ["3", "4"]


def test_recording_a_turn_does_not_change_the_given_state():
    state = ConversationState()
    record_turn(state, TurnRecord(turn=1, user_message="hi"), TurnExecutionSummary(turn_num=1), [])
    assert state.recent_turns == []


def test_the_archive_drops_saved_content_and_keeps_the_newest_items():
    archive = {f"gen_recipe_{n}": {"name": f"dish {n}"} for n in range(1, ARCHIVE_LIMIT + 4)}
    pruned = prune_archive(archive, saved=["gen_recipe_2", "gen_recipe_23"])
    assert "gen_recipe_2" not in pruned and "gen_recipe_23" not in pruned
    assert len(pruned) == ARCHIVE_LIMIT
    assert list(pruned)[-1] == "gen_recipe_22" and "gen_recipe_1" not in pruned


def test_a_long_generated_recipe_is_remembered_by_its_names():
    reply = (
        "Here's an idea: **Lemon Chicken Traybake** (serves 4, prep time 15 minutes).\n\n"
        "Ingredients:\n"
        + "\n".join(f"- {n} good handfuls of something fresh" for n in range(8))
        + "\n\nInstructions:\n"
        + "\n".join(f"{n}. Do step {n}." for n in range(1, 8))
    )
    assert summarize_assistant_message(reply) == (
        "[showed a recipe in full: Lemon Chicken Traybake]"
    )


def test_a_recipes_bold_section_headings_are_not_taken_for_its_names():
    reply = (
        "**Vegetarian Quinoa Bowl**\nServes 2 · 25 min\n\n**Ingredients**\n"
        + "\n".join(f"- quinoa number {n} — 100 g, rinsed well" for n in range(6))
        + "\n\n## Instructions:\n"
        + "\n".join(f"{n}. Simmer the quinoa for a while." for n in range(1, 6))
        + "\n\n**Tomato Salad** goes well with it."
    )
    assert summarize_assistant_message(reply) == (
        "[showed recipes in full: Vegetarian Quinoa Bowl; Tomato Salad]"
    )


def test_a_long_list_is_remembered_by_its_intro_count_and_first_items():
    reply = "Your shopping list has 7 items:\n" + "\n".join(
        f"- {name} (need some more of it for the whole of next week)"
        for name in ["milk", "eggs", "rice", "oil", "salt", "flour", "sugar"]
    )
    assert summarize_assistant_message(reply).startswith(
        "Your shopping list has 7 items (7 items: milk (need some more of it for the whole"
    )
    assert summarize_assistant_message(reply).endswith("+4 more)")


def test_other_long_replies_keep_their_first_400_characters_and_short_ones_are_kept():
    long = "word " * 200
    assert (
        summarize_assistant_message(long) == long[:400] + "... [content continues in step results]"
    )
    assert summarize_assistant_message("Added milk.") == "Added milk."
