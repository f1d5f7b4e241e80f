"""The offline demo model's built-in recipes, and how it picks one for "suggest a recipe with X".

Fixed data, not generated: the demo model (``activities.llm.demo_provider``) hands one of
these out as a ``generate`` step's artifact. Each recipe uses only columns of the
``recipes`` table plus ``ingredients`` (a list of ``{name, quantity, unit}``), which the
CRUD executor saves as nested ``recipe_ingredients`` when the user says "save it".

Matching is by words: a wish ("chicken", "red lentils") is split into words, plural endings
dropped, filler words ignored, and each recipe scores one point per wished word found in its
name, cuisine, tags or ingredient names. The best score wins (ties: the earlier recipe); no
point at all means no match, and the first recipe is offered.

Only recipes the user may eat are candidates (``Avoid``, below): ``FOODS`` says what each
food contains (chicken: poultry; soy sauce: soy and gluten; coconut milk: nothing), and
``GROUPS`` what a diet or allergen word rules out (vegetarian: poultry, red meat, pork, fish,
shellfish, gelatin). A profile's diets and allergies are *strict*: a word the demo cannot
resolve (keto, kiwi) is reported as one it cannot check, and it then suggests nothing. A
dislike, or "without X" in the message, is *lenient*: an unknown word simply rules out the
recipes that name it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
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
    need new another other eat show get find tell let do does is are be but also just only
    really too very so take ready time""".split()
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


def _words(text: str | None) -> list[str]:
    """The words of ``text`` (two letters or more: "isn't" leaves no stray "t")."""
    return [w for w in _WORD.findall((text or "").lower()) if len(w) > 1]


def wish_words(text: str | None) -> list[str]:
    """The words of a wish that could pick a recipe, singular, without filler."""
    found = [singular(w) for w in _words(text)]
    return [w for w in dict.fromkeys(found) if w not in FILLER and singular(w) not in FILLER]


def wish_text(text: str | None) -> str:
    """The words of a wish that could pick a recipe, as the user wrote them ("red lentils")."""
    words = [w for w in _words(text) if singular(w) not in FILLER]
    return " ".join(dict.fromkeys(w for w in words if w not in FILLER))


def _recipe_words(recipe: dict[str, Any]) -> set[str]:
    parts = [recipe["name"], recipe.get("cuisine") or "", *recipe.get("tags", [])]
    parts += [i["name"] for i in recipe["ingredients"]]
    return {singular(w) for part in parts for w in _WORD.findall(part.lower())}


def score(recipe: dict[str, Any], wish: str | None) -> int:
    """How many of the wish's words the recipe has (0: no match)."""
    words = _recipe_words(recipe)
    return sum(1 for w in wish_words(wish) if w in words)


# --- what a food contains, and what a profile rules out ---------------------------------------


def _foods(groups: dict[str, str]) -> dict[str, frozenset[str]]:
    """``{"dairy cheese": "feta cheddar"}`` → ``{"feta": {dairy, cheese}, ...}``."""
    return {
        food: frozenset(cats.split()) for cats, foods in groups.items() for food in foods.split()
    }


FOODS: dict[str, frozenset[str]] = _foods(
    {
        "poultry": "chicken turkey duck goose poultry",
        "red_meat": "beef steak mince veal lamb mutton goat venison",
        "pork": "pork bacon ham sausage chorizo salami pepperoni prosciutto pancetta lard",
        "fish": "fish salmon tuna cod haddock trout mackerel sardine anchovy tilapia halibut",
        "shellfish": "shellfish shrimp prawn crab lobster mussel clam oyster scallop squid "
        "calamari octopus",
        "dairy": "milk buttermilk cream butter yogurt yoghurt ghee",
        "dairy cheese": "cheese parmesan feta cheddar mozzarella ricotta halloumi",
        "egg": "egg mayonnaise",
        "honey": "honey",
        "gluten": "wheat flour bread pasta spaghetti noodle tortilla couscous barley rye "
        "semolina breadcrumb seitan",
        "tree_nut": "nut almond walnut cashew pecan pistachio hazelnut macadamia",
        "peanut": "peanut",
        "soy": "soy soya tofu tempeh edamame miso",
        "sesame": "sesame tahini",
        "celery": "celery",
        "mustard": "mustard",
        "gelatin": "gelatin gelatine",
        "alcohol": "wine beer rum brandy sherry vodka",
    }
) | {
    # Phrases whose words alone would mislead (coconut milk is no dairy).
    "coconut milk": frozenset(),
    "coconut cream": frozenset(),
    "butter bean": frozenset(),
    "peanut butter": frozenset({"peanut"}),
    "almond milk": frozenset({"tree_nut"}),
    "soy milk": frozenset({"soy"}),
    "soy sauce": frozenset({"soy", "gluten"}),
    "fish sauce": frozenset({"fish"}),
    "vegetable stock": frozenset({"celery"}),
}
"""What a food contains (singular words or phrases): the categories a profile rules out."""

_MEAT = frozenset({"poultry", "red_meat", "pork"})
_VEGETARIAN = _MEAT | {"fish", "shellfish", "gelatin"}
GROUPS: dict[str, frozenset[str]] = {
    "vegetarian": _VEGETARIAN,
    "veggie": _VEGETARIAN,
    "meatless": _VEGETARIAN,
    "pescatarian": _MEAT | {"gelatin"},
    "pescetarian": _MEAT | {"gelatin"},
    "vegan": _VEGETARIAN | {"dairy", "egg", "honey"},
    "plant based": _VEGETARIAN | {"dairy", "egg", "honey"},
    "meat": _MEAT,
    "red meat": frozenset({"red_meat"}),
    "seafood": frozenset({"fish", "shellfish"}),
    "nut": frozenset({"tree_nut", "peanut"}),
    "tree nut": frozenset({"tree_nut"}),
    "lactose": frozenset({"dairy"}),
    "coeliac": frozenset({"gluten"}),
    "celiac": frozenset({"gluten"}),
    "crustacean": frozenset({"shellfish"}),
    "mollusc": frozenset({"shellfish"}),
    "halal": frozenset({"pork", "alcohol"}),
} | {category: frozenset({category}) for cats in FOODS.values() for category in cats}
"""What a diet, or a word for a group of foods, rules out (a category rules out itself)."""

_NOT_A_FOOD = frozenset(
    """free no non allergy allergie allergic intolerance intolerant sensitivity sensitive diet
    strict avoid only to a an the of any product food i im am""".split()
)


def term_key(term: str) -> str:
    """ "Gluten-free", "nut allergy", "no pork", "Tree nuts" → gluten, nut, pork, tree nut."""
    words = [singular(w) for w in _WORD.findall(term.lower().replace("'", ""))]
    return " ".join(w for w in words if w not in _NOT_A_FOOD)


def _pieces(text: str, groups: bool) -> list[tuple[str, frozenset[str]]]:
    """The foods ``text`` names, as written, longest phrase first ("coconut milk", not
    "milk"), each with what it contains; with ``groups``, group words too ("meat" in a wish,
    but not "Vegan" in a recipe's name)."""
    written = _WORD.findall(text.lower())
    words = [singular(w) for w in written]
    found: list[tuple[str, frozenset[str]]] = []
    i = 0
    while i < len(words):
        for size in (3, 2, 1):
            key = " ".join(words[i : i + size])
            cats = FOODS.get(key, GROUPS.get(key) if groups else None)
            cats = cats if i + size <= len(words) else None
            if cats is not None:
                found.append((" ".join(written[i : i + size]), cats))
                i += size
                break
        else:
            i += 1
    return found


def _has_phrase(text: str, phrase: str) -> bool:
    words = " ".join(singular(w) for w in _WORD.findall(text.lower()))
    return f" {phrase} " in f" {words} "


@dataclass(frozen=True)
class Rule:
    """One thing a suggestion must keep to: a term as the user wrote it, and its source."""

    term: str
    source: str
    """The profile's ``diet``, ``allergy``, ``dislike`` or ``time`` (its time budget), or the
    message's ``asked`` ("without X"), ``asked_diet`` ("a vegan recipe") or ``asked_time``
    ("in 20 minutes")."""

    def label(self) -> str:
        """How a suggestion names the rule it kept: ``vegetarian``, ``no peanuts``,
        ``ready in 30 minutes``."""
        if self.source in ("diet", "asked_diet"):
            return self.term
        if self.source in ("time", "asked_time"):
            return f"ready in {self.term}"
        return f"no {self.term}"

    def reason(self) -> str:
        """Why something was left out: ``your preferences say vegetarian``."""
        return {
            "diet": f"your preferences say {self.term}",
            "allergy": f"your preferences list an allergy to {self.term}",
            "dislike": f"your preferences say you dislike {self.term}",
            "time": f"your preferences give cooking {self.term}",
            "asked_diet": f"you asked for {self.term}",
            "asked_time": f"you asked for {self.term}",
        }.get(self.source, f"you asked for no {self.term}")


def rule_from_label(label: str) -> tuple[str, str]:
    """``no chicken`` → ("chicken", "asked"): a label of a message's rule, read back."""
    if label.startswith("no "):
        return label.removeprefix("no "), "asked"
    if label.startswith("ready in "):
        return label.removeprefix("ready in "), "asked_time"
    return label, "asked_diet"


STRICT = ("diet", "allergy", "asked_diet")
"""Sources whose unknown words the demo will not guess at."""
_PROFILE_SOURCES = {
    "dietary_restrictions": "diet",
    "allergies": "allergy",
    "disliked_ingredients": "dislike",
}
_MINUTES = re.compile(r"\d+")


@dataclass
class Avoid:
    """What a suggestion must leave out (a profile's diet, allergies, dislikes and time
    budget, and what the message ruled out), each with the rule that asks for it."""

    categories: dict[str, Rule] = field(default_factory=dict)
    words: dict[str, Rule] = field(default_factory=dict)
    """Singular word or phrase → rule: a recipe naming it is left out."""
    minutes: tuple[int, Rule] | None = None
    """The most time a recipe may take (prep and cook), and the rule that says so."""
    unknown: list[Rule] = field(default_factory=list)
    """Strict rules the demo cannot check a recipe against (keto, kiwi)."""
    rules: list[Rule] = field(default_factory=list)

    def add(self, term: str, source: str) -> None:
        key, rule = term_key(term), Rule(" ".join(term.split()), source)
        if not key or rule in self.rules:
            return
        self.rules.append(rule)
        if source in ("time", "asked_time"):
            limit = int(_MINUTES.findall(term)[0]) if _MINUTES.search(term) else None
            if limit and (self.minutes is None or limit < self.minutes[0]):
                self.minutes = (limit, rule)
        elif key in GROUPS:
            for category in GROUPS[key]:
                self.categories.setdefault(category, rule)
        elif source not in STRICT:
            self.words.setdefault(key, rule)
        elif key in FOODS or key in _BOOK_WORDS:
            for category in FOODS.get(key, ()):
                self.categories.setdefault(category, rule)
            self.words.setdefault(key, rule)
        else:
            self.unknown.append(rule)

    def wish_clashes(self, text: str | None, groups: bool = True) -> list[tuple[str, Rule]]:
        """(food, rule) for each food ``text`` names that the rules leave out ("chicken",
        the vegetarian rule)."""
        found: dict[str, Rule] = {}
        for food, cats in _pieces(text or "", groups):
            for category in sorted(cats & set(self.categories)):
                found.setdefault(food, self.categories[category])
        for phrase, rule in self.words.items():
            if _has_phrase(text or "", phrase):
                found.setdefault(rule.term, rule)
        return list(found.items())

    def clashes(self, recipe: dict[str, Any]) -> list[tuple[str, Rule]]:
        """(what, rule) for each ingredient the rules leave out (the recipe's name counts:
        "mushrooms", Mushroom Risotto), and its time when it takes too long."""
        names = [str(i.get("name") or "") for i in _ingredients(recipe)]
        found: dict[str, Rule] = {}
        for name in [*names, str(recipe.get("name") or "")]:
            for _food, rule in self.wish_clashes(name, groups=False):
                found.setdefault(name, rule)
        total = _total_minutes(recipe)
        if self.minutes and total is not None and total > self.minutes[0]:
            found[f"{total} minutes"] = self.minutes[1]
        return list(found.items())

    def fits(self, recipe: dict[str, Any]) -> bool:
        """Nothing in it is left out, and (when foods are) its ingredients are known."""
        if (self.categories or self.words) and not _ingredients(recipe):
            return False
        return not self.clashes(recipe)

    def labels(self, sources: Iterable[str] | None = None) -> str:
        """``vegetarian, no peanuts, no mushrooms`` (of the rules from ``sources``)."""
        return ", ".join(r.label() for r in self.rules if sources is None or r.source in sources)


def _ingredients(recipe: dict[str, Any]) -> list[dict[str, Any]]:
    found = recipe.get("ingredients") or recipe.get("recipe_ingredients") or []
    return [i for i in found if isinstance(i, dict)]


def _total_minutes(recipe: dict[str, Any]) -> int | None:
    times = [recipe.get("prep_time_minutes"), recipe.get("cook_time_minutes")]
    known = [int(t) for t in times if isinstance(t, int | float)]
    return sum(known) if known else None


def avoid_for(profile: Mapping[str, Any] | None, asked: Iterable[tuple[str, str]] = ()) -> Avoid:
    """The rules of a profile (its diet, allergies, dislikes, time budget) and of the
    ``(term, source)`` pairs the message added."""
    avoid = Avoid()
    profile = profile or {}
    for name, source in _PROFILE_SOURCES.items():
        terms = profile.get(name) or []
        for term in terms if isinstance(terms, list) else [terms]:
            avoid.add(str(term), source)
    if isinstance(profile.get("time_budget_minutes"), int):
        avoid.add(f"{profile['time_budget_minutes']} minutes", "time")
    for term, source in asked:
        avoid.add(term, source)
    return avoid


def fitting(avoid: Avoid | None = None) -> list[dict[str, Any]]:
    """The built-in recipes the rules allow, in book order."""
    return [r for r in RECIPES if avoid is None or avoid.fits(r)]


def find_recipe(wish: str | None, avoid: Avoid | None = None) -> tuple[dict[str, Any] | None, bool]:
    """The best built-in recipe for ``wish`` that ``avoid`` allows (a copy), and whether it
    matched at all.

    No wish, or nothing matching it, gives the first allowed recipe and ``False`` for a wish
    with words (the caller says so) — ``True`` only when a word matched. None when no recipe
    is allowed.
    """
    candidates = fitting(avoid)
    if not candidates:
        return None, False
    best, best_score = candidates[0], 0
    for recipe in candidates:
        points = score(recipe, wish)
        if points > best_score:
            best, best_score = recipe, points
    return copy.deepcopy(best), best_score > 0


def recipe_names(avoid: Avoid | None = None) -> list[str]:
    return [r["name"] for r in fitting(avoid)]


_BOOK_WORDS = frozenset(
    singular(w) for r in RECIPES for i in r["ingredients"] for w in _WORD.findall(i["name"])
) | frozenset(
    " ".join(singular(w) for w in _WORD.findall(i["name"]))
    for r in RECIPES
    for i in r["ingredients"]
)
"""Every ingredient word and name of the book: a strict rule naming one can be checked."""
