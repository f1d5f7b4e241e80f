"""Whether a message asks for a change: what Reply is warned about when nothing changed."""

from __future__ import annotations

import pytest

from domain.intent import (
    asks_for_ideas,
    asks_to_see,
    change_home,
    change_kinds,
    corrects,
    dish_wants,
    names_change,
    only_forgets,
    opposite_kinds,
    places_named,
    profile_columns,
    requested_change,
    requested_content,
    spelled,
    unplaced_delete,
)


@pytest.mark.parametrize(
    ("message", "verb"),
    [
        ("add eggs to the shopping list", "add"),
        ("🛒 - add eggs", "add"),
        ("Please delete the dal recipe", "delete"),
        ("can you mark milk as bought?", "mark"),
        ("ok, and then rename it to Sunday dal", "rename"),
        ("call the dal mums dal from now on", "rename"),
        ("let's call the chili five alarm chili going forward", "rename"),
        ("show my list, then remove the butter", "remove"),
        ("Make a shopping list for the week", "make"),
        ("I just bought 2 liters of milk", "i just bought"),
        ("we're out of rice", "we're out of"),
        ("I used up the rice", "i used up"),
        ("remind me to defrost the chicken tomorrow", "remind"),
        ("can you remind us about the bins on friday", "remind"),
        # as people type: lead-ins, no subject, no capitals
        ("pls add milk", "add"),
        ("can u put eggs on the list", "put"),
        ("oh and add bread", "add"),
        ("I would like to add milk", "add"),
        ("we need to buy eggs", "buy"),
        ("bought 2 onions", "bought"),
        ("found a bottle of olive oil in the cupboard", "found"),
        ("we found 2 tins of beans at the back", "we found"),
        ("got milk and eggs", "got"),
        ("just used up the rice", "used up"),
        ("ran out of rice", "ran out of"),
        ("used 2 eggs", "used"),
        ("need milk", "need"),
        ("we still need eggs", "we still need"),
        ("out of milk", "out of"),
        ("we're running low on rice", "we're running low on"),
        ("get rid of the chili recipe", "get rid of"),
        ("toss the old yogurt", "toss"),
        ("cross off the eggs", "cross"),
        ("let's keep the couscous salad", "keep"),
        ("remember that I like it spicy", "remember"),
        # a change stated, no verb for it
        ("I'm allergic to peanuts", "i'm allergic"),
        ("im allergic to peanuts", "i'm allergic"),  # typed without its apostrophe
        ("my son is allergic to nuts", "my son is allergic"),
        ("my wife's vegetarian now", "my wife's vegetarian"),
        ("im out of milk", "i'm out of"),
        ("we dont eat pork", "we don't eat"),
        ("we don't eat pork", "we don't eat"),
        ("I hate coriander", "i hate"),
        ("cant stand coriander", "can't stand"),  # no "I", no apostrophe
        ("really hate olives", "really hate"),
        ("I don't like coriander", "i don't like"),
        ("my husband hates mushrooms", "my husband hates"),  # said of someone at home
        ("my wife doesnt eat pork", "my wife doesn't eat"),
        ("the milk is gone", "is gone"),
        ("the yogurt went off.", "went off"),
        ("there are 3 onions left", "there are 3 onions left"),
        ("we have 6 eggs now", "we have 6 eggs now"),
        ("half a bag of rice left", "half a bag of rice left"),
        ("milk's down to half", "'s down to"),
        ("the eggs are down to 2", "are down to"),
        ("I'm off dairy now", "i'm off d"),
        ("milk's gone off", "'s gone off"),
        # a change jotted down as a line, no verb for it
        ("+ milk", "+ m"),
        ("milk x2", "milk x2"),
        ("eggs on the list", "eggs on the list"),
        ("shopping: milk, eggs", "shopping: m"),
        ("rice used up", "rice used up"),
        ("i'd like dal on tuesday", "i'd like dal on tuesday"),
        ("fish on friday please", "fish on friday"),
        ("butter and flour on the shopping list pls", "butter and flour on the shopping list"),
        ("milk x2 thanks", "milk x2"),
        ("can we have soup on sunday", "have soup on sunday"),
        ("we are doing pasta on friday night", "we are doing pasta on friday"),
        ("we're having chili tonight", "we're having chili tonight"),
        ("we'll make tacos tomorrow", "we'll make tacos tomorrow"),
        ("soup on sunday night", "soup on sunday night"),
        # other reports and verbs
        ("made the dal", "made the"),
        ("we made the lasagna last night", "we made"),
        ("we had the chili last night, it was great", "we had"),  # a dish eaten
        ("the kids ate all the yogurt", "ate all"),
        ("bin the leftover rice", "bin"),
        ("we have guests on saturday, plan something", "plan"),
        ("actually lets have the chili on monday not the dal", "have the chili on monday"),
        ("hmm add bread", "add"),
        ("push the oven cleaning to next friday", "push"),
        ("can we postpone the dal to sunday", "postpone"),
        # a thing to do by a day
        ("need to descale the kettle by friday", "descale the kettle by friday"),
        ("we have to call the plumber before the weekend", "call the plumber before the weekend"),
        ("gotta clean the oven by next saturday", "clean the oven by next saturday"),
        ("need to buy eggs", "buy"),
        # a thing taken off, put off or done
        ("take the dal off monday", "take off"),
        ("can you take basil off the list", "take off"),
        ("the plumber can wait till thursday", "the plumber can wait till thursday"),
        ("chili tonight", "chili tonight"),
        ("lets do chili tomorrow night", "do chili tomorrow night"),
        ("pasta for dinner tomorrow please", "pasta for dinner tomorrow"),
        ("cleaned the oven finally", "cleaned the o"),
        ("we finally descaled the kettle", "we finally descaled the k"),
        ("rang the vet, that's sorted", "that's sorted"),
        ("that's done", "that's done"),
        ("the dal only serves 2", "the dal only serves 2"),
        ("the chili feeds 6 people", "the chili feeds 6 people"),
    ],
)
def test_a_request_or_a_reported_change_is_a_change(message: str, verb: str):
    assert requested_change(message) == verb


@pytest.mark.parametrize(
    "message",
    [
        "what's in my pantry?",
        "what should I add to my curry?",
        "how do I delete a recipe?",
        "can you show my shopping list",
        "check my pantry",
        "make a list of what's in my fridge",
        "what can I cook tonight?",
        "remind me what goes into the dal",
        "got it, thanks",
        "finished, thanks!",
        "i want to know what's in my fridge",
        "what did I buy last week?",
        "is the milk gone?",
        "do we need eggs?",
        "what do we need for the dal?",
        "are we low on rice?",
        "are there any onions left?",
        "I used to cook a lot",
        "whats on the list",
        "what's on the list?",
        "show me what's on the shopping list",
        "what do i have for monday",
        "what goes well with fish on friday",
        "are we having pasta on friday?",
        "i'm off to the shops, what do I need?",
        "i'm done, thanks",
        "what is on the list please?",
        # a report asked about, not made
        "how many eggs have we got",
        "what have we got in the fridge",
        "have we got any eggs left",
        "how much rice have I used this week?",
        "got any milk?",
        # a deadline asked about
        "what do I need to do by friday?",
        "can the chili keep until sunday?",
        # how a thing was found, a change verb's past, a goodbye
        "loved the dal",
        "we had the plumber round yesterday",  # a visit, not a dish eaten
        "should i call the plumber from now on?",  # asks
        "we had guests",
        "checked the fridge",
        "moved the dal last week",
        "see you tomorrow",
        "take a look at the list",
        "can it wait till thursday?",
        "do we have the chili tomorrow",
        "do i need the dal tonight",
        "how many does the dal serve",
        "does the chili feed 6?",
        "were the eggs used up?",  # the past "were" asks
        "thanks",
        "",
    ],
)
def test_questions_and_lookups_are_not(message: str):
    assert requested_change(message) is None


@pytest.mark.parametrize(
    ("message", "home"),
    [
        ("I just bought 2 liters of milk and a dozen eggs", ("inventory", "shopping")),
        ("milk x2", ("inventory", "shopping")),
        ("rice used up", ("inventory", "shopping")),
        ("the yogurt went off", ("inventory", "shopping")),
        ("we made the dal last night", ("recipes", "inventory", "shopping")),
        ("we had the chili for dinner", ("recipes", "inventory", "shopping")),
        ("remind me to defrost the chicken", ("tasks",)),
        ("did the cleaning task", ("tasks",)),
        ("I'm allergic to peanuts", ("preferences",)),
        ("im allergic to peanuts", ("preferences",)),
        ("our kids are vegan", ("preferences",)),
        ("were vegetarian now", ("preferences",)),  # "we're" without its apostrophe
        ("we don't eat pork", ("preferences",)),
        ("we don't like olives", ("preferences",)),
        ("cant stand coriander", ("preferences",)),
        ("my husband hates mushrooms so leave them out", ("preferences",)),
        ("move whatever is due tomorrow to saturday", ("tasks",)),  # what has a due date
        ("push everything due on monday to tuesday", ("tasks",)),
        ("my kids cant stand onions", ("preferences",)),
        ("i'd like the dal on tuesday", ("meal_plans",)),
        ("fish on friday please", ("meal_plans", "tasks")),
        ("we're having chili tonight", ("meal_plans",)),
        ("eggs on the list please", ("shopping",)),  # the list it names
        ("dont need bread anymore", ("shopping",)),  # a thing no longer needed
        ("defrost the chicken on tuesday", ("meal_plans", "tasks")),
        ("need to descale the kettle by friday", ("tasks",)),
        ("need another bag of rice", ("shopping",)),  # a thing needed is bought
        ("we still need garlic and lemons", ("shopping",)),
        ("out of milk", ("inventory", "shopping")),  # the row may go too
        ("chili tonight", ("meal_plans", "tasks")),
        ("the plumber can wait till thursday", ("meal_plans", "tasks")),
        ("plumber is coming tuesday now", ("meal_plans", "tasks")),  # a day said as news
        ("is the plumber coming tuesday now", ()),  # asked
        ("called the plumber, that's sorted", ("tasks",)),
        ("we're doing the shopping tomorrow", ("meal_plans", "tasks")),  # not a meal
        ("the dal only serves 2", ("recipes",)),
        ("i have to sort the freezer before the end of the month", ("tasks",)),
        ("add eggs to the list", ("shopping",)),  # a verb said of where things are kept
        ("push everything on my todo list back a week", ("tasks",)),
        ("remove milk from my groceries", ("shopping",)),  # the grocery list
        ("bin the chili recipe, never liked it", ("recipes",)),
        ("add clean the fridge to my chores", ("tasks", "inventory")),  # either
        ("move the dal to wednesday", ()),  # a verb, no place named: anywhere
        ("get rid of the chili recipe", ()),  # a delete, wherever the thing is
        ("what's on my shopping list?", ()),
        # the cook and the household, kept in the profile (``PROFILE``)
        ("we adore italian food", ("preferences",)),
        ("korean is our absolute favourite", ("preferences",)),
        ("just bought a slow cooker", ("preferences",)),  # equipment, not food bought
        ("we don't have a microwave", ("preferences",)),
        ("i'm a complete beginner", ("preferences",)),
        ("we only get 20 minutes to cook on weekdays", ("preferences",)),
        ("it's me, my husband and the baby", ("preferences",)),
        ("we're a household of three", ("preferences",)),
        ("do we have a slow cooker?", ()),  # asked
        # when food goes off: its expiry date (``EXPIRES``)
        ("the milk actually goes off on friday", ("inventory",)),
        ("yoghurt expires tomorrow", ("inventory",)),
        ("the chicken is best before the 12th", ("inventory",)),
        ("does the milk go off tomorrow", ()),  # asked, without its "?"
        ("we love the dal", ()),  # a dish, not a cuisine
    ],
)
def test_where_a_change_said_without_a_verb_belongs(message: str, home: tuple[str, ...]):
    assert change_home(message) == home


@pytest.mark.parametrize(
    ("message", "unplaced"),
    [
        ("delete the eggs", True),
        ("throw out the milk", True),
        ("remove the eggs from my shopping list", False),
        ("delete the eggs in the fridge", False),
        ("add eggs", False),
        ("what eggs do I have?", False),
    ],
)
def test_a_delete_that_says_what_but_not_where(message: str, unplaced: bool):
    assert unplaced_delete(message) is unplaced


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("suggest a quick dinner", "suggest"),
        ("could u suggest something with leeks", "suggest"),
        ("any ideas for dinner?", "any ideas"),
        ("come up with a menu", "come up with"),
        ("ideas for a picnic lunch?", "ideas for"),
        ("some inspiration for sunday lunch", "some inspiration for"),
        ("ideas are welcome", None),
        ("what's in my fridge?", None),
        ("show me my recipes", None),
        ("save me a simple omelette recipe", "save me a simple omelette recipe"),
        ("find me a recipe for pancakes", "find me a recipe"),
        ("give me a recipe we saved", None),
        ("save my gran's scone recipe: 250 g flour", None),  # dictated, not thought of
    ],
)
def test_a_request_for_something_new_to_be_thought_of(message: str, asked: str | None):
    assert requested_content(message) == asked


@pytest.mark.parametrize(
    "message",
    [
        "forget that recipe, I don't want it",
        "forget it",
        "Scrap that idea.",
        "no thanks, never mind that one",
        "ok pls drop the suggestion",
        "I don’t want it",
        "don't save it, thanks",
        "nah, I've changed my mind. ditch it",
    ],
)
def test_a_message_that_only_asks_to_forget_what_was_suggested(message: str):
    assert only_forgets(message)


@pytest.mark.parametrize(
    "message",
    [
        "forget that recipe and suggest one with tofu",
        "forget it, what's in my fridge?",
        "drop the milk",  # names a thing: a delete, not a forget
        "forget the quinoa bowl",
        "never mind",  # says nothing of what to forget
        "no",
        "scrap that, add eggs to my list",
        "",
    ],
)
def test_a_forget_with_anything_more_or_naming_something_is_not_only_a_forget(message: str):
    assert not only_forgets(message)


@pytest.mark.parametrize(
    ("message", "sees"),
    [
        ("show me that recipe again", True),
        ("what's in it?", True),
        ("can you repeat the recipe", True),
        ("add feta to it", False),
        ("more lime in it", False),
        ("show it again but add feta", False),  # a change rides along
        ("anything i need to do this week?", True),
        ("anything i need to do in the next 2 days", True),  # as typed: no question mark
        ("anything else we should get", True),
        ("whats for lunch tmrw", True),
        ("is the milk still good?", True),
        ("do we have eggs? add some if not", False),
        ("anything with chicken", False),  # not asked: what it is for is Think's call
        ("any recipes with tomatoes in", True),  # things kept, asked after
        ("is it ok to add milk to the list?", False),  # a change asked politely
        ("any chance you could move the dal to friday?", False),
        ("do you mind adding eggs?", False),
        ("when do i need to clean the oven by", True),  # a question word
        ("where are the eggs", True),
        ("do i have any mexican recipes", True),  # a question without its question mark
        ("is there rice left", True),
        ("does the dal have spinach in it", True),
        ("are the eggs in the fridge", True),
        ("have the dal on monday", False),  # a request, whatever its first word
        ("do we have to add milk", False),
        ("do the dishes tonight", False),  # an imperative, not a question
        ("have you got any ideas for dinner", False),  # asks for ideas: Think's to judge
    ],
)
def test_a_message_that_only_asks_to_see(message: str, sees: bool):
    assert asks_to_see(message) is sees


@pytest.mark.parametrize(
    ("message", "ideas"),
    [
        ("what can I cook with what I have?", True),
        ("what should we have tonight", True),
        ("how do i make pancakes", True),
        ("what goes well with the chili", True),
        ("any ideas for lunch", True),
        ("suggest a dinner", True),
        ("not sure what to cook tonight", True),
        ("whats for lunch tomorrow", False),  # what is planned: stored
        ("what's planned for dinner next Monday?", False),
        ("which recipes use spinach", False),
        ("how long does the dal take", False),
    ],
)
def test_a_question_that_asks_for_something_thought_up(message: str, ideas: bool):
    assert asks_for_ideas(message) is ideas


def test_a_change_verb_is_found_as_said_anywhere_in_the_words():
    for said in ("how about adding eggs?", "Delete it?", "deleting it?", "planning it?"):
        assert names_change(said), said
    for said in ("anything i need to do this week?", "is anything planned for monday?"):
        assert not names_change(said), said


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("push the oven cleaning to next friday", {"moved"}),
        ("the plumber can wait till thursday", {"moved"}),
        ("put off clearing the gutters", {"moved"}),
        ("the windows are washed, that chore can go", {"done"}),
        ("called the plumber, that's sorted", {"done"}),
        ("cleaned the oven finally", {"done"}),  # a chore in the past tense
        ("we finally mopped the kitchen floor", {"done"}),
        ("loved the dal", set()),  # a feeling, no chore
        ("moved the dal to friday", {"moved"}),
        ("got the tortillas, cross them off", {"acquired", "done"}),
        ("picked up the olive oil", {"acquired"}),
        ("we need paper towels", {"needed"}),
        ("running low on rice", {"needed"}),
        ("running out of milk", {"needed"}),  # some left: on the list, still in stock
        ("we're out of eggs", {"gone", "needed"}),  # none left: gone from stock, needed
        ("ran out of rice", {"gone", "needed"}),
        ("used 4 eggs for the cake", {"used"}),
        ("drank some of the juice", {"used"}),
        ("I used up the rice", {"gone"}),
        ("milk is finished", {"gone"}),
        ("we finished the eggs and the milk", {"gone"}),
        ("i finished the oven cleaning", set()),  # a chore: no thing gone
        ("finished the book", set()),
        ("we ate the last of the yogurt", {"gone"}),
        ("threw out the rice, it had weevils", {"gone"}),
        ("got rid of the old milk", {"gone"}),  # not got
        ("clear the finished stuff off the shopping list", {"removed"}),
        ("stick sugar and flour on the list", {"added"}),
        ("bin the chili recipe", {"removed"}),
        ("dont need bread anymore", {"removed"}),  # not needed
        ("stock up for the curry", {"needed"}),
        ("get whatever is missing for the stew", {"needed"}),
        ("put the dal back to tuesday", set()),  # put back is no add
        ("we have 12 eggs now", {"counted"}),
        ("there are only 2 onions left, not 6", {"counted"}),
        ("3 tins of tomatoes left", {"counted"}),
        ("we've got 2 lemons", {"acquired", "counted"}),
        ("weve got 2 lemons", {"acquired", "counted"}),  # typed without its apostrophe
        ("make it 3 rolls of paper towels", {"counted"}),
        ("milk's down to half", {"counted"}),
        ("book club is on thursday now", {"moved"}),
        ("found a bottle of olive oil in the cupboard", {"acquired"}),
        ("found the recipe i wanted", set()),  # no thing got
        ("found out the plumber is coming", set()),
        ("half a bag of rice left", {"counted"}),
        ("please trash that recipe", {"removed"}),
        ("empty the recycling bin tomorrow", set()),  # a chore: "bin" is no verb here
        ("take out the trash tonight", set()),
        ("remind me to take the bin out on thursday", set()),  # a task made, of no kind
        ("remind me to delete the old photos", set()),
        ("change the milk on the list to 2", {"added", "counted"}),
        ("make the chili serve 8", set()),  # a recipe's servings, no amount of a thing
        ("move the dal to wednesday", {"moved"}),
        ("do the oven a day later than planned", {"moved"}),  # a date moved from its own
        ("bring the dal forward a day", {"moved"}),
        ("we have some eggs", set()),
        ("need to call the plumber", set()),  # a thing to do, not a thing to buy
        ("got to call the plumber", set()),
        ("rename the chili", set()),
        ("take the cumin out of the dal", {"removed"}),  # taken out, not run out of
        ("leave the walnuts out of my loaf recipe", {"removed"}),
        ("get the chicken out of the freezer", set()),
        ("keep the chicken out of the fridge", set()),  # where it is kept, no ingredient
    ],
)
def test_the_kinds_of_change_words_name(text: str, kinds: set[str]):
    assert change_kinds(text) == kinds


def test_kinds_are_opposite_when_every_one_asked_is_undone_by_the_others():
    moved, done = frozenset({"moved"}), frozenset({"done"})
    assert opposite_kinds(moved, done) and opposite_kinds(frozenset({"acquired"}), {"needed"})
    assert opposite_kinds(frozenset({"added"}), {"used"})  # put on the list is not used up
    assert not opposite_kinds(moved, moved | done)  # shares a kind: no opposite
    assert not opposite_kinds(frozenset(), done) and not opposite_kinds(moved, frozenset())
    assert not opposite_kinds(moved, frozenset({"needed"}))
    assert opposite_kinds(frozenset({"used"}), frozenset({"gone"}))  # some is not all
    assert opposite_kinds(frozenset({"gone"}), frozenset({"acquired"}))
    counted = frozenset({"counted"})  # an amount set is no thing added or needed
    assert opposite_kinds(counted, {"added"}) and opposite_kinds(counted, {"needed"})
    assert opposite_kinds(counted, {"acquired"}) and opposite_kinds(counted, {"used"})
    assert not opposite_kinds(counted, {"acquired", "counted"})  # "we've got 2 lemons"
    assert opposite_kinds(frozenset({"acquired"}), {"moved"})  # got is not moved elsewhere


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("anything i need to do this week?", ("tasks",)),
        ("whats still on the shopping list", ("shopping",)),
        ("which items on my shopping list are already in the fridge?", ("shopping", "inventory")),
        ("am I allergic to anything?", ("preferences",)),
        ("is the milk still good?", ()),  # names no place: the model's to find
        ("is any of it overdue?", ("tasks",)),  # what has a due date
        ("how many lemons are we buying", ("shopping",)),  # what is to be bought
        ("add eggs to my to-do list", ()),  # a change, not a question
    ],
)
def test_a_question_names_where_its_answer_is_kept(message: str, named: tuple[str, ...]):
    assert places_named(message) == named


def test_a_contraction_typed_without_its_apostrophe_is_read_as_one():
    assert spelled("im sure ive got it, dont worry") == "i'm sure i've got it, don't worry"
    assert spelled("whats left? theres rice") == "what's left? there's rice"
    assert spelled("I\u2019m off dairy") == "I'm off dairy"
    # words of their own stay as typed
    assert spelled("we were ill, its lid, lets see, the id, wont") == (
        "we were ill, its lid, lets see, the id, wont"
    )


@pytest.mark.parametrize(
    ("message", "wants"),
    [
        ("the chili needs a tin of sweetcorn as well", "needs"),
        ("the pie could do with more thyme", "could do with"),
        ("the stew should have a bay leaf in it", "should have"),
        ("we need garlic and lemons", None),  # a thing needed, said as one: the list's
        ("what does the chili need?", None),  # a question
        ("put what the dal needs on my groceries", None),  # a change verb of its own
        ("the dal recipe shouldnt have onion in it", None),
        ("dal should be 250g lentils not 200", "should be"),  # another amount
        ("the chili should serve 6", "should serve"),
        ("the dal should be spicier", None),  # no amount said
        ("the stew really takes 2 hours", "takes 2 hours"),  # another time
        ("how long the stew takes 2 hours or 3?", None),  # a question
    ],
)
def test_a_statement_that_a_thing_lacks_something(message: str, wants: str | None):
    """``dish_wants``: said of a saved recipe, an ingredient added to it, or an amount of
    it set."""
    assert dish_wants(message) == wants


def test_what_sets_another_value_is_a_correction_not_a_lack():
    assert corrects("should be") and corrects("should serve") and corrects("takes 2 hours")
    assert not corrects("needs") and not corrects("should have")


@pytest.mark.parametrize(
    ("message", "columns"),
    [
        ("we adore italian food", ("favorite_cuisines",)),
        ("just bought a slow cooker", ("available_equipment",)),
        ("i'm a complete beginner", ("cooking_skill_level",)),
        ("we only get 20 minutes to cook on weekdays", ("time_budget_minutes",)),
        ("we're a household of three", ("household_adults", "household_kids", "household_babies")),
        ("my partner hates olives", ("disliked_ingredients",)),
        ("i dont like coriander", ("disliked_ingredients",)),
        ("our son is allergic to sesame", ("allergies",)),
        ("we don't eat pork", ("dietary_restrictions",)),
        ("were vegan now", ("dietary_restrictions",)),
        ("do we have a slow cooker?", ()),  # asked
        ("add olives to the list", ()),
    ],
)
def test_a_statement_about_the_cook_says_which_profile_columns_it_sets(message, columns):
    """For "my husband hates mushrooms so leave them out" the 1.5B local model put the
    mushrooms in the dietary restrictions."""
    assert profile_columns(message) == columns
