"""A plan that copies an example: the names another user's request gave, in this user's plan.

Think is shown library entries picked for the request (``domain.plan_examples``), each a
real request with its plan. A small model copies them: for "what's in my fridge?",
shown "do we still have any frozen peas?", the 1.5B local model planned a read of the
peas; for "chili tonight", shown "we'll have the shakshuka for brunch on sunday", it
planned the Shakshuka; for "the dal only serves 2", the Flapjacks' servings. A word of
the plan that only the shown entries name (``plan_examples.own_words``: "shakshuka",
"peas") and that neither the user nor the conversation said (this request, the last
turns, the rows the session has named) was copied.

- A read step that copies is dropped when steps that do not copy remain: it looks for
  what nobody asked about, and the rest of the plan answers.
- A plan left with a copy is asked for once more, told which words were another user's.
- A plan that puts a saved recipe the words do not name in the meal plan, when they name
  another, is asked for once more (``other_recipe_note``).

Words people use for a kind of request are no one's own (the library's cues hold them:
"pantry", "recipe box"): a plan may say them in its own right. A place is held another
way (``other_places``): where the words name one of the kitchen's places, a read of
another is dropped while one of that place stays ("what have i got in the fridge",
planned as the fridge's read and the pantry's, shown "what's sitting on the top shelf of
the pantry?").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.nodes import ThinkOutput
from domain.plan_examples import content_stems, unquoted, words


def copied(think: ThinkOutput, own: frozenset[str], said: str) -> dict[int, list[str]]:
    """Step index -> the words of its description whose stems are in ``own`` and not in
    ``said`` (the words of the user and of the conversation), as the description spells
    them."""
    if think.decision == "clarify" or not own:
        return {}
    known = set(content_stems(said))
    found: dict[int, list[str]] = {}
    for index, step in enumerate(think.steps):
        text = unquoted(step.description)
        taken = [w for w in words(text) if (s := _stem(w)) in own and s not in known]
        if taken:
            found[index] = list(dict.fromkeys(taken))
    return found


def _stem(word: str) -> str:
    stems = content_stems(word)
    return stems[0] if stems else ""


def without_copied_reads(think: ThinkOutput, found: dict[int, list[str]]) -> ThinkOutput | None:
    """The plan without the read steps that copy (``copied``) when every step left copies
    nothing; None when a step that copies is not a read, or no step would be left."""
    if not found or any(think.steps[i].step_type != "read" for i in found):
        return None
    kept = [s for i, s in enumerate(think.steps) if i not in found]
    return think.model_copy(update={"steps": kept}) if kept else None


def copied_note(think: ThinkOutput, found: dict[int, list[str]]) -> str | None:
    """What Think is told when its plan still copies (``copied``): the steps and the
    words; None when it copies nothing."""
    if not found:
        return None
    said = "\n".join(
        f'- step {i + 1} ("{think.steps[i].description}"): {", ".join(taken)}'
        for i, taken in found.items()
    )
    return (
        "Your plan names what this user never said; it comes from another user's request, "
        f"shown as an example:\n{said}\nAnswer again: plan for this user's request, in "
        "their words and with what their kitchen holds."
    )


def places_in(text: str, places: list[str]) -> set[str]:
    """The ``places`` ``text`` names, as whole words (a plural too: "the fridges")."""
    said = text.lower()
    return {p for p in places if re.search(rf"\b{re.escape(p.lower())}s?\b", said)}


def other_places(think: ThinkOutput, message: str, places: list[str]) -> ThinkOutput | None:
    """The plan without its read steps of another of the kitchen's ``places`` (the
    inventory's locations) than the one the words name, when a read step of that one
    stays; None when nothing is dropped. For "what have i got in the fridge", shown
    "what's sitting on the top shelf of the pantry?", the 1.5B local model read the fridge
    and the pantry, and the user was told of the rice in the pantry."""
    named = places_in(message, places)
    if think.decision == "clarify" or len(named) != 1:
        return None

    kept = [
        s for s in think.steps if s.step_type != "read" or places_in(s.description, places) <= named
    ]
    if len(kept) == len(think.steps) or not any(
        places_in(s.description, places) == named for s in kept
    ):
        return None
    return think.model_copy(update={"steps": kept})


PLACE_WORDS = ("fridge", "freezer", "pantry", "cupboard", "larder", "cellar", "shelf", "counter")
"""Where food is kept, in the words people use, beside the kitchen's own locations."""


def place_note(think: ThinkOutput, message: str, places: list[str]) -> str | None:
    """What Think is told when a step that changes names another place than the one the
    words name (of ``places`` and ``PLACE_WORDS``), and not that one; None otherwise. For
    "the rice lives in the cupboard now", shown "move the chicken breasts from the fridge
    to the freezer", the 1.5B local model set the rice's location to the fridge."""
    known = list(dict.fromkeys([*places, *PLACE_WORDS]))
    named = places_in(message, known)
    if think.decision == "clarify" or len(named) != 1:
        return None
    wrong = [
        (i, sorted(other))
        for i, s in enumerate(think.steps)
        if s.step_type in ("write", "generate")
        and (other := places_in(s.description, known) - named)
        and not places_in(s.description, known) & named
    ]
    if not wrong:
        return None
    (place,) = named
    said = "\n".join(
        f'- step {i + 1} ("{think.steps[i].description}"): {", ".join(o)}' for i, o in wrong
    )
    return (
        f"The request names the {place}, and your plan puts things elsewhere:\n{said}\n"
        f"Answer again: if the user meant the {place}, write that; if they asked for what "
        "your plan does, give the same plan."
    )


def held_to_the_words(
    think: ThinkOutput, message: str, own: frozenset[str], said: str, places: list[str]
) -> tuple[ThinkOutput, str | None]:
    """Think's plan with the reads that copy or look in another place dropped
    (``without_copied_reads``, ``other_places``), and what Think is told when the plan
    that is left still copies or changes things in another place (``copied_note``,
    ``place_note``; None when it does not). ``own``: the shown entries' own words;
    ``said``: the user's and the conversation's; ``places``: the inventory's."""
    found = copied(think, own, said)
    if (kept := without_copied_reads(think, found)) is not None:
        think, found = kept, {}
    if (kept := other_places(think, message, places)) is not None:
        think = kept
    return think, copied_note(think, found) or place_note(think, message, places)


def other_recipe_note(think: ThinkOutput, named: Sequence[str], known: Sequence[str]) -> str | None:
    """What Think is told when a step that plans meals names a saved recipe of ``known``
    (the dashboard's names: the meal plan's and those the words name) that the words do
    not name, while they name others (``named``); None otherwise. For "chili for dinner
    friday and saturday" the 1.5B local model planned the Red Lentil Dal, on the meal
    plan already, for the Friday."""
    if think.decision == "clarify" or not named:
        return None
    others = [k for k in known if k not in named]
    wrong = [
        (i, [o for o in others if o.lower() in s.description.lower()])
        for i, s in enumerate(think.steps)
        if s.subdomain == "meal_plans" and s.step_type in ("write", "generate")
    ]
    wrong = [(i, o) for i, o in wrong if o]
    if not wrong:
        return None
    said = "\n".join(
        f'- step {i + 1} ("{think.steps[i].description}"): {", ".join(o)}' for i, o in wrong
    )
    return (
        f"The request names {' and '.join(named)}, and your plan puts another recipe in the "
        f"meal plan:\n{said}\nAnswer again: plan the recipe the user named."
    )
