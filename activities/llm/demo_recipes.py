"""The offline demo model's built-in recipes, and how it picks one for "suggest a recipe with X".

Fixed data, not generated: the demo model (``activities.llm.demo_provider``) hands one of
these out as a ``generate`` step's artifact. Each recipe uses only columns of the
``recipes`` table plus ``ingredients`` (a list of ``{name, quantity, unit}``), which the
CRUD executor saves as nested ``recipe_ingredients`` when the user says "save it".

Matching is by words: a wish ("chicken", "red lentils", "something vegetarian") is split
into words, plural endings dropped, filler words ignored, and each recipe scores one point
per wished word found in its name, cuisine, tags or ingredient names. The best score wins
(ties: the earlier recipe); no point at all means no match, and the first recipe is offered.
"""

from __future__ import annotations

import copy
import re
from typing import Any

RECIPES: tuple[dict[str, Any], ...] = (
    {
        "name": "Lemon Chicken Traybake",
        "description": "Chicken thighs roasted with lemon, garlic and potatoes on one tray.",
        "cuisine": "British",
        "difficulty": "easy",
        "servings": 4,
        "prep_time_minutes": 15,
        "cook_time_minutes": 45,
        "tags": ["one-pan", "family"],
        "instructions": [
            "Heat the oven to 200°C.",
            "Cut the potatoes into chunks and toss them with the olive oil, salt and pepper.",
            "Add the chicken thighs, garlic cloves, rosemary and lemon wedges to the tray.",
            "Roast for 45 minutes, turning once, until the chicken is golden and cooked through.",
            "Squeeze the roasted lemon over everything and serve.",
        ],
        "ingredients": [
            {"name": "chicken thighs", "quantity": 8, "unit": "piece"},
            {"name": "potatoes", "quantity": 800, "unit": "g"},
            {"name": "lemon", "quantity": 1, "unit": "piece"},
            {"name": "garlic", "quantity": 6, "unit": "clove"},
            {"name": "rosemary", "quantity": 2, "unit": "sprig"},
            {"name": "olive oil", "quantity": 3, "unit": "tbsp"},
        ],
    },
    {
        "name": "Red Lentil Dal",
        "description": "A creamy, gently spiced lentil stew with coconut milk and spinach.",
        "cuisine": "Indian",
        "difficulty": "easy",
        "servings": 4,
        "prep_time_minutes": 10,
        "cook_time_minutes": 30,
        "tags": ["vegetarian", "vegan"],
        "instructions": [
            "Soften the chopped onion in the oil for 5 minutes.",
            "Stir in the garlic, ginger and curry powder and cook for 1 minute.",
            "Add the lentils, tomatoes, coconut milk and 500 ml water; simmer for 25 minutes.",
            "Stir in the spinach until it wilts, season and serve with rice or flatbread.",
        ],
        "ingredients": [
            {"name": "red lentils", "quantity": 250, "unit": "g"},
            {"name": "onion", "quantity": 1, "unit": "piece"},
            {"name": "garlic", "quantity": 3, "unit": "clove"},
            {"name": "ginger", "quantity": 1, "unit": "tbsp"},
            {"name": "curry powder", "quantity": 2, "unit": "tbsp"},
            {"name": "canned tomatoes", "quantity": 400, "unit": "g"},
            {"name": "coconut milk", "quantity": 400, "unit": "ml"},
            {"name": "spinach", "quantity": 100, "unit": "g"},
            {"name": "vegetable oil", "quantity": 1, "unit": "tbsp"},
        ],
    },
    {
        "name": "Tomato Basil Pasta",
        "description": "Spaghetti in a quick garlicky tomato sauce with fresh basil.",
        "cuisine": "Italian",
        "difficulty": "easy",
        "servings": 2,
        "prep_time_minutes": 5,
        "cook_time_minutes": 20,
        "tags": ["vegetarian", "quick"],
        "instructions": [
            "Cook the spaghetti in salted boiling water until al dente.",
            "Meanwhile fry the sliced garlic in the olive oil until fragrant.",
            "Add the tomatoes and simmer for 10 minutes, then season.",
            "Toss the drained pasta with the sauce and torn basil; top with parmesan.",
        ],
        "ingredients": [
            {"name": "spaghetti", "quantity": 200, "unit": "g"},
            {"name": "canned tomatoes", "quantity": 400, "unit": "g"},
            {"name": "garlic", "quantity": 2, "unit": "clove"},
            {"name": "basil", "quantity": 1, "unit": "bunch"},
            {"name": "olive oil", "quantity": 2, "unit": "tbsp"},
            {"name": "parmesan", "quantity": 30, "unit": "g"},
        ],
    },
    {
        "name": "Vegetable Fried Rice",
        "description": "Leftover rice fried with egg, peas and carrot in soy and sesame.",
        "cuisine": "Chinese",
        "difficulty": "easy",
        "servings": 2,
        "prep_time_minutes": 10,
        "cook_time_minutes": 10,
        "tags": ["vegetarian", "quick", "leftovers"],
        "instructions": [
            "Heat the oil in a wok and scramble the eggs; set them aside.",
            "Stir-fry the diced carrot and peas for 3 minutes.",
            "Add the cold rice and fry until hot, breaking up any clumps.",
            "Return the eggs, add the soy sauce, sesame oil and spring onions, and toss.",
        ],
        "ingredients": [
            {"name": "cooked rice", "quantity": 400, "unit": "g"},
            {"name": "eggs", "quantity": 2, "unit": "piece"},
            {"name": "frozen peas", "quantity": 100, "unit": "g"},
            {"name": "carrot", "quantity": 1, "unit": "piece"},
            {"name": "spring onions", "quantity": 3, "unit": "piece"},
            {"name": "soy sauce", "quantity": 2, "unit": "tbsp"},
            {"name": "sesame oil", "quantity": 1, "unit": "tsp"},
            {"name": "vegetable oil", "quantity": 1, "unit": "tbsp"},
        ],
    },
    {
        "name": "Honey Soy Salmon",
        "description": "Salmon fillets glazed with honey and soy, with broccoli and rice.",
        "cuisine": "Japanese",
        "difficulty": "easy",
        "servings": 2,
        "prep_time_minutes": 10,
        "cook_time_minutes": 15,
        "tags": ["fish"],
        "instructions": [
            "Mix the honey, soy sauce and grated garlic.",
            "Sear the salmon skin side down for 4 minutes, turn and cook 2 minutes more.",
            "Pour over the glaze and let it bubble until sticky.",
            "Serve with steamed broccoli and rice.",
        ],
        "ingredients": [
            {"name": "salmon fillets", "quantity": 2, "unit": "piece"},
            {"name": "honey", "quantity": 2, "unit": "tbsp"},
            {"name": "soy sauce", "quantity": 2, "unit": "tbsp"},
            {"name": "garlic", "quantity": 1, "unit": "clove"},
            {"name": "broccoli", "quantity": 1, "unit": "head"},
            {"name": "rice", "quantity": 150, "unit": "g"},
        ],
    },
    {
        "name": "Black Bean Tacos",
        "description": "Spiced black beans in warm tortillas with avocado and lime.",
        "cuisine": "Mexican",
        "difficulty": "easy",
        "servings": 4,
        "prep_time_minutes": 15,
        "cook_time_minutes": 10,
        "tags": ["vegetarian"],
        "instructions": [
            "Warm the black beans with the cumin and a splash of water; mash them lightly.",
            "Slice the avocado and finely chop the red onion.",
            "Warm the tortillas in a dry pan.",
            "Fill the tortillas with beans, avocado, onion and cheese; finish with lime juice.",
        ],
        "ingredients": [
            {"name": "black beans", "quantity": 800, "unit": "g"},
            {"name": "tortillas", "quantity": 8, "unit": "piece"},
            {"name": "avocado", "quantity": 2, "unit": "piece"},
            {"name": "red onion", "quantity": 1, "unit": "piece"},
            {"name": "lime", "quantity": 1, "unit": "piece"},
            {"name": "ground cumin", "quantity": 1, "unit": "tsp"},
            {"name": "cheddar", "quantity": 80, "unit": "g"},
        ],
    },
    {
        "name": "Mushroom Risotto",
        "description": "Creamy arborio rice with mushrooms, parmesan and butter.",
        "cuisine": "Italian",
        "difficulty": "medium",
        "servings": 4,
        "prep_time_minutes": 10,
        "cook_time_minutes": 35,
        "tags": ["vegetarian"],
        "instructions": [
            "Fry the sliced mushrooms in half the butter until golden; set aside.",
            "Soften the onion in the rest of the butter, then stir in the rice for 1 minute.",
            "Add the hot stock a ladle at a time, stirring, for about 20 minutes.",
            "Stir in the mushrooms and parmesan, season and rest for 2 minutes.",
        ],
        "ingredients": [
            {"name": "arborio rice", "quantity": 300, "unit": "g"},
            {"name": "mushrooms", "quantity": 400, "unit": "g"},
            {"name": "onion", "quantity": 1, "unit": "piece"},
            {"name": "vegetable stock", "quantity": 1, "unit": "l"},
            {"name": "butter", "quantity": 40, "unit": "g"},
            {"name": "parmesan", "quantity": 50, "unit": "g"},
        ],
    },
    {
        "name": "Shakshuka",
        "description": "Eggs poached in a smoky pepper and tomato sauce, with feta.",
        "cuisine": "Middle Eastern",
        "difficulty": "easy",
        "servings": 2,
        "prep_time_minutes": 10,
        "cook_time_minutes": 25,
        "tags": ["vegetarian", "brunch"],
        "instructions": [
            "Soften the onion and sliced pepper in the oil for 8 minutes.",
            "Add the garlic, cumin and paprika, then the tomatoes; simmer for 10 minutes.",
            "Make four wells, crack in the eggs, cover and cook for 6 minutes.",
            "Crumble over the feta and serve with bread.",
        ],
        "ingredients": [
            {"name": "eggs", "quantity": 4, "unit": "piece"},
            {"name": "canned tomatoes", "quantity": 400, "unit": "g"},
            {"name": "red pepper", "quantity": 1, "unit": "piece"},
            {"name": "onion", "quantity": 1, "unit": "piece"},
            {"name": "garlic", "quantity": 2, "unit": "clove"},
            {"name": "ground cumin", "quantity": 1, "unit": "tsp"},
            {"name": "smoked paprika", "quantity": 1, "unit": "tsp"},
            {"name": "feta", "quantity": 80, "unit": "g"},
            {"name": "olive oil", "quantity": 1, "unit": "tbsp"},
        ],
    },
)

FILLER: frozenset[str] = frozenset(
    """a an the some any my our your me us i we you it this that one ones with and or of for
    to in on using use used from featuring including containing have has got left leftover
    leftovers fresh please recipe recipes dish dishe meal idea ideas something thing dinner
    lunch breakfast supper tonight today tomorrow week good nice easy tasty quick simple
    suggest recommend make cook give can could should would what how about maybe like want
    need new another other""".split()
)
"""Words that say nothing about which recipe is wanted (compared in singular form)."""

_WORD = re.compile(r"[a-z0-9]+")


def singular(word: str) -> str:
    """A rough singular, good enough to match "lentils" with "lentil" and "tomatoes"."""
    if len(word) > 4 and word.endswith("oes"):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def wish_words(text: str | None) -> list[str]:
    """The words of a wish that could pick a recipe, singular, without filler."""
    found = [singular(w) for w in _WORD.findall((text or "").lower())]
    return [w for w in dict.fromkeys(found) if w not in FILLER and singular(w) not in FILLER]


def wish_text(text: str | None) -> str:
    """The words of a wish that could pick a recipe, as the user wrote them ("red lentils")."""
    words = [w for w in _WORD.findall((text or "").lower()) if singular(w) not in FILLER]
    return " ".join(dict.fromkeys(w for w in words if w not in FILLER))


def _recipe_words(recipe: dict[str, Any]) -> set[str]:
    parts = [recipe["name"], recipe.get("cuisine") or "", *recipe.get("tags", [])]
    parts += [i["name"] for i in recipe["ingredients"]]
    return {singular(w) for part in parts for w in _WORD.findall(part.lower())}


def score(recipe: dict[str, Any], wish: str | None) -> int:
    """How many of the wish's words the recipe has (0: no match)."""
    words = _recipe_words(recipe)
    return sum(1 for w in wish_words(wish) if w in words)


def find_recipe(wish: str | None) -> tuple[dict[str, Any], bool]:
    """The best built-in recipe for ``wish`` (a copy) and whether it matched at all.

    No wish, or nothing matching it, gives the first recipe and ``False`` for a wish
    with words (the caller says so) — ``True`` only when a word matched.
    """
    best, best_score = RECIPES[0], 0
    for recipe in RECIPES:
        points = score(recipe, wish)
        if points > best_score:
            best, best_score = recipe, points
    return copy.deepcopy(best), best_score > 0


def known_words() -> frozenset[str]:
    """Every word the built-in recipes can be matched by (singular)."""
    return frozenset(w for r in RECIPES for w in _recipe_words(r)) - FILLER


def recipe_names() -> list[str]:
    return [r["name"] for r in RECIPES]
