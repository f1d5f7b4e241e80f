"""The ``demo`` provider: a deterministic, rule-based stand-in for the model, for ``make run``
without an API key.

**This is not an LLM.** It does not read the prompts. It matches the lower-cased user
message against a handful of fixed patterns and builds each node's output from the node's
request model, which every node activity passes in ``LlmRequest.facts``, and the
registry the node was shown (``LlmRequest.shown``; see
``activities/model_nodes.py``). Anything it does not recognise gets an honest "I can't help
with ..." and nothing is done. Its outputs go through the gateway's validation like any
model's.

It keeps to the user's profile (``context.profile`` of the Think, Act and bypass requests:
dietary restrictions, allergies, disliked ingredients, time budget) in everything it
suggests or plans, through ``demo_recipes.Avoid``: a wish the profile forbids ("a recipe with
chicken" for a vegetarian) is refused and nothing is suggested; a suggestion says which
rules it fits; a week's plan leaves out the saved recipes that do not fit, and says so; a
diet or allergy it cannot check (keto, kiwi) means it suggests and plans nothing, and says
why. Items the user names for their own shopping list or inventory are added as asked.

Later nodes do not re-read the user: the demo's own Think writes what Act needs into the
goal and the step descriptions ("Add 2 lemons, milk to the shopping list", "Save
gen_recipe_1 (Shakshuka) to your recipes", "Plan dinners for 2026-11-23 to 2026-11-29 in
the meal plan"), Act parses those back, and Reply works from the step results, so a
clarification answer or a confirmed proposal needs nothing but the plan.

Rules (first match wins; the message is lower-cased, trailing punctuation dropped):

| rule     | e.g.                                      | path                                   |
|----------|-------------------------------------------|----------------------------------------|
| save     | "save it", "save that recipe", "keep it"  | Think write → db_create → Reply        |
| that one | "add that one", "I'll take that one"      | Understand asks which one              |
| plan     | "plan my dinners for next week"           | Think propose → read, write → Reply    |
| add      | "add milk and eggs to my shopping list"   | Think write → db_create → Reply        |
| remove   | "remove milk from my shopping list"       | Think write → db_delete → Reply        |
| suggest  | "suggest a recipe with chicken"           | Think generate → artifact → Reply      |
| show     | "show my pantry", "what are my tasks"     | Understand quick → Act Quick db_read   |
| cannot   | "clear my list", "what's the weather?"    | Think analyze → "I can't ..." → Reply  |
| profile  | "I'm allergic to peanuts" (system's step) | Act db_update preferences → Reply      |
| help     | "hello", "what can you do"                | Think analyze → capabilities → Reply   |

- **save** ("save it", "save that recipe", "save the recipe", "keep it"): Understand names
  the newest unsaved ``gen_recipe_N`` of the registry (one whose label shares a word with
  the message first) in ``referenced_entities``; with none, it asks "Which recipe should I
  save? I don't have an unsaved one." Think: ``plan_direct``, one ``write`` recipes step
  "Save gen_recipe_N (<name>) to your recipes"; Act: ``db_create`` recipes
  ``{"id": "gen_recipe_N"}``; Reply: "Saved <name> to your recipes."
- **that one** ("add that one", "show me that one", "I'll take that one", "add it"):
  Understand ``needs_clarification`` (which one?). The answer comes back through these
  rules ("the chicken recipe" suggests one, "show my recipes" shows them).
- **plan** ("plan my dinners for next week", "make a meal plan for the week"): Think
  ``propose``: "I'll plan dinners for Mon <date> to Sun <date> using your saved recipes.
  Shall I?" for next Monday to Sunday from today's date; group 0 reads recipes, group 1
  writes meal_plans. On confirm, Act reads recipes (by name, with their ingredients and
  times), then writes 7 dinners in one ``db_create`` batch (``recipe_id`` cycling through
  the recipes read that fit the profile; with none, fitting built-in recipe names in
  ``notes``). Reply lists the week day by day, and what was left out and why (Act's
  ``note_for_next_step``).
- **add** ("add milk and eggs to my shopping list", "add 2 kg rice to my pantry",
  "I bought 2 lemons"): Think ``plan_direct``, one ``write`` step "Add 2 kg rice to the
  pantry"; Act one ``db_create`` batch (``quantity`` and ``unit`` when a number comes
  first; pantry, fridge or freezer set ``location``; no place means the shopping list,
  "I bought" the inventory); Reply "Added milk and eggs to your shopping list."
- **remove** ("remove milk from my shopping list", "delete rice from my inventory",
  "I used up the rice"): Act one ``db_delete`` with a ``name`` ``=`` filter, or
  ``or_filters`` for several items; Reply "Removed milk from your shopping list.", or that
  nothing matched when no row was deleted.
- **suggest** ("suggest a recipe with chicken", "give me an idea for dinner with lentils",
  "the chicken recipe", "a vegan recipe without mushrooms in 30 minutes"): Think
  ``plan_direct``, one ``generate`` recipes step "Suggest a recipe with chicken", what the
  message rules out in brackets ("Suggest a recipe (vegan, no mushrooms, ready in 30
  minutes)"); Act ``step_complete`` with one built-in recipe (``demo_recipes.RECIPES``) that
  keeps to the profile and those rules, as a ``recipe`` artifact, not saved, its lead the
  step's summary ("Here's an idea that fits your preferences (vegetarian):"), or no
  artifact and why; Reply shows it in full, says when nothing matched the wish, and ends
  "Say 'save it' to keep it."
- **show** (pantry/inventory/fridge, shopping list, recipes, meal plans, tasks), asked as a
  request to see ("show ...", "what's ...", "do I have ...", "my ..."): Understand
  ``quick_mode``; Act Quick ``db_read`` on the table (meal plans ordered by date); the
  deterministic formatter answers, no Reply call.
- **cannot**: a making verb no rule took ("make a shopping list"), a verb no rule carries
  out ("clear", "remind", "change", "move", "mark"...), an add or remove whose item is no
  list item ("everything", "a reminder to ...", "my recipes"), and any other message but
  small talk: Think one ``analyze`` step; Reply 'I can't help with "...", so I did nothing.'
  and what it understands. Nothing is read or written.
- **profile**: a statement about the cook ("I'm allergic to peanuts", "we're vegetarian
  now", "my husband hates mushrooms"), which the system plans as the profile's write
  (``domain.enforced.profile``): Act one ``db_update`` of the preferences, adding the
  allergy, diet or dislike to what the list held (``profile_changes``); Reply "Noted in
  your preferences: allergies: peanuts. …". Anything else about the cook ("just got an
  air fryer") is a step it cannot carry out: the turn says so, and nothing is written.
- **help** (hello, help, thanks, what can you do): the list of what it understands.

- **cook** (mode ``cook``): step by step through the session's recipe, one instruction
  per message; "done" / "finished" / "stop" ends the session with a ``close`` handoff.
  Without a recipe it asks for one (an @-mention).
- **brainstorm** (mode ``brainstorm``): three built-in dishes matching the message's
  words as ideas; "save that" / "let's make it" ends with a ``save`` handoff of the first
  idea, "done" with ``close``.

Words a dish is matched by are listed in ``demo_recipes``. Answering a demo proposal with
text ("yes" / "no") instead of the confirm and reject buttons runs or drops the plan.

Act copes with being called again after its own tool call: a tool result with an
``error`` gives ``blocked`` with that error; a result of the call it wants gives
``step_complete`` summarising it; it never makes more than 2 tool calls in a step.
Summarize and compress are deterministic too. Usage is always zero; the model name is
``demo``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel

from activities.llm.demo_recipes import (
    RECIPES,
    Avoid,
    Rule,
    avoid_for,
    find_recipe,
    recipe_names,
    rule_from_label,
    wish_text,
    wish_words,
)
from activities.llm.provider import LlmError, LlmReply, LlmRequest, Usage, stream_whole
from activities.payloads import (
    ActQuickRequest,
    ActRequest,
    BypassRequest,
    ReplyRequest,
    SummarizeRequest,
    ThinkRequest,
    UnderstandRequest,
)
from domain import formatters
from domain.choices import WHICH_DELETE_QUESTION
from domain.conversation import PendingContext, StepResult
from domain.enforced.profile import KEEP
from domain.nodes import (
    ActDecision,
    ActQuickDecision,
    BypassOutput,
    CompressOutput,
    GeneratedArtifact,
    Handoff,
    ReplyOutput,
    SummarizeOutput,
    ThinkOutput,
    ThinkStep,
    ToolCall,
    UnderstandOutput,
)
from domain.registry import SessionIdRegistry
from domain.tool_results import ToolEntry

MODEL_NAME = "demo"
MAX_DEMO_TOOL_CALLS = 2
"""Tool calls the demo makes in one step at most (the workflow's breaker allows 3)."""

CAPABILITIES: tuple[str, ...] = (
    "show your pantry, shopping list, recipes, meal plans or tasks "
    '("show my pantry", "what\'s on my shopping list")',
    "add or remove items on your shopping list or in your inventory "
    '("add milk and eggs to my shopping list", "remove rice from my pantry")',
    'suggest a recipe from my small built-in set ("suggest a recipe with chicken", '
    '"what can I cook with what I have"), then "save it" to keep it',
    'plan next week\'s dinners from your saved recipes ("plan my dinners for next week")',
    "keep to the diet, allergies and dislikes saved in your preferences in everything I "
    'suggest or plan, and note new ones you tell me ("I\'m allergic to peanuts")',
)
HELP_TEXT = (
    "I'm the offline demo model: fixed rules, not a language model, so I only understand "
    "a few kinds of requests. I understand:\n"
    + "\n".join(f"- {c}" for c in CAPABILITIES)
    + "\n\nSet OPENAI_API_KEY to talk to Alfred with a real model."
)
SAVE_NOTHING_QUESTION = "Which recipe should I save? I don't have an unsaved one."
WHICH_ONE_QUESTION = (
    "Which one do you mean? I'm the offline demo model and can't tell from \"that one\". "
    'Say it another way, for example "the chicken recipe", "save it" or '
    '"show my recipes".'
)
SAVE_HINT = "Say 'save it' to keep it."
SAVE_WHICH_LEAD = "Do you mean "
"""How the demo asks before saving a recipe the last turn did not suggest."""
EMPTY_STOCK = (
    "Your inventory is empty, so I can't suggest something from what you have. Tell me "
    'what you bought ("I bought eggs and rice"), or ask for any recipe ("suggest a '
    'recipe").'
)


CANNOT_LEAD = "I can't help with "


def cannot_text(asked: str) -> str:
    """The answer to a message no rule carries out: said, and nothing done."""
    return f'{CANNOT_LEAD}"{asked}", so I did nothing.\n\n{HELP_TEXT}'


SUBDOMAIN_TABLE: dict[str, str] = {
    "inventory": "inventory",
    "shopping": "shopping_list",
    "recipes": "recipes",
    "meal_plans": "meal_plans",
    "tasks": "tasks",
    "preferences": "preferences",
}
SHOW_INTENT: dict[str, str] = {
    "inventory": "Show the user's inventory",
    "shopping": "Show the user's shopping list",
    "recipes": "List the user's saved recipes",
    "meal_plans": "Show the user's meal plans by date",
    "tasks": "Show the user's tasks",
}

# --- reading the message ---------------------------------------------------------------------

_SPACES = re.compile(r"\s+")


_LEADING = re.compile(r"^[^\w@]+")
"""Emoji, bullets and punctuation before the first word ("🛒 add milk")."""


def normalize(message: str) -> str:
    """Lower case, straight quotes, single spaces, no leading symbols or trailing
    punctuation."""
    text = message.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = _LEADING.sub("", _SPACES.sub(" ", text).strip())
    return text.rstrip(".!?;:, ").strip()


_SAVE = re.compile(r"\b(?:save|keep|store)\b")
_SAVE_OBJECT = re.compile(r"\b(?:it|that|this|recipe|one|them)\b")
_THAT_ONE = re.compile(r"\b(?:that|this|the other|those|these) ones?\b")
_PRONOUN_ONLY = re.compile(
    r"^(?:add|show(?: me)?|take|get|use|cook|make|i'll take|i will take|give me|open|"
    r"remove|delete)\s+(?:it|that|this|them|those)(?:\s+please)?$"
)
_PLAN_WEEK = re.compile(
    r"\bplan (?:out )?(?:my |our |the |all |some )?(?:dinners?|meals?|week|next week|menu)\b"
    r"|\bmeal ?plan (?:for )?(?:next |the |this )?week\b"
)
_POLITE = r"(?:please |pls |can you |could you |would you |will you )*"
_PLACES = r"shopping list|grocery list|shopping|groceries|list|pantry|inventory|fridge|freezer"
_OWNER = r"(?:my |the |our )?"
_ADD = re.compile(
    rf"^{_POLITE}(?:add|put)\s+(?P<items>.+?)"
    rf"(?:\s+(?:to|on|onto|in|into)\s+{_OWNER}(?P<place>{_PLACES}))?(?:\s+please)?$"
)
_BOUGHT = re.compile(r"^(?:i|we) (?:just )?(?:bought|picked up)\s+(?P<items>.+?)(?:\s+today)?$")
_REMOVE = re.compile(
    rf"^{_POLITE}(?:remove|delete|cross off|cross|tick off|check off|drop)\s+(?P<items>.+?)"
    rf"(?:\s+(?:off|from|out of)\s+{_OWNER}(?P<place>{_PLACES}))?(?:\s+please)?$"
)
_USED = re.compile(
    r"^(?:i|we) (?:just )?(?:used up|finished|ran out of|have run out of|are out of)\s+"
    r"(?P<items>.+)$|^(?:we're|i'm) out of\s+(?P<items2>.+)$"
)
_SUGGEST = re.compile(
    r"\b(?:suggest|suggestion|recommend|idea|ideas|inspiration|inspire)\b"
    r"|\bwhat (?:can|could|should|shall) (?:i|we) (?:make|cook|have|eat)\b"
    r"|\bwhat to (?:make|cook)\b"
    r"|\b(?:cook|make) (?:me |us )?(?:something|anything)\b"
    r"|\b(?:cook|make) with\b"
    r"|\brecipe\b"
)
_FROM_STOCK = re.compile(
    r"\bwhat (?:i|we) (?:have|got|'ve got)\b|\bon hand\b|\bmy (?:ingredients|stock)\b"
    r"|\b(?:in|from) (?:my|the|our) (?:pantry|fridge|freezer|inventory|kitchen|cupboards?)\b"
)
_CREATE = re.compile(
    rf"^{_POLITE}(?:make|create|build|write|generate|prepare|draw up|put together|organi[sz]e)\b"
)
_UNSUPPORTED = re.compile(
    rf"^{_POLITE}(?:clear|empty|wipe|reset|update|edit|change|modify|rename|move|sort|share|"
    r"send|e-?mail|text|print|export|import|order|buy|book|call|mark|undo|redo|double|triple|"
    r"halve|scale|convert|calculate|count|translate|remind|schedule|set|start|log|track|rate|"
    r"review|replace|swap|substitute|increase|decrease|reduce|copy|duplicate|archive|restore|"
    r"sync|cancel|complete|tick|uncheck|forget|unsave|switch|turn)\b"
)
"""Requests no rule carries out ("clear my shopping list", "remind me to ..."): the demo
says so rather than showing the table they name."""
_NOT_AN_ITEM = re.compile(
    r"(?:^|\s)(?:everything|all|anything|stuff|things?|recipes?|meal ?plans?|tasks?|"
    r"reminders?|lists?|preferences|profile|diet|timer|to|into|onto|from|for|at|by|until|"
    r"tomorrow|tonight)(?:\s|$)"
)
"""Words no shopping or inventory item is named with ("delete everything", "add a reminder to
defrost the chicken", "add chicken to tuesday's dinner"): not an add or a remove."""
_SHOW_ASK = re.compile(
    rf"^{_POLITE}(?:show|list|display|view|see|open|check|read|get|give me|tell me|let me see|"
    r"what|what's|whats|which|how many|how much|do (?:i|we) have|have (?:i|we) got|is there|"
    r"are there|any|my|the|our|all|current)\b"
    r"|^(?:shopping|grocery|groceries|pantry|inventory|fridge|freezer|recipes|meal ?plans?|"
    r"tasks|to-?dos?)\b"
)
"""How a request to see a table starts ("show my pantry", "what's on my list", "do I have
milk"): a message that only names a table ("how long do eggs keep in the fridge") is none."""
_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|help|thanks|thank you|cheers|"
    r"ok|okay|yes|no|what can you do|what do you do|who are you|what are you|"
    r"how does this work|how do you work|what can i (?:ask|say))\b"
)
_NOT = re.compile(
    r"\b(?:without|minus|except|excluding|but not|not|no|isn'?t|aren'?t|free of|hold the|"
    r"(?:don'?t|do not|never|can'?t|cannot) (?:eat|use|want|like|include|suggest|give me|have))"
    r"\s+(?P<x>[^,;]+?)(?=\s+(?:with|using|for|that|which|but|please|tonight|today)\b|[,;]|$)"
)
"""What a suggestion must leave out ("without chicken", "that isn't pasta", "no dairy")."""
_FREE = re.compile(r"\b(?P<x>[a-z]+)[- ]free\b")
_DIET = re.compile(
    r"\b(?:vegetarian|vegan|veggie|pescatarian|pescetarian|plant[- ]based|meatless|halal|"
    r"kosher|keto|paleo|low[- ]carb|low[- ]fodmap|whole ?30)\b"
)
_WITHIN = re.compile(
    r"\b(?:in|under|within|less than|at most|max)\s+(?P<n>\d+)\s*(?:min|mins|minutes)\b"
)
_SEPARATORS = r",|\band\b|\bor\b|\bnor\b|&"
_WITH = re.compile(r"\b(?:with|using|featuring|including|containing|from)\s+(?P<wish>.+)$")
_FOR = re.compile(r"\bfor\s+(?P<wish>.+)$")
_AFFIRM = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|ok|okay|go ahead|do it|please do|sounds good|confirm)\b"
)
_DECLINE = re.compile(r"^(?:no|nope|nah|don't|do not|cancel|stop|never mind|nevermind)\b")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")

_SHOW_TABLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("shopping", re.compile(r"\b(?:shopping|grocery|groceries)\b|\bmy list\b|^(?:the )?list$")),
    (
        "meal_plans",
        re.compile(
            r"\bmeal ?plans?\b|\bplanned meals?\b|\bmeals? (?:are |i have )?planned\b"
            r"|\bmenu\b|\bwhat'?s for dinner\b"
        ),
    ),
    ("tasks", re.compile(r"\b(?:tasks?|to-?dos?|chores)\b")),
    ("recipes", re.compile(r"\brecipes\b|\bcookbook\b|\brecipe box\b")),
    (
        "inventory",
        re.compile(
            r"\b(?:pantry|inventory|fridge|freezer|cupboards?|stock)\b"
            r"|\bdo (?:i|we) have\b"
        ),
    ),
)

# --- items ("2 kg rice", "milk") -------------------------------------------------------------

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a dozen": 12,
    "dozen": 12,
}
_UNITS = (
    "kg kgs kilo kilos kilogram kilograms g gram grams l liter liters litre litres ml lb lbs "
    "pound pounds oz ounce ounces cup cups can cans tin tins bottle bottles bag bags box boxes "
    "pack packs packet packets bunch bunches loaf loaves jar jars tbsp tsp piece pieces "
    "carton cartons head heads clove cloves"
).split()
_ITEM = re.compile(
    r"^(?:(?P<qty>\d+(?:\.\d+)?|(?:"
    + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    + r")\b)\s*(?:(?P<unit>"
    + "|".join(sorted(_UNITS, key=len, reverse=True))
    + r")\b\.?\s*)?)?(?:of\s+)?(?P<name>.+)$"
)
_ARTICLES = re.compile(r"^(?:(?:the|some|a|an|my|more|few|a few|of)\s+)+")
_TRAILING = re.compile(r"\s+(?:too|as well|please|also)$")
_PRONOUNS = frozenset({"it", "that", "this", "them", "those", "these", "that one", "this one"})


@dataclass(frozen=True)
class Item:
    name: str
    quantity: int | float | None = None
    unit: str | None = None

    def text(self) -> str:
        """``2 kg rice``: what Think writes and Act parses back."""
        amount = "" if self.quantity is None else _number_text(self.quantity)
        return " ".join(p for p in (amount, self.unit or "", self.name) if p)

    def row(self, location: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name}
        if self.quantity is not None:
            data["quantity"] = self.quantity
        if self.unit:
            data["unit"] = self.unit
        if location:
            data["location"] = location
        return data


def _number_text(value: Any) -> str:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return str(value)
    if number == number.to_integral_value():
        return str(int(number))
    return f"{number.normalize():f}"


def parse_item(text: str) -> Item | None:
    """One item: a leading number (digits or a word) is the quantity, then an optional unit."""
    text = _TRAILING.sub("", text.strip()).strip()
    match = _ITEM.match(text)
    if match is None:
        return None
    qty_text, unit = match.group("qty"), match.group("unit")
    name = _ARTICLES.sub("", match.group("name").strip()).strip()
    if not name:
        return None
    quantity: int | float | None = None
    if qty_text:
        if qty_text in _NUMBER_WORDS:
            quantity = _NUMBER_WORDS[qty_text]
        else:
            number = Decimal(qty_text)
            quantity = int(number) if number == number.to_integral_value() else float(number)
    return Item(name=name, quantity=quantity, unit=unit if quantity is not None else None)


def split_items(text: str, *, separators: str = r",|\band\b|&|\bplus\b") -> list[str]:
    return [p.strip() for p in re.split(separators, text) if p.strip()]


def parse_items(text: str) -> list[Item]:
    """``"2 lemons, milk and eggs"`` → three items (duplicates dropped)."""
    items = [parse_item(part) for part in split_items(text)]
    seen: dict[str, Item] = {}
    for item in items:
        if item is not None and item.name not in seen:
            seen[item.name] = item
    return list(seen.values())


# --- places ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where an add or remove goes: table, subdomain, the words used, location to set."""

    table: str
    subdomain: str
    words: str
    """``shopping list``, ``inventory``, ``pantry``, ``fridge`` or ``freezer``."""
    location: str | None = None


def place_for(word: str | None, *, default: str = "shopping list") -> Place:
    word = (word or default).strip()
    if word in ("pantry", "fridge", "freezer"):
        return Place("inventory", "inventory", word, word)
    if word == "inventory":
        return Place("inventory", "inventory", "inventory")
    return Place("shopping_list", "shopping", "shopping list")


# --- intents ---------------------------------------------------------------------------------


@dataclass
class Intent:
    """What the rules made of a message."""

    kind: str
    """show | add | remove | suggest | suggest_from_stock | save | save_which | save_nothing
    | plan_week | ambiguous | decline | cannot | help"""
    subdomain: str | None = None
    place: Place | None = None
    items: list[Item] = field(default_factory=list)
    wish: str | None = None
    """suggest: what the dish should have ("lentils"); cannot: the message."""
    rules: list[tuple[str, str]] = field(default_factory=list)
    """suggest: what the message rules out, as ``(term, source)`` (``demo_recipes.Avoid``)."""
    ref: str | None = None
    label: str | None = None
    week: tuple[dt.date, dt.date] | None = None
    confirmed: bool = False
    """plan_week: the user already said yes (in text) to the demo's proposal."""


def next_week(today: dt.date) -> tuple[dt.date, dt.date]:
    """Next Monday (a week on when today is Monday) and the Sunday after it."""
    monday = today + dt.timedelta(days=7 - today.weekday())
    return monday, monday + dt.timedelta(days=6)


def day_text(day: dt.date) -> str:
    return f"{day.strftime('%a')} {day.isoformat()}"


def message_rules(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The message without what it rules out, and what it rules out as ``(term, source)``:
    "a vegan recipe without mushrooms ready in 20 minutes" → ("a recipe",
    [("20 minutes", "asked_time"), ("vegan", "asked_diet"), ("mushrooms", "asked")])."""
    rules = [(f"{m.group('n')} minutes", "asked_time") for m in _WITHIN.finditer(text)]
    text = _WITHIN.sub(" ", text)
    rules += [(m.group(0), "asked_diet") for m in _DIET.finditer(text)]
    text = _DIET.sub(" ", text)
    rules += [(m.group("x"), "asked") for m in _FREE.finditer(text)]
    text = _FREE.sub(" ", text)
    for match in _NOT.finditer(text):
        for part in split_items(match.group("x"), separators=_SEPARATORS):
            if term := wish_text(part):
                rules.append((term, "asked"))
    return " ".join(_NOT.sub(" ", text).split()), rules


def _wish(text: str) -> str | None:
    """What the dish should have, in the user's words ("lentils"), or None."""
    match = _WITH.search(text) or _FOR.search(text)
    candidates = [match.group("wish")] if match else []
    candidates.append(text)
    for candidate in candidates:
        words = wish_text(candidate)
        if words:
            return words
    return None


def newest_pending_recipe(registry: SessionIdRegistry, hint: str = "") -> tuple[str, str] | None:
    """(ref, label) of the unsaved generated recipe "save it" means: the newest one, or the
    newest whose label shares a word with ``hint``."""
    pending = registry.get_truly_pending_artifacts()
    refs = [r for r in pending if registry.type_of(r) == "recipe"]
    if not refs:
        return None
    refs.sort(key=lambda r: int(r.rsplit("_", 1)[1]))
    wanted = set(wish_words(hint)) - {"save", "keep", "store"}

    def label(ref: str) -> str:
        return registry.label(ref) or str(pending[ref].get("name") or ref)

    named = [r for r in refs if wanted & set(wish_words(label(r)))]
    ref = (named or refs)[-1]
    return ref, label(ref)


def _recent(registry: SessionIdRegistry, ref: str) -> bool:
    """Whether the last turn (or this one) suggested or referenced ``ref``."""
    return (registry.last_referenced(ref) or 0) >= registry.turn - 1


def classify(
    message: str,
    registry: SessionIdRegistry,
    pending: PendingContext | None = None,
    today: dt.date | None = None,
) -> Intent:
    """The rule a message falls under (first match wins; see the module docstring)."""
    answering = pending is not None and pending.answer is not None
    # An answer to a pause is classified on its own: the message also holds the request.
    text = normalize(str(pending.answer) if answering and pending else message)
    if answering and pending and pending.kind == "proposal":
        days = [dt.date.fromisoformat(d) for d in _ISO_DATE.findall(pending.message)]
        if _AFFIRM.match(text) and len(days) >= 2 and "plan dinners" in pending.message:
            return Intent(
                "plan_week", subdomain="meal_plans", week=(days[0], days[1]), confirmed=True
            )
        if _DECLINE.match(text):
            return Intent("decline")
    if not text:
        return Intent("help")

    if (
        answering
        and pending
        and pending.chosen
        and pending.message.startswith(WHICH_DELETE_QUESTION)
    ):
        # The turn asked which same-named row to delete and resolved the answer to a ref.
        ref = pending.chosen.ref
        known = registry.entries.get(ref)
        name = (known.label if known else "") or pending.chosen.label.split(" (")[0]
        where = "inventory" if ref.startswith("inv_") else "shopping list"
        return _item_intent(text, "remove", name, where, where, answering)

    if (
        answering
        and pending
        and pending.message.startswith(SAVE_WHICH_LEAD)
        and _AFFIRM.match(text)
    ):
        found = newest_pending_recipe(registry)
        if found is not None:
            return Intent("save", subdomain="recipes", ref=found[0], label=found[1])

    if _SAVE.search(text) and _SAVE_OBJECT.search(text):
        found = newest_pending_recipe(registry, text)
        if found is None:
            return Intent("save_nothing", subdomain="recipes")
        ref, label = found
        named = set(wish_words(label)) & (set(wish_words(text)) - {"save", "keep", "store"})
        if not named and not answering and not _recent(registry, ref):
            # "save that" about something the last turn did not suggest (a brainstorm
            # in between): ask rather than save an older suggestion.
            return Intent("save_which", subdomain="recipes", ref=ref, label=label)
        return Intent("save", subdomain="recipes", ref=ref, label=label)

    if _THAT_ONE.search(text) or _PRONOUN_ONLY.match(text):
        return Intent("help" if answering else "ambiguous")

    if _UNSUPPORTED.match(text):
        return Intent("cannot", wish=text)

    if _PLAN_WEEK.search(text) and not text.startswith(("show", "list", "what")):
        return Intent("plan_week", subdomain="meal_plans", week=next_week(today or dt.date.today()))

    for pattern, kind, default in (
        (_ADD, "add", "shopping list"),
        (_REMOVE, "remove", "shopping list"),
    ):
        match = pattern.match(text)
        if match:
            return _item_intent(
                text, kind, match.group("items"), match.group("place"), default, answering
            )
    match = _BOUGHT.match(text)
    if match:
        return _item_intent(text, "add", match.group("items"), "inventory", "inventory", answering)
    match = _USED.match(text)
    if match:
        items = match.group("items") or match.group("items2")
        return _item_intent(text, "remove", items, "inventory", "inventory", answering)

    if _SUGGEST.search(text):
        kind = "suggest_from_stock" if _FROM_STOCK.search(text) else "suggest"
        rest, rules = message_rules(text)
        return Intent(kind, subdomain="recipes", wish=_wish(rest), rules=rules)

    if _CREATE.match(text):  # "make a shopping list for the week": not a show, not a guess
        return Intent("cannot", wish=text)

    if _SHOW_ASK.match(text):
        for subdomain, pattern in _SHOW_TABLES:
            if pattern.search(text):
                return Intent("show", subdomain=subdomain)
    if _SMALL_TALK.match(text):
        return Intent("help")
    return Intent("cannot", wish=text)


_UNKNOWN_PLACE = re.compile(r"\s(?:to|on|onto|in|into|from|off|out of)\s+(?:my|the|our)\s")


def _item_intent(
    text: str, kind: str, items_text: str, place_word: str | None, default: str, answering: bool
) -> Intent:
    items = parse_items(items_text)
    if _UNKNOWN_PLACE.search(f" {items_text} ") or any(_NOT_AN_ITEM.search(i.name) for i in items):
        # "add chicken to my meal plan", "delete everything": not a list item
        return Intent("cannot", wish=text)
    if not items or all(i.name in _PRONOUNS for i in items):
        return Intent("help" if answering else "ambiguous")
    place = place_for(place_word, default=default)
    return Intent(kind, subdomain=place.subdomain, place=place, items=items)


# --- plan descriptions (Think writes them, Act reads them) ------------------------------------

_ITEM_STEP = re.compile(
    r"^(?P<verb>Add|Remove) (?P<items>.+) (?:to|from) the "
    r"(?P<place>shopping list|inventory|pantry|fridge|freezer)$"
)
_SUGGEST_STEP = re.compile(r"^Suggest a recipe(?: with (?P<wish>.+))?$")
_RULES_TAIL = re.compile(r"^(?P<base>.*?)(?: \((?P<rules>[^()]*)\))?$")
"""A suggest step's description ends with what the message ruled out: "Suggest a recipe
with lentils (vegan, no mushrooms)"."""
_GEN_RECIPE = re.compile(r"\bgen_recipe_\d+\b")
_PLAN_STEP = re.compile(
    r"^Plan dinners for (?P<start>\d{4}-\d{2}-\d{2}) to (?P<end>\d{4}-\d{2}-\d{2})"
)
_PROFILE_STEP = re.compile(
    "^"
    + re.escape(KEEP)
    .replace(re.escape("{columns}"), r"(?: \([^)]*\))?")
    .replace(re.escape("{words}"), r"(?P<words>.+)")
    + "$",
    re.DOTALL,
)
"""The system's step for a statement about the cook (``domain.enforced.profile``)."""
_UNTIL = r"(?=\s+(?:so|but|because|and (?:i|we|my|he|she|they))\b|[.;!?]|$)"
_ALLERGIC = re.compile(r"\b(?:allergic to|allergy to)\s+(?P<x>.+?)" + _UNTIL)
_DISLIKES = re.compile(
    r"\b(?:hates?|can'?t stand|cannot stand|(?:don'?t|doesn'?t|do not|does not) (?:like|eat)|"
    r"dislikes?|not a fan of)\s+(?P<x>.+?)" + _UNTIL
)
READ_RECIPES_STEP = "Read your saved recipes"
HELP_STEP = "Explain what the offline demo model understands"
DECLINE_STEP = "Acknowledge that nothing will be done"
CANNOT_STEP = "Say the demo model cannot do this"
STOCK_STEP = "Read what is in stock"
FROM_STOCK_STEP = "Suggest a recipe from what is in stock"
DECLINED = "The user declined."


def profile_changes(words: str, profile: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """The profile's lists a statement about the cook adds to, each whole (what it held,
    then what the words add): "I'm allergic to peanuts" adds "peanuts" to ``allergies``,
    "we're vegetarian now" "vegetarian" to ``dietary_restrictions``, "my husband hates
    mushrooms so leave them out" "mushrooms" to ``disliked_ingredients``. Empty for what
    the demo does not know ("just got an air fryer")."""
    text = words.lower().replace("\u2019", "'")
    said: dict[str, list[str]] = {
        "dietary_restrictions": [m.group(0) for m in _DIET.finditer(text)]
        + [f"{m.group('x')}-free" for m in _FREE.finditer(text)],
        "allergies": [p for m in _ALLERGIC.finditer(text) for p in _terms(m.group("x"))],
        "disliked_ingredients": [p for m in _DISLIKES.finditer(text) for p in _terms(m.group("x"))],
    }
    changes = {}
    for column, terms in said.items():
        held = [str(t) for t in (profile or {}).get(column) or []]
        new = [t for t in dict.fromkeys(terms) if t not in {h.lower() for h in held}]
        if new:
            changes[column] = [*held, *new]
    return changes


def _terms(text: str) -> list[str]:
    """The things a list of words names, without articles ("peanuts and shellfish")."""
    parts = (p.split() for p in split_items(text, separators=_SEPARATORS))
    return [" ".join(w for w in p if w not in ("a", "an", "the", "any", "all")) for p in parts if p]


def _with_rules(description: str, rules: list[tuple[str, str]]) -> str:
    labels = ", ".join(Rule(term, source).label() for term, source in rules)
    return f"{description} ({labels})" if labels else description


def _read_rules(description: str) -> tuple[str, list[tuple[str, str]]]:
    """A generate step's description without its rules, and the rules (``_with_rules``)."""
    match = _RULES_TAIL.match(description.strip().rstrip("."))
    base, labels = (match.group("base"), match.group("rules")) if match else (description, "")
    return base, [rule_from_label(label.strip()) for label in (labels or "").split(",") if label]


def _names_text(names: Sequence[str]) -> str:
    """``milk``, ``milk and eggs``, ``milk, eggs and bread``."""
    names = [n for n in names if n]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _plan_steps(start: dt.date, end: dt.date) -> list[ThinkStep]:
    return [
        ThinkStep(description=READ_RECIPES_STEP, step_type="read", subdomain="recipes", group=0),
        ThinkStep(
            description=f"Plan dinners for {start} to {end} in the meal plan",
            step_type="write",
            subdomain="meal_plans",
            group=1,
        ),
    ]


# --- the nodes -------------------------------------------------------------------------------


def _facts(request: LlmRequest, model: type[BaseModel]) -> Any:
    if not isinstance(request.facts, model):
        raise LlmError(
            f"the demo model needs the {request.node} node's {model.__name__} in LlmRequest.facts",
            kind="demo_missing_facts",
            retryable=False,
        )
    return request.facts


def _shown(request: LlmRequest) -> SessionIdRegistry:
    """The registry the node's prompt showed (none: an empty one)."""
    return request.shown if request.shown is not None else SessionIdRegistry()


def understand(
    req: UnderstandRequest, registry: SessionIdRegistry, today: dt.date
) -> UnderstandOutput:
    intent = classify(req.message, registry, req.pending, today)
    if intent.kind == "show" and intent.subdomain:
        return UnderstandOutput(
            quick_mode=True,
            quick_intent=SHOW_INTENT[intent.subdomain],
            quick_subdomain=intent.subdomain,  # type: ignore[arg-type]
        )
    if intent.kind == "ambiguous":
        return UnderstandOutput(
            needs_clarification=True, clarification_questions=[WHICH_ONE_QUESTION]
        )
    if intent.kind == "save_nothing":
        return UnderstandOutput(
            needs_clarification=True, clarification_questions=[SAVE_NOTHING_QUESTION]
        )
    if intent.kind == "save_which":
        return UnderstandOutput(
            needs_clarification=True, clarification_questions=[save_which_question(intent)]
        )
    if intent.kind == "save" and intent.ref:
        return UnderstandOutput(referenced_entities=[intent.ref])
    return UnderstandOutput()


def save_which_question(intent: Intent) -> str:
    return (
        f"{SAVE_WHICH_LEAD}{intent.label}, the recipe I suggested earlier? Say yes to save it, "
        f"or tell me which one you mean."
    )


def think(req: ThinkRequest, registry: SessionIdRegistry, today: dt.date) -> ThinkOutput:
    intent = classify(req.message, registry, req.pending, today)
    kind = intent.kind
    if kind in ("add", "remove") and intent.place:
        # Act adds "2 kg rice" (quantity and unit) but removes by name only.
        texts = [i.text() if kind == "add" else i.name for i in intent.items]
        listed = ", ".join(texts)
        verb, prep = ("Add", "to") if kind == "add" else ("Remove", "from")
        return ThinkOutput(
            goal=f"{verb} {_names_text(texts)} {prep} the {intent.place.words}",
            decision="plan_direct",
            steps=[
                ThinkStep(
                    description=f"{verb} {listed} {prep} the {intent.place.words}",
                    step_type="write",
                    subdomain=intent.place.subdomain,  # type: ignore[arg-type]
                )
            ],
        )
    if kind == "suggest":
        what = f"Suggest a recipe with {intent.wish}" if intent.wish else "Suggest a recipe"
        what = _with_rules(what, intent.rules)
        return ThinkOutput(
            goal=what,
            decision="plan_direct",
            steps=[ThinkStep(description=what, step_type="generate", subdomain="recipes")],
        )
    if kind == "suggest_from_stock":
        what = _with_rules(FROM_STOCK_STEP, intent.rules)
        return ThinkOutput(
            goal=what,
            decision="plan_direct",
            steps=[
                ThinkStep(description=STOCK_STEP, step_type="read", subdomain="inventory"),
                ThinkStep(description=what, step_type="generate", subdomain="recipes", group=1),
            ],
        )
    if kind == "cannot":
        return ThinkOutput(
            goal="Say what the demo model cannot do",
            decision="plan_direct",
            steps=[
                ThinkStep(
                    description=f"{CANNOT_STEP}: {intent.wish}",
                    step_type="analyze",
                    subdomain="recipes",
                )
            ],
        )
    if kind == "save_which":
        return ThinkOutput(
            goal="Save a recipe",
            decision="clarify",
            clarification_questions=[save_which_question(intent)],
        )
    if kind == "save" and intent.ref:
        return ThinkOutput(
            goal=f"Save {intent.label} to your recipes",
            decision="plan_direct",
            steps=[
                ThinkStep(
                    description=f"Save {intent.ref} ({intent.label}) to your recipes",
                    step_type="write",
                    subdomain="recipes",
                )
            ],
        )
    if kind == "save_nothing":
        return ThinkOutput(
            goal="Save a recipe",
            decision="clarify",
            clarification_questions=[SAVE_NOTHING_QUESTION],
        )
    if kind == "plan_week" and intent.week:
        start, end = intent.week
        goal = f"Plan dinners for {day_text(start)} to {day_text(end)}"
        steps = _plan_steps(start, end)
        if intent.confirmed:
            return ThinkOutput(goal=goal, decision="plan_direct", steps=steps)
        rules = avoid_for(req.context.profile).labels()
        fit = f" that fit your preferences ({rules})" if rules else ""
        return ThinkOutput(
            goal=goal,
            decision="propose",
            proposal_message=(
                f"I'll plan dinners for {day_text(start)} to {day_text(end)} using your saved "
                f"recipes{fit}. Shall I?"
            ),
            steps=steps,
        )
    if kind == "show" and intent.subdomain:
        # Understand answers these in quick mode; a plan with one read step says the same.
        what = SHOW_INTENT[intent.subdomain]
        return ThinkOutput(
            goal=what,
            decision="plan_direct",
            steps=[
                ThinkStep(
                    description=what,
                    step_type="read",
                    subdomain=intent.subdomain,  # type: ignore[arg-type]
                )
            ],
        )
    if kind == "decline":
        return ThinkOutput(
            goal="Do nothing",
            decision="plan_direct",
            steps=[ThinkStep(description=DECLINE_STEP, step_type="analyze", subdomain="recipes")],
        )
    # help, and anything reaching Think that Understand would have asked about
    return ThinkOutput(
        goal="Explain what the demo model can do",
        decision="plan_direct",
        steps=[ThinkStep(description=HELP_STEP, step_type="analyze", subdomain="recipes")],
    )


def act_quick(req: ActQuickRequest) -> ActQuickDecision:
    table = SUBDOMAIN_TABLE.get(req.subdomain, "inventory")
    params: dict[str, Any] = {"table": table}
    if table == "meal_plans":
        params["order_by"] = "date"
    return ActQuickDecision(params=params)


def _blocked(details: str, *, code: str = "tool_error", next_: str | None = None) -> ActDecision:
    return ActDecision(action="blocked", reason_code=code, details=details, suggested_next=next_)


def _complete(summary: str, data: Any = None, **extra: Any) -> ActDecision:
    return ActDecision(action="step_complete", result_summary=summary, data=data, **extra)


def _row_names(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r.get("name") or r.get("title") or "") for r in rows if isinstance(r, dict)]


def _recipes_read(prior: list[StepResult]) -> list[dict[str, Any]]:
    """The recipe rows earlier steps of this turn read (each ref once), in reading order.

    A recipe saved from generated content keeps its ``gen_recipe_N`` ref, so any ref counts.
    """
    found: dict[str, dict[str, Any]] = {}
    for result in prior:
        for entry in result.tool_results:
            if entry.tool == "db_read" and entry.table == "recipes":
                for row in entry.rows or []:
                    ref = row.get("id") if isinstance(row, dict) else None
                    if isinstance(ref, str) and ref:
                        found.setdefault(ref, row)
    return list(found.values())


# --- keeping to the profile -------------------------------------------------------------------


def _fits_text(avoid: Avoid) -> str:
    """``your preferences (vegetarian) and your request (no chicken)``."""
    parts = []
    if labels := avoid.labels(("diet", "allergy", "dislike", "time")):
        parts.append(f"your preferences ({labels})")
    if labels := avoid.labels(("asked", "asked_diet", "asked_time")):
        parts.append(f"your request ({labels})")
    return " and ".join(parts)


def _reasons(clashes: Sequence[tuple[str, Rule]]) -> str:
    """``your preferences say vegetarian and you asked for no dairy``."""
    return _names_text(list(dict.fromkeys(rule.reason() for _, rule in clashes)))


def _refusal(avoid: Avoid, wish: str | None, done: str = "suggested") -> str | None:
    """Why the demo will not suggest (or plan) anything, or None: a rule it cannot check, or
    a wish the rules leave out ("a recipe with chicken" for a vegetarian)."""
    if avoid.unknown:
        rules = _names_text([r.reason() for r in avoid.unknown])
        return (
            f"I {done} nothing: {rules}, and the offline demo model can't check its "
            "recipes against that (it knows only common diets and allergens)."
        )
    clashes = avoid.wish_clashes(wish)
    if clashes:
        foods = _names_text([food for food, _ in clashes])
        return (
            f"I won't suggest a recipe with {foods}: {_reasons(clashes)}. I suggested nothing; "
            'ask for something else, for example "suggest a recipe".'
        )
    return None


def _nothing_fits(avoid: Avoid) -> str:
    return (
        f"None of my {len(RECIPES)} built-in recipes fits {_fits_text(avoid)}, so I suggested "
        "nothing (the offline demo model has a small recipe book)."
    )


def _suggest(step: ThinkStep, req: ActRequest) -> ActDecision:
    """A built-in recipe for the wish that keeps to the profile and the message's rules; or
    no recipe, and why."""
    base, asked = _read_rules(step.description)
    avoid = avoid_for(req.context.profile, asked)
    if base == FROM_STOCK_STEP:
        return _suggest_from_stock(req.prior_results, avoid)
    match = _SUGGEST_STEP.match(base)
    wish = match.group("wish") if match else None
    refusal = _refusal(avoid, wish)
    if refusal:
        return _complete(refusal)
    recipe, matched = find_recipe(wish, avoid)
    if recipe is None:
        return _complete(_nothing_fits(avoid))
    fits = _fits_text(avoid)
    if wish and not matched and find_recipe(wish)[1]:
        lead = f"My recipes with {wish} don't fit {fits}, so here is {recipe['name']} instead:"
    elif wish and not matched:
        lead = (
            f"I don't know a recipe with {wish} (I'm the offline demo model with a small "
            f"built-in set), so here is {recipe['name']} instead"
            + (f", which fits {fits}:" if fits else ":")
        )
    else:
        lead = f"Here's an idea that fits {fits}:" if fits else "Here's an idea:"
    return _complete(lead, artifacts=[GeneratedArtifact(type="recipe", content=recipe)])


def _suggest_from_stock(prior: list[StepResult], avoid: Avoid) -> ActDecision:
    """A built-in recipe using what the inventory read found; none when it found nothing."""
    stock = [
        str(row.get("name"))
        for result in prior
        for entry in result.tool_results
        if entry.tool == "db_read" and entry.table == "inventory"
        for row in entry.rows or []
        if isinstance(row, dict) and row.get("name")
    ]
    if not stock:
        return _complete(EMPTY_STOCK)
    refusal = _refusal(avoid, None)
    if refusal:
        return _complete(refusal)
    recipe, matched = find_recipe(" ".join(stock), avoid)
    if recipe is None:
        return _complete(_nothing_fits(avoid))
    have = _names_text(stock[:6])
    fits = f" that fits {_fits_text(avoid)}" if avoid.rules else ""
    if matched:
        lead = f"From what you have ({have}), here's an idea{fits}:"
    else:
        lead = f"None of my built-in recipes uses what you have ({have}); here is one{fits}:"
    return _complete(lead, artifacts=[GeneratedArtifact(type="recipe", content=recipe)])


@dataclass
class Week:
    """What "plan dinners" writes: one row a day, and what it left out and why."""

    rows: list[dict[str, Any]]
    note: str = ""
    """What it left out, and that built-in ideas stand in (empty: nothing to say)."""
    refusal: str | None = None
    """Why it plans nothing at all."""


def plan_week(start: dt.date, end: dt.date, req: ActRequest) -> Week:
    """Seven dinners from the saved recipes read earlier that fit the profile, else from the
    built-in ones that do; a saved recipe that does not fit is left out, and said."""
    avoid = avoid_for(req.context.profile)
    refusal = _refusal(avoid, None, done="planned")
    if refusal:
        return Week([], refusal=refusal)
    saved = _recipes_read(req.prior_results)
    usable = [r for r in saved if avoid.fits(r)]
    left = []
    for recipe in (r for r in saved if r not in usable):
        clashes = avoid.clashes(recipe)
        why = (
            f"{clashes[0][0]}: {clashes[0][1].reason()}"
            if clashes
            else "I can't see its ingredients to check them"
        )
        left.append(f"{recipe.get('name')} ({why})")
    ideas = recipe_names(avoid)
    if not usable and not ideas:
        return Week(
            [],
            refusal=f"I planned nothing: none of your saved recipes or my {len(RECIPES)} "
            f"built-in ones fits {_fits_text(avoid)}.",
        )
    notes = [f"I left out {'; '.join(left)}."] if left else []
    if not usable and avoid.rules:
        notes.append(
            f"With no saved recipe that fits {_fits_text(avoid)}, I pencilled in ideas from "
            'my built-in set that do. Say "suggest a recipe" and then "save it" to build your '
            "collection."
        )
    days = [start + dt.timedelta(days=n) for n in range((end - start).days + 1)]
    rows: list[dict[str, Any]] = []
    for n, day in enumerate(days):
        row: dict[str, Any] = {"date": day.isoformat(), "meal_type": "dinner"}
        if usable:
            row["recipe_id"] = usable[n % len(usable)]["id"]
        else:
            row["notes"] = f"Idea: {ideas[n % len(ideas)]}"
        rows.append(row)
    return Week(rows, note=" ".join(notes))


def _desired_call(step: ThinkStep, req: ActRequest) -> tuple[ToolCall | None, str]:
    """The call this step needs and a short name for the kind of step (for summaries)."""
    description = step.description.strip().rstrip(".")
    if step.step_type == "write":
        match = _ITEM_STEP.match(description)
        if match:
            place = place_for(match.group("place"))
            if match.group("verb") == "Add":
                items = [parse_item(p) for p in split_items(match.group("items"), separators=",")]
                rows = [i.row(place.location) for i in items if i is not None]
                return ToolCall(
                    tool="db_create", params={"table": place.table, "data": rows}
                ), "add"
            names = [p for p in split_items(match.group("items"), separators=",")]
            filters = [{"field": "name", "op": "=", "value": n} for n in names]
            params: dict[str, Any] = {"table": place.table}
            if len(filters) == 1:
                params["filters"] = filters
            else:
                params["or_filters"] = filters
            return ToolCall(tool="db_delete", params=params), "remove"
        ref = _GEN_RECIPE.search(description)
        if ref and step.subdomain == "recipes":
            params = {"table": "recipes", "data": [{"id": ref.group(0)}]}
            return ToolCall(tool="db_create", params=params), "save"
        week = _week(step, req)
        if week is not None:
            params = {"table": "meal_plans", "data": week.rows}
            return ToolCall(tool="db_create", params=params), "plan"
        kept = _PROFILE_STEP.match(description)
        if kept and (changes := profile_changes(kept["words"], req.context.profile)):
            params = {"table": "preferences", "data": changes}
            return ToolCall(tool="db_update", params=params), "profile"
        return None, "unknown"
    if step.step_type == "read":
        table = SUBDOMAIN_TABLE.get(step.subdomain, "inventory")
        params = {"table": table}
        if table == "recipes":
            # The ingredients and times, to check each recipe against the profile.
            columns = ["name", "cuisine", "prep_time_minutes", "cook_time_minutes"]
            params.update(columns=[*columns, "recipe_ingredients"], order_by="name")
        if table == "meal_plans":
            params["order_by"] = "date"
        return ToolCall(tool="db_read", params=params), "read"
    return None, "unknown"


def _week(step: ThinkStep, req: ActRequest) -> Week | None:
    match = _PLAN_STEP.match(step.description.strip().rstrip("."))
    if step.step_type != "write" or match is None:
        return None
    start = dt.date.fromisoformat(match.group("start"))
    return plan_week(start, dt.date.fromisoformat(match.group("end")), req)


def _summary(kind: str, step: ThinkStep, entry: ToolEntry, req: ActRequest) -> ActDecision:
    rows = list(entry.rows or [])
    count = int(entry.count or len(rows))
    names = _row_names(rows)
    table = entry.table or ""
    refs = [str(r["id"]) for r in rows if r.get("id")]
    data = {"refs": refs, "text": f"{count} row(s) of {table}: {', '.join(names)}".rstrip(": ")}
    if kind == "save":
        name = names[0] if names else "the recipe"
        return _complete(f"Saved {name} to your recipes.", data)
    if kind == "plan":
        week = _week(step, req)
        note = week.note if week is not None else ""
        # Reply says the note under the week.
        return _complete(
            f"Planned {count} dinners in the meal plan.", data, note_for_next_step=note or None
        )
    if kind == "profile":
        return _complete(f"Noted in your preferences: {_profile_text(entry)}.", data)
    where = "the shopping list" if table == "shopping_list" else f"the {table}"
    if kind == "remove":
        if not count:
            return _complete(f"Nothing matched, so nothing was removed from {where}.", data)
        return _complete(f"Removed {count} from {where}: {', '.join(names)}.", data)
    if kind == "add":
        return _complete(f"Added {count} to {where}: {', '.join(names)}.", data)
    noun = step.subdomain.replace("_", " ")
    if not count:
        return _complete(f"Found no {noun}.", data)
    return _complete(f"Found {count} {noun}: {', '.join(names)}.", data)


def act(req: ActRequest) -> ActDecision:
    step = req.plan[req.step_index]
    calls = [e for e in req.tool_results if e.tool is not None]
    if calls and calls[-1].error:
        return _blocked(
            calls[-1].error,
            next_="Try rephrasing the request; the demo model only knows a few patterns.",
        )
    if step.step_type == "generate":
        return _suggest(step, req)
    if step.step_type == "analyze":
        if step.description == DECLINE_STEP:
            return _complete("Nothing to do: the user declined.", {"refs": [], "text": DECLINED})
        if step.description.startswith(f"{CANNOT_STEP}: "):
            asked = step.description.removeprefix(f"{CANNOT_STEP}: ")
            return _complete("Nothing done: beyond the demo model.", {"text": cannot_text(asked)})
        return _complete(
            "The offline demo model understands a few request patterns.",
            {"refs": [], "text": "; ".join(CAPABILITIES)},
        )
    week = _week(step, req)
    if week is not None and week.refusal:
        return _complete(week.refusal)  # nothing to write, and the reason
    call, kind = _desired_call(step, req)
    if call is None:
        return _blocked(
            f"the offline demo model cannot carry out the step {step.description!r}",
            code="demo_unsupported",
            next_="Ask in one of the ways the demo understands (say 'help' to see them).",
        )
    table = call.params.get("table")
    for entry in reversed(calls):
        if entry.tool == call.tool and entry.table == table:
            return _summary(kind, step, entry, req)
    if len(calls) >= MAX_DEMO_TOOL_CALLS:
        return _blocked(
            f"the demo model's {call.tool} on {table} did not produce a result",
            code="demo_gave_up",
        )
    return ActDecision(action="tool_call", tool_call=call)


# --- Reply -----------------------------------------------------------------------------------


def _amount_name(row: dict[str, Any]) -> str:
    amount = "" if row.get("quantity") in (None, "") else _number_text(row["quantity"])
    return " ".join(
        p for p in (amount, str(row.get("unit") or ""), str(row.get("name") or "")) if p
    )


def _place_phrase(table: str, rows: list[dict[str, Any]], prep: str) -> str:
    if table == "shopping_list":
        return f"{prep} your shopping list"
    locations = {str(r.get("location") or "") for r in rows}
    if len(locations) == 1 and (only := locations.pop()) in ("pantry", "fridge", "freezer"):
        return f"{prep} your {only}"
    return f"{prep} your inventory"


def _write_entries(result: StepResult) -> list[ToolEntry]:
    return [e for e in result.tool_results if e.succeeded_write()]


def _requested_names(params: dict[str, Any]) -> list[str]:
    filters = list(params.get("filters") or []) + list(params.get("or_filters") or [])
    return [
        str(f.get("value")) for f in filters if isinstance(f, dict) and f.get("field") == "name"
    ]


def _reply_write(entry: ToolEntry, note: str = "") -> str:
    tool, table = entry.tool, entry.table or ""
    rows = list(entry.rows or [])
    if table == "recipes" and tool == "db_create":
        if not rows:
            return "Nothing was saved."
        return " ".join(f"Saved {r.get('name') or 'the recipe'} to your recipes." for r in rows)
    if table == "meal_plans" and tool == "db_create":
        return _reply_week(rows, note)
    if table in ("shopping_list", "inventory") and tool == "db_create":
        if not rows:
            return f"Nothing was added {_place_phrase(table, rows, 'to')}."
        names = _names_text([_amount_name(r) for r in rows])
        return f"Added {names} {_place_phrase(table, rows, 'to')}."
    if table == "preferences" and tool == "db_update":
        return (
            f"Noted in your preferences: {_profile_text(entry)}. "
            "What I suggest and plan keeps to them."
        )
    if table in ("shopping_list", "inventory") and tool == "db_delete":
        asked = _requested_names(dict(entry.params or {}))
        removed = {str(r.get("name") or "").lower() for r in rows}
        missing = [n for n in asked if n.lower() not in removed]
        where = "on your shopping list" if table == "shopping_list" else "in your inventory"
        if not rows:
            return (
                f"Nothing matched {_names_text(asked) or 'that'} {where}, so nothing was removed."
            )
        order = {n.lower(): i for i, n in enumerate(asked)}
        names = sorted(_row_names(rows), key=lambda n: (order.get(n.lower(), len(order)), n))
        text = f"Removed {_names_text(names)} {_place_phrase(table, rows, 'from')}."
        if missing:
            text += f" Nothing matched {_names_text(missing)}."
        return text
    return formatters.format_write_confirmation(str(tool), table, rows)


def _profile_text(entry: ToolEntry) -> str:
    """What a write to the profile set: "allergies: peanuts; dietary restrictions: vegan"."""
    data = dict((entry.params or {}).get("data") or {})
    return "; ".join(f"{c.replace('_', ' ')}: {', '.join(map(str, v))}" for c, v in data.items())


def _reply_week(rows: list[dict[str, Any]], note: str = "") -> str:
    if not rows:
        return "Nothing was added to your meal plan."
    ordered = sorted(rows, key=lambda r: str(r.get("date") or ""))
    first, last = str(ordered[0].get("date")), str(ordered[-1].get("date"))
    lines = [
        f"Planned {len(rows)} dinners for {_weekday(first)} to {_weekday(last)}:",
    ]
    for row in ordered:
        what = str(row.get("_recipe_id_label") or "") or str(row.get("notes") or "") or "a recipe"
        lines.append(f"- {_weekday(str(row.get('date')))}: {what}")
    text = "\n".join(lines)
    if note:
        text += f"\n\n{note}"
    elif not any(row.get("recipe_id") for row in rows):
        text += (
            "\n\nYou have no saved recipes yet, so I pencilled in ideas from my built-in set. "
            'Say "suggest a recipe with …" and then "save it" to build your collection.'
        )
    return text


def _weekday(iso: str) -> str:
    try:
        return day_text(dt.date.fromisoformat(iso[:10]))
    except ValueError:
        return iso


def _reply_recipe(result: StepResult) -> str:
    """The recipe in full under Act's lead ("Here's an idea that fits ..."), or, with no
    recipe, Act's reason why not."""
    contents = result.data if isinstance(result.data, dict) else {}
    parts: list[str] = []
    for content in contents.values():
        if not isinstance(content, dict):
            continue
        row = {**content, "recipe_ingredients": content.get("ingredients") or []}
        shown = formatters.format_quick_result("recipes", "recipes", [row]) or str(
            content.get("name")
        )
        parts.append(f"{result.summary}\n\n{shown}\n\n{SAVE_HINT}")
    return "\n\n".join(parts) or result.summary or "I couldn't come up with a recipe."


def _reply_step(result: StepResult, later_writes: bool) -> str:
    if result.outcome != "completed":
        return result.summary
    if result.step_type == "generate":
        return _reply_recipe(result)
    if result.step_type == "analyze":
        if isinstance(result.data, dict) and result.data.get("text") == DECLINED:
            return formatters.format_rejection()
        if isinstance(result.data, dict) and str(result.data.get("text", "")).startswith(
            CANNOT_LEAD
        ):
            return str(result.data["text"])
        return HELP_TEXT
    if result.step_type == "write":
        texts = [_reply_write(e, result.note or "") for e in _write_entries(result)]
        return " ".join(texts) or result.summary
    if later_writes:
        return ""  # a read that fed a later write: the write's reply says it all
    for entry in result.tool_results:
        if entry.tool == "db_read" and entry.rows is not None:
            text = formatters.format_quick_result(result.subdomain, str(entry.table), entry.rows)
            if text:
                return text
    return result.summary


def reply(req: ReplyRequest) -> ReplyOutput:
    parts: list[str] = []
    if req.quick_result is not None:
        rows = req.quick_result.rows or []
        table = req.quick_result.table or ""
        text = formatters.format_quick_result(table, table, rows) if table else None
        parts.append(text or f"I found {len(rows)} rows.")
    steps = sorted(req.step_results, key=lambda r: r.step_index)
    for n, result in enumerate(steps):
        # A read that fed a later write or suggestion: that step's reply says it all.
        later_writes = any(s.step_type in ("write", "generate") for s in steps[n + 1 :])
        text = _reply_step(result, later_writes)
        if text:
            parts.append(text)
    if req.blocked:
        details = req.blocked.details or "something went wrong"
        text = f"I couldn't finish that: {details}."
        if req.blocked.suggested_next:
            text += f" {req.blocked.suggested_next}"
        parts.append(text)
    response = "\n\n".join(p for p in parts if p).strip()
    return ReplyOutput(response=response or "Done.")


# --- Summarize and compress ------------------------------------------------------------------


def summarize(req: SummarizeRequest) -> SummarizeOutput:
    words = req.record.assistant_response.split()
    message = " ".join(req.record.user_message.split())
    if len(message) > 160:
        message = message[:157] + "..."
    return SummarizeOutput(
        assistant_summary=" ".join(words[:100]),
        engagement_summary=f'Using the offline demo model; last request: "{message}".',
        conversation_phase="executing" if req.step_results else "exploring",
        user_expressed="",
    )


_DONE = re.compile(r"\b(done|finished|stop|that's it|thats it)\b", re.IGNORECASE)
_KEEP = re.compile(r"\b(save|keep|let's make|lets make)\b", re.IGNORECASE)


def bypass(req: BypassRequest) -> BypassOutput:
    """cook: the next instruction of the session's recipe; brainstorm: built-in ideas."""
    session, text = req.session, req.message
    if req.mode == "cook":
        recipe = session.recipe
        if _DONE.search(text):
            name = recipe.get("name", "the dish") if recipe else "nothing"
            return BypassOutput(
                response="Enjoy your meal!",
                exit=True,
                handoff=Handoff(summary=f"Cooked {name}.", action="close"),
            )
        if recipe is None:
            return BypassOutput(response="Which recipe shall we cook? Mention it with @.")
        steps = list(recipe.get("instructions") or [])
        done = len(session.history)
        if done >= len(steps):
            return BypassOutput(response="That was the last step. Say 'done' when you are.")
        return BypassOutput(response=f"Step {done + 1} of {len(steps)}: {steps[done]}")
    if _DONE.search(text) and not _KEEP.search(text):
        return BypassOutput(
            response="Good brainstorm!",
            exit=True,
            handoff=Handoff(summary="Brainstormed ideas; nothing to keep.", action="close"),
        )
    rest, asked = message_rules(normalize(text))
    avoid = avoid_for(req.context.profile, asked)
    wish = wish_text(rest)
    refusal = _refusal(avoid, wish)
    idea, _ = find_recipe(wish, avoid)
    if refusal or idea is None:
        return BypassOutput(response=refusal or _nothing_fits(avoid))
    if _KEEP.search(text):
        return BypassOutput(
            response=f"Let's keep {idea['name']}.",
            exit=True,
            handoff=Handoff(summary=f"Settled on {idea['name']}.", action="save", recipe=idea),
        )
    others = [n for n in recipe_names(avoid) if n != idea["name"]][:3]
    more = f" — or {', '.join(others)}" if others else ""
    fits = f" (all fit {_fits_text(avoid)})" if avoid.rules else ""
    return BypassOutput(response=f"Ideas: {idea['name']}{more}{fits}. Say 'save that' to keep one.")


def compress(user: str) -> CompressOutput:
    """One sentence from compress's context (``## User`` section, else the first line)."""
    lines = [line.strip() for line in user.splitlines()]
    said = ""
    if "## User" in lines:
        start = lines.index("## User") + 1
        body = []
        for line in lines[start:]:
            if line.startswith("## "):
                break
            body.append(line)
        said = " ".join(" ".join(body).split())
    said = said or next((line for line in lines if line and not line.startswith("#")), "")
    if len(said) > 150:
        said = said[:147] + "..."
    return CompressOutput(summary=f'The user asked: "{said}".' if said else "An earlier turn.")


# --- the provider ----------------------------------------------------------------------------


class DemoProvider:
    """The offline demo model: fixed rules over the user's words, not a language model.

    ``today`` gives the date "plan my dinners for next week" counts from (default: the
    clock; activities may read it). ``calls`` records every request, like the script
    provider's, so tests can check which nodes ran.
    """

    name = "demo"

    def __init__(self, today: Callable[[], dt.date] | None = None) -> None:
        self._today = today or dt.date.today
        self.calls: list[LlmRequest] = []

    async def complete(self, request: LlmRequest) -> LlmReply:
        self.calls.append(request)
        output = self._output(request)
        # Answered as a model would: in the answer's shape, read back by the gateway.
        answer = request.answer.from_output(output)
        stream_whole(request, answer)
        return LlmReply(content=answer, model=MODEL_NAME, usage=Usage())

    def _output(self, request: LlmRequest) -> BaseModel:
        node = request.node
        if node == "understand":
            return understand(_facts(request, UnderstandRequest), _shown(request), self._today())
        if node == "think":
            return think(_facts(request, ThinkRequest), _shown(request), self._today())
        if node == "act":
            return act(_facts(request, ActRequest))
        if node == "act_quick":
            return act_quick(_facts(request, ActQuickRequest))
        if node == "reply":
            return reply(_facts(request, ReplyRequest))
        if node == "summarize":
            return summarize(_facts(request, SummarizeRequest))
        if node == "compress":
            return compress(request.user)
        if node in ("cook", "brainstorm"):
            return bypass(_facts(request, BypassRequest))
        raise LlmError(
            f"the demo model has no rules for node {node!r}",
            kind="demo_unsupported",
            retryable=False,
        )
