"""The rules the system holds Understand's and Think's answers to: what needs no judgment in
a quick path, a question, a plan's decision, its steps and their order (seed 004, "LLMs
interpret, don't own"; the package's ``__init__`` says how the rules run).

- **Quick mode is a lookup** (seed 004 §6, V7.1; seed 000: quick is for simple reads): a
  message that asks for a change (``domain.intent.requested_change``) or for something
  new to be thought of ("suggest…", "invent…": ``domain.intent.requested_content``) never
  takes the quick path; Think plans it.
- **The user's own message is not a question to them** (seed 000: Understand asks only
  what is unclear): a clarification question that quotes the whole message
  (``domain.intent.echoes``) asks nothing the user has not said, so it is dropped; with no
  question left, there is no clarification and the turn goes on.
- **A plan that writes nothing is never proposed** (seeds 000 and 003: a proposal is
  confirmed before a plan changes the kitchen): it runs directly. This holds for a plan
  that only generates too: generated content is itself unsaved (a ``gen_`` ref, seed
  003's "pending: generated, awaiting confirmation"); the user confirms it by asking to
  save it, so a proposal before it would ask twice.
- **The mode's confirmation rules** (seed 000's mode table, seed 003's "Plan mode can
  still do simple ops quickly"): in quick mode a proposal runs at once ("execute, inform
  after"); in plan mode a plan that saves content it generates (a write in a later group
  than a generate: meals chosen for the week, a recipe invented and kept) is proposed
  first, since the user has not seen what it saves, while a plan that writes only what the
  user spelled out runs directly, in however many writes; so does a plan made after the
  user answered the turn's proposal (they have confirmed or adjusted it). Create mode
  forces nothing.
- **A request for a change is planned as one** (seed 000 "action mismatch": a turn that
  was asked for a change and made none): when the message asks for a change
  (``domain.intent.requested_change``) and Think's plan only reads or analyzes, the plan
  can change nothing. Whether the message really asks for one is for the model to judge
  ("we're out of rice, what else can I make?" may be a question), so Think is asked once
  more, shown its plan and what a write is (``changes_nothing``, ``replan_note``); its
  second answer stands. So, on the same terms (one ask per Think activity, ``ask_again``),
  is a plan that only reads, or saves a recipe it does not generate, for a request for
  something new (``invents_nothing``), one that writes for words that only ask to see or
  know (``writes_unasked``), one that only reads elsewhere than a question's words name
  (``looks_elsewhere``: "anything i need to do this week?" is the tasks'), one that writes
  recipes and nothing on the meal plan for a change on a named day (``unplanned_meal``),
  one whose writes, on the days they give the meal plan, leave out a day the words name
  (``days_left_out``: "put the dal down for lunch tomorrow" planned for Monday), one that
  puts meals in the meal plan for words that speak of no meal, day or plan
  (``meals_unasked``: "call the dal mums dal from now on"),
  and one that changes only other subdomains than the one a change said without a verb
  belongs in (``misplaced_change``: "I bought milk" is the inventory's or the shopping
  list's; "the chili needs a tin of sweetcorn", the chili saved, the recipes'), and one
  that generates a recipe for a change that asks for nothing new, with no unsaved recipe
  to revise (``invents_unasked``: "i'd like the dal on tuesday" names a
  saved dal). A plan that still writes for a question with no change verb in it ("how
  about adding eggs?" has one) after the ask runs only its reads and analyses
  (``only_reads``): whatever the model judged, no one asked for the writes. A plan that,
  asked again, still changes only elsewhere than where the words' change belongs asks the
  user where it goes instead (``where_asked``: "the dal only serves 2" planned twice as a
  meal on a day): the words and the model disagree, and neither write is the system's to
  pick.
- **A meal plan has days** (seed 000: Think asks when what it needs is missing): a plan
  that puts meals in the meal plan for a message that names no day, nor did the user's
  message before it ("make me a meal plan"; ``undated_plan``) asks which days and meals
  instead, unless this turn's pause was already answered. The dates are the user's to
  give, not an example's.
- **A step runs after the steps of its group whose output it consumes** (seed 002's step
  types, seed 003's groups): a write persists content that must already exist (a
  generate's ``gen_`` refs, an analysis's choice) and changes rows that a read of its own
  subdomain finds; an analyze reasons over what earlier steps fetched or generated. A
  group that holds both is split, the consumer after; later groups move up by as many
  groups. Two writes of one subdomain run one after the other, in the plan's order.
  Running a step later only costs time: every step still runs after everything it ran
  after before.
- **A step retrieves an earlier step's result once** (seed 000's retrieve_step): Act is
  offered only the steps of earlier groups (a later one has not run) that this step has
  not fetched yet (the fetched result is in its tool results already); with none left,
  retrieve_step is not offered, so a model cannot spend the turn's calls fetching again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from domain.crud.calls import DbRead, Filter
from domain.crud.near import name_words
from domain.enforced.act_rules import adds_rows
from domain.intent import (
    DELETE_VERBS,
    DISH_EATEN,
    asks_for_ideas,
    asks_to_see,
    change_home,
    change_kinds,
    dish_wants,
    echoes,
    places_named,
    requested_change,
    requested_content,
)
from domain.kitchen.scaled import amounts_said, scales_said
from domain.kitchen.tables import SUBDOMAINS
from domain.modes import mode_config
from domain.nodes import ThinkOutput, ThinkStep, UnderstandOutput
from domain.registry.refs import parse_ref
from domain.relative_days import moves_said, named_days
from domain.tool_results import ToolEntry

CONSUMES: dict[str, frozenset[str]] = {
    "analyze": frozenset({"read", "generate"}),
    "write": frozenset({"generate", "analyze"}),
}
"""Step type -> the step types whose output it uses when they share its group (and a
write uses a read of its own subdomain: ``consumes``)."""
KINDS = ("read", "generate", "analyze", "write")
"""Step types, each after every type it may consume."""


def hold_understand(understand: UnderstandOutput, message: str) -> UnderstandOutput:
    """Understand's answer without questions that ask ``message`` back, and with the
    quick path held off when ``message`` asks for a change or for new content: the turn
    goes to Think. A quick lookup whose words name one place (``places_named``: "what's
    on my shopping list?") looks there: the 1.5B local model gave that question the
    recipes, and a reference to a recipe none."""
    if understand.needs_clarification:
        asked = [q for q in understand.clarification_questions if not echoes(q, message)]
        if asked != understand.clarification_questions:
            understand = understand.model_copy(
                update={"clarification_questions": asked, "needs_clarification": bool(asked)}
            )
    if not understand.quick_mode:
        return understand
    if requested_change(message) or requested_content(message):
        return understand.model_copy(
            update={"quick_mode": False, "quick_intent": None, "quick_subdomain": None}
        )
    named = places_named(message)
    if len(named) == 1 and understand.quick_subdomain != named[0]:
        return understand.model_copy(update={"quick_subdomain": named[0]})
    return understand


def hold_plan(
    think: ThinkOutput, mode: str | None, *, answered_proposal: bool = False
) -> ThinkOutput:
    """Think's answer in ``mode`` with its steps in data order (a meal plan chosen from the
    saved recipes read first: ``with_recipes_read``), a proposal that writes
    nothing (or any proposal in quick mode) run directly, and a plan-mode plan that saves
    what it generates proposed, unless the user has just answered this turn's proposal
    (``answered_proposal``: "yes, but only three days" is planned directly, not asked
    again)."""
    steps = in_data_order(with_recipes_read(think.steps))
    if steps != think.steps:
        think = think.model_copy(update={"steps": steps})
    config = mode_config(mode)
    runs_at_once = not writes(think.steps) or config.skip_think
    if think.decision == "propose" and think.steps and runs_at_once:
        return think.model_copy(update={"decision": "plan_direct", "proposal_message": None})
    if (
        think.decision == "plan_direct"
        and config.proposal_required
        and not answered_proposal
        and saves_generated(think.steps)
    ):
        message = (
            "This saves what I come up with, so I'd like your go-ahead first: "
            f"{think.goal.rstrip('.')}."
        )
        return think.model_copy(update={"decision": "propose", "proposal_message": message})
    return think


WHEN = re.compile(
    r"\b(?:days?|nights?|week(?:s|ly)?|month|fortnight|\d{1,2}(?:st|nd|rd|th)|"
    r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2})\b",
    re.IGNORECASE,
)
"""Words that say when beyond the days ``domain.relative_days`` resolves: "every day",
"for 3 nights", "the 3rd", "2026-12-01"."""
WHICH_DAYS = "Which days, and which meals, should the plan cover?"
REMOVES = DELETE_VERBS | {"clear", "cancel"}


def undated_plan(think: ThinkOutput, message: str, today: dt.date, earlier: str = "") -> str | None:
    """The question to ask when a plan puts meals in the meal plan and the user's words
    (with this turn's answers, and ``earlier``: their last message before it) name no
    day: a meal plan row has a date, which is the user's to give ("make me a meal plan":
    the 1.5B local model planned next week's lunches, copied from an example). None
    otherwise, and for a plan that only removes."""
    if think.decision == "clarify" or requested_change(message) in REMOVES:
        return None
    said = f"{earlier}\n{message}"
    if not _plans_meals(think) or named_days(said, today) or WHEN.search(said):
        return None
    return WHICH_DAYS


def _plans_meals(think: ThinkOutput) -> bool:
    """Whether the plan puts meals in the meal plan (a write or generate step of it)."""
    return any(
        s.subdomain == "meal_plans" and s.step_type in ("write", "generate") for s in think.steps
    )


def as_question(think: ThinkOutput, question: str) -> ThinkOutput:
    """Think's answer turned into ``question`` for the user (its plan left)."""
    return ThinkOutput(goal=think.goal, decision="clarify", clarification_questions=[question])


def changes_nothing(think: ThinkOutput, message: str) -> str | None:
    """The change ``message`` asks for (``requested_change``) when Think's plan for it
    only reads or analyzes: it makes no change and invents nothing to save. None when the
    plan writes or generates, asks a question, or the message asks for no change."""
    return requested_change(message) if _only_reads(think) else None


def replan_note(think: ThinkOutput, asked: str) -> str:
    """What Think is told when its plan changes nothing (``changes_nothing``): its plan,
    and that a change is a ``write`` step; for a dish cooked or eaten (``DISH_EATEN``),
    where that is kept. Told only what a write is for "we had the chili last night, it was
    great", the 1.5B local model set the chili's servings to 16."""
    eaten = (
        "A dish cooked or eaten is logged: a cooking_log row (subdomain recipes) naming its "
        "recipe by ref. "
        if DISH_EATEN.search(asked)  # "we made the dal", "we had the chili last night"
        else ""
    )
    return (
        f'The request asks for a change ("{asked}"), and your plan only reads:\n'
        f"{_plan_lines(think)}\n"
        "Those steps change nothing. A change is a write step: it creates, updates, ticks "
        f"off or deletes rows (a new task, an amount, an item bought). {eaten}Answer again: "
        "if the user asked for a change, plan its write step (with only the reads it needs); "
        "if the message asks for no change, give the same plan."
    )


def invents_nothing(think: ThinkOutput, message: str) -> str | None:
    """The verb of a request for something new (``requested_content``: "invent a cod
    dish") when Think's plan has no generate step and writes nothing (the 0.5B local
    model planned reads only, and nothing was invented), or writes a recipe it has not
    thought up (``_saves_unmade``: for "save me a simple omelette recipe" the 1.5B local
    model planned a recipe created "as the user gave them", the user having given none,
    and Act's create was refused as made up). None otherwise."""
    asked = _only_reads(think) or _saves_unmade(think)
    return requested_content(message) if asked else None


def _saves_unmade(think: ThinkOutput) -> bool:
    """A plan that writes recipes and generates nothing."""
    steps = think.steps if think.decision != "clarify" else []
    return any(s.step_type == "write" and s.subdomain == "recipes" for s in steps) and not any(
        s.step_type == "generate" for s in steps
    )


def thought_up(think: ThinkOutput, message: str) -> ThinkOutput:
    """A plan that, asked again (``invents_nothing``), still saves a recipe nothing thinks
    up for words that ask for a new one, with those recipe writes made generate steps:
    Act's create of a recipe nobody gave or generated is refused (``invented_recipe``),
    so the plan could only fail. For "save me a simple omelette recipe" the 1.5B local
    model planned the recipe created "as the user gave them" twice, and the turn asked
    the user for the ingredients. The save the words ask for follows (``saved_too``)."""
    if not _saves_unmade(think) or requested_content(message) is None:
        return think
    return _recipe_steps_made(think, "write", "generate")


def _recipe_steps_made(think: ThinkOutput, was: str, made: str) -> ThinkOutput:
    """``think`` with its recipes steps of type ``was`` made steps of type ``made``."""
    steps = [
        s.model_copy(update={"step_type": made})
        if s.step_type == was and s.subdomain == "recipes"
        else s
        for s in think.steps
    ]
    return think.model_copy(update={"steps": steps})


def invent_note(think: ThinkOutput, asked: str) -> str:
    """What Think is told when its plan thinks of nothing new (``invents_nothing``)."""
    does = "saves a recipe nothing has thought up" if _saves_unmade(think) else "only reads"
    return (
        f'The request asks for something new ("{asked}"), and your plan {does} or '
        f"analyzes:\n{_plan_lines(think)}\nNew content (a recipe, a meal idea) comes from "
        "a generate step, and stays unsaved until the user saves it. Answer again: if the "
        "user asked for something new, plan its generate step (with only the reads it "
        "needs); if they asked to choose among what is stored, give the same plan."
    )


def writes_unasked(think: ThinkOutput, message: str) -> bool:
    """Whether Think's plan writes for words that only ask to see or know something
    (``asks_to_see``: "what's planned for dinner next Monday?", for which the 0.5B local
    model planned lunches written into the meal plan, copied from an example)."""
    if think.decision == "clarify" or not writes(think.steps):
        return False
    return asks_to_see(message)


def generates_unasked(think: ThinkOutput, message: str) -> bool:
    """Whether Think's plan thinks something up, beside its reads and writing nothing, for
    words that only ask what is stored (``asks_to_see``, not ``asks_for_ideas``): for
    "whats for lunch tomorrow" the 1.5B local model read the meal plan, then generated a
    lunch of Red Lentil Dal, and Reply told the user it was planned. A question with a
    write is ``writes_unasked``'s."""
    kinds = {s.step_type for s in think.steps}
    if think.decision == "clarify" or "write" in kinds or not {"generate", "read"} <= kinds:
        return False
    return asks_to_see(message) and not asks_for_ideas(message)


def only_reads(think: ThinkOutput, message: str = "") -> ThinkOutput:
    """A plan that writes for a question (``writes_unasked``) even when asked again, or thinks
    something up for it (``generates_unasked``), as its reads and analyses: what answers a
    question. For "anything i need to do this week?" the 1.5B local model planned reads,
    then a week of new tasks, twice; the user was asked to confirm them. With nothing but
    writes and generates in it, the system's read of each place the question's words name
    (``places_named``: "anything i need to do in the next 2 days" is the tasks'), or
    unchanged when they name none: for that question, the 1.5B planned one write of three
    meals."""
    kept = [s for s in think.steps if s.step_type in ("read", "analyze")]
    if len(kept) == len(think.steps):
        return think
    kept = kept or [_added_read(place, (), 0) for place in places_named(message)]
    if not kept:
        return think
    return think.model_copy(
        update={"steps": kept, "decision": "plan_direct", "proposal_message": None}
    )


def lookup_note(think: ThinkOutput) -> str:
    """What Think is told when its plan writes for a question (``writes_unasked``)."""
    return (
        "The request asks to see or know something, not to change anything, and your "
        f"plan writes:\n{_plan_lines(think)}\nA question is answered by reads (and an "
        "analyze to pick or compare what they found). Answer again: if the user did ask "
        "for a change, give the same plan; if not, plan only the steps that answer it."
    )


def looks_elsewhere(
    think: ThinkOutput, message: str, names_recipe: bool = False, names_task: bool = False
) -> tuple[str, ...]:
    """The places a question's words name (``domain.intent.places_named``: "anything i
    need to do this week?" names the tasks; a saved recipe the dashboard finds named,
    ``names_recipe``, the recipes) when the plan, changing nothing, reads or analyzes none
    of them; empty otherwise. For that question the 1.5B local model read only the meal
    plans, found none, and answered about meal plans; for "does the dal have spinach in
    it" it read the inventory's spinach and said the dal had none. A plan that reads the
    meal plans, whose rows name their recipes, reads where "when are we having the dal"
    is answered. An open task the dashboard finds named (``names_task``) names the tasks:
    for "how many days till the plumber" the 1.5B read the inventory for the plumber."""
    named = places_named(message)
    planned = {s.subdomain for s in think.steps}
    if names_recipe and asks_to_see(message) and not planned & {"recipes", "meal_plans"}:
        named = (*named, "recipes")  # a meal plan's rows name their recipes too
    if names_task and asks_to_see(message) and "tasks" not in (*named, *planned):
        named = (*named, "tasks")
    if not named or not _only_reads(think):
        return ()
    return () if planned & set(named) else named


def elsewhere_note(think: ThinkOutput, named: tuple[str, ...]) -> str:
    """What Think is told when its plan looks elsewhere than the words say
    (``looks_elsewhere``)."""
    where = " or ".join(named)
    return (
        f"The request asks about {where}, and your plan reads only "
        f"{', '.join(sorted({s.subdomain for s in think.steps}))}:\n{_plan_lines(think)}\n"
        f"Answer again: if the answer is kept in {where}, read it there; if it is where you "
        "planned, give the same plan."
    )


TASK_WORDS = frozenset(name_words("the task tasks chore job done complete completed mark"))
"""Words of a step about tasks that name no task."""


def tasks_left_out(think: ThinkOutput, message: str, tasks: Sequence[str]) -> list[str]:
    """The ``tasks`` the dashboard finds named (their titles) that a plan for chores done
    (``change_kinds``: ``done``) changes in no step, when it changes some: no step of
    its tasks writes shares a word of the title's own. Empty otherwise. For "done the oven
    and called the plumber", both tasks named, the 1.5B local model ticked off the
    plumber alone."""
    if think.decision == "clarify" or len(tasks) < 2 or "done" not in change_kinds(message):
        return []
    written = [s for s in think.steps if s.step_type == "write" and s.subdomain == "tasks"]
    if not written:
        return []
    said = set().union(*(name_words(s.description) for s in written))
    return [title for title in tasks if not (name_words(title) - TASK_WORDS) & said]


def adds_held(think: ThinkOutput, message: str, stocked: Sequence[str]) -> list[str]:
    """The items the inventory holds, named by the words (the dashboard's ``stocked``), that
    a write step adds to the inventory again (``adds_rows``) for words that add none (no
    "bought", "got", "add", "put", "need": ``change_kinds``); empty otherwise. For "the eggs
    actually go off on thursday" the 1.5B local model planned "Add to the inventory one
    row: eggs (1 carton)", and Act, its create sent back, created the eggs again."""
    if think.decision == "clarify" or not stocked:
        return []
    if change_kinds(message) & {"acquired", "added", "needed"}:
        return []
    adds = [
        s.description.lower() for s in think.steps if adds_rows(s) and s.subdomain == "inventory"
    ]
    return [name for name in stocked if any(name.lower() in d for d in adds)]


def held_note(think: ThinkOutput, held: Sequence[str]) -> str:
    """What Think is told when its plan adds to the inventory what it holds, for words
    that add none (``adds_held``)."""
    return (
        f"The request adds nothing: it says something of {', '.join(held)}, which the "
        f"inventory holds, and your plan adds rows there:\n{_plan_lines(think)}\nWhat the "
        "words say of a thing held (when it goes off, how much is left, where it is) "
        "changes its row: a write step that changes it, not one that adds. Answer again: "
        "if the user did add more, give the same plan."
    )


def left_out_note(think: ThinkOutput, left: Sequence[str]) -> str:
    """What Think is told when its plan for chores done leaves named tasks out
    (``tasks_left_out``)."""
    named = ", ".join(repr(title) for title in left)
    return (
        f"The request also names the task(s) {named}, and your plan changes none of them:\n"
        f"{_plan_lines(think)}\nAnswer again: if the user's words say they are done too, "
        "mark each as completed; if not, give the same plan."
    )


READ_THERE = {
    "tasks": "Read the tasks",
    "shopping": "Read the shopping list",
    "inventory": "Read the inventory",
    "meal_plans": "Read the meal plan",
    "recipes": "Read the recipes",
    "preferences": "Read the preferences",
}


def read_there(
    think: ThinkOutput,
    message: str,
    max_steps: int,
    recipes: Sequence[str] = (),
    tasks: Sequence[str] = (),
) -> ThinkOutput:
    """A plan that, asked again, still reads elsewhere than the question's words name
    (``looks_elsewhere``), with a read of each place they name added to its first group:
    where an answer is kept needs no judgment, and a read changes nothing. Unchanged when
    the steps would pass ``max_steps``, and for a plan that reads nothing (an answer from
    what a model knows: "how long do eggs keep in the fridge?"). The saved ``recipes`` the
    dashboard finds named are the recipes' read, by name: given "Read the recipes" for
    "does the dal have spinach in it", the 1.5B read the recipes named "spinach". Told
    that "anything i need to do this week?" asks about the tasks, the 1.5B local model
    planned the meal plans' read again, and the user was told no meals were planned."""
    named = looks_elsewhere(think, message, bool(recipes), bool(tasks))
    reads = any(step.step_type == "read" for step in think.steps)
    if not named or not reads or len(think.steps) + len(named) > max_steps:
        return think
    first = min(step.group for step in think.steps)
    added = [_added_read(place, recipes, first) for place in named]
    return think.model_copy(update={"steps": [*added, *think.steps]})


def _read_of(place: str, recipes: Sequence[str]) -> str:
    """The description of an added read of ``place`` (``read_there``)."""
    if place == "recipes" and recipes:
        return f"Read the recipe {' and '.join(recipes)} with its ingredients"
    return READ_THERE[place]


def _added_read(place: str, recipes: Sequence[str], group: int) -> ThinkStep:
    """A read step the system adds to a plan (``read_there``, ``read_first``), with the read
    it says (``_read_of``) for Act to run without a model: the ``recipes`` by name, with
    their ingredients; every row of another place. For "what else is in the dal apart
    from lentils" the 1.5B local model, given "Read the recipe Red Lentil Dal with its
    ingredients", read the inventory, then ended the step with ingredients it made up."""
    read = DbRead(table=SUBDOMAINS[place][0])
    if place == "recipes" and recipes:
        named = [Filter(field="name", op="=", value=name) for name in recipes]
        read = DbRead(table="recipes", or_filters=named, columns=["*", "recipe_ingredients"])
    description = _read_of(place, recipes)
    return ThinkStep(
        description=description, step_type="read", subdomain=place, group=group, read=read
    )


def _links_a_recipe(step: ThinkStep) -> bool:
    """Whether a write step adds rows (``act_rules.adds_rows``) where they link a saved
    recipe by its ref: its ingredients, a meal planned with it, what it needs on the list."""
    return adds_rows(step) and step.subdomain in ("recipes", "meal_plans", "shopping")


IN_A_RECIPE = re.compile(
    r"\bingredients?\b|\b(?:from|in|out of)\s+(?:the\s+|my\s+)?[\w' ]*\brecipe\b", re.IGNORECASE
)
"""A write step's words that change rows inside a recipe: its ingredients ("Remove the
onion row from the Red Lentil Dal recipe"), not the recipe's own row ("Delete the Red
Lentil Dal recipe", "Change the servings of the Flapjacks recipe")."""


def _in_a_recipe(step: ThinkStep) -> bool:
    """Whether a write step changes an ingredient row of a saved recipe (``IN_A_RECIPE``):
    those rows are found by the recipe's ref, which only a read gives."""
    return (
        step.step_type == "write"
        and step.subdomain == "recipes"
        and IN_A_RECIPE.search(step.description) is not None
    )


def _read_before(think: ThinkOutput, reads: list[ThinkStep]) -> ThinkOutput:
    """``think`` with the system's ``reads`` in its first group and every step of its own a
    group later (``read_first``, ``read_moved``)."""
    first = min(step.group for step in think.steps)
    added = [r.model_copy(update={"group": first}) for r in reads]
    later = [s.model_copy(update={"group": s.group + 1}) for s in think.steps]
    return think.model_copy(update={"steps": [*added, *later]})


def read_first(
    think: ThinkOutput,
    message: str,
    recipes: Sequence[str],
    known: Sequence[str],
    max_steps: int,
    planned: Sequence[str] = (),
) -> ThinkOutput:
    """A plan that writes about the saved ``recipes`` the dashboard finds named
    (``_links_a_recipe``), and reads none of them first, with their read added before it
    (every step a group later): the write needs a recipe's ref, and only a read gives it.
    Unchanged when a recipes read comes first, when Act's entities already show them
    (``known``, their labels), for a removal (but of an ingredient, ``_in_a_recipe``), and
    when the steps would pass ``max_steps``. For "add a teaspoon of cumin to the dal" the
    1.5B local model planned one write; Act linked the cumin to a made-up
    ``gen_recipe_1``, was refused twice, and nothing was added; for "the dal recipe
    shouldnt have onion in it, remove it", it deleted the onion of ``gen_recipe_1``. A
    write to the recipes for words that scale an amount (``scales_said``: "double the
    lentils") reads them first too: the write step is shown each amount read, scaled; so
    does one for words that say what a dish lacks or should have instead (``dish_wants``):
    for "dal should be 250g lentils not 200" the 1.5B local model, which read nothing, set
    the dal's servings to 250; and for words that set an amount (``amounts_said``: "change
    the lentils in the dal to 300g"). An analysis that names a saved recipe, of those named or of
    those the meal plan holds (``planned``), reads it first as well: for "what do i need
    to buy for mondays dinner" the 1.5B local model listed what the Red Lentil Dal needs
    from a read of the meal plan and the inventory alone, and made its ingredients up."""
    analyzed = [  # of what recipes hold: a meal plan's own analysis needs its slots alone
        s for s in think.steps if s.step_type == "analyze" and s.subdomain != "meal_plans"
    ]
    in_analyses = [n for n in planned if any(n.lower() in s.description.lower() for s in analyzed)]
    recipes = list(dict.fromkeys([*recipes, *in_analyses]))
    shown = {label.lower() for label in known}
    unread = [name for name in recipes if name.lower() not in shown]
    # "double the lentils", "dal should be 250g lentils": an amount read, then set
    measured = any(unit for _, unit, _ in amounts_said(message))  # not "serve 6": the row's
    amount = bool(scales_said(message)) or measured or dish_wants(message) is not None
    inside = [
        s
        for s in think.steps
        if _in_a_recipe(s) or (amount and s.step_type == "write" and s.subdomain == "recipes")
    ]
    weighed = [s for s in analyzed if any(n.lower() in s.description.lower() for n in recipes)]
    writes = [s for s in think.steps if _links_a_recipe(s)] + inside + weighed
    if not unread or not writes or len(think.steps) >= max_steps:
        return think
    if requested_change(message) in (*REMOVES, "take off") and not inside:
        return think
    first_write = min(s.group for s in writes)
    if any(
        s.step_type == "read" and s.subdomain == "recipes"
        for s in think.steps
        if s.group < first_write
    ):
        return think
    return _read_before(think, [_added_read("recipes", unread, 0)])


DATED_PLACES = ("inventory", "meal_plans", "tasks")
"""The subdomains whose rows have a date a user moves ("push the oven back a week")."""


def read_moved(think: ThinkOutput, message: str, max_steps: int) -> ThinkOutput:
    """A plan for words that move dates from their own (``moves_said``: "back a week") that
    writes in a place with dates (``DATED_PLACES``) and reads none of it first, with its
    read added before (every step a group later): a date moved from its own needs that
    date, and only a read gives it (the write step is shown each date moved:
    ``domain.kitchen.dated.dates_moved``). Unchanged when the steps would pass
    ``max_steps``. For "push everything on my todo list back a week" the 1.5B local model
    planned two writes, each "to" the date the task already had."""
    if not moves_said(message):
        return think
    writes = [s for s in think.steps if s.step_type == "write" and s.subdomain in DATED_PLACES]
    if not writes:
        return think
    first_write = min(s.group for s in writes)
    read = {s.subdomain for s in think.steps if s.step_type == "read" and s.group < first_write}
    unread = sorted({s.subdomain for s in writes} - read)
    if not unread or len(think.steps) + len(unread) > max_steps:
        return think
    return _read_before(think, [_added_read(place, (), 0) for place in unread])


def unplanned_meal(think: ThinkOutput, message: str, today: dt.date) -> list[str]:
    """The days ``message`` names (``named_days``) when it asks for a change and Think's
    plan writes or generates recipes but has no meal_plans step: a meal on a day is a
    meal_plans row ("i'd like the dal on tuesday": the 1.5B local model planned a recipe
    named "Dal on Tuesday"). Empty otherwise, and for a removal."""
    if think.decision == "clarify" or not think.steps:
        return []
    if requested_change(message) in (None, *REMOVES):
        return []
    steps = [(s.subdomain, s.step_type) for s in think.steps]
    if any(subdomain == "meal_plans" for subdomain, _ in steps):
        return []
    if ("recipes", "write") not in steps and ("recipes", "generate") not in steps:
        return []
    return named_days(message, today)


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_DAY_SAID = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:today|tonight|tomorrow)\b|"
    r"\d{4}-\d{2}-\d{2}",
    re.IGNORECASE,
)
"""Words of a step that give it a day: a weekday, today or tomorrow, a date."""


def days_left_out(think: ThinkOutput, message: str, today: dt.date) -> list[str]:
    """The days ``message`` names (``named_days``, one day each) that no write or generate
    step says, by its date, its weekday or the user's own word, when the plan writes the
    meal plan and its steps give days; empty otherwise, and for a removal. For "put the
    dal down for lunch tomorrow" the 1.5B local model planned the dal for Monday (the
    dashboard's day for it); for "chili for dinner friday and saturday", asked again, it
    planned Friday alone."""
    if think.decision == "clarify" or requested_change(message) in (*REMOVES, "take off"):
        return []
    changes = [s for s in think.steps if s.step_type in ("write", "generate")]
    if not any(s.step_type == "write" and s.subdomain == "meal_plans" for s in changes):
        return []
    said = " ".join(s.description for s in changes).lower()
    if not _DAY_SAID.search(said):
        return []  # the days are Act's to take from the words
    left = []
    for line in named_days(message, today):
        phrase, dates = line.split('"')[1].lower(), _ISO.findall(line)
        if len(dates) != 1:
            continue  # a week is not one day
        weekday = dt.date.fromisoformat(dates[0]).strftime("%A").lower()
        if not any(word in said for word in (dates[0], phrase, weekday)):
            left.append(line)
    return left


def days_note(think: ThinkOutput, days: list[str]) -> str:
    """What Think is told when its plan leaves out days the words name
    (``days_left_out``)."""
    return (
        f"The request names a day ({'; '.join(days)}), and no step of your plan puts "
        f"anything on it:\n{_plan_lines(think)}\nAnswer again: put each meal on the day "
        "the user's words give it; if their words put nothing on that day, give the same "
        "plan."
    )


MEALS_PLANNED = re.compile(
    r"\b(?:plan|planning|sort out|organi[sz]e)\s+(?:out\s+)?(?:my\s+|our\s+|the\s+|some\s+|"
    r"a\s+week\s+of\s+|\w+\s+days\s+of\s+|next\s+week'?s\s+|this\s+week'?s\s+)?"
    r"(?:breakfasts?|brunch(?:es)?|lunch(?:es)?|dinners?|suppers?|meals?|menu)\b|"
    r"\b(?:make|create|draw up|put together|do)\s+(?:me\s+|us\s+)?(?:a\s+|the\s+)?"
    r"(?:meal\s+plan|menu)\b",
    re.IGNORECASE,
)
"""Words that ask for meals to be planned: "plan my dinners for next week", "sort out
lunches", "plan a week of meals", "make me a meal plan". The meals go in the meal plan."""


def meals_unplanned(think: ThinkOutput, message: str) -> str | None:
    """The words that ask for meals to be planned (``MEALS_PLANNED``) when Think's plan
    neither chooses nor writes meal plan rows; None otherwise. For "plan my dinners for
    next week and put what I need for them on my shopping list" the 1.5B local model
    planned only the shopping, from the meal plan already there (a library entry's
    plan)."""
    if think.decision == "clarify" or not think.steps:
        return None
    match = MEALS_PLANNED.search(message)
    if match is None or "meal_plans" in _changed(think):
        return None
    return match.group(0)


MEAL_WORDS = re.compile(
    r"\b(?:breakfasts?|brunch(?:es)?|lunch(?:es)?|dinners?|suppers?|snacks?|meals?|menus?|"
    r"plan(?:s|ned|ning)?|eat(?:s|ing)?|cook(?:s|ing)?)\b",
    re.IGNORECASE,
)
"""Words that speak of meals, or of planning or eating them."""


def meals_unasked(think: ThinkOutput, message: str, today: dt.date) -> bool:
    """Whether a plan puts meals in the meal plan (a write or generate step of meal_plans)
    for words that speak of no meal, no day and no plan (``MEAL_WORDS``, ``named_days``,
    ``WHEN``), and remove nothing. For "call the dal mums dal from now on" the 1.5B local
    model planned a meal for today after reads and an analysis, and the turn asked the user
    which days and meals, a question about nothing they had said."""
    if think.decision == "clarify" or requested_change(message) in (*REMOVES, "take off"):
        return False
    if not _plans_meals(think):
        return False
    return not (MEAL_WORDS.search(message) or named_days(message, today) or WHEN.search(message))


def meals_dropped(think: ThinkOutput, message: str, today: dt.date) -> ThinkOutput:
    """A plan that, asked again, still puts meals in the meal plan for words that speak of
    none (``meals_unasked``), without its meal plan steps: whatever the model judged, no
    one asked for the meals, and the user would be asked which days for them. Unchanged
    when nothing else would be left. Asked again for "call the dal mums dal from now on",
    the 1.5B local model kept the meal, and the turn asked which days and meals."""
    if not meals_unasked(think, message, today):
        return think
    kept = [s for s in think.steps if s.subdomain != "meal_plans"]
    if not kept:
        return think
    return think.model_copy(
        update={"steps": kept, "decision": "plan_direct", "proposal_message": None}
    )


def meals_unasked_note(think: ThinkOutput) -> str:
    """What Think is told when its plan puts meals in the meal plan for words that speak of
    none (``meals_unasked``)."""
    return (
        "The request speaks of no meal, no day and no plan, and your plan puts meals in the "
        f"meal plan:\n{_plan_lines(think)}\nAnswer again: plan only what the user's words "
        "ask for; if they did ask for meals planned, give the same plan."
    )


def meals_note(think: ThinkOutput, asked: str) -> str:
    """What Think is told when its plan puts no meal in the meal plan for words that ask
    for meals planned (``meals_unplanned``)."""
    return (
        f'The request asks for meals to be planned ("{asked}"), and your plan puts none in '
        f"the meal plan:\n{_plan_lines(think)}\nPlanned meals are meal_plans rows: choose "
        "them (a generate step of meal_plans, from the recipes read), then write them (a "
        "write step of meal_plans), before any step that uses them. Answer again: if the "
        "user asked for meals planned, plan that; if not, give the same plan."
    )


def meal_plan_note(think: ThinkOutput, days: list[str]) -> str:
    """What Think is told when its plan puts no meal on the days the words name
    (``unplanned_meal``): its plan, and what a meal on a day is."""
    return (
        f"The request names a day ({'; '.join(days)}), and your plan has no meal_plans "
        f"step:\n{_plan_lines(think)}\nA meal on a day is a meal_plans row (its date, its "
        "meal, the recipe by ref): read the recipe, then write that row; a recipe is "
        "created only when the user asks for a new one. Answer again: if the user asked "
        "for a meal on a day, plan that; if not, give the same plan."
    )


def change_said(message: str, names_recipe: bool = False) -> tuple[str | None, tuple[str, ...]]:
    """The change the words ask for, as said (``requested_change``), and where it belongs
    (``change_home``). A dish said to lack something (``dish_wants``) where the dashboard
    finds a saved recipe named (``names_recipe``) is a change to the recipes: for "the
    chili needs a tin of sweetcorn as well" the 1.5B local model read and set a sweetcorn
    row of the inventory, where there was none. A rename that names no place, of a saved
    recipe named, is one too: for "call the dal mums dal from now on" the 1.5B local model
    planned the dal for today's dinner."""
    if names_recipe and (wants := dish_wants(message)):
        return wants, ("recipes",)
    change, home = requested_change(message), change_home(message)
    if names_recipe and change == "rename" and not home:
        return change, ("recipes",)
    return change, home


def misplaced_change(
    think: ThinkOutput, message: str, names_recipe: bool = False
) -> tuple[str, ...]:
    """Where the change the words ask for belongs (``change_said``: "I bought milk" in
    the inventory or shopping list) when the plan writes only elsewhere, or writing
    nothing generates only elsewhere (a recipe "2 liters of milk", as the 0.5B local model
    planned; "the dal only serves 2" as a recipe generated for a meal on a day, as the
    1.5B did). Empty otherwise."""
    home = change_said(message, names_recipe)[1]
    if not home or think.decision == "clarify":
        return ()
    made = _placed(think)
    return home if made and not set(made) & set(home) else ()


PLACES_SAID = {
    "inventory": "your inventory",
    "shopping": "your shopping list",
    "recipes": "your recipes",
    "meal_plans": "your meal plan",
    "tasks": "your tasks",
    "preferences": "your preferences",
}
"""A subdomain as a question to the user names it."""


def where_asked(think: ThinkOutput, message: str, names_recipe: bool = False) -> str | None:
    """The question to ask when the plan (asked again, ``home_note``) still changes only
    other subdomains than the one the words' change belongs in (``misplaced_change``):
    "Should I make that change in your recipes, or in your meal plan?". None otherwise."""
    home = misplaced_change(think, message, names_recipe)
    if not home:
        return None
    said = " or ".join(PLACES_SAID.get(h, h) for h in home)
    made = " and ".join(PLACES_SAID.get(s, s) for s in _placed(think))
    return f"Should I make that change in {said}, or in {made}?"


def home_note(
    think: ThinkOutput, message: str, home: tuple[str, ...], names_recipe: bool = False
) -> str:
    """What Think is told when its plan changes another subdomain than the one the words'
    change belongs in (``misplaced_change``): its plan, and where the change goes."""
    where = " or ".join(home)
    said = change_said(message, names_recipe)[0]
    return (
        f'The request reads as a change to {where} ("{said}"), and '
        f"your plan changes only {', '.join(_placed(think))}:\n{_plan_lines(think)}\n"
        "Answer again: if "
        f"the change belongs in {where}, plan its write step there (with only the reads it "
        "needs); if the user asked for what your plan does, give the same plan."
    )


DEFINITE = re.compile(r"\b(?:the|my|our|that|this|these|those)\b", re.IGNORECASE)
"""Words that point at a thing already there ("the dal", "my lasagna"); without one,
what the words ask for may well be new ("make me fish tacos", "make a soup")."""


def revisable(unsaved: Sequence[str]) -> bool:
    """Whether a recipe is among the ``unsaved`` refs (the registry's): one thought up, to
    revise."""
    return any((p := parse_ref(ref)) is not None and p.type_name == "recipe" for ref in unsaved)


def invents_unasked(
    think: ThinkOutput, message: str, unsaved: Sequence[str], names_recipe: bool = False
) -> bool:
    """Whether Think's plan generates a recipe for a change that asks for none: the words
    ask for a change (``requested_change``) and for nothing new (``requested_content``),
    point at something already there (``DEFINITE``), and no unsaved recipe is there to
    revise (``unsaved``: the registry's unsaved refs). "i'd like the dal on tuesday"
    names a recipe the user has; the 1.5B local model planned a new dal, generated, for
    the meal plan. Where the words put a named dish on a day, a generated meal plan is
    as unasked ("actually lets have the chili on monday not the dal": the 1.5B generated
    the week's meals again, and proposed them). A recipe the dashboard finds named
    (``names_recipe``: "dal for dinner friday" names the Red Lentil Dal) points as "the"
    does: the 1.5B chose a new dinner for Friday, and proposed it."""
    if think.decision == "clarify" or revisable(unsaved):
        return False
    kinds = ("recipes", "meal_plans") if "meal_plans" in change_home(message) else ("recipes",)
    generates = any(s.step_type == "generate" and s.subdomain in kinds for s in think.steps)
    if not generates or requested_content(message) is not None:
        return False
    if not DEFINITE.search(message) and not names_recipe:
        return False
    return requested_change(message) is not None


def written_instead(
    think: ThinkOutput, message: str, unsaved: Sequence[str], names_recipe: bool = False
) -> ThinkOutput:
    """A plan that, asked again (``invents_unasked``), still thinks up a recipe for a
    change to one the user has, with its recipe generate steps made write steps, unless it
    writes recipes already: nothing unsaved is there to revise, and a recipe thought up
    would be a new one nobody asked for, left unsaved. For "swap the spinach in the dal
    for kale" the 1.5B local model planned the saved dal revised "by its gen_ ref", twice,
    and the turn ended on a read by that ref, which could not run."""
    if not invents_unasked(think, message, unsaved, names_recipe):
        return think
    if any(s.step_type == "write" and s.subdomain == "recipes" for s in think.steps):
        return think
    return _recipe_steps_made(think, "generate", "write")


def named_note(think: ThinkOutput) -> str:
    """What Think is told when its plan invents a recipe nobody asked for
    (``invents_unasked``)."""
    return (
        "The request asks for a change and for no new recipe, and your plan generates "
        f"one:\n{_plan_lines(think)}\nA dish the words name is most often a recipe the "
        "user has saved (the kitchen dashboard counts them): a read of recipes by that "
        "name finds it, and a later step uses what the read found. Answer again: if the "
        "user asked for a new recipe, give the same plan; if they named one they have, "
        "read it instead of generating one."
    )


def ask_again(
    think: ThinkOutput,
    message: str,
    today: dt.date | None,
    unsaved: Sequence[str] = (),
    answered: bool = False,
    names_recipe: bool = False,
    tasks: Sequence[str] = (),
    stocked: Sequence[str] = (),
) -> str | None:
    """Why Think is asked for its plan once more, or None: the plan changes nothing the
    words ask to change (``changes_nothing``), thinks of nothing new they ask for
    (``invents_nothing``), writes for words that only ask to see or know
    (``writes_unasked``), reads elsewhere than a question's words name
    (``looks_elsewhere``), puts no meal on the day they name (``unplanned_meal``), leaves
    out a day they name from the days its writes give (``days_left_out``), puts none in
    the meal plan they ask for (``meals_unplanned``) or puts meals there for words that
    speak of none (``meals_unasked``), changes another subdomain than the
    one the change belongs in (``misplaced_change``), or invents a recipe for a change
    that asks for none with nothing ``unsaved`` to revise (``invents_unasked``; a recipe the
    dashboard finds named, ``names_recipe``, points at one the user has), leaves out
    a task it finds named among chores done (``tasks_left_out``), or adds to the inventory
    an item it holds, named by words that add none (``adds_held``, ``stocked``). Meals,
    and where a change belongs, are not asked for again once the user has ``answered``
    this turn's pause ("plan dinners", asked for how many days: "just add rice")."""
    if asked := changes_nothing(think, message):
        return replan_note(think, asked)
    if asked := invents_nothing(think, message):
        return invent_note(think, asked)
    if writes_unasked(think, message):
        return lookup_note(think)
    if named := looks_elsewhere(think, message, names_recipe, bool(tasks)):
        return elsewhere_note(think, named)
    if today is not None and (days := unplanned_meal(think, message, today)):
        return meal_plan_note(think, days)
    if today is not None and (days := days_left_out(think, message, today)):
        return days_note(think, days)
    if not answered and (asked := meals_unplanned(think, message)):
        return meals_note(think, asked)
    if not answered and (home := misplaced_change(think, message, names_recipe)):
        return home_note(think, message, home, names_recipe)
    if not answered and today is not None and meals_unasked(think, message, today):
        return meals_unasked_note(think)
    if invents_unasked(think, message, unsaved, names_recipe):
        return named_note(think)
    if left := tasks_left_out(think, message, tasks):
        return left_out_note(think, left)
    if held := adds_held(think, message, stocked):
        return held_note(think, held)
    return None


def _only_reads(think: ThinkOutput) -> bool:
    """A plan with steps, none of which writes or generates."""
    return think.decision != "clarify" and bool(think.steps) and not _changed(think)


def _changed(think: ThinkOutput) -> list[str]:
    """The subdomains the plan writes or generates in, sorted."""
    return sorted({s.subdomain for s in think.steps if s.step_type in ("write", "generate")})


def _placed(think: ThinkOutput) -> list[str]:
    """Where the plan puts its change: the subdomains it writes in, or (writing nothing)
    generates in, sorted. A recipe generated on the way to a meal plan row changes the
    meal plan."""
    return sorted({s.subdomain for s in think.steps if s.step_type == "write"}) or _changed(think)


def _plan_lines(think: ThinkOutput) -> str:
    return "\n".join(
        f"- group {s.group}, {s.step_type} ({s.subdomain}): {s.description}" for s in think.steps
    )


def writes(steps: list[ThinkStep]) -> bool:
    return any(s.step_type == "write" for s in steps)


def saves_generated(steps: list[ThinkStep]) -> bool:
    """Whether a write runs after a generate: it may save what the generate invents."""
    first = min((s.group for s in steps if s.step_type == "generate"), default=None)
    return first is not None and any(s.step_type == "write" and s.group > first for s in steps)


SAVE_TOO = re.compile(
    r"(?:\band|\bthen|,)\s+(?:save|keep|store)\s+(?:it|that|this|them)\b|"
    r"\b(?:save|keep|store)\s+(?:me|us)\s+(?:a|an|some|another)\b",
    re.IGNORECASE,
)
"""Words that ask to save what they ask to be thought up: "give me a banana bread recipe
and save it", "invent a cod dish, then keep it", "save me a simple omelette recipe"."""
SAVE_STEP = "Save the generated recipe (its gen_ ref) to the recipes, with its ingredients"


def saved_too(think: ThinkOutput, message: str, max_steps: int) -> ThinkOutput:
    """A plan that thinks up a recipe the words also ask to save (``SAVE_TOO``), with no
    recipes write (one beside it runs after it: ``in_data_order``), with the save added a
    group after the recipe is thought up: the user asked for it in so many words (plan
    mode still proposes it, as it does any plan that saves what it thinks up:
    ``hold_plan``). Unchanged past ``max_steps``. For "give me a
    banana bread recipe and save it" the 1.5B local model planned a read, an analysis and
    the recipe, and nothing saved it."""
    made = [s.group for s in think.steps if s.step_type == "generate" and s.subdomain == "recipes"]
    saves = any(s.step_type == "write" and s.subdomain == "recipes" for s in think.steps)
    if not made or not SAVE_TOO.search(message) or saves:
        return think
    if len(think.steps) >= max_steps:
        return think
    save = ThinkStep(
        description=SAVE_STEP, step_type="write", subdomain="recipes", group=max(made) + 1
    )
    return think.model_copy(update={"steps": [*think.steps, save]})


def ticked_too(
    think: ThinkOutput, message: str, listed: Sequence[str], max_steps: int
) -> ThinkOutput:
    """A plan for things got (``change_kinds``: "acquired") that the dashboard finds open on
    the shopping list (``listed``, their names), that writes elsewhere and nothing on the
    list, with their tick-off added beside its first write: a thing bought is no longer
    to buy, which needs no judgment (a thing found at home is left to the model).
    Unchanged past ``max_steps``. For "bought the olive
    oil and bread, both in the pantry now" the 1.5B local model put both in the pantry,
    and the list kept them open."""
    writes = [s for s in think.steps if s.step_type == "write"]
    if not listed or not writes or "acquired" not in change_kinds(message):
        return think
    if re.search(r"\bfound\b", message, re.IGNORECASE):  # found at home: not bought
        return think
    if any(s.subdomain == "shopping" for s in writes) or len(think.steps) >= max_steps:
        return think
    tick = ThinkStep(
        description=f"Mark {' and '.join(listed)} as bought on the shopping list",
        step_type="write",
        subdomain="shopping",
        group=min(s.group for s in writes),
    )
    return think.model_copy(update={"steps": [*think.steps, tick]})


RECIPES_READ = "Read the saved recipes, with their ingredients, to choose the meals from"


def with_recipes_read(steps: list[ThinkStep]) -> list[ThinkStep]:
    """``steps`` with a read of the saved recipes first when they choose meals for the meal
    plan (a ``generate`` in meal_plans) and neither read nor generate a recipe: a meal is
    planned on a recipe by its ref, and with none read there is no ref to name. The 1.5B
    local model planned a week of dinners after reads of the meal plans and the inventory
    only, chose them on recipe refs nothing had, and saved none. Its groups move up one
    when a choice was in group 0, so the read runs first."""
    chooses = [s.group for s in steps if s.step_type == "generate" and s.subdomain == "meal_plans"]
    recipes = [s for s in steps if s.subdomain == "recipes" and s.step_type != "write"]
    if not chooses or any(s.step_type in ("read", "generate") for s in recipes):
        return steps
    if min(chooses) == 0:
        steps = [s.model_copy(update={"group": s.group + 1}) for s in steps]
    return [ThinkStep(description=RECIPES_READ, step_type="read", subdomain="recipes"), *steps]


def in_data_order(steps: list[ThinkStep]) -> list[ThinkStep]:
    """``steps`` with every group split so that no step shares a group with a step it
    consumes (``consumes``); the list's order is kept (Act runs by group)."""
    shift, moved = 0, {}
    for group in sorted({s.group for s in steps}):
        members = [i for i, s in enumerate(steps) if s.group == group]
        stages = _stages([steps[i] for i in members])
        for i, stage in zip(members, stages, strict=True):
            moved[i] = group + shift + stage
        shift += max(stages)
    if all(moved[i] == s.group for i, s in enumerate(steps)):
        return steps
    return [s.model_copy(update={"group": moved[i]}) for i, s in enumerate(steps)]


def consumes(step: ThinkStep, other: ThinkStep) -> bool:
    """Whether ``step`` uses ``other``'s output when they share a group: a write uses a
    read of its own subdomain, and a write an earlier write there. Run side by side, two
    writes of one subdomain cannot see each other's rows: for "cleaned the oven. add mop
    the kitchen floor for wednesday" the 1.5B local model created the mop task in both
    steps of one group, and neither step's check for rows made already
    (``made_already.created_earlier``) had the other's create to see."""
    if other.step_type in CONSUMES.get(step.step_type, ()):
        return True
    return (
        step.step_type == "write"
        and other.step_type in ("read", "write")
        and step.subdomain == other.subdomain
    )


def _stages(group: list[ThinkStep]) -> list[int]:
    """Each step's place within its group: 0 runs first; a consumer runs one stage after
    the latest step of the group it consumes."""
    stage: dict[int, int] = {}
    for kind in KINDS:  # each after what it consumes
        for i, s in enumerate(group):
            if s.step_type == kind:
                fed = [stage[j] + 1 for j in stage if consumes(s, group[j])]
                stage[i] = max(fed, default=0)
    return [stage[i] for i in range(len(group))]


def retrievable(
    plan: list[ThinkStep], index: int, tool_results: list[ToolEntry]
) -> tuple[int, ...]:
    """The steps step ``index`` of ``plan`` may still retrieve: those of earlier groups it
    has not retrieved (``tool_results``) yet."""
    fetched = {t.retrieved_step for t in tool_results}
    group = plan[index].group
    return tuple(i for i, s in enumerate(plan) if s.group < group and i not in fetched)
