"""The rules the system holds Act's decisions to: what needs no judgment in a step's
calls, their ends and what they save (seed 004, "LLMs interpret, don't own"; the
package's ``__init__`` says how the rules run).

- **A call that repeats the step's last call is the step's end** (seed 000's circuit
  breakers stop a loop; this one needs none): when that call succeeded, the same read
  returns what the step has just seen and the same write is refused as done. Act's
  decision is held as ``step_complete``, summarized from what the call returned, so the
  step completes with its results instead of looping into the tool-call limit. When that
  call was refused (a validation error: the same call is refused the same way), the
  decision is held as ``blocked`` with the refusal, and the reply says why, as it is
  when a write that matched no row is sent again (its note names the rows that share a
  word with the name it gave); but a read
  step that has read its own subdomain's tables has done its job, and completes with
  that read (the 1.5B local model read the inventory, then tried recipes by an
  inventory ref twice: the step was blocked, and the turn with it). (A changed call
  after a refused one, or a call after another call, runs: it may be the retry that
  works.)
- **A step creates a row once**: a create of rows the step, or an earlier step of the
  turn, has already created (the same rows by the table's identity columns,
  ``made_already.SAME_ROW``, whatever their refs or other columns) ends the step the
  same way; sent again, they would be created twice. So does a write that sets only
  values the rows the step has just written already hold (``holds_already``): the 1.5B
  local model saved a peanut allergy to the profile, then set the same columns again,
  three calls, until the step's call limit.
- **A saved recipe comes from somewhere** (seed 003: generated content is saved by its
  ``gen_`` ref once the user asks): a recipe created inline whose name shares no word with
  what the user said, the last turns, a handoff or unsaved generated content
  (``act_facts``; ``domain.step_checks.invented_recipe``) was made up by the model; the
  decision is held as ``blocked`` (``nothing_to_save``), and the reply says there was
  nothing to save. "save it" after a chat that handed nothing off was answered with an
  "Example Recipe" saved by the 1.5B local model.
- **A copy of an unsaved recipe is that recipe** (seed 003: generated content is saved
  by its ``gen_`` ref): a create whose recipe row names an unsaved generated recipe (its
  name, or its name and more) is sent with that row as the gen ref (``by_ref``), so the
  recipe is saved as generated and marked saved, once. The 1.5B local model saved the
  suggestion as a copy, then a copy "… with Feta": two recipes, the suggestion unsaved.
- **A revision changes something** (seed 003: unsaved content is revised in place): a
  generate step's completion that gives back unsaved content exactly as it was, and
  nothing else (``unchanged``), is asked for once more in the act activity, told that
  the change was not made; unchanged again, the step is blocked (``unchanged``), and the
  reply says the change was not made. For "add feta to it", the 1.5B local model returned
  the suggestion unchanged and its reply spoke of the feta.
- **Generated content names what exists** (seed 003's refs): a generate step's content
  that names a ref nothing has (a meal on ``gen_recipe_1`` when no recipe has that ref:
  ``unknown_refs``) is sent back once, in the act activity, with the refs that do not
  exist; the second answer stands (the write that saves it is refused the same way).
  The 1.5B local model planned dinners on invented recipe refs after a read that found
  no recipes.
- **A write that matched nothing is asked about once**: sent again unchanged, it is sent
  back in the act activity with its note (what is there: ``unmatched_note``); unchanged
  a second time, the step is blocked as above. The 1.5B local model sent "chili recipe"
  twice for "Weeknight Chili". When the note names one row whose name holds every word
  the write named ("yogurt" and the one 'greek yogurt'), the write sent again runs on
  that row instead (``aimed``): the words can mean no other. A read of recipes by a
  one-word name no recipe shares, sent again, reads the recipes the note lists as made
  with it ("spinach": 'Red Lentil Dal').
- **A write step writes** (seed 000's act loop: a step's calls make progress): a write
  step's read that repeats a read the step has made, before any write, can only show
  the same rows, so it is sent back once in the act activity, told that the step is a
  write (``reread_note``); the second answer stands (the same read again ends the step,
  as above). For "butter and flour on the shopping list pls" the 1.5B local model read
  the empty list twice in its write step, and nothing was added.
- **A read asks something** (seed 000's act loop): a read whose null test is on a column
  no row leaves empty (``completed is_not_null``) keeps every row or none, so it is sent
  back once, unrun, in the act activity, told to compare with a value (``idle_read``);
  the same read again runs, with the note. The 1.5B local model read the tasks "not
  completed" that way, twice, and the done task was listed as open.
- **What is held is changed, not added beside** (seed 004): a create in the inventory of
  an item it holds already, named by words that add none ("the eggs actually go off on
  thursday"), is sent back once (``created_beside``); sent again, it runs. The 1.5B local
  model added a carton of eggs to the pantry beside the six in the fridge.
- **An amount scaled or said is set** (seed 004: arithmetic needs no judgment): a write
  step's end (its completion, or a write it has made or that sets only what the rows
  hold) while an amount of its tables that the words scale ("double the lentils") or set
  ("dal should be 250g lentils not 200"; ``domain.kitchen.scaled``) is not at the value
  they give is sent back once, in the act activity, with each amount left
  (``scaled_left``); the end sent again stands. For "make the dal serve 6 and double the
  lentils" the 1.5B local model set the servings to 6 twice, and the lentils stayed
  200 g; for the 250 g it set the dal's description twice, and the reply said done.
- **An amount is the user's to give** (seed 000: Act asks when a value is missing): an
  update that sets a quantity (not none left) when the user's words, with this turn's
  answers, ask to change an amount and hold no number
  (``domain.step_checks.unsaid_amount``) is held as ``ask_user`` ("How much should the
  milk be now?"). For "change the amount of milk I have", the 1.5B
  local model set the milk to the 1 litre it already was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from domain.conversation import ConversationState, StepResult
from domain.crud.calls import WRITE_TOOLS, DbRead, cut_total, was_cut_short
from domain.crud.filters import never_empty
from domain.enforced.aimed import aimed, naming
from domain.enforced.made_already import (
    EARLIER_NOTE,
    created_already,
    created_earlier,
    grown_after_made,
    holds_already,
    plain,
    set_before,
    starts_with,
    table_of,
)
from domain.enforced.read_filters import DAY_COLUMNS
from domain.formatters import format_write_confirmation
from domain.intent import (
    asks_to_see,
    change_kinds,
    dish_wants,
    requested_change,
    requested_content,
)
from domain.kitchen.dated import DATED, moved_date, moved_wrong
from domain.kitchen.scaled import amounts_left
from domain.kitchen.tables import ONE_ROW_TABLES, SUBDOMAINS, TABLES
from domain.modes import MAX_TOOL_CALLS_PER_STEP
from domain.nodes import ActDecision, ThinkStep, ToolCall
from domain.recipe_fit import asked_in, breaches, diet_words, left_out, servings_asked
from domain.registry.refs import canonical_uuid, is_ref, parse_ref
from domain.relative_days import moves_said
from domain.step_checks import invented_recipe, refs_claimed, unsaid_amount, write_key
from domain.tool_results import ToolEntry

CRUD_TOOLS = frozenset({"db_read", *WRITE_TOOLS})


@dataclass(frozen=True)
class ActFacts:
    """What the system knows besides Act's decision when it holds one (``hold_act``)."""

    message: str = ""
    """The user's words, with this turn's answers."""
    grounds: tuple[str, ...] = ()
    """The words a recipe saved this step may come from (``act_facts``)."""
    unsaved: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Unsaved generated content, by gen ref."""
    step: ThinkStep | None = None
    """The step Act decides for."""
    earlier: tuple[ToolEntry, ...] = ()
    """The successful creates of this turn's earlier steps (``created_earlier``)."""


def act_facts(
    message: str,
    conversation: ConversationState,
    unsaved: Mapping[str, Mapping[str, Any]],
    prior_results: Sequence[StepResult],
    tool_results: Sequence[ToolEntry],
    step: ThinkStep | None = None,
) -> ActFacts:
    """The facts for one Act decision. Its grounds: the message, the last turns, the
    bypass session or its handoff, unsaved generated content, and what this turn's steps
    found (a recipe read to be copied); never a write the step sent, or a made-up recipe
    sent twice would name itself."""
    texts = [message]
    for record in conversation.recent_turns:
        texts += [record.user_message, record.assistant_response]
    if conversation.bypass is not None:
        for exchange in conversation.bypass.history:
            texts += [exchange.user, exchange.assistant]
    if conversation.handoff is not None:
        texts.append(conversation.handoff.summary)
    found: list[Any] = [unsaved, [r.model_dump(mode="json") for r in prior_results]]
    found += [t.model_dump(mode="json") for t in tool_results if t.tool not in WRITE_TOOLS]
    if conversation.handoff is not None and conversation.handoff.recipe:
        found.append(conversation.handoff.recipe)
    texts.append(json.dumps(found, default=str))
    earlier = tuple(
        t for r in prior_results for t in r.tool_results if t.tool == "db_create" and not t.failed
    )
    return ActFacts(
        message=message, grounds=tuple(texts), unsaved=unsaved, step=step, earlier=earlier
    )


INGREDIENTS = re.compile(r"\bingredients?\b", re.IGNORECASE)


def with_ingredients(call: ToolCall, step: ThinkStep | None) -> ToolCall:
    """A read of recipes for a step that names their ingredients, with the ingredients
    among its columns. For "what can I cook with what I have?", the step "Read every
    recipe … with its ingredient list" read name, cuisine and cook time, and the next
    step said both recipes could be cooked from an inventory that held neither's."""
    params = call.params
    columns = params.get("columns")
    if call.tool != "db_read" or params.get("table") != "recipes":
        return call
    if step is None or not INGREDIENTS.search(step.description):
        return call
    if not isinstance(columns, list):  # every column: and the ingredients
        return call.model_copy(update={"params": {**params, "columns": ["*", "ingredients"]}})
    if {"ingredients", "recipe_ingredients"} & {str(c) for c in columns}:
        return call
    return call.model_copy(update={"params": {**params, "columns": [*columns, "ingredients"]}})


def by_ref(call: ToolCall, unsaved: Mapping[str, Mapping[str, Any]]) -> ToolCall:
    """A create of recipes whose rows copy unsaved generated recipes, with those rows as
    the recipes' gen refs: the copy of "Quick Vegetarian Dinner for Two" (its name, or
    its name and more words: "… with Feta") is that recipe, saved as it was generated and
    marked saved, not a second recipe beside it. Meal plan rows likewise
    (``_meals_by_ref``)."""
    rows = call.params.get("data")
    if call.tool != "db_create" or not isinstance(rows, list):
        return call
    if call.params.get("table") == "meal_plans":
        return _meals_by_ref(call, rows, unsaved)
    if call.params.get("table") != "recipes":
        return call
    names = {
        _name(content): ref
        for ref, content in unsaved.items()
        if (parts := parse_ref(ref)) and parts.generated and parts.type_name == "recipe"
    }
    changed, taken = [], set()
    for row in rows:
        named = (
            _name(row) if isinstance(row, Mapping) and not any(map(is_ref, row.values())) else ""
        )
        ref = next((r for n, r in names.items() if named and starts_with(named, n)), None)
        if ref is not None and ref not in taken:
            taken.add(ref)
            row = {"id": ref}
        changed.append(row)
    if not taken:
        return call
    return call.model_copy(update={"params": {**call.params, "data": changed}})


def _meals_by_ref(
    call: ToolCall, rows: list[Any], unsaved: Mapping[str, Mapping[str, Any]]
) -> ToolCall:
    """A create of meal plan rows that copy unsaved generated meals (the one meal of a
    row's date and meal type), with those rows as the meals' gen refs, when the row links
    that meal's recipe, none, or a ref that is no recipe's: the 1.5B local model wrote a
    week of chosen dinners out again with ``recipe_id: gen_meal_1``, was refused (a meal
    is no recipe), sent the same, and saved none. A row that links another recipe than
    its meal's is a change of choice and stays as written."""
    meals: dict[tuple[str, str], list[str]] = {}
    for ref, content in unsaved.items():
        if (parts := parse_ref(ref)) and parts.generated and parts.type_name == "meal":
            meals.setdefault(_meal_key(content), []).append(ref)
    changed, taken = [], set()
    for row in rows:
        found = meals.get(_meal_key(row), []) if isinstance(row, Mapping) else []
        if len(found) == 1 and found[0] not in taken and not row.get("id"):
            link, own = row.get("recipe_id"), unsaved[found[0]].get("recipe_id")
            kind = parse_ref(link)
            if link in (None, "", own) or (kind is not None and kind.type_name != "recipe"):
                taken.add(found[0])
                row = {"id": found[0]}
        changed.append(row)
    if not taken:
        return call
    return call.model_copy(update={"params": {**call.params, "data": changed}})


def _meal_key(row: Mapping[str, Any]) -> tuple[str, str]:
    return (plain(row.get("date")), plain(row.get("meal_type")).lower())


def _name(row: Any) -> str:
    name = row.get("name") if isinstance(row, Mapping) else None
    return " ".join(name.lower().split()) if isinstance(name, str) else ""


def unchanged(
    decision: ActDecision, unsaved: Mapping[str, Mapping[str, Any]], message: str
) -> list[str]:
    """The unsaved content a generate step's completion gives back exactly as it was, when
    that is all it gives (empty otherwise): a revision that changed nothing. Not when the
    message only asks to see it ("show me that recipe again", ``asks_to_see``)."""
    if decision.action != "step_complete" or not decision.artifacts or asks_to_see(message):
        return []
    same = [
        next((ref for ref, content in unsaved.items() if content == artifact.content), None)
        for artifact in decision.artifacts
    ]
    return [ref for ref in same if ref is not None] if all(same) else []


def unchanged_note(refs: Sequence[str], unfit: Mapping[str, Sequence[str]] | None = None) -> str:
    """What Act is told when its revision came back unchanged, with what it still lacks
    when that is known (``unfit_recipes``: "Vegetarian Quinoa Bowl leaves out feta"): told
    only that the change was not made, the 1.5B local model gave the dinner back without
    the feta again."""
    lacks = "; ".join(f"{name} {' and '.join(wrong)}" for name, wrong in (unfit or {}).items())
    return (
        f"not complete: {', '.join(refs)} came back exactly as it was: the change this step "
        f"asks for was not made{f' ({lacks})' if lacks else ''}. Return the content with the "
        "change made."
    )


def unknown_refs(decision: ActDecision, known: Container[str]) -> list[str]:
    """The refs a generate step's content names that exist nowhere: not in the registry,
    not another item of the same completion (a meal on "gen_recipe_1" when no recipe has
    that ref)."""
    if decision.action != "step_complete" or not decision.artifacts:
        return []
    own = {a.ref for a in decision.artifacts if a.ref}
    named = refs_claimed([a.content for a in decision.artifacts])
    return [ref for ref in named if ref not in known and ref not in own]


def unfit_recipes(
    decision: ActDecision, message: str, profile: Mapping[str, Any] | None
) -> dict[str, list[str]]:
    """What is wrong, by each recipe's name, with the recipes a generate step's
    completion gives, against the user's words and profile (``domain.recipe_fit``): what
    their diet or allergies rule out in its name, ingredients or instructions, and a
    number of servings other than the people the words give, or what the words ask to
    add left out (the 1.5B revised a dinner for "add feta to it" with no feta). For "suggest a quick
    vegetarian dinner for two" the 1.5B local model invented a "Vegetarian Quinoa Bowl"
    with cooked chicken breast, serving 4."""
    if decision.action != "step_complete" or not decision.artifacts:
        return {}
    words = diet_words(message, profile)
    people = servings_asked(message)
    asked = asked_in(message)
    found: dict[str, list[str]] = {}
    for artifact in decision.artifacts:
        if artifact.type != "recipe":
            continue
        content = artifact.content
        wrong = [f"holds {w} (ruled out: {why})" for w, why in breaches(content, words).items()]
        wrong += [
            f"leaves out {thing}, which the user asked to add" for thing in left_out(content, asked)
        ]
        serves = content.get("servings")
        if people is not None and isinstance(serves, int) and serves != people:
            wrong.append(f"serves {serves}, where the user asked for {people}")
        if wrong:
            found[str(content.get("name") or artifact.ref or "the recipe")] = wrong
    return found


def unfit_note(unfit: Mapping[str, Sequence[str]]) -> str:
    """What Act is told when a recipe it invented does not fit the words or profile."""
    said = "; ".join(f"{name} {' and '.join(wrong)}" for name, wrong in unfit.items())
    return (
        f"not complete: {said}. Return the recipe with that put right: nothing ruled out in "
        "its name, ingredients or instructions, what the user asked to add in them, and the "
        "servings the user asked for."
    )


def completion_note(
    decision: ActDecision,
    unsaved: Mapping[str, Mapping[str, Any]],
    message: str,
    known: Container[str],
    profile: Mapping[str, Any] | None = None,
) -> str | None:
    """Why a generate step's completion is sent back once (None when it is not): it gave
    back unsaved content unchanged, its content names refs that do not exist, or a recipe
    does not fit the user's words or profile (``unfit_recipes``)."""
    unfit = unfit_recipes(decision, message, profile)
    if same := unchanged(decision, unsaved, message):
        return unchanged_note(same, unfit)
    if unfit:
        return unfit_note(unfit)
    if missing := unknown_refs(decision, known):
        return (
            f"not complete: the content names refs that do not exist: {', '.join(missing)}. "
            "Name only refs this prompt shows (read ones such as recipe_1, or an item of "
            "this answer), or leave the field empty."
        )
    return None


def uncalled_note(
    decision: ActDecision, step_type: str, tool_results: Sequence[ToolEntry]
) -> str | None:
    """Why a read or write step's completion is sent back once (None when it is not): it
    made no call to the database at all (nor retrieved a step or archive), so nothing it
    claims was found or done is known. For "called the plumber, that's sorted" the 1.5B
    local model completed "Mark the task 'Call the plumber' as completed" with no call,
    saying it was marked; the task stayed open. For "what's still on my to-do list?",
    its read sent back unrun (``idle_read``), it completed "Read the tasks not completed"
    saying there were none: the user was told of no tasks, two open."""
    if decision.action != "step_complete" or step_type not in ("read", "write"):
        return None
    if any(
        t.tool in CRUD_TOOLS or t.retrieved_step is not None or t.archive_key for t in tool_results
    ):
        return None  # it read, wrote or retrieved: what it found is its own to judge
    if step_type == "read":
        return (
            "not complete: this step has not read the database yet, so nothing it says "
            "was found is known. Send its db_read now, or block the step if it cannot be "
            "done."
        )
    return (
        "not complete: this step has not called the database yet, so nothing it says was "
        "done has happened. Make its write now (db_create, db_update or db_delete; a read "
        "first if you need a row's ref), or block the step if it cannot be done."
    )


CHANGE_STEP = re.compile(
    r"^\s*(?:mark|tick|cross|check off|update|change|rename|move|reschedule|postpone|"
    r"complete|lower|reduce|increase|decrease|set(?!\s+up\b))\b",
    re.IGNORECASE,
)
"""A write step's description that changes rows already there: "Mark the paper towels as
bought", "Set the eggs' quantity to 2" (not "Set up a task", which adds one)."""


ADD_STEP = re.compile(
    r"^\s*(?:add|put|include|insert|stir|throw|stick|chuck|pop|plan|schedule|create)\b", re.I
)
"""A write step's description that adds rows: ingredients of a recipe ("Add a teaspoon of
cumin to the dal"), a meal planned ("Add Red Lentil Dal to the meal plan for Friday"),
things on the list. A rename, a change, a move or a delete names rows already there
("Change the date of the Red Lentil Dal row")."""


def adds_rows(step: ThinkStep | None) -> bool:
    """Whether ``step`` is a write that adds rows (``ADD_STEP``)."""
    return step is not None and step.step_type == "write" and bool(ADD_STEP.match(step.description))


def _update(decision: ActDecision) -> ToolCall | None:
    """The db_update ``decision`` sends, or None."""
    call = decision.tool_call
    if decision.action != "tool_call" or call is None or call.tool != "db_update":
        return None
    return call


def updated_for_an_add(decision: ActDecision, step: ThinkStep | None) -> str | None:
    """Why an update is sent back once (None when it is not): the step adds to a recipe
    (``ADD_STEP`` in recipes), whose ingredients are rows of their own. For "add a teaspoon
    of cumin to the dal", planned as "Add a teaspoon of cumin to the Red Lentil Dal recipe,
    one row", the 1.5B local model set the quantity of one of the dal's ingredients to 1,
    and the reply said the cumin was added. Sent again, the update runs: a step may mean
    an ingredient already there grows. Not for the stock, the list or the profile, where
    an add is often an update (more eggs, a diet added to the profile's one row), nor for
    the recipe's own row ("add a step to the dal" sets its instructions)."""
    call = _update(decision)
    if call is None:
        return None
    if not adds_rows(step) or step is None or step.subdomain != "recipes":
        return None
    if call.params.get("table") != "recipe_ingredients":  # the recipe's own row: a step
        return None
    return (
        f'not made: the step is "{step.description}", which adds rows, and db_update '
        "changes rows already there. Add them with db_create; if the step means a row "
        "already there grows, send this db_update again."
    )


REMOVE_STEP = re.compile(r"^\s*(?:remove|delete|drop|take|erase|clear)\b", re.IGNORECASE)
"""A write step's description that removes rows ("Remove the onion row from the Red Lentil
Dal recipe", "Delete the plumber task")."""


def updated_for_a_removal(decision: ActDecision, step: ThinkStep | None) -> str | None:
    """Why an update is sent back once (None when it is not): the step removes rows
    (``REMOVE_STEP``), and an update keeps them. For "the dal recipe shouldnt have onion in
    it, remove it", planned as "Remove the onion row from the Red Lentil Dal recipe", the
    1.5B local model set the onion optional, twice, and the reply said it was removed.
    Sent again, the update runs: a step may mean a row stays, changed. Not for the profile,
    one row whose lists lose an item by an update ("Remove coriander from the disliked
    ingredients")."""
    call = _update(decision)
    if call is None:
        return None
    if step is None or step.step_type != "write" or not REMOVE_STEP.match(step.description):
        return None
    if step.subdomain == "preferences" or call.params.get("table") in ONE_ROW_TABLES:
        return None
    return (
        f'not made: the step is "{step.description}", which removes rows, and db_update '
        "keeps them, changed. Remove them with db_delete, filters naming them; if the step "
        "means they stay, changed, send this db_update again."
    )


def created_for_a_change(decision: ActDecision, step: ThinkStep | None) -> str | None:
    """Why a create is sent back once (None when it is not): the step changes rows already
    there. For "got the paper towels and the bread", planned as "Mark the paper towels as
    bought in the shopping list", the 1.5B local model created the paper towels and the
    bread again, bought, beside the rows on the list."""
    call = decision.tool_call
    if decision.action != "tool_call" or call is None or call.tool != "db_create":
        return None
    if step is None or step.step_type != "write" or not CHANGE_STEP.match(step.description):
        return None
    return (
        f'not made: the step is "{step.description}", a change to rows already there, '
        "and db_create adds new rows beside them. Change them with db_update (or delete "
        "them with db_delete), filters naming them; read first if you need their names."
    )


ANOTHER_RECIPE = re.compile(
    r"\b(?:new|another|second|copy|version|variant|variation|twist|spin|alongside|as well as|"
    r"keep(?:ing)? the (?:old|original))\b",
    re.IGNORECASE,
)
"""Words that ask for a recipe beside the one saved ("save a lemony version of the dal"),
not a change to it."""


def created_a_copy(decision: ActDecision, saved: Sequence[str], message: str) -> str | None:
    """Why a create is sent back once (None when it is not): it adds a recipe named after
    a ``saved`` one the words name (the dashboard's), and the words ask for a change
    (``requested_change``, ``dish_wants``), not a recipe beside it (``ANOTHER_RECIPE``, a
    request for something new). For "add a step to the dal: squeeze lemon over before
    serving" the 1.5B local model saved "Red Lentil Dal with Lemon" beside the dal. Sent
    again, the create runs."""
    call = decision.tool_call
    if decision.action != "tool_call" or call is None or call.tool != "db_create":
        return None
    if call.params.get("table") != "recipes":
        return None
    if requested_change(message) is None and dish_wants(message) is None:
        return None
    if ANOTHER_RECIPE.search(message) or requested_content(message) is not None:
        return None
    rows = call.params.get("data")
    rows = rows if isinstance(rows, list) else [rows]
    names = [str(r.get("name") or "").lower() for r in rows if isinstance(r, dict)]
    copied = [s for s in saved if any(s.lower() in name for name in names)]
    if not copied:
        return None
    return (
        f"not made: {copied[0]} is a saved recipe, and db_create adds a second recipe beside "
        f"it. Change the saved one with db_update, filters naming {copied[0]} (its "
        "instructions, servings or name), or add ingredient rows to it with db_create on "
        "recipe_ingredients; if the user asked for a new recipe, send this db_create again."
    )


def created_beside(decision: ActDecision, stocked: Sequence[str], message: str) -> str | None:
    """Why a create is sent back once (None when it is not): it adds to the inventory an
    item the inventory holds already, named by the words (the dashboard's ``stocked``),
    and the words add none ("bought", "got", "add", "put": ``change_kinds``): they change
    what is there. For "the eggs actually go off on thursday" the 1.5B local model added a
    carton of eggs to the pantry beside the six in the fridge. Sent again, the create
    runs."""
    call = decision.tool_call
    if decision.action != "tool_call" or call is None or call.tool != "db_create":
        return None
    if call.params.get("table") != "inventory" or change_kinds(message) & {"acquired", "added"}:
        return None
    rows = call.params.get("data")
    rows = rows if isinstance(rows, list) else [rows]
    names = {str(r.get("name") or "").lower() for r in rows if isinstance(r, dict)}
    held = [name for name in stocked if name.lower() in names]
    if not held:
        return None
    return (
        f"not made: the inventory holds {', '.join(held)} already, and the user's words add "
        "none: they change what is there. Change it with db_update, filters naming it; if "
        "the user did add more, send this db_create again."
    )


def scaled_left(
    decision: ActDecision,
    results: Sequence[StepResult],
    tool_results: Sequence[ToolEntry],
    step: ThinkStep,
    message: str,
) -> ToolEntry | None:
    """Why a write step's end is sent back once (None when it is not): it completes, or
    sends a write the step has made or one that sets only what the rows hold (the step's
    end, ``hold_act``), while amounts of its tables that the user's words scale are not
    yet at their scaled value, or amounts they set not at the value they give
    (``domain.kitchen.scaled.amounts_left``). For "make the dal serve 6 and double the
    lentils" the 1.5B local model set the servings to 6, then set them to 6 again, and the
    lentils stayed 200 g; for "dal should be 250g lentils not 200" it set the dal's
    description twice. Sent again, the end stands."""
    if step.step_type != "write":
        return None
    call = decision.tool_call
    ends = decision.action == "step_complete" or (
        call is not None
        and call.tool in WRITE_TOOLS
        and (
            _made_before(call, tool_results) is not None
            or holds_already(call.tool, call.params, tool_results) is not None
        )
    )
    left = amounts_left(results, tool_results, message, SUBDOMAINS.get(step.subdomain, ()))
    if not ends or not left:
        return None
    return ToolEntry(
        tool=call.tool if call is not None else "step_complete",
        params=call.params if call is not None else None,
        error="not done: the user's words give amounts this step has not set yet:\n- "
        + "\n- ".join(left)
        + "\nSet each with db_update on its table, filtered by its ref, then complete the step.",
    )


def moved_elsewhere(
    decision: ActDecision, results: Sequence[StepResult], message: str
) -> str | None:
    """Why an update is sent back once (None when it is not): it sets a date of a row this
    turn read to another day than the user's words move it to (``moves_said``,
    ``domain.kitchen.dated.moved_wrong``). Sent again, the update runs."""
    call = _update(decision)
    moves = [by for _, by in moves_said(message)]
    dated = _date_set(call) if call is not None and moves else None
    if call is None or dated is None:
        return None
    table, _, value = dated
    return moved_wrong(results, table, call.params.get("filters"), value, moves)


def _date_set(call: ToolCall) -> tuple[str, str, Any] | None:
    """(table, date column, value) of an update that sets a row's date (``DATED``)."""
    table = str(call.params.get("table"))
    column = DATED.get(table, ("",))[0]
    data = call.params.get("data")
    if not isinstance(data, dict) or column not in data:
        return None
    return table, column, data[column]


def moved_as_said(
    decision: ActDecision, results: Sequence[StepResult], message: str
) -> ActDecision:
    """``decision`` with the date its update sets on a row this turn read written where the
    user's words move it, when they move dates by one amount (``moves_said``) and it
    sets another day (``moved_elsewhere``, sent back once, sent again): a date moved a
    week from its own needs no judgment. Told "it is Sat 2026-12-12 (7 days later), not
    Thu 2026-12-10", the 1.5B local model sent Thu 2026-12-10 again."""
    call = _update(decision)
    moves = {by for _, by in moves_said(message)}
    if call is None or len(moves) != 1 or moved_elsewhere(decision, results, message) is None:
        return decision
    table, column, _ = _date_set(call) or ("", "", None)
    day = moved_date(results, table, call.params.get("filters"), moves.pop())
    if day is None:
        return decision
    params = {**call.params, "data": {**call.params["data"], column: day}}
    return decision.model_copy(update={"tool_call": call.model_copy(update={"params": params})})


ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MEALS = re.compile(r"\b(breakfast|brunch|lunch|dinner|supper|tea|snack)(?:e?s)?\b", re.IGNORECASE)
"""The meals words name, and the meal type each is (``MEAL_TYPE``)."""
MEAL_TYPE = {"brunch": "breakfast", "supper": "dinner", "tea": "dinner"}


def dated_ids(call: ToolCall) -> ToolCall:
    """``call`` with its filters on ``id`` by a date (an id is never a date) on the column
    that says the row's day (``DAY_COLUMNS``). For "take the dal off monday" the 0.5B
    local model deleted the meal plan's ``id = 2026-11-30``, twice refused."""
    column = DAY_COLUMNS.get(str(call.params.get("table")))
    if column is None:
        return call

    def moved(flts: Any) -> Any:
        if not isinstance(flts, list):
            return flts
        return [
            {**f, "field": column}
            if isinstance(f, dict)
            and f.get("field") == "id"
            and isinstance(f.get("value"), str)
            and ISO_DAY.match(f["value"])
            else f
            for f in flts
        ]

    params = {
        **call.params,
        **{k: moved(call.params[k]) for k in ("filters", "or_filters") if k in call.params},
    }
    return call if params == call.params else call.model_copy(update={"params": params})


def named_meal(call: ToolCall, message: str) -> ToolCall:
    """A meal plan create with its rows' meal type the one meal the user's words name,
    when they name one ("put the dal down for lunch tomorrow"): the 0.5B local model
    planned it for dinner, its step saying lunch. Words naming two meals leave it be."""
    rows = _planned(call)
    meals = {MEAL_TYPE.get(m.lower(), m.lower()) for m in MEALS.findall(message)}
    if not rows or len(meals) != 1:
        return call
    (meal,) = meals
    sent = [
        {**r, "meal_type": meal} if isinstance(r, dict) and r.get("meal_type") != meal else r
        for r in rows
    ]
    if sent == rows:
        return call
    data = sent if isinstance(call.params.get("data"), list) else sent[0]
    return call.model_copy(update={"params": {**call.params, "data": data}})


def _planned(call: ToolCall) -> list[Any]:
    """The rows a create of meal plans sends (one row sent alone as a list of one); none
    for any other call."""
    if call.tool != "db_create" or call.params.get("table") != "meal_plans":
        return []
    rows = call.params.get("data")
    return rows if isinstance(rows, list) else [rows]


def _made_up(link: Any, known: Container[str]) -> bool:
    """Whether a link's value is a ref no row has, or no ref at all ("1"): it could only
    be refused."""
    return isinstance(link, str) and link not in known and canonical_uuid(link) is None


def unnamed_meal(decision: ActDecision, known: Container[str]) -> ToolEntry | None:
    """A meal plan row created with neither a recipe nor notes, answered without being run
    with why it is sent back (None otherwise): a row that says no meal is no plan. A link
    no row has (not in ``known``: ``_made_up``) names no recipe. For "we are doing pasta
    on friday night" the 1.5B local model created Friday's dinner with ``recipe_id`` and
    ``notes`` both null; the plan showed "(no recipe)". Later it linked ``gen_recipe_1``
    (its read had found no pasta recipe), was refused twice, and nothing was planned."""
    call = decision.tool_call
    if call is None:
        return None
    unnamed = [
        r
        for r in _planned(call)
        if isinstance(r, dict)
        and not (r.get("notes") or r.get("id"))
        and (not r.get("recipe_id") or _made_up(r.get("recipe_id"), known))
    ]
    if not unnamed:
        return None  # each names its meal, or is a generated meal saved by its gen ref
    links = sorted({str(r["recipe_id"]) for r in unnamed if r.get("recipe_id")})
    said = f"{', '.join(links)} is no saved recipe's ref, so " if links else ""
    return ToolEntry(
        tool=call.tool,
        params=call.params,
        error=(
            f"not run: {said}a meal plan row must say what the meal is: set recipe_id to a "
            "saved recipe's ref a read or the entities show, or notes to the meal as the "
            "user named it (the dish, in their words) with no recipe_id, then send the "
            "db_create again."
        ),
    )


def idle_read(decision: ActDecision) -> ToolEntry | None:
    """A read with a null test on a column no row leaves empty, answered without being run
    with why it is sent back (None otherwise): the test keeps every row or none, which no
    step means (``domain.crud.filters.never_empty``). Sent back once; the same read again
    runs, with the note. For "Read the tasks not completed" the 1.5B local model read
    ``completed is_not_null``, was told after the read that it kept every row, sent it
    again, and the done task was listed as open."""
    call = decision.tool_call
    if call is None or call.tool != "db_read":
        return None
    spec = TABLES.get(str(call.params.get("table")))
    try:
        read = DbRead.model_validate(call.params)
    except ValidationError:
        return None  # refused by the executor, with its own reason
    notes = [] if spec is None else never_empty(spec, [*read.filters, *read.or_filters], ran=False)
    if not notes:
        return None
    return ToolEntry(
        tool=call.tool,
        params=call.params,
        error=f"not run: {'; '.join(notes)}, then send the db_read again.",
    )


def others_read(
    decision: ActDecision,
    plan: Sequence[ThinkStep],
    index: int,
    tool_results: Sequence[ToolEntry] = (),
) -> ToolEntry | None:
    """A read step's read, before any of its own tables (``tool_results``), of a table
    that is another read step's of the plan, answered without being run with why it is
    sent back (None otherwise): that step reads it. Sent back once; the same read again
    runs. For "want to make the
    dal this week, put what it needs on my groceries", planned as the dal's read and the
    inventory's, the 1.5B local model read the inventory in the recipe's step, and the
    next step named ingredients no read had found."""
    call = decision.tool_call
    if call is None or call.tool != "db_read" or not 0 <= index < len(plan):
        return None
    step, table = plan[index], str(call.params.get("table"))
    own = SUBDOMAINS.get(step.subdomain, ())
    if step.step_type != "read" or table in own or not own:
        return None
    if any(t.tool == "db_read" and (t.params or {}).get("table") in own for t in tool_results):
        return None  # it has read its own: held by ``read_its_own``
    other = _other_reader(plan, index, table)
    if other is None:
        return None
    return ToolEntry(
        tool=call.tool,
        params=call.params,
        error=(
            f"not run: step {other + 1} reads {table}. This step is '{step.description}': "
            f"send its db_read of {own[0]}."
        ),
    )


def _other_reader(plan: Sequence[ThinkStep], index: int, table: str) -> int | None:
    """Another read step of the plan that reads ``table``, by its index."""
    return next(
        (
            i
            for i, s in enumerate(plan)
            if i != index and s.step_type == "read" and table in SUBDOMAINS.get(s.subdomain, ())
        ),
        None,
    )


def read_its_own(
    decision: ActDecision,
    plan: Sequence[ThinkStep],
    index: int,
    tool_results: Sequence[ToolEntry] = (),
) -> ActDecision:
    """A read step that has read its own tables, held as ``step_complete`` with that read
    when it reads a table another read step of the plan reads: that step's rows are the
    plan's, and a second copy here only muddles what this step found. For "want to make
    the dal this week, put what it needs on my groceries" (the dal's read and the
    inventory's, side by side) the 1.5B local model read the dal, then the inventory's
    eggs, milk and rice in the same step, and the next step took those for the dal's
    ingredients."""
    call = decision.tool_call
    if call is None or call.tool != "db_read" or not 0 <= index < len(plan):
        return decision
    step, table = plan[index], str(call.params.get("table"))
    own = SUBDOMAINS.get(step.subdomain, ())
    if step.step_type != "read" or table in own or _other_reader(plan, index, table) is None:
        return decision
    return read_made(tool_results, step) or decision


def system_read(step: ThinkStep | None, tool_results: Sequence[ToolEntry]) -> ActDecision | None:
    """The decision of a step the system wrote its read for (``ThinkStep.read``: a read it
    added to the plan), with no model asked: that read, until it has run; then the step's
    end with what it read (``read_made``). None for any other step, and once the read has
    failed (Act is asked, shown the error)."""
    if step is None or step.read is None:
        return None
    if not tool_results:
        params = step.read.model_dump(mode="json", exclude={"tool"})
        return ActDecision(action="tool_call", tool_call=ToolCall(tool="db_read", params=params))
    return read_made(tool_results, step)


def read_made(tool_results: Sequence[ToolEntry], step: ThinkStep | None) -> ActDecision | None:
    """A read step's end when Act's answer could not be used, once the step has read its
    own tables (``_read_its_own``): the rows are what the step was for, and the step's
    summary says what was read. None otherwise (the step is blocked, as any other). For
    "plan the dal for the day after tomorrow" the 1.5B local model read the dal, then
    wrote a summary past the read step's output cap three times; the step was blocked and
    the meal plan's write after it never ran."""
    read = _read_its_own(tool_results, step)
    if read is None:
        return None
    return ActDecision(action="step_complete", result_summary=_done(read))


SUBJECT_LINKS = {"meal_plans": "recipe_id", "cooking_log": "recipe_id"}
"""The link that says what a row is about (the meal planned, the dish cooked): kept, and
refused, unless the row's notes say it instead."""


def unlinked(decision: ActDecision, known: Container[str]) -> ActDecision:
    """A create sent without the optional links its rows make to no row (``_made_up``):
    such a link could only be refused, and the row is whole without it. A meal plan or
    cooking log row keeps its recipe link unless its notes say what it is about
    (``SUBJECT_LINKS``; a meal plan row that says no meal is sent back: ``unnamed_meal``).
    The 1.5B local model planned "pasta" on Friday with ``recipe_id: gen_recipe_1`` (no
    recipe holds pasta) twice, and nothing was planned;
    the 0.5B created "Buy candles" with ``recipe_id`` and ``meal_plan_id`` both "1",
    twice, and no task was made."""
    call = decision.tool_call
    spec = TABLES.get(str(call.params.get("table"))) if call is not None else None
    if call is None or call.tool != "db_create" or spec is None:
        return decision
    data = call.params.get("data")
    listed = data if isinstance(data, list) else [data]
    optional = [c.name for c in spec.columns.values() if c.fk and c.nullable]

    def kept(row: Any) -> Any:
        if not isinstance(row, dict):
            return row
        named = spec.name not in SUBJECT_LINKS or bool(row.get("notes"))
        gone = {
            c
            for c in optional
            if _made_up(row.get(c), known) and (named or c != SUBJECT_LINKS.get(spec.name))
        }
        return {k: v for k, v in row.items() if k not in gone}

    sent = [kept(r) for r in listed]
    if sent == listed:
        return decision
    out = sent if isinstance(data, list) else sent[0]
    return decision.model_copy(
        update={"tool_call": call.model_copy(update={"params": {**call.params, "data": out}})}
    )


def repeated_call(
    decision: ActDecision, tool_results: Sequence[ToolEntry], step: ThinkStep, message: str = ""
) -> ToolEntry | None:
    """The call Act repeats, answered without being run with why it is sent back
    (``reread_note``, ``unmatched_note``): shown to Act when it is asked once more. None
    when the call is not sent back."""
    call = decision.tool_call
    if call is None:
        return None
    words = naming(step, message)
    note = reread_note(decision, tool_results, step) or unmatched_note(
        decision, tool_results, words
    )
    return None if note is None else ToolEntry(tool=call.tool, params=call.params, error=note)


def _made_before(call: ToolCall, tool_results: Sequence[ToolEntry]) -> ToolEntry | None:
    """The step's last call that ran and is the same as ``call`` (whatever the order of
    its keys; for a read, whatever its columns and order, which change no row it shows:
    for "what goes in the chili" the 1.5B local model read ``name = Chili``
    again with an order added, was not aimed at 'Weeknight Chili', and the second empty
    read stopped the step)."""
    key = _call_key(call.tool, call.params)
    return next(
        (
            t
            for t in reversed(tool_results)
            if t.tool == call.tool and not t.failed and _call_key(t.tool, t.params or {}) == key
        ),
        None,
    )


_MATCHING = ("table", "filters", "or_filters", "limit")
"""What decides the rows a read shows."""


def _call_key(tool: str, params: Mapping[str, Any]) -> str:
    if tool == "db_read":
        params = {k: params.get(k) or None for k in _MATCHING}
    return write_key(tool, params)


def reread_note(
    decision: ActDecision, tool_results: Sequence[ToolEntry], step: ThinkStep
) -> str | None:
    """Why a write step's read is sent back once (None when it is not): the step has made
    this very read already and has written nothing, so the read can only show what it
    showed, and the step is for a write. A read by a name that found nothing is first
    run aimed at the row its name means (``aimed``); sent again after that ran, it is
    sent back with what the aimed read found (the 1.5B local model read "chili" three
    times in a write step, and the step ended with the aimed read, nothing written)."""
    call = decision.tool_call
    if step.step_type != "write" or call is None or call.tool != "db_read":
        return None
    if any(t.is_write and not t.failed for t in tool_results):
        return None
    if (made := _made_before(call, tool_results)) is None:
        return None
    if not made.count and (at := aimed(call, made)) is not None:
        if (made := _made_before(at, tool_results)) is None:
            return None  # runs on the row its name means
    count = _rows_read(made)
    found = f"it found {count} row(s), shown above" if count else "it found no row"
    return (
        f"not run: this step made this exact read already ({found}). This step is a write "
        f"to {step.subdomain}: send the db_create, db_update or db_delete it is for now (a "
        "row that is not there yet is added with db_create), or block the step if the "
        "change cannot be made."
    )


def unmatched_note(
    decision: ActDecision, tool_results: Sequence[ToolEntry], words: str = ""
) -> str | None:
    """Why a write that matched no row is sent back once when it comes again unchanged
    (None when it is not, or when it is ``aimed`` at the row ``words`` mean): it would
    match nothing again, and its result's note says what is there ("rows whose name
    shares a word: 'Weeknight Chili'")."""
    call = decision.tool_call
    if call is None or call.tool not in WRITE_TOOLS or call.tool == "db_create":
        return None
    missed = _made_before(call, tool_results)
    if missed is None or missed.count or aimed(call, missed, words) is not None:
        return None
    said = "; ".join(missed.notes or ["no row matches the filters"])
    return (
        f"not run: this exact {call.tool} matched no row a moment ago ({said}). Send it "
        "again naming the row as it is (the name the note gives, or its ref), or block the "
        "step if no row is the one the user means."
    )


def read_within(
    call: ToolCall, tool_results: Sequence[ToolEntry], step: ThinkStep | None
) -> ToolEntry | None:
    """In a read step, the step's earlier read of the same table that found every row
    (no filters, its limit left none out) and every column ``call`` asks for: a read
    after it can only show a part of what it showed. None otherwise. For "anything i
    need to do this week?" the 1.5B local model read the whole inventory, then its
    pantry, its fridge and its pantry again; the step's breaker stopped it, and Reply
    told the user why it had stopped."""
    if step is None or step.step_type != "read" or call.tool != "db_read":
        return None
    table = call.params.get("table")
    for entry in reversed(tool_results):
        params = entry.params or {}
        if entry.tool != "db_read" or entry.failed or table_of(entry) != table:
            continue
        if params.get("filters") or params.get("or_filters") or was_cut_short(entry.notes):
            continue
        if _columns_within(call.params.get("columns"), params.get("columns"), entry.rows or []):
            return entry
    return None


def _columns_within(wanted: Any, read: Any, rows: list[dict[str, Any]]) -> bool:
    """Whether a read that asked for ``read`` columns and found ``rows`` holds the
    ``wanted`` ones: every one, when none was found; the columns its rows hold, when it
    asked for some; all columns only when it asked for all."""
    if not rows:
        return True
    if not wanted:
        return not read
    return isinstance(wanted, list) and {str(c) for c in wanted} <= set(rows[0])


def unchanged_block(refs: Sequence[str], unsaved: Mapping[str, Mapping[str, Any]]) -> ActDecision:
    """The step's end when the revision came back unchanged twice: what Reply (or the
    answer made without it) tells the user."""
    names = [str(unsaved[ref].get("name") or "the suggestion") for ref in refs]
    return ActDecision(
        action="blocked",
        reason_code="unchanged",
        details=f"The change you asked for was not made: {', '.join(names)} is as it was",
        suggested_next="Say the change again, in other words",
    )


LIMIT_NOTE = "I stopped there: nothing more was changed."
"""Said after what the step wrote; it may reach the user as it is (a fallback answer)."""


def at_the_limit(tool_results: Sequence[ToolEntry], step: ThinkStep | None) -> ToolEntry | None:
    """The write a write step has made, when it has made as many calls as a step may
    (``MAX_TOOL_CALLS_PER_STEP``): a further call could only stop the step unfinished, so
    the step completes with what it wrote. None otherwise. For "we are doing pasta on
    friday night" the 1.5B local model planned Friday's pasta, then linked it to the meal
    plan's own ref as a recipe, refused twice; the call limit stopped the step, and the
    reply told the user it could not help."""
    if step is None or step.step_type != "write":
        return None
    if sum(t.tool in CRUD_TOOLS for t in tool_results) < MAX_TOOL_CALLS_PER_STEP:
        return None
    return _wrote(tool_results)


def hold_act(decision: ActDecision, tool_results: list[ToolEntry], facts: ActFacts) -> ActDecision:
    """Act's decision, as ``step_complete`` when it repeats the step's last call and that
    call succeeded, creates again rows the step or an earlier step of the turn has
    created (``SAME_ROW``, ``created_earlier``), or sets
    values the rows the step has just written already hold (``holds_already``), sets
    again what its update of the same rows set (``set_before``) or sets a made-up
    quantity on rows it has just created (``grown_after_made``); as
    ``blocked`` when the repeated call was refused (a read step that read its own tables
    completes with that read instead) or it creates a recipe that nothing in
    the ``facts``' grounds (the words and content the turn can save from) named; as
    ``ask_user`` when it sets an amount the user's words (with this turn's answers) never
    gave; with the gen refs of the unsaved recipes its rows copy (``by_ref``); and aimed
    at the one row a missed write's or read's name can mean when it is sent again
    (``aimed``), or ``step_complete`` when that aimed call has run; as
    ``step_complete`` when a read step reads again what it has read whole
    (``read_within``); its filters on ``id`` by a day on the day's column
    (``dated_ids``) and a meal plan create on the one meal the words name
    (``named_meal``); as ``step_complete`` when a write step that has written has made
    its last allowed call (``at_the_limit``); the same read again after its limit cut it
    short, with the limit that takes every row (``read_whole``)."""
    call = decision.tool_call
    if decision.action != "tool_call" or call is None:
        return decision
    if (saving := by_ref(call, facts.unsaved)) != call:
        return hold_act(decision.model_copy(update={"tool_call": saving}), tool_results, facts)
    if (meant := named_meal(dated_ids(call), facts.message)) != call:
        return hold_act(decision.model_copy(update={"tool_call": meant}), tool_results, facts)
    if (fuller := with_ingredients(call, facts.step)) != call:
        return hold_act(decision.model_copy(update={"tool_call": fuller}), tool_results, facts)
    if call.tool == "db_create" and (made := created_already(call.params, tool_results)):
        return ActDecision(action="step_complete", result_summary=_done(made))
    if call.tool == "db_create" and (made := created_earlier(call.params, facts.earlier)):
        return ActDecision(action="step_complete", result_summary=f"{EARLIER_NOTE} {_done(made)}")
    if (holding := holds_already(call.tool, call.params, tool_results)) is not None:
        return ActDecision(action="step_complete", result_summary=_done(holding))
    if (setting := set_before(call.tool, call.params, tool_results, facts.message)) is not None:
        return ActDecision(action="step_complete", result_summary=_done(setting))
    if (made := grown_after_made(call.tool, call.params, tool_results, facts.message)) is not None:
        return ActDecision(action="step_complete", result_summary=_done(made))
    if (wrote := at_the_limit(tool_results, facts.step)) is not None:
        return ActDecision(action="step_complete", result_summary=f"{_done(wrote)} {LIMIT_NOTE}")
    if invented := invented_recipe(call.tool, call.params, facts.grounds):
        return ActDecision(
            action="blocked",
            reason_code="nothing_to_save",
            details=invented,
            suggested_next="Say which recipe to save, or ask for one to be made first.",
        )
    if question := unsaid_amount(call.tool, call.params, facts.message):
        return ActDecision(action="ask_user", question=question)
    missed = _made_before(call, tool_results) if call.tool != "db_create" else None
    words = naming(facts.step, facts.message)
    if missed is not None and not missed.count and (at := aimed(call, missed, words)) is not None:
        if (ran := _made_before(at, tool_results)) is not None and ran.count:
            return ActDecision(action="step_complete", result_summary=_done(ran))  # done
        return decision.model_copy(update={"tool_call": at})
    if (whole := read_within(call, tool_results, facts.step)) is not None:
        return ActDecision(action="step_complete", result_summary=_done(whole))
    if (whole := _whole_read_made(call, tool_results)) is not None:
        return ActDecision(action="step_complete", result_summary=_done(whole))
    last = next((t for t in reversed(tool_results) if t.tool in CRUD_TOOLS), None)
    if last is None or last.params is None or last.tool != call.tool:
        return decision
    if write_key(last.tool, last.params) != write_key(call.tool, call.params):
        return decision
    if not last.failed and (whole := read_whole(call, last)) is not None:
        return decision.model_copy(update={"tool_call": whole})
    if last.failed:
        if (found := _read_its_own(tool_results, facts.step)) is not None:
            return ActDecision(action="step_complete", result_summary=_done(found))
        if (made := _made_before(call, tool_results)) is not None and made.count:
            return ActDecision(action="step_complete", result_summary=_done(made))  # done
        if call.tool != "db_read" and (wrote := _wrote(tool_results)) is not None:
            refused = f"A further {_verb(call.tool)} was refused and not made."
            return ActDecision(action="step_complete", result_summary=f"{_done(wrote)} {refused}")
        return ActDecision(
            action="blocked",
            reason_code="refused_call",
            details=f"The {_verb(call.tool)} was refused twice: {last.error}",
            suggested_next="Ask again in other words.",
        )
    if last.is_write and not last.count:
        if (wrote := _wrote(tool_results)) is not None:  # the step has made its change
            missed = f"A further {_verb(call.tool)} matched no row and changed nothing."
            return ActDecision(action="step_complete", result_summary=f"{_done(wrote)} {missed}")
        return ActDecision(
            action="blocked",
            reason_code="nothing_matched",
            details="; ".join(last.notes or ["no row matches the filters, so nothing changed"]),
            suggested_next="Say which one, by the name it has.",
        )
    return ActDecision(action="step_complete", result_summary=_done(last))


def read_whole(call: ToolCall, last: ToolEntry) -> ToolCall | None:
    """``call``, the same read as ``last`` that its limit cut short, with the limit that
    takes every matching row (the note said how many and to read them with a higher
    limit). For "how much lentils go in the dal" the 1.5B local model read the dal's
    ingredients with limit 1, got the onion, sent the same read again, and its analysis
    said the dal calls for 1 onion. None for any other call."""
    total = cut_total(last.notes)
    if call.tool != "db_read" or total is None:
        return None
    return call.model_copy(update={"params": {**call.params, "limit": total}})


def _whole_read_made(call: ToolCall, tool_results: Sequence[ToolEntry]) -> ToolEntry | None:
    """The read that took every row of ``call``, a read the step made and its limit cut
    short, when the step has made it since (``read_whole``): sent the cut read a third
    time, the 1.5B local model ran it again and the step's call limit stopped it."""
    cut = _made_before(call, tool_results) if call.tool == "db_read" else None
    whole = read_whole(call, cut) if cut is not None else None
    return _made_before(whole, tool_results) if whole is not None else None


def _read_its_own(tool_results: Sequence[ToolEntry], step: ThinkStep | None) -> ToolEntry | None:
    """A read step's last read of its own subdomain's tables that succeeded: what the
    step was for, whatever it tried after."""
    if step is None or step.step_type != "read":
        return None
    tables = SUBDOMAINS.get(step.subdomain, ())
    reads = [t for t in tool_results if t.tool == "db_read" and not t.failed]
    return next((t for t in reversed(reads) if table_of(t) in tables), None)


def _wrote(tool_results: Sequence[ToolEntry]) -> ToolEntry | None:
    """The step's last write that changed rows."""
    return next((t for t in reversed(tool_results) if t.succeeded_write() and t.count), None)


_CALLED = {
    "db_read": "lookup",
    "db_create": "addition",
    "db_update": "change",
    "db_delete": "removal",
}
"""What each call is, in the user's words."""


def _verb(tool: str) -> str:
    return _CALLED.get(tool, "call")


def _done(entry: ToolEntry) -> str:
    """What the repeated call's first run did, in a sentence (its rows stay in the step's
    tool results)."""
    table = table_of(entry)
    if entry.is_write:
        return format_write_confirmation(entry.tool or "", table, entry.rows or [])
    return f"Read {_rows_read(entry)} row(s) from {table}."


def _rows_read(entry: ToolEntry) -> int:
    return entry.count if entry.count is not None else len(entry.rows or [])
