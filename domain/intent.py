"""Whether the user asked for a change (seed 000 "action mismatch"): a plain reading of the
message's words, no model. It keeps a change off the read-only quick path, has Think asked
again when its plan only reads, picks Think's examples among plans that change something,
and keeps Reply honest when a turn changed nothing (``domain.enforced``,
``domain.plan_examples``, ``domain.execution_summary``).

A request counts when a clause starts with a verb that changes the kitchen ("add eggs",
"please delete the dal", "can you mark milk as bought") or asks for a reminder ("remind me
to defrost the chicken": a task), or reports a change to record
("I bought eggs", "we're out of rice", "need milk"), or states one without a verb for it
("I'm allergic to peanuts", "the milk is gone", "there are 3 onions left"), or jots it
down as a line ("+ milk", "eggs on the list", "fish on friday"). Questions
about changes ("what should I add?", "how do I delete a recipe?", "is the milk gone?")
do not count, nor does a report asked about ("how many eggs have we got", "what have I
used", "got any milk?").
"""

from __future__ import annotations

import re

from domain.relative_days import moves_said

CHANGE_VERBS = frozenset(
    """add put buy remove delete drop erase update change edit rename mark set save store
    keep create make plan schedule move replace swap increase decrease reduce cancel clear
    tick cross uncheck complete finish log record throw toss chuck trash bin scratch restock
    remember note push postpone reschedule bump shift delay""".split()
)
REPORTS = re.compile(
    r"(?<!\bhave\s)(?<!\bhas\s)(?<!\bhad\s)(?<!\bdid\s)"
    r"\b(?:i|we)(?:'ve| have)?\s+(?:just\s+)?(?:bought|got|found(?! out\b)|"
    r"used(?: up)?(?! to\b)|finished|ate|cooked|made(?=\s+(?:the|some|that|this|our|my)\b)|"
    r"had(?=\s+(?:the|some|that|this|our|my)\b[^.?!]*?\b(?:last night|yesterday|earlier|"
    r"for (?:breakfast|lunch|dinner|tea|supper))\b)(?![^.?!]*\b(?:round|over|came|visit))|"
    r"threw out|ran out of)\b|"
    r"\b(?:ate|eaten|drank|had|used up|finished(?: off)?)\s+(?:all|the last|the rest)\b|"
    r"\b(?:i'm|we're|i am|we are)\s+(?:almost\s+|nearly\s+|"
    r"all\s+|running\s+|getting\s+)?(?:out of|low on)\b",
    re.IGNORECASE,
)
LEAD_INS = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|then|now|yes|great|thanks|please|pls|plz|alfred|hey|"
    r"actually|wait|hmm+|um+|erm|instead|sorry|"
    r"hi|oh|yo|right|just|go ahead and|(?:can|could|would|will) (?:you|u)|i want you to|"
    r"i'd like you to|i need you to|(?:i|we)(?:'d| would) like to|(?:i|we) want to|"
    r"(?:(?:i|we) )?(?:need|have|got) to|(?:i|we) must|gotta|i wanna|let's|lets|"
    r"(?:can|could|shall) we)\b[\s,]*)+",
    re.IGNORECASE,
)
TERSE_REPORTS = re.compile(
    r"^(?:just\s+)?(?:bought|picked up|found(?! out\b)|used up|used the last|ran out of|threw out|"
    r"finished off|finished the|ate the|cooked|made the|ticked off|crossed off|"
    r"(?:almost |nearly |all )?out of|"
    r"(?:running |getting )?low on|running out of|no more|get rid of)\s+\w|"
    r"^(?:just\s+)?used\s+(?!to\b)\w|^got\s+(?!it\b|that\b|you\b|to\b|any\b)\w|"
    r"^(?:(?:i|we)\s+)?(?:still\s+|also\s+|(?:don't|do not|no longer)\s+)?need\s+(?!to\b)\w",
    re.IGNORECASE,
)
"""A report or request without its "I" or "we", as people type it ("bought 2 onions",
"got milk", "found a bottle of olive oil in the cupboard", "just used up the rice", "used
2 eggs", "out of milk", "low on rice", "need milk", "dont need bread anymore", "get rid of
the chili recipe", "made the dal"); "got it" is no report."""
_COUNT = r"(?:\d+|one|two|three|four|five|six|seven|eight)"
APPLIANCES = (
    r"air ?fryer|slow cooker|crock ?pot|instant pot|pressure cooker|rice cooker|stand mixer|"
    r"food processor|bread maker|sous vide|dutch oven|wok|bbq|barbecue|blender|microwave|"
    r"oven|hob|grill|dehydrator|juicer|spiraliser|spiralizer"
)
PROFILE = re.compile(
    # equipment: "just got an air fryer", "we have a slow cooker", "no microwave here"
    rf"(?P<available_equipment>^(?:(?:i|we)(?:'ve)?\s+)?(?:just\s+|finally\s+)?"
    rf"(?:got|have|bought|own)\s+(?:a|an|my|our)\s+(?:new\s+)?(?:{APPLIANCES})\b|"
    rf"^(?:(?:i|we)\s+)?(?:don't|do not|no longer)\s+(?:have|own)\s+(?:a|an)\s+"
    rf"(?:{APPLIANCES})\b)|"
    # cuisines: "we love thai food", "i really like indian cooking", "mexican is our favourite"
    r"(?P<favorite_cuisines>^(?:i|we|(?:my|our)\s+\w+(?:\s+\w+)?)\s+"
    r"(?:really\s+|absolutely\s+|all\s+)?"
    r"(?:love|loves|adore|adores|enjoy|enjoys|like|likes|prefer|prefers)\s+\w+\s+"
    r"(?:food|cuisine|cooking|dishes)\b|"
    r"^\w+(?:\s+food)?\s+is\s+(?:my|our)\s+(?:\w+\s+)?favou?rite\b)|"
    # skill: "im pretty new to cooking", "i'm a beginner", "we are confident cooks"
    r"(?P<cooking_skill_level>^(?:i'm|i am|we're|we are)\s+(?:\w+\s+)?(?:new to cooking|"
    r"(?:an?\s+)?(?:complete\s+|total\s+|real\s+)?(?:beginner|novice|"
    r"(?:confident|experienced|competent|decent|good|bad|terrible|great|keen)\s+cooks?)\b))|"
    # time: "i only have 30 mins to cook on weeknights"
    r"(?P<time_budget_minutes>^(?:(?:i|we)\s+)?(?:only\s+|just\s+)?(?:have|get|got)\s+"
    r"(?:about\s+|around\s+)?(?:\d+\s*(?:mins?|minutes|hours?|hrs?)|half an hour|an hour)\s+"
    r"(?:to|for)\s+cook)|"
    # household: "its me my wife and our 2 kids", "we're a family of four" ("cooking for 4"
    # is as often one meal's)
    r"(?P<household>^(?:it's|its|it is)\s+(?:just\s+)?(?:me|us)\b(?=.*\b(?:kids?|children|"
    r"wife|husband|partner|baby|babies|son|daughter|adults?)\b)|"
    rf"\b(?:family|household) of\s+{_COUNT}\b|^(?:there's|there are)\s+{_COUNT}\s+of us\b)",
    re.IGNORECASE,
)
"""A statement about the cook and their household that the profile keeps: equipment had
or lacking, a cuisine loved, cooking skill, the time there is to cook, who eats. Said
as a fact, not asked ("do i have an air fryer?" asks). For "we love thai food" and "its
me my wife and our 2 kids" the 1.5B local model planned meals, and the turn asked which
days; "just got an air fryer" was read as food bought."""
STATEMENTS = re.compile(
    r"(?P<diet>^(?:i'm|i am|we're|were|we are|(?:my|our)\s+\w+(?:\s+\w+)?(?:\s+is|\s+are|'s))\s+"
    r"(?:now\s+|also\s+)?(?:an?\s+)?(?:allergic|vegan|"
    r"vegetarian|pescatarian|gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|intolerant|"
    r"coeliac|celiac|diabetic|kosher|halal)\b|"
    r"^(?:i'm|i am|we're|we are)\s+(?:now\s+)?off\s+(?!to\b|now\b|out\b|home\b)\w|"
    r"^(?:i|we|(?:my|our)\s+\w+(?:\s+\w+)?)\s+(?:don't|do not|dont|doesn't|does not|no longer|"
    r"can't|cannot|never)\s+(?:eat|like|stand)\b|"
    r"^(?:(?:i|we|(?:my|our)\s+\w+(?:\s+\w+)?)\s+)?(?:really\s+)?(?:hates?|dislikes?|"
    r"can't stand|cannot stand)\b(?=\s+\w))|"
    r"\b(?:is|are|'s|'re)\s+(?:all\s+)?(?:gone(?: off| bad)?|finished|used up|empty|off)$|"
    r"\b(?:ran out|went (?:off|bad|mouldy|moldy))$|"
    r"^(?:there(?:'s| is| are)|(?:i|we)(?:'ve| have)(?: got)?|(?:i|we) have|have|got)\s+"
    r"(?:only\s+|just\s+)?(?:\d[\d.,]*|a|an|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|half|no)\b.*\b(?:left|now|remaining)$|^(?:only\s+)?(?:\d|half\b).*\bleft$|"
    r"\b(?:is|are|'s|'re)\s+(?:only\s+|just\s+)?down\s+to\b",
    re.IGNORECASE,
)
"""A statement that asks for a change without a verb for it: a diet, an allergy or a
dislike to keep ("I'm allergic to nuts", "my son is allergic to nuts", "we don't eat
pork", "I don't like coriander", "cant stand coriander"; "were vegetarian now": no clause
opens with the past "were" before a diet, so it is "we're" typed without its apostrophe;
said of someone at home: "my husband hates mushrooms", "my wife doesn't eat pork"),
food that is gone ("the milk is finished", "the yogurt went off") or an amount that is now
different ("there are 3 onions left", "we have 6 eggs now", "half a bag of rice left",
"the milk's down to 1 litre"). Statements only: "is the milk gone?" asks."""
DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
LINES = re.compile(
    r"^\+\s*\d*\s*\w|"
    r"^(?:\d+\s?x|x\s?\d+)\s+\w|^\w[\w' ]*\s(?:x\s?\d+|\d+\s?x|[-:]\s*\d+)$|"
    r"^(?:shopping(?: list)?|(?:grocery )?list|groceries|to ?do|tasks?|pantry|fridge|freezer|"
    r"inventory)\s*:\s*\w|"
    r"(?P<listed>^(?!(?:show|what\w*|which|list|check|tell|see|read|view|display|is|are|do|does|"
    r"how|any)\b)\w.*\s(?:on|to|onto|for)\s+(?:the\s+|my\s+|our\s+)?(?:shopping\s+|grocery\s+)?"
    r"(?:list|basket|cart)$)|"
    r"^(?!(?:i|i'm|im|we|we're|you|it|that|this|all)\b)\w[\w' ]*\s(?:bought|used(?: up)?|"
    r"eaten)$|"
    rf"(?P<meal>^(?:(?:i|we)(?:'d| would) like|(?:i|we)(?:'ll| will) have|have|cook|"
    rf"do(?!\s+(?:we|i|you|they)\b))\s+\w.*\b(?:on|for)\s+{DAY}\b|"
    rf"^(?:i|we)(?:'re|'ll| are| will)\s+(?:having|doing|making|cooking|eating|have|do|make|"
    rf"cook|eat)\s+(?!(?:the\s+)?(?:shopping|cleaning|laundry|washing|dishes)\b)"
    rf"\w.*\b(?:(?:on|for)\s+{DAY}|tonight|tomorrow)\b)|"
    rf"(?P<dated>^(?!(?:what\w*|which|who\w*|when\w*|where\w*|how\w*|is|are|does|any|show|"
    rf"see|talk|bye|good)\b|do\s+(?:we|i|you|they)\b)\w[\w' ]*\s(?:(?:on|for)\s+"
    rf"(?:(?:breakfast|lunch|dinner)\s+(?:on\s+)?)?{DAY}|"
    rf"(?:(?:for\s+)?(?:breakfast|lunch|dinner)\s+)?(?:tonight|tomorrow)|"
    rf"(?:(?:on|this|next)\s+)?{DAY}\s+now)"
    rf"(?:\s+(?:night|evening|morning|breakfast|lunch|dinner))?(?:\s+please)?$)|"
    r"(?P<later>^(?!(?:what\w*|which|who\w*|when\w*|where\w*|how\w*)\b)\w[\w' ]*\s"
    r"can\s+wait\b.*$)|"
    r"(?P<serves>^(?!(?:what\w*|which|who\w*|when\w*|where\w*|how\w*|does|do|is)\b)"
    r"\w[\w' ]*\s(?:serves|feeds|makes)\s+(?:only\s+|just\s+)?\d+"
    r"(?:\s+(?:people|persons|portions|servings))?$)|"
    r"(?P<task>\b(?:did|done|finished)\s+the\s.*\b(?:task|chore)s?$)|"
    rf"(?P<due>^(?!(?:what\w*|which|who\w*|when\w*|where\w*|how\w*|is|are|do|does|any|show)"
    rf"\b)\w[\w' ]*\s(?:by|before)\s+(?:(?:this|next)\s+)?(?:{DAY}|tomorrow|tonight|"
    r"(?:the\s+)?weekend|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:week|month))$)",
    re.IGNORECASE,
)
"""A line as people jot a change down, without a verb for it: list items ("+ milk", "milk
x2", "eggs on the list", "shopping: milk, eggs", "rice used up") or a meal on a day
("i'd like dal on tuesday", "we're having chili tonight", "fish on friday night
please", "chili tonight"), a thing's day said as news ("plumber is coming tuesday now"),
a thing put off ("the plumber can wait till thursday") or a recipe's servings ("the dal
only serves 2").
Statements only, like ``STATEMENTS``.
A thing to do by a day ("descale the kettle by friday", "need to call the plumber before
the weekend") is a task. Its ``meal``, ``dated``, ``later``, ``task`` and ``due`` groups say
where the change belongs (``change_home``)."""
DELETE_VERBS = frozenset(
    {
        "delete",
        "remove",
        "drop",
        "erase",
        "throw",
        "toss",
        "chuck",
        "trash",
        "bin",
        "scratch",
        "get rid of",
    }
)
PLACES = re.compile(
    r"\b(?:pantry|fridge|freezer|cupboard|inventory|stock|shopping|list|basket|cart|"
    r"recipes?|meal|plan|tasks?)\b",
    re.IGNORECASE,
)
SYMBOLS = re.compile(r"^[^\w+]+")
"""Emoji, bullets and punctuation before a clause's first word ("+" stays: "+ milk")."""
LISTING = re.compile(r"^(?:make|create|write|give)\s+(?:me\s+)?an?\s+(?:list|overview)\s+of\b")
""""Make a list of what's in my fridge": a lookup worded as making something."""
CLAUSES = re.compile(r"(?<=[.!?;\n])\s*|,\s*(?:and|then)\s+")
"""Between clauses: after each one's end mark (which stays with it: a "?" makes it a
question), or at ", and" / ", then"."""
PARTS = re.compile(r",\s*|\s+(?:but|and then)\s+")
"""Between the parts of a clause that may each start with a verb ("we have guests on
saturday, plan something", "show it again but add feta")."""
ENDS = re.compile(r"[\s.!?;]+$")
SIGN_OFFS = re.compile(
    r"(?:[\s,]+(?:please|pls|plz|thanks|thank you|thx|ty|cheers)[\s.!]*)+$", re.IGNORECASE
)
"""A clause's closing courtesy ("eggs on the list please", "milk x2 thanks"), which no
line ends with as its own words."""
REMINDER = re.compile(r"^remind (?:me|us) (?:to|about)\b")
""""Remind me to defrost the chicken" asks for a task; "remind me what's in it" does not."""
RENAMED = re.compile(
    r"^(?:let'?s\s+|we'?ll\s+|can we\s+|can you\s+)?call\s+(?:the|my|our|that|this|it)\b.*"
    r"\b(?:from now on|going forward|from here on)\b"
)
""""Call the dal mums dal from now on" renames without the word: a name given for good, not
a call made ("call the plumber tomorrow")."""


EXPIRES = re.compile(
    rf"\b(?:goes|go|going|will go)\s+off\s+(?:on\s+|by\s+|this\s+|next\s+)?"
    rf"(?:today|tonight|tomorrow|{DAY}|the\s+\d|\d|in\s+(?:\d+|a|two|three)\s+(?:days?|weeks?))|"
    rf"\bexpires?\s+(?:on\s+|by\s+|this\s+|next\s+)?(?:today|tomorrow|{DAY}|the\s+\d|\d)|"
    r"\b(?:use by|best before)\s+\w+",
    re.IGNORECASE,
)
"""A statement of when food goes off ("the eggs actually go off on thursday", "milk
expires tomorrow", "best before the 12th"): an expiry date of the stock. For "the eggs
actually go off on thursday" the 1.5B local model, shown no change, planned the dal and
the plumber "for the coming week"."""

ASKING = re.compile(
    r"^(?:what\w*|which|who\w*|when\w*|where\w*|how\w*|is|are|do|does|did|will|can|could)\b",
    re.IGNORECASE,
)
"""A clause that opens as a question, typed without its "?"."""


STOCK = ("inventory", "shopping")
"""Where bought, used, gone and listed food goes: the inventory and the shopping list."""


UNMARKED = {
    w.replace("'", ""): w
    for w in """i'm i've don't can't isn't aren't didn't doesn't wasn't haven't hasn't what's
    that's there's you're they're we've""".split()
}
"""Contractions as people type them without the apostrophe ("im allergic to peanuts"),
and as the patterns here write them. "were", "ill", "its", "id", "wont" and "lets" are
words of their own and left alone."""
_UNMARKED = re.compile(rf"\b(?:{'|'.join(UNMARKED)})\b", re.IGNORECASE)


HOUSEHOLD = ("household_adults", "household_kids", "household_babies")


def profile_columns(message: str) -> tuple[str, ...]:
    """The profile's columns a statement about the cook or the household sets
    (``PROFILE``'s groups; a diet, allergy or dislike of ``STATEMENTS``): "we love thai
    food" the favourite cuisines, "my husband hates mushrooms" the disliked ingredients
    (the 1.5B local model put them in the dietary restrictions). Empty for other words."""
    said = spelled(message)
    if "?" in said:
        return ()
    if profile := PROFILE.search(said.strip()):
        name = profile.lastgroup or ""
        return HOUSEHOLD if name == "household" else (name,)
    statement = STATEMENTS.search(said)
    if statement is None or not statement.group("diet"):
        return ()
    text = statement.group(0).lower()
    if "allerg" in text:
        return ("allergies",)
    if re.search(r"\b(?:hates?|dislikes?|stand|like)\b", text):
        return ("disliked_ingredients",)
    return ("dietary_restrictions",)


def spelled(text: str) -> str:
    """``text`` with its apostrophes as the patterns here write them: curly ones straight,
    and a contraction typed without one given it (``UNMARKED``)."""
    text = text.replace("\u2019", "'")
    return _UNMARKED.sub(lambda m: UNMARKED[m.group(0).lower()], text)


def requested_change(message: str) -> str | None:
    """The change verb (or reported change) the message asks for, or None."""
    change = _change(message)
    return change[0] if change is not None else None


def change_home(message: str) -> tuple[str, ...]:
    """The subdomains the change the message asks for belongs in, when its words say
    without a verb: a report or a listed item (``STOCK``), a reminder or a task done
    (tasks), a diet or dislike (preferences), a meal on a day (meal_plans). A verb goes
    where its words say things are kept (``KEPT_IN``: "push everything on my todo list
    back a week"), or, of things said to be due, in the tasks (``DUE``); empty for a verb
    that says neither ("move the dal to wednesday" could go anywhere), and for no
    change."""
    change = _change(message)
    return change[1] if change is not None else ()


DISH_EATEN = re.compile(r"\b(?:cooked|made|had)\b", re.IGNORECASE)
"""The words of a report of a dish cooked or eaten ("we made the dal", "we had the chili
last night"): logged with its recipe."""


def _report_home(report: str) -> tuple[str, ...]:
    """A dish cooked is logged with its recipe (``cooking_log``) as well; a thing needed
    ("need another bag of rice", "we need garlic") goes on the shopping list alone (shown
    "we need paper towels", the 1.5B local model added the rice to the inventory). "Get
    rid of …" deletes wherever the thing is, as any delete verb does: "get rid of the tuna
    bake recipe", read as food gone, was shown no recipe's delete (its own library entry
    was left out as changing elsewhere)."""
    if re.search(r"\bneed\b", report, re.IGNORECASE):
        return ("shopping",)
    if re.match(r"(?:just\s+)?get rid of\b", report, re.IGNORECASE):
        return ()  # a delete, of a recipe, task or meal as well as of food (DELETE_VERBS)
    return ("recipes", *STOCK) if DISH_EATEN.search(report) else STOCK


def _line_home(line: re.Match[str]) -> tuple[str, ...]:
    """A meal asked for on a day goes in the meal plan; a thing on a day ("fish on
    friday", "defrost the chicken on tuesday") or put off in the meal plan or the tasks;
    a recipe's servings in the recipes; a task done or a thing to do by a day in the
    tasks; a thing put on the list ("stick sugar and flour on the list") on the shopping
    list; another listed item ("milk x2", "rice used up") in ``STOCK``."""
    if line.group("meal"):
        return ("meal_plans",)
    if line.group("dated") or line.group("later"):
        return ("meal_plans", "tasks")
    if line.group("serves"):
        return ("recipes",)
    if line.group("listed"):
        return ("shopping",)
    return ("tasks",) if line.group("task") or line.group("due") else STOCK


def _change(message: str) -> tuple[str, tuple[str, ...]] | None:
    """The change the message asks for, as said, and where it belongs (``change_home``)."""
    message = spelled(message)
    if "?" not in message and (profile := PROFILE.search(message.strip())):
        return profile.group(0).lower(), ("preferences",)
    report = REPORTS.search(message)
    if report:
        return report.group(0).lower(), _report_home(report.group(0))
    for clause in CLAUSES.split(message):
        asks = clause.rstrip().endswith("?")
        clause = ENDS.sub("", SIGN_OFFS.sub("", LEAD_INS.sub("", SYMBOLS.sub("", clause.strip()))))
        if LISTING.match(clause.lower()):
            continue
        if REMINDER.match(clause.lower()):
            return "remind", ("tasks",)
        if RENAMED.match(clause.lower()):
            return "rename", places_said(clause)
        if report := TERSE_REPORTS.match(clause):
            return report.group(0).rsplit(maxsplit=1)[0].lower(), _report_home(report.group(0))
        said = clause.replace("\u2019", "'")
        if not asks and (statement := STATEMENTS.search(said)):
            home = ("preferences",) if statement.group("diet") else STOCK
            return statement.group(0).lower(), home
        for part in PARTS.split(clause):
            words = LEAD_INS.sub("", part).split()
            if words and (verb := words[0].lower().strip(",:")) in CHANGE_VERBS:
                return verb, ("tasks",) if DUE.search(clause) else places_said(clause)
            if TAKE_OFF.match(" ".join(words)):
                return "take off", ()
        if not asks and not ASKING.match(said) and (expiry := EXPIRES.search(said)):
            return expiry.group(0).lower(), ("inventory",)
        if not asks and (line := LINES.search(said)):
            return line.group(0).lower(), _line_home(line)
        if not asks and (done := _chore_done(said)):
            return done, ("tasks",)
        if not asks and (moves := moves_said(said)):  # "do the oven a day later"
            return moves[0][0].lower(), ("meal_plans", "tasks")
    return None


WANTS = re.compile(
    r"\b(?:needs|could (?:do with|use)|should (?:have|get|include)|is missing)\b|"
    r"\bshould (?:be|say|serve|use|take)\b(?=[^.?!]*\d)|"
    r"\btakes\s+(?:only\s+|just\s+|about\s+|around\s+)?\d+\s*(?:mins?|minutes|hours?|hrs?)\b",
    re.IGNORECASE,
)
"""What a statement says a thing lacks ("the chili needs a tin of sweetcorn as well", "the
dal could do with more cumin"), or the amount it should have instead ("dal should be 250g
lentils not 200": ``CORRECTIONS``), or the time it takes ("the chili actually takes 50
mins to cook": the 1.5B local model set the profile's time budget to 50)."""
CORRECTIONS = frozenset(f"should {verb}" for verb in ("be", "say", "serve", "use", "take"))


def corrects(wants: str) -> bool:
    """Whether what ``dish_wants`` found sets another value (``CORRECTIONS``, "takes 50
    mins"), not a thing the dish lacks ("needs", "could do with")."""
    return wants in CORRECTIONS or wants.startswith("takes ")


def dish_wants(message: str) -> str | None:
    """The words by which a statement that asks for no other change (``requested_change``)
    and asks nothing says a thing lacks something or should have another amount (``WANTS``:
    "needs", "could do with", "should be"); None otherwise. Whether the thing is a saved
    recipe is the caller's to know (the dashboard's ``named``): said of one, it is an
    ingredient added to it, or an amount of it set."""
    said = spelled(message)
    if "?" in said or asks_to_see(said) or requested_change(said) is not None:
        return None
    wants = WANTS.search(said)
    return wants.group(0).lower() if wants else None


DUE = re.compile(
    r"\b(?:is|are|'s|was|were)\s+(?:\w+\s+)?due\b|\bdue\s+(?:on|by|for|today|tomorrow)\b"
)
"""Things said to be due ("move whatever is due tomorrow to saturday", "push everything due
on monday"): tasks, the rows that have a due date. Told nothing of where, the 1.5B local
model moved a dal and "Mexican 1" (the dashboard's cuisine count) about the inventory."""
TAKE_OFF = re.compile(r"^take\s+(?:\S+\s+)*?off\b", re.IGNORECASE)
""""Take the dal off monday", "take basil off the list": a row taken away from where it is."""
CHORE_DONE = re.compile(
    r"^(?:(?:i|we)\s+)?(?:just\s+|finally\s+|already\s+)?(?P<verb>[a-z]{3,}ed)\s+"
    r"(?:the|my|our)\s+\w|"
    r"(?:^|,\s*)(?:that's|thats|that is|it's|its|all|that one's)\s+(?:sorted|done|dealt with|"
    r"taken care of)$",
    re.IGNORECASE,
)
NOT_CHORES = frozenset(
    "liked loved hated enjoyed wanted needed tried preferred wondered checked looked noticed "
    "watched missed asked".split()
)
"""Past tenses that tell how the user found or looked at something, not a chore they did."""


def _chore_done(clause: str) -> str | None:
    """A thing reported done, as a chore is ("cleaned the oven finally", "called the
    plumber, that's sorted"): a clause that starts with a verb in the past tense and its
    object, or ends saying it is done. A change verb's past ("moved the dal") and a
    feeling ("loved the dal") are not."""
    done = CHORE_DONE.search(clause)
    if done is None:
        return None
    verb = (done.group("verb") or "").lower()
    if verb and (verb in NOT_CHORES or not CHANGE_VERBS.isdisjoint({verb[:-1], verb[:-2]})):
        return None
    return done.group(0).lower().strip(", ")


KINDS = {
    "moved": re.compile(
        r"\b(?:move[sd]?|moving|push(?:ed|ing)?|postpon\w*|reschedul\w*|bump(?:ed)?|"
        r"shift(?:ed)?|delay(?:ed)?|put (?:it |them )?(?:off|back)|can wait|"
        rf"{DAY} now)\b"
    ),
    "done": re.compile(
        r"\b(?:done|complete[sd]?|sorted|(?:tick|cross|check)(?:ed)?(?: \w+)? off|can go)\b"
    ),
    "acquired": re.compile(
        r"\b(?:bought|got(?!\s+(?:to|any|rid)\b)|picked up|purchased|found(?=\s+(?:a|an|some|"
        r"\d+|two|three|four|five|six|more|another)\b))\b"
    ),
    "needed": re.compile(
        r"\b(?:(?<!n't )(?<!not )(?<!longer )need(?:s|ed)?(?!\s+to\b)|out of|low on|"
        r"run(?:ning)? out|ran out|stock(?:ing)? up|missing)\b"
    ),
    "used": re.compile(
        r"\b(?:used|ate|eaten|drank|took)\s+(?:\d+|a|an|some|half|part|one|two|three|four|"
        r"five|six|a few|a couple)\b"
    ),
    "gone": re.compile(
        r"\b(?:used up|(?:ate|drank|finished) (?:it|them|all|off)|last of|all gone|none left|"
        r"(?:we|i|we've|i've|weve|ive) (?:just )?finished (?:the|our|my)\b"
        r"(?!(?:\s+\w+){0,2}?\s+\w+ing\b)|"  # "we finished the eggs", not "… the oven cleaning"
        r"(?:is|are|was|were) (?:finished|gone)|threw (?:\w+ )?(?:out|away)|"
        r"thrown (?:out|away)|binned|got rid of|went (?:off|bad)|(?:ran|run) out of|"
        r"(?:'re|are|'m|am) (?:all |completely )?out of)\b"
    ),
    "added": re.compile(
        r"\b(?:add(?:ed)?|stick|pop)\b|\bput\b(?!\s+(?:\w+\s+){0,3}(?:off|back)\b)|"
        r"\bon (?:the|my|our) (?:shopping |grocery )?list\b"
    ),
    "removed": re.compile(
        r"\b(?:remove[sd]?|delete[sd]?|drop(?:ped)?|erase[sd]?|scrap(?:ped)?|cancel(?:led)?|"
        r"(?:bin|trash)\s+(?:it|them|that|this|those|these|the|my|our|all|every)|"
        r"toss|get rid of|take (?:\w+ ){1,4}off|clear (?:\w+ ){0,3}off|"
        r"(?:take|leave|keep) (?:\w+ ){1,4}out\b(?! of (?:the )?(?:fridge|freezer|oven))|"
        r"empty (?:my|the|our) (?:\w+ )?(?:list|basket|cart)|(?:don't|do not|no longer) need)\b"
    ),
    "counted": re.compile(
        r"\b(?:(?:we|i)(?: have|'ve got| have got)|there (?:are|is|'s)|down to|only)\s+(?:\d+|"
        r"one|two|three|four|five|six|seven|eight|nine|ten|a dozen|half)\b|"
        r"\b(?:\d+|half) (?:\w+ ){1,4}left\b|"
        r"\bmake (?:it|that|them|those) (?:\d+|one|two|three|four|five|six|seven|eight|nine|"
        r"ten|a dozen)\b|\b(?:change|set|update|up|raise|lower)\s+(?:\S+\s+){1,8}?to\s+\d+"
    ),
}
"""Kinds of change whose words say which: a thing moved to another day, a thing done, a
thing bought, a thing needed, some of a thing used ("used 4 eggs"), a thing gone (used
up, finished, thrown out), a thing counted anew ("we have 12 eggs now", "make it 3 rolls of
paper towels", "change the milk on the list to 2")."""
TAKEN_OUT = re.compile(
    r"\b(?:take|took|taken|taking|leave|left|leaving|keep|pull|pulled|get|got)\s+"
    r"(?:\w+\s+){1,4}out of\b"
)
"""A thing taken out of something ("take the cumin out of the dal", "get the chicken out
of the freezer"): its "out of" is no thing run out of (``KINDS["needed"]``)."""
OPPOSITES = (
    frozenset({"moved", "done"}),
    frozenset({"acquired", "needed"}),
    frozenset({"acquired", "used"}),
    frozenset({"acquired", "gone"}),
    frozenset({"acquired", "moved"}),
    frozenset({"used", "gone"}),
    frozenset({"added", "removed"}),
    frozenset({"added", "used"}),
    frozenset({"added", "gone"}),
    frozenset({"needed", "removed"}),
    frozenset({"counted", "added"}),
    frozenset({"counted", "needed"}),
    frozenset({"counted", "acquired"}),
    frozenset({"counted", "used"}),
)
"""Kinds whose plans undo or contradict each other: a chore pushed back is not done; a thing
got is no longer needed, nor used or gone, nor moved elsewhere; a thing partly used is not
gone (its quantity is lowered, its row not deleted); a thing put on the list is not taken
off it (shown only "take the basil off the list", "stick sugar and flour on the list" had no
example of an add), nor used or gone (shown "used 2 of the tins of tomatoes" first, the 1.5B
planned "add onions, 2 tins of tomatoes and some cheese to the list" as the stock's rows
lowered), nor is a thing no longer needed a thing needed; an amount set is no
thing added, needed, got or used: it is set, not grown or lowered (shown only "we need paper
towels …", the 1.5B local model added a second row of paper towels for "make it 3 rolls of
paper towels")."""


def change_kinds(text: str) -> frozenset[str]:
    """The kinds of change (``KINDS``) the words of ``text`` name; a chore reported done in
    the past tense and no other kind ("cleaned the oven finally", ``_chore_done``) is
    ``done``: read as a change for the tasks and of no kind, it was shown the likest
    task entry, which added a chore. A reminder is of no kind: "remind me to take the bin
    out" is a task made, not a thing removed (read as one, it was shown only the task
    entry that deletes a job); "bin" and "trash" remove only as verbs, before what they
    bin ("bin the chili recipe", not "empty the recycling bin tomorrow")."""
    said = spelled(text).lower()
    if REMINDER.match(LEAD_INS.sub("", SYMBOLS.sub("", said.strip()))):
        return frozenset()  # a task to make, whatever it says to do ("take the bin out")
    kinds = frozenset(kind for kind, words in KINDS.items() if words.search(said))
    if moves_said(said):  # "a day later", "forward a week": a date moved from its own
        kinds |= {"moved"}
    if TAKEN_OUT.search(said) and not re.search(r"\bneed", said):
        kinds -= {"needed"}  # "take the cumin out of the dal" needs nothing
    if not kinds and (change := _change(text)) is not None and _chore_done(change[0]):
        return frozenset({"done"})
    return kinds


def opposite_kinds(asked: frozenset[str], other: frozenset[str]) -> bool:
    """Whether ``other`` names a change of the opposite kind to every one ``asked`` names:
    "push the oven cleaning back" is no "the oven is clean, that chore can go"."""
    return (
        bool(asked and other)
        and not asked & other
        and any({a, o} in OPPOSITES for a in asked for o in other)
    )


ECHO_MIN_WORDS = 3
"""A message this long or longer, quoted whole in a question, is asked back (``echoes``);
a shorter one ("milk?") may well be part of a real question."""


def echoes(question: str, message: str) -> bool:
    """Whether ``question`` holds the whole of ``message``, word for word: it asks the
    user what they have just said ("Can you suggest a quick dinner?" for "suggest a quick
    dinner")."""
    said, asked = _words(message), _words(question)
    if len(said) < ECHO_MIN_WORDS:
        return False
    return any(asked[i : i + len(said)] == said for i in range(len(asked) - len(said) + 1))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


CONTENT_VERBS = frozenset("suggest invent recommend propose brainstorm devise".split())
CONTENT_PHRASES = re.compile(
    r"^(?:come up with|think (?:of|up)|dream up|give me (?:some |an )?ideas?|"
    r"any (?:ideas|suggestions)|(?:some )?(?:ideas?|suggestions?|inspiration) (?:for|on)|"
    r"(?:give|get|find|save|write|send) (?:me|us) (?:a|an|some|another) (?:[\w'-]+ ){0,4}"
    r"recipes?(?! (?:i|we) (?:saved|have|kept)))\b"
)


def requested_content(message: str) -> str | None:
    """The verb (or phrase) of a clause that asks for something new to be thought of
    ("suggest a dinner", "can you invent a cod dish", "come up with a menu"), or None: not
    a lookup of what is stored."""
    for clause in CLAUSES.split(message):
        clause = LEAD_INS.sub("", SYMBOLS.sub("", clause.strip())).lower()
        words = clause.split()
        if words and (verb := words[0].strip(",:")) in CONTENT_VERBS:
            return verb
        if phrase := CONTENT_PHRASES.match(clause):
            return phrase.group(0)
    return None


SEE = re.compile(
    r"^(?:show|display|repeat|view|see|print|read|tell me|what|whats|which|how|hows|when|"
    r"whens|where|wheres|who|whose|why|remind me)\b|"
    r"\bagain\b"
)
"""A clause that asks to see or know: a lookup's verb or question word ("when do i need
to clean the oven by", "where are the eggs": shown the plans that write, the 1.5B local
model read the inventory for the oven)."""
YES_NO = re.compile(
    r"^(?:any|anything|am|is|are|do|does|did|have|has|was|were)\b.*\?$|"
    r"^(?:do|does|did|have|has)\s+(?:i|we)\b|^(?:is|are|was|were)\s+there\b|"
    r"^(?:does|did|is|are|was|were)\s+(?:the|my|our|this|that|these|those|it)\b|"
    r"^(?:am|is|are)\s+(?:i|we)\b|"
    r"^(?:any|anything)\s+(?:(?:else|more)\s+)?(?:i|we)\s+(?:need|have|should|must|got)\b|"
    r"^any\s+(?:saved\s+)?(?:recipes?|tasks?|chores?)\b"
)
"""A yes-no question ("anything i need to do this week?", "is the milk still good?"), or
one typed without its question mark that opens as only a question does ("do i have any
mexican recipes", "is there rice left", "does the dal have spinach in it", "any recipes
with tomatoes in", "anything i need to do in the next 2 days": without a question mark,
the 1.5B local model planned three meals for it, written into the meal plan, and no rule
held it): it asks to
know unless a change verb is in it ("is it ok to add milk?", "any chance you could add
eggs?", "do we have to add milk")."""


def asks_to_see(message: str) -> bool:
    """Whether a clause asks to see or hear about something rather than change it ("show
    me that recipe again", "what's in it?"), and none asks for a change."""
    if requested_change(message) is not None:
        return False
    clauses = (LEAD_INS.sub("", SYMBOLS.sub("", c.strip())).lower() for c in CLAUSES.split(message))
    return any(SEE.search(c) or (YES_NO.search(c) and not names_change(c)) for c in clauses)


KEPT_IN = {
    "tasks": re.compile(r"\b(?:to-?dos?|to do|tasks?|chores?|jobs?|errands?|overdue)\b"),
    "shopping": re.compile(
        r"\bshopping\b|\bgrocer(?:y|ies)\b|\b(?:the|my|our) list\b|"
        r"\b(?:am i|are we) (?:getting|buying)\b"
    ),
    "inventory": re.compile(
        r"\b(?:fridge|freezer|pantry|cupboards?|larder|inventory|in stock|left in)\b"
    ),
    "meal_plans": re.compile(r"\b(?:meal ?plans?|menu|planned)\b"),
    "recipes": re.compile(r"\brecipes?\b"),
    "preferences": re.compile(r"\b(?:allerg\w*|preferences?)\b"),
}
"""Where a question's own words say the answer is kept: "anything i need to do this
week?" asks about the tasks, "what's in the fridge?" about the inventory. Narrower than
``PLACES`` (any word that places a delete: "list", "plan"), each word one subdomain's."""


def places_said(text: str) -> tuple[str, ...]:
    """The subdomains the words name as where things are kept (``KEPT_IN``), in its order:
    a change verb said of "my todo list" changes the tasks. Told nothing of where, the
    1.5B local model was shown "push the fish pie back to next thursday" for "push
    everything on my todo list back a week"."""
    lowered = text.lower()
    return tuple(place for place, words in KEPT_IN.items() if words.search(lowered))


def places_named(message: str) -> tuple[str, ...]:
    """The subdomains a question's words name (``KEPT_IN``), in ``KEPT_IN`` order; empty
    for a message that does not only ask to see or know (``asks_to_see``)."""
    return places_said(message) if asks_to_see(message) else ()


IDEAS = re.compile(
    r"\b(?:should|could|can|shall|would|might)\s+(?:i|we|you)\b|\bideas?\b|"
    r"\bhow (?:do|does|can|should|to)\b|\bwhat to\b|\bgoes? (?:well )?with\b",
    re.IGNORECASE,
)
"""Words of a question that asks for a thing thought of: what one could or should do
("what can I cook with what I have?", "what should we have tonight"), how a thing is
done, what goes with a dish."""


def asks_for_ideas(message: str) -> bool:
    """Whether the words ask for something thought up (``requested_content``, ``IDEAS``),
    not only for what is stored."""
    return requested_content(message) is not None or IDEAS.search(message) is not None


def names_change(text: str) -> bool:
    """Whether a change verb stands anywhere in the text, as said ("add", "adding"): "how
    about adding eggs?" asks with a question's words for a change."""
    return any(
        not CHANGE_VERBS.isdisjoint(_verb_forms(w)) for w in re.findall(r"[a-z]+", text.lower())
    )


def _verb_forms(word: str) -> set[str]:
    """What ``word`` may be a form of: itself, or its stem without "ing", with an "e" back
    ("deleting") or a doubled last letter undone ("planning"). Not a past participle: in
    a question it mostly says how things are ("is anything planned for monday?")."""
    forms = {word}
    if word.endswith("ing") and len(word) > 5:
        stem = word[:-3]
        forms |= {stem, stem + "e"}
        if stem[-1] == stem[-2]:
            forms.add(stem[:-1])
    return forms


def unplaced_delete(message: str) -> bool:
    """A delete request that says what, not where ("delete the eggs", not "remove the eggs
    from my list"): it could mean rows of several tables."""
    return requested_change(message) in DELETE_VERBS and PLACES.search(message) is None


POINTED = (
    r"(?:it|that|this|them|those|these|all (?:of )?(?:that|this|them|it)|"
    r"(?:that|this|the|your|those|these)(?: last| first)? "
    r"(?:one|recipe|idea|suggestion|dish|meal)s?)"
)
FORGETS = re.compile(
    rf"^(?:(?:forget|scrap|ditch|discard|drop|skip|lose|bin)(?: about)? {POINTED}"
    rf"|never ?mind(?: about)? {POINTED}"
    rf"|(?:i|we) (?:don't|do not|dont) (?:want|need|like) {POINTED}"
    rf"|(?:don't|do not|dont) (?:save|keep) {POINTED})(?: (?:then|please|thanks))?$"
)
"""A clause that asks to forget what was just suggested, by pointing at it ("forget that
recipe", "scrap it", "I don't want that one"), never by naming something ("drop the milk")."""
POLITE = re.compile(
    r"^(?:no|nope|nah|no thanks|no thank you|thanks|thank you|not interested|not for me|"
    r"never ?mind|(?:i(?:'ve| have)? )?changed my mind|on second thought)$"
)
"""A clause that goes with a forget without asking anything more; alone, none of them says
what to forget ("never mind" may be about the question just asked)."""


def only_forgets(message: str) -> bool:
    """Whether the message does nothing but ask to forget what was suggested ("forget that
    recipe, I don't want it"): no other request, question or change rides along."""
    forgets = False
    for clause in re.split(r"[.!?;,\n]+|\s+and\s+", message.lower()):
        clause = LEAD_INS.sub("", SYMBOLS.sub("", clause.strip())).strip()
        if not clause or POLITE.match(clause):
            continue
        if not FORGETS.match(clause.replace("’", "'")):
            return False
        forgets = True
    return forgets
