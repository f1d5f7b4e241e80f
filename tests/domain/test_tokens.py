"""The offline token estimate, and fitting prompt sections into a budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tokens import (
    MIN_CONTEXT,
    MIN_PART,
    Section,
    answer_room,
    clip,
    estimate_tokens,
    fit,
    within_window,
)


def test_words_cost_a_token_per_four_characters_and_punctuation_one_each():
    assert estimate_tokens("milk") == 1
    assert estimate_tokens("tomatoes") == 2
    assert estimate_tokens('{"name": "milk"}') == 9  # { " name " : " milk " }
    assert estimate_tokens("") == 0


def test_the_estimate_grows_linearly_with_the_text():
    line = "Add 2 kg of rice to the pantry, please.\n"
    assert estimate_tokens(line * 100) == 100 * estimate_tokens(line)


def test_sections_within_budget_are_all_kept_in_their_order():
    fitted = fit([Section("A", "alpha", 10), Section("B", "beta", 5)], budget=100)
    assert fitted.text == "## A\nalpha\n\n## B\nbeta\n"
    assert fitted.dropped == ()


def test_over_budget_the_least_important_sections_go_first():
    big = "word " * 400
    sections = [
        Section("Request", "add milk", 100),
        Section("Reasoning", big, 30),
        Section("Conversation", big, 40),
        Section("Entities", "recipe_1: Dal", 70),
    ]
    fitted = fit(sections, budget=450)
    assert fitted.dropped == ("Reasoning",)
    assert "## Conversation" in fitted.text and fitted.tokens <= 450
    tighter = fit(sections, budget=60)
    assert tighter.dropped == ("Reasoning", "Conversation")
    assert tighter.text.startswith("## Request\nadd milk")


def test_a_partial_section_whose_going_makes_the_rest_fit_keeps_its_first_words():
    rows = " ".join(f"row{i}" for i in range(1000))
    sections = [
        Section("Request", "add milk", 100),
        Section("Rows", rows, 50, partial=True),
        Section("Conversation", "word " * 400, 40),
    ]
    fitted = fit(sections, budget=500)
    assert fitted.dropped == ("Conversation",) and fitted.cut == "Rows"
    assert "## Rows\nrow0 row1 row2" in fitted.text and "row999" not in fitted.text
    assert "…(cut to fit the context budget)" in fitted.text and fitted.tokens <= 500
    whole = fit([*sections[:1], Section("Rows", rows, 50), sections[2]], budget=500)
    assert whole.dropped == ("Conversation", "Rows") and whole.cut is None  # not partial


def test_a_partial_section_with_too_little_room_left_goes_whole():
    request = Section("Request", "word " * 400, 100)
    fitted = fit([request, Section("Rows", "row " * 1000, 50, partial=True)], budget=400)
    assert estimate_tokens(request.render()) > 400 - MIN_PART
    assert fitted.dropped == ("Rows",) and fitted.cut is None


def test_empty_sections_are_left_out_without_counting_as_dropped():
    fitted = fit([Section("A", "alpha", 10), Section("Empty", "  ", 1)], budget=100)
    assert "Empty" not in fitted.text and fitted.dropped == ()


def test_a_single_section_longer_than_the_budget_is_cut_and_marked():
    fitted = fit([Section("Request", "word " * 1000, 100)], budget=50)
    assert fitted.tokens <= 50
    assert fitted.text.endswith("…(cut to fit the context budget)")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.text(max_size=80), st.text(max_size=400), st.integers(0, 3)), max_size=6),
    st.integers(1, 300),
)
def test_the_fitted_count_is_the_estimate_of_the_fitted_text(parts, budget):
    """``fit`` counts each section once and adds them up: always the text's own estimate."""
    fitted = fit([Section(title, body, keep) for title, body, keep in parts], budget)
    assert fitted.tokens == estimate_tokens(fitted.text)
    assert fitted.tokens <= budget or fitted.text.endswith("(cut to fit the context budget)")


def test_without_a_window_the_budget_stands():
    assert within_window(8_000, None, "a long system prompt " * 500, answer=3_000) == 8_000


def test_a_window_leaves_the_context_what_the_system_prompt_and_half_the_answer_cap_do_not():
    system = "You are Alfred. " * 100  # 500 estimated tokens
    assert estimate_tokens(system) == 500
    assert within_window(25_000, 8_192, system, answer=3_000) == 8_192 - 500 - 1_500 - 50
    assert within_window(2_000, 8_192, system, answer=3_000) == 2_000  # room to spare


def test_a_window_too_small_for_anything_still_leaves_the_least_context():
    assert within_window(25_000, 2_048, "word " * 2_000, answer=3_000) == MIN_CONTEXT


def test_an_answer_is_asked_for_within_what_the_prompt_leaves_of_the_window():
    system, user = "word " * 500, "word " * 5_000  # 500 and 5,000 estimated tokens
    assert answer_room(3_000, None, system, user) == 3_000
    assert answer_room(3_000, 8_192, system, user) == 8_192 - 5_500 - 50
    assert answer_room(600, 8_192, system, user) == 600
    assert answer_room(600, 4_000, system, user) == 0  # nothing left


def test_a_clipped_text_keeps_its_first_words_within_the_budget():
    assert clip("add two lemons", 10) == "add two lemons"
    clipped = clip("lemon " * 100, 20)
    assert clipped.startswith("lemon lemon") and clipped.endswith("(cut to fit the context budget)")
    assert estimate_tokens(clipped) <= 20
