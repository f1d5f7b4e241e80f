"""A statement about the cook or their household is kept in the profile.

When the user's words only state what the profile keeps (``domain.intent.change_home``
is the preferences alone: a diet, an allergy, a dislike, equipment, a cuisine loved, skill,
the time there is to cook, who eats) and name no other place, a plan that writes
elsewhere is held to the preferences: one write of what the words say, in the user's
words, with the columns they set when the words say (``domain.intent.profile_columns``).
Nothing else in such words asks for a meal, a recipe or a purchase. For "its me
my wife and our 2 kids" the 1.5B local model planned a week of meals beside the
household, and the turn asked which days; for "my husband hates mushrooms so leave them
out" it planned, twice, to change the dal, and the turn asked where. Its own preference
step is not kept: beside the meals, it had written "3 adults, no kids", and Act set
that; its goal, "Plan a meal for the next week", was what Reply said.
"""

from __future__ import annotations

from domain.intent import change_home, places_said, profile_columns
from domain.nodes import ThinkOutput, ThinkStep

KEEP = "Save to the user's preferences{columns} what their words say about them: {words}"


def kept_in_profile(think: ThinkOutput, message: str) -> ThinkOutput:
    """``think`` held to the preferences when ``message`` only states what the profile
    keeps: one write of what the words say, the plan's goal the same; unchanged when it
    writes there alone, asks a question, or the words name another place ("add the air
    fryer to my tasks")."""
    if think.decision == "clarify" or change_home(message) != ("preferences",):
        return think
    if set(places_said(message)) - {"preferences"}:
        return think
    changes = [s for s in think.steps if s.step_type in ("write", "generate")]
    if changes and all(s.subdomain == "preferences" for s in changes):
        return think
    columns = profile_columns(message)
    keep = KEEP.format(columns=f" ({', '.join(columns)})" if columns else "", words=message)
    step = ThinkStep(description=keep, step_type="write", subdomain="preferences")
    return ThinkOutput(goal=keep, decision="plan_direct", steps=[step])
