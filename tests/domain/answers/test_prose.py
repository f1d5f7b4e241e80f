"""The bypass modes' answers: an ending always leaves a handoff the next turn can act on."""

from __future__ import annotations

from domain.answers import answer_model
from domain.nodes import BypassOutput, Handoff

BYPASS = answer_model("cook")


def bypass(**fields) -> BypassOutput:
    return BYPASS.model_validate({"response": "Done!", **fields}).to_output()


def test_an_exit_without_a_handoff_closes_the_session():
    assert bypass(exit=True, handoff=None).handoff == Handoff(
        summary="The session ended.", action="close"
    )


def test_a_save_without_a_recipe_is_a_close():
    out = bypass(exit=True, handoff={"summary": "Liked it.", "action": "save", "recipe": None})
    assert out.handoff == Handoff(summary="Liked it.", action="close")


def test_a_saved_recipe_keeps_only_what_was_given():
    out = bypass(
        exit=True,
        handoff={
            "summary": "Keep it.",
            "action": "save",
            "recipe": {"name": "Dal", "servings": 2, "ingredients": [{"name": "lentils"}]},
        },
    )
    assert out.handoff is not None
    assert out.handoff.recipe == {
        "name": "Dal",
        "servings": 2,
        "ingredients": [{"name": "lentils"}],
    }


def test_a_handoff_is_ignored_until_the_user_is_done():
    out = bypass(exit=False, handoff={"summary": "x", "action": "close", "recipe": None})
    assert out.handoff is None and not out.exit
