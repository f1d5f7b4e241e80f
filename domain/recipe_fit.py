"""What the user's words and profile ask of a recipe a model invents: what it may hold, and
how many it serves.

**Diet and allergies.** What a diet or an allergy rules out, as the words its ingredients
are named by.
A diet is named in the user's words ("a quick vegetarian dinner") or their profile's
``dietary_restrictions``; an allergy in the profile's ``allergies``. What each rules out is
a list of whole words (plural forms too), so "eggplant" is no egg and "peanut butter" is a
peanut. A word another word qualifies as plant-made ("coconut milk", "vegan cheese") is
not ruled out. Only what is certain is listed: gluten-free and dairy-free are left to the
model (rice flour and oat milk are fine, and no short list tells them apart).

**What the words put in.** "add feta to it", "put some chili in it", "throw in more
garlic": the thing asked for is in the recipe's name, ingredients or instructions
(``asked_in``, ``left_out``).

**Servings.** "a quick dinner for two", "a stew to serve 6", "soup that feeds 4": the
number of people the words give (``servings_asked``), not "for 2 days" or "for 3 meals".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

MEAT = (
    "chicken", "beef", "pork", "bacon", "ham", "lamb", "sausage", "turkey", "duck", "veal",
    "venison", "chorizo", "salami", "pepperoni", "prosciutto", "pancetta", "gelatin",
)  # fmt: skip
"""Not "mince" (a verb in instructions) nor "steak" (a cauliflower steak): beef mince and
a beef steak name their meat."""
FISH = (
    "fish", "tuna", "salmon", "cod", "haddock", "anchovy", "anchovies", "sardine", "mackerel",
    "trout", "shrimp", "prawn", "crab", "lobster", "mussel", "clam", "oyster", "squid",
    "scallop", "fish sauce",
)  # fmt: skip
SHELLFISH = ("shrimp", "prawn", "crab", "lobster", "mussel", "clam", "oyster", "scallop")
ANIMAL = ("egg", "milk", "cheese", "butter", "cream", "yogurt", "yoghurt", "honey", "ghee")
NUTS = (
    "almond", "walnut", "cashew", "pecan", "hazelnut", "pistachio", "macadamia", "brazil nut",
    "pine nut",
)  # fmt: skip

DIETS: dict[str, tuple[str, ...]] = {
    "vegetarian": MEAT + FISH,
    "vegan": MEAT + FISH + ANIMAL,
    "pescatarian": MEAT,
}
"""A diet's name (as said or stored) and the words it rules out."""

ALLERGENS: dict[str, tuple[str, ...]] = {
    "nut": NUTS,
    "tree nut": NUTS,
    "shellfish": SHELLFISH,
    "fish": FISH,
    "egg": ("egg",),
    "dairy": ("milk", "cheese", "butter", "cream", "yogurt", "yoghurt", "ghee"),
    "milk": ("milk", "cheese", "butter", "cream", "yogurt", "yoghurt", "ghee"),
    "soy": ("soy", "soya", "tofu", "tempeh", "edamame"),
    "sesame": ("sesame", "tahini"),
}
"""An allergy's name and what it rules out beside the word itself ("peanuts": peanut)."""

PLANT = re.compile(
    r"\b(?:coconut|almond|oat|soy|soya|rice|cashew|peanut|vegan|plant|nut|dairy[- ]free)"
    r"[- ]+$",
    re.IGNORECASE,
)
"""A word before a ruled-out one that makes it plant-made: "coconut milk", "vegan cheese"."""


def _word(word: str) -> re.Pattern[str]:
    """``word`` as a whole word, plural or not: "egg" finds "eggs", never "eggplant"."""
    return re.compile(rf"\b{re.escape(word)}(?:s|es)?\b", re.IGNORECASE)


def _singular(word: str) -> str:
    word = " ".join(word.lower().split())
    for end, to in (("ies", "y"), ("s", "")):
        if word.endswith(end) and len(word) > len(end) + 2:
            return word[: -len(end)] + to
    return word


def diets_named(text: str) -> list[str]:
    """The diets ``text`` names, in ``DIETS`` order."""
    return [d for d in DIETS if re.search(rf"\b{d}s?\b", text, re.IGNORECASE)]


def ruled_out(diets: Iterable[str], allergies: Iterable[str]) -> dict[str, str]:
    """Each word the diets and allergies rule out, and the diet or allergy that does."""
    out: dict[str, str] = {}
    for diet in diets:
        for word in DIETS.get(_singular(diet), ()):
            out.setdefault(word, diet)
    for allergy in allergies:
        name = _singular(allergy)
        if not name:
            continue
        for word in (name, *ALLERGENS.get(name, ())):
            out.setdefault(word, f"the {allergy} allergy")
    return out


def _texts(content: Mapping[str, Any]) -> list[str]:
    """A recipe's name, its ingredients' names and its instructions."""
    texts = [content.get("name")]
    for item in content.get("ingredients") or content.get("recipe_ingredients") or []:
        texts.append(item.get("name") if isinstance(item, Mapping) else item)
    texts += content.get("instructions") or []
    return [t for t in texts if isinstance(t, str)]


def diet_words(message: str, profile: Mapping[str, Any] | None) -> dict[str, str]:
    """What the user's words this turn and their profile rule out (``ruled_out``), but
    for what the words themselves ask for ("add bacon to it" from a vegetarian)."""
    profile = profile or {}
    stored = profile.get("dietary_restrictions") or []
    allergies = profile.get("allergies") or []
    diets = [*diets_named(message), *(d for d in stored if isinstance(d, str))]
    words = ruled_out(diets, [a for a in allergies if isinstance(a, str)])
    return {w: why for w, why in words.items() if not _word(w).search(message)}


def breaches(content: Mapping[str, Any], words: Mapping[str, str]) -> dict[str, str]:
    """The ruled-out ``words`` ``content`` holds (each with what rules it out), as they
    are written there: {"chicken breast": "vegetarian"}."""
    found: dict[str, str] = {}
    for text in _texts(content):
        for word, why in words.items():
            for match in _word(word).finditer(text):
                if PLANT.search(text[: match.start()]):
                    continue
                found.setdefault(match.group(0).lower(), why)
    return found


NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
MAX_SERVINGS = 24
_FOR = re.compile(
    r"\b(?:for|serves?|serving|to serve|feeds?|feeding)\s+(?P<n>\d{1,2}|"
    + "|".join(NUMBERS)
    + r")\b(?!\s*(?:-|/|:|days?|nights?|weeks?|months?|meals?|dinners?|lunches|breakfasts?|"
    r"minutes?|mins?|hours?|hrs?|o'clock|am|pm|th|st|nd|rd|adults?|kids?|children)\b)",
    re.IGNORECASE,
)


def servings_asked(message: str) -> int | None:
    """The number of people the words say a recipe is for ("for two", "serves 6"); None
    when they give none, or more than one number."""
    found = {
        int(n) if n.isdigit() else NUMBERS[n.lower()]
        for n in (m.group("n") for m in _FOR.finditer(message))
    }
    if len(found) != 1:
        return None
    (number,) = found
    return number if 0 < number <= MAX_SERVINGS else None


_PUT_IN = re.compile(
    r"\b(?:add|put|throw|stir|toss|include)\s+(?:in\s+)?(?:\d+\s+)?"
    r"(?:(?:some|more|extra|a\s+bit\s+of|a\s+little|a\s+pinch\s+of|a\s+handful\s+of)\s+)?"
    r"(?P<thing>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,2}?)"
    r"\s+(?:to|in|into|on)\s+(?:it|that|this|there|the\s+(?:recipe|dish|soup|stew|salad))\b",
    re.IGNORECASE,
)


def asked_in(message: str) -> list[str]:
    """What the words ask to be put in a recipe already there ("add feta to it": feta)."""
    return [m.group("thing").lower() for m in _PUT_IN.finditer(message)]


def left_out(content: Mapping[str, Any], asked: Iterable[str]) -> list[str]:
    """What was ``asked`` to be put in that ``content`` does not hold, by its last word
    ("goat cheese" is held by any cheese)."""
    texts = _texts(content)
    return [
        thing
        for thing in asked
        if not any(_word(_singular(thing.split()[-1])).search(t) for t in texts)
    ]
