"""Rows named alike: the note names them, and the names are read back from it."""

from __future__ import annotations

from domain.crud.near import name_words, near_names, near_note, only_holder


def test_the_names_a_note_lists_are_read_back_as_they_were():
    names = ["Gran's Scones", "greek yogurt", 'the "good" jam']
    note = f"no row matches the filters; {near_note(names)}; its rows: 2026-11-30 dinner: Dal"
    assert near_names(["another note", note]) == names
    assert near_names(["no row matches the filters; tasks is empty"]) == []


def test_a_name_means_the_one_row_that_holds_all_its_words():
    assert name_words("Red Lentils, tomatoes") == {"red", "lentil", "tomato"}
    assert only_holder("lentils", ["Red Lentil Dal", "Weeknight Chili"]) == "Red Lentil Dal"
    assert only_holder("leftover rice", ["cooked rice"]) is None
    assert only_holder("rice", ["cooked rice", "basmati rice"]) is None
    assert only_holder("", ["cooked rice"]) is None
