"""The plan examples Think is shown: fixed abstract patterns, or library entries picked for
the request (``ALFRED_THINK_EXAMPLES``: ``abstract`` or ``library``).

- ``abstract``: ``prompts/think_patterns``: step sequences by kind of request, with
  placeholders and no concrete request, the same for every message.
- ``library``: ``prompts/think_library``: realistic requests, each with the plan it needs;
  the entries whose requests share the most words with the user's message (TF-IDF cosine
  over stemmed content words) are shown, at most ``SHOWN``. A message that shares no word
  with any entry gets the abstract patterns. A message that asks for a change
  (``domain.intent.requested_change``) is shown only entries whose plan can make one (a
  ``write``, or a ``generate`` of content to save): a plan that only reads is no example
  for it (as ``domain.enforced.plan_rules.changes_nothing`` holds Think's own plan), nor one whose
  change undoes the kind its words name (``domain.intent.opposite_kinds``); where its
  words say where the change goes (``domain.intent.change_home``), only entries that
  change something there. A message that asks to see is shown only plans that read.

Both are versioned prompt files; the call records which one it used next to Think's own
template (``think+think_library``, ``v5+v3``). An entry's dates are day tokens
(``{next thursday}``), shown as the dates they name on the request's day, so an example
writes its dates out as Think must. Pure and deterministic: the same message and day show
the same text.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from typing import Literal

from domain.clock import DAY_TOKEN, Clock, local, named_day
from domain.intent import (
    CLAUSES,
    KEPT_IN,
    asks_to_see,
    change_home,
    change_kinds,
    corrects,
    dish_wants,
    opposite_kinds,
    requested_change,
    requested_content,
)
from domain.kitchen.tables import ENUMS, SUBDOMAINS, TABLES
from domain.modes import DEFAULT_MODE, mode_config
from domain.prompts import RenderedPrompt, load, render

ExampleSet = Literal["abstract", "library"]
DEFAULT_EXAMPLES: ExampleSet = "library"
"""Chosen by measurement: Think alone matched the reference plan more often with the
library in every A/B run so far (docs/EVALS.md)."""
PATTERNS = "think_patterns"
LIBRARY = "think_library"
SHOWN = 3
HOME_SHOWN = 1
"""Entries shown for a change whose words say where it goes or what kind it is when none
is like it: the likest of its kind, else the first in the file of those that change
something there (the others may make another kind of change). Which entry comes first in
its home is a choice the library file makes."""
MIN_SIMILARITY = 0.2
"""Below this an entry shares little more than an item's name with the message: not shown."""

_WORD = re.compile(r"[a-z0-9']+(?:-[a-z0-9']+)*")
_POSSESSIVE = re.compile(r"'s$|^'+|'+$")
"""A word's "'s" and its quotes: "milk's down to half" names the milk (read as "milk'", the
milk in the plan was taken for a word only the shown example said)."""
_NUMBERS = frozenset(
    "two three four five six seven eight nine ten eleven twelve dozen half couple".split()
)
_DAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight".split()
)
_MEALS = frozenset("breakfast brunch lunch dinner supper".split())
_STOP = frozenset(
    """a about above after again all already also am an and any are as at be been before
    being below both but by can could did do does doing don't for from further get
    got had has have having he her here hers him his how i i'd i'll i'm i've if in into is
    isn't it it's its itself just let let's me more most much my myself next no nor not now of
    off on once one only or other our ours out over own please same she should so some
    still such than that that's the their them then there these they this those through to
    too under until up us very was we we're were what what's when where which while who
    whom why will with would you you're your yours last like liked likes""".split()
)
"""The stop words hold "like": it asks ("I'd like the dal on tuesday"), compares ("something like
a curry") or happens to stand in a request ("nobody liked it") far more often than it names
a preference; a preference said with it ("don't like") is read as ``dislike`` first."""
_DISLIKE = re.compile(r"\b(?:don't|do not|doesn't|does not|didn't|did not)\s+like\b")
_UNITS = frozenset(
    "g kg ml l liter liters litre litres gram grams cup cups tbsp tsp piece pieces".split()
)
_SUFFIXES = ("ies", "ing", "ed", "es", "ic", "s", "y", "e")


def words(text: str) -> list[str]:
    """Lower-cased words, numbers as ``<n>`` and days (weekdays, today, YYYY-MM-DD) as
    ``<day>``, so "for two" matches "for four" and "on Tuesday" matches "on Monday"."""
    text = text.lower().replace("\u2019", "'")
    text = _DISLIKE.sub("dislike", text)
    text = re.sub(r"\d{4}-\d{2}-\d{2}", " today ", text)
    found = (_POSSESSIVE.sub("", w) for w in _WORD.findall(text))
    return [
        "<n>" if w.isdigit() or w in _NUMBERS else "<day>" if w in _DAYS else w for w in found if w
    ]


def stem(word: str) -> str:
    """A crude stem: one common suffix off, a doubled last consonant single, five letters
    at most ("allergies" and "allergic" are ``aller``, "planned" is ``plan``)."""
    if word.startswith("<"):
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word[:5]


def content_stems(text: str) -> list[str]:
    """The stems of the words that carry meaning (no function words), in order."""
    return [stem(w) for w in words(text) if w not in _STOP]


@dataclass(frozen=True)
class Entry:
    request: str
    plan: str
    cues: str = ""
    """Other words for this kind of request: matched against the message, never shown."""

    @property
    def changes(self) -> bool:
        """Whether the plan can change the kitchen: it writes, or generates what may be
        saved (a revision of unsaved content)."""
        return _CHANGING.search(self.plan) is not None

    @property
    def generates(self) -> bool:
        return _GENERATES.search(self.plan) is not None

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds of change its request names (``domain.intent.change_kinds``)."""
        return change_kinds(self.request)

    @property
    def changed(self) -> frozenset[str]:
        """The subdomains the plan writes or generates in."""
        return frozenset(_CHANGED_IN.findall(self.plan))

    def render(self, today: dt.date | None = None) -> str:
        """The request and its plan, the plan's day tokens as the dates they name from
        ``today`` (left out, with the space before them, when the day is not known)."""
        plan = _DAY_TOKEN.sub(
            lambda m: f" {named_day(m.group(1), today).isoformat()}" if today else "", self.plan
        )
        plan = "\n".join(f"  {line}" for line in plan.splitlines())
        return f'- "{self.request}" →\n{plan}'


_DAY_TOKEN = re.compile(" ?" + DAY_TOKEN.pattern)
_CHANGING = re.compile(r'"step_type":\s*"(?:write|generate)"')
_GENERATES = re.compile(r'"step_type":\s*"generate"')
_DESCRIPTION = re.compile(r'"description":\s*"([^"]*)"')
_CHANGED_IN = re.compile(r'"step_type":\s*"(?:write|generate)",\s*"subdomain":\s*"(\w+)"')


def parse_library(text: str) -> list[Entry]:
    """``## <request>`` headings, each followed by an optional ``Cues:`` line and its plan
    (Think's answer's ``outcome``, its lines kept); text before the first heading describes
    the file."""
    entries = []
    for block in text.split("\n## ")[1:]:
        request, _, rest = block.partition("\n")
        cues = ""
        if rest.startswith("Cues:"):
            line, _, rest = rest.partition("\n")
            cues = line.removeprefix("Cues:").strip()
        plan = "\n".join(line.rstrip() for line in rest.strip().splitlines())
        if request.strip() and plan:
            entries.append(Entry(request.strip(), plan, cues))
    return entries


def _topic(text: str) -> Counter[str]:
    """What a text is about, for matching: its content stems without numbers, days and
    units of measure."""
    return Counter(
        stem(w) for w in words(text) if w not in _STOP and w not in _UNITS and w[0] != "<"
    )


def similarities(message: str, entries: list[Entry]) -> list[float]:
    """Cosine of TF-IDF vectors: the message against each entry's request and its cues,
    the cues counted twice (they name the kind of request; the request's own words are
    mostly its items). IDF is over the entries; stems no entry has are left out, which
    ranks the entries the same."""
    documents = [_topic(e.request) + _topic(e.cues) + _topic(e.cues) for e in entries]
    frequency = Counter(s for d in documents for s in d)
    idf = {s: math.log((1 + len(entries)) / (1 + n)) + 1 for s, n in frequency.items()}
    query = {s: n * idf[s] for s, n in _topic(message).items() if s in idf}
    query_norm = math.sqrt(sum(w * w for w in query.values()))
    scores = []
    for document in documents:
        vector = {s: n * idf[s] for s, n in document.items()}
        dot = sum(w * vector.get(s, 0.0) for s, w in query.items())
        norm = query_norm * math.sqrt(sum(w * w for w in vector.values()))
        scores.append(dot / norm if norm else 0.0)
    return scores


PUT_VERBS = frozenset({"put", "add", "store", "keep", "move"})
"""Change verbs that say where a thing goes ("put it in the freezer")."""
STORED_IN = re.compile(
    r"\b(?:in|into|to)\s+(?:the\s+|my\s+|our\s+)?(?:fridge|freezer|pantry|cupboards?|larder)\b",
    re.IGNORECASE,
)
"""A place food is kept, as where a thing goes."""


def pick(
    message: str,
    entries: list[Entry],
    shown: int = SHOWN,
    named: Collection[str] = (),
    revisable: bool = True,
) -> list[Entry]:
    """The entries most like ``message``, highest similarity first (ties in file order),
    at least ``MIN_SIMILARITY``, at most ``shown``. For a message that asks for a change,
    only entries whose plan ``changes`` the kitchen, and where its words say where the
    change goes (``change_home``: "need to descale the kettle by friday" is a task), only
    entries that change something there ("we need paper towels" shares the word "need",
    and the 1.5B local model planned the kettle as shopping); when none of those is like
    it, the first of them in the file (``HOME_SHOWN``; a generate only when the message
    asks for something new): shown the abstract patterns, the 1.5B planned the kettle as
    a generated recipe, twice; but first, for a change of a kind its words name
    (``domain.intent.change_kinds``, "push the oven cleaning to friday"), the likest entry
    of that kind, where it goes or anywhere. Nor is a change shown an entry of the opposite
    kind (``domain.intent.opposite_kinds``): shown "the oven is clean, that chore can go",
    the 1.5B ticked off the oven it was asked to push back; shown "we need paper towels",
    it put on the list again the paper towels the user had got. A message that asks to see
    is shown only plans that read. Entries alike only in an item are shown too: requiring
    a word of the entry's cues (its kind of request) was tried and taken back
    (docs/EVALS.md, sixteenth session): "cleaned the oven finally" lost the entry that
    ticked the oven off, and the requests it kept from their item-alike entries failed as
    before.
    ``named``: the tables whose rows the message names (the dashboard's ``named``). An
    item still on the shopping list: a thing got that is on the list goes there: "got the
    paper towels and the bread", both on the list, was shown "picked up bread …" alone, and
    the 1.5B added them to the inventory, the list as it was (unless the words say where it
    is kept: "found a bottle of olive oil in the cupboard" is stock); an amount set by a
    verb that says nowhere ("make it 3 rolls of paper towels", on the list) is set on the
    list. A saved recipe said to lack something ("the chili needs a tin of sweetcorn as
    well", ``domain.intent.dish_wants``) is a thing the recipe needs: shown "used 2 of the
    tins of tomatoes in the stew" and "we need paper towels and dish soap", the 1.5B local
    model read and set a sweetcorn row of the inventory. A saved recipe put on a day or a
    meal: a change that asks for nothing new is shown no plan that thinks one up ("chili for
    saturday lunch please", shown "sort out lunches for the work week", had the 1.5B
    generate "a chili recipe from the recipe box", twice); a saved recipe changed ("swap the
    beef in the chili for lentils") still is while an unsaved one is there to revise. A
    thing put in a place food is kept ("put 500g of chicken thighs in the freezer",
    ``STORED_IN``) goes in the inventory; and a thing is moved between places only when it
    is in stock or the words say move: nothing in the inventory named, "put 500g of chicken
    thighs in the freezer" was shown "move the chicken breasts from the fridge to the
    freezer" alone, and the 1.5B local model moved chicken thighs there were none of, three
    times. A change whose words say where it goes and name a kind, shown no entry of that
    kind, is shown the likest one of it first: "got everything on the list" was shown only
    lists to stock up, and the 1.5B planned what the meal plan lacked added to the list.
    A change of no kind shown the first entries where it goes is shown those of no kind
    first: "dal should be 250g lentils not 200", of no kind, was given "get rid of the tuna
    bake recipe" as the recipes' first entry. A saved recipe said to have another amount
    ("should be 250g", ``domain.intent.corrects``) is a change to the recipes.
    A date moved ("do the oven a day later than planned") that names a task and no recipe
    is the task's, and one that names a recipe and no task the meal plan's: shown three
    meal plan entries for the oven, the 1.5B moved a dal.
    ``revisable``: an unsaved recipe is there to revise; when none is, a change to a saved
    recipe the dashboard finds is shown no plan that thinks one up ("swap the spinach in the
    dal for kale", shown only "make the soup less fiery and swap the cream for coconut
    milk", a revision of a recipe thought up, had the 1.5B plan the saved dal revised by its
    made-up gen ref, twice)."""
    listed = "shopping_list" in named
    said = set(words(message))
    placed = "<day>" in said or bool(said & _MEALS)  # "chili for saturday lunch"
    recipe_placed = "recipes" in named and placed
    saved_changed = "recipes" in named and not revisable  # nothing thought up to revise
    change = requested_change(message) is not None
    home = frozenset(change_home(message))
    kinds = change_kinds(message)
    stocked = KEPT_IN["inventory"].search(message.lower()) is not None  # "in the cupboard"
    if listed and "acquired" in kinds and "shopping" in home and not stocked:
        home = frozenset({"shopping"})  # a thing got that is on the list is ticked off it
    if listed and "counted" in kinds and not home:
        home = frozenset({"shopping"})  # "make it 3 rolls of paper towels", on the list
    if not home and requested_change(message) in PUT_VERBS and STORED_IN.search(message):
        home = frozenset({"inventory"})  # "put 500g of chicken thighs in the freezer"
    if "moved" in kinds and len(home) > 1 and ("tasks" in named) != ("recipes" in named):
        home = frozenset({"tasks" if "tasks" in named else "meal_plans"})  # what it names
    if "recipes" in named and (wants := dish_wants(message)):  # "the chili needs a tin of …"
        change, home = True, frozenset({"recipes"})
        kinds = kinds if corrects(wants) else frozenset({"needed"})  # "should be" X
    unstocked = "inventory" not in named and "moved" not in kinds  # "put", not "move"

    looks = asks_to_see(message)
    asks_new = requested_content(message) is not None

    def fits(entry: Entry) -> bool:
        if looks:
            return not entry.changes
        if (not change or recipe_placed or saved_changed) and entry.generates and not asks_new:
            return False  # "plumber is coming tuesday now" is no "come up with a … cake"
        if unstocked and "moved" in entry.kinds and entry.changed == {"inventory"}:
            return False  # nothing in stock is named: there is nothing to move
        return not change or (
            entry.changes
            and (not home or bool(entry.changed & home))
            and not opposite_kinds(kinds, entry.kinds)
        )

    scores = similarities(message, entries)
    scored = sorted(
        (-score, index)
        for index, score in enumerate(scores)
        if score >= MIN_SIMILARITY and fits(entries[index])
    )
    if saved_changed and change and not scored:  # the likest change to a saved recipe
        scored = sorted(
            (-score, index)
            for index, score in enumerate(scores)
            if score > 0 and fits(entries[index]) and "recipes" in entries[index].changed
        )[:1]
    if scored or not (home or kinds):
        chosen = [index for _, index in scored[:shown]]
    else:
        # the words say where the change goes or what kind it is: the likest entry of its
        # kind, else (where it goes) the first entry there
        homely = [i for i, e in enumerate(entries) if fits(e) and (asks_new or not e.generates)]
        if not kinds:  # a change of no kind is shown a change of none first, not a delete
            homely.sort(key=lambda i: bool(entries[i].kinds))
        alike = sorted((-scores[i], i) for i in homely if kinds & entries[i].kinds)
        chosen = ([i for _, i in alike] or (homely if home else []))[: min(shown, HOME_SHOWN)]
    if change and home and kinds and not any(kinds & entries[i].kinds for i in chosen):
        # none shown of the kind its words name: the likest of that kind, where it goes, first
        kind = sorted(
            (-scores[i], i)
            for i, e in enumerate(entries)
            if kinds & e.kinds and fits(e) and (asks_new or not e.generates)
        )
        chosen = [i for _, i in kind[:1]] + chosen[: shown - 1] if kind else chosen
    if change:
        chosen += _each_clause(message, entries, scores, chosen, home, shown)
    return [entries[i] for i in chosen]


def _each_clause(
    message: str,
    entries: list[Entry],
    scores: list[float],
    chosen: list[int],
    home: frozenset[str],
    shown: int,
) -> list[int]:
    """For a message of several clauses that each name a kind of change, the likest entry
    of each clause's kind that ``chosen`` shows none of (where the change goes, ``home``),
    within ``shown``: "cleaned the oven. add mop the kitchen floor for wednesday" was shown
    only "add sharpening the knives to my chores", and the 1.5B local model planned the
    oven as a task created."""
    said = [kinds for c in CLAUSES.split(message) if c and (kinds := change_kinds(c))]
    if len(said) < 2:
        return []
    added: list[int] = []
    for kinds in said:
        taken = chosen + added
        if len(taken) >= shown or any(kinds & entries[i].kinds for i in taken):
            continue
        alike = sorted(
            (-scores[i], i)
            for i, e in enumerate(entries)
            if i not in taken
            and kinds & e.kinds
            and e.changes
            and (not home or bool(e.changed & home))
        )
        added += [i for _, i in alike[:1]]
    return added


_LIBRARY_HEAD = (
    "Requests from other users that resemble this one, each with the `outcome` it needed:"
)


def shown_entries(
    examples: ExampleSet, message: str, named: Collection[str] = (), revisable: bool = True
) -> list[Entry]:
    """The library entries Think is shown for ``message`` (none: the abstract patterns;
    ``named``: the tables whose rows it names; ``revisable``: an unsaved recipe is there,
    ``pick``)."""
    if examples != "library":
        return []
    return pick(message, list(_library(load(LIBRARY).text)), named=named, revisable=revisable)


def plan_examples(
    examples: ExampleSet,
    message: str,
    today: dt.date | None = None,
    named: Collection[str] = (),
    revisable: bool = True,
) -> tuple[str, str, str]:
    """Think's ``$plan_examples`` for ``message`` on ``today`` (``named``: the tables whose
    rows it names; ``revisable``: an unsaved recipe is there): (text, template name,
    version)."""
    if chosen := shown_entries(examples, message, named, revisable):
        library = load(LIBRARY)
        lines = "\n".join(e.render(today) for e in chosen)
        return f"{_LIBRARY_HEAD}\n\n{lines}", library.name, library.version
    patterns = load(PATTERNS)
    return patterns.text.strip(), patterns.name, patterns.version


OWN_AT_MOST = 2
"""A word in more entries of the library than this is a word of requests of its kind
("inventory", "list", "soup"), not one request's own."""


def unquoted(text: str) -> str:
    """``text`` without the single quotes around a name ("the task 'Repaint the shed'")."""
    return re.sub(r"(?<![\w])'|'(?![\w])", " ", text.replace("\u2019", "'"))


def own_words(entries: list[Entry]) -> frozenset[str]:
    """The stems of the things ``entries`` name that are their own: words both a request
    and its plan say, found so in at most ``OWN_AT_MOST`` entries of the library, and in
    no entry's cues (the words people use for a kind of request: "pantry", "missing",
    "recipe box"), nor numbers, days or the kitchen's own words ("shakshuka", "flapjack",
    "peas"). A plan that names one the user never said copied it from an example
    (``domain.enforced.copied``)."""
    if not entries:
        return frozenset()
    found, cued = _word_counts(load(LIBRARY).text)
    return frozenset(
        w
        for e in entries
        for w in _named(e)
        if found[w] <= OWN_AT_MOST and w not in cued and w not in _schema_stems()
    )


def _named(entry: Entry) -> set[str]:
    """The stems an entry's request and its plan's descriptions both hold, neither numbers
    nor days: the things the request names that its plan acts on."""
    said = set(content_stems(entry.request))
    done = set(content_stems(unquoted(" ".join(_DESCRIPTION.findall(entry.plan)))))
    return {w for w in said & done if not w.startswith("<") and len(w) > 2}


@cache
def _library(text: str) -> tuple[Entry, ...]:
    """The library's entries, parsed once per version of its text (every Think call
    picks from them)."""
    return tuple(parse_library(text))


@cache
def _word_counts(text: str) -> tuple[Counter[str], frozenset[str]]:
    """How many of the library's entries name each stem (``_named``), and the stems its
    cues hold: once per version of its text."""
    library = _library(text)
    found = Counter(w for e in library for w in _named(e))
    return found, frozenset(w for e in library for w in content_stems(e.cues))


@cache
def _schema_stems() -> frozenset[str]:
    """The stems of the kitchen's own words: tables, subdomains, columns and their closed
    values ("servings", "lunch", "shopping"), which every plan may name."""
    words = [*TABLES, *SUBDOMAINS]
    words += [c for spec in TABLES.values() for c in spec.columns]
    words += [v for values in ENUMS.values() for v in values]
    return frozenset(content_stems(" ".join(words).replace("_", " ")))


def think_prompt(
    mode: str | None,
    examples: ExampleSet,
    message: str,
    clock: Clock | None = None,
    named: Collection[str] = (),
    revisable: bool = True,
) -> RenderedPrompt:
    """Think's system prompt for a request: the mode's variables and the plan examples
    chosen for ``message`` (``named``: the tables whose rows it names; ``revisable``: an
    unsaved recipe is there), dated from the turn's ``clock``; the call records both
    templates and their versions."""
    config = mode_config(mode)
    today = local(clock).date() if clock else None
    text, name, version = plan_examples(examples, message, today, named, revisable)
    think = render(
        "think",
        mode=mode or DEFAULT_MODE,
        max_steps=config.max_steps,
        mode_guidance=config.guidance,
        mode_examples=config.examples,
        plan_examples=text,
    )
    return RenderedPrompt(f"{think.template}+{name}", f"{think.version}+{version}", think.text)
