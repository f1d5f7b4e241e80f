"""The LLM nodes as activities: build the context, render the prompt, call the gateway.

Each activity takes its node's request model, renders the node's versioned system prompt
from ``prompts/`` and its user message from ``domain.context``, and returns the validated
output with usage and the template name and version it used. Understand's and Think's
outputs are held to the rules that need no judgment (``domain.enforced``) here, so the
turn's history records them as held.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from opentelemetry import trace
from pydantic import BaseModel
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.failures import to_application_error
from activities.heartbeat import heartbeating
from activities.llm.gateway import LlmGateway, LlmResult
from activities.llm.provider import AnswerStream, LlmError, LlmRequest, Usage
from activities.model_metrics import record_call, record_failure
from activities.payloads import (
    ActQuickRequest,
    ActQuickResult,
    ActRequest,
    ActResult,
    BypassRequest,
    BypassResult,
    FailedCallCost,
    NodeCall,
    ReplyRequest,
    ReplyResult,
    StateRef,
    ThinkRequest,
    ThinkResult,
    UnderstandRequest,
    UnderstandResult,
)
from activities.saved_state import SavedStates
from activities.streaming import content_stream, text_stream
from domain import context
from domain.answers import answer_model
from domain.clock import local
from domain.conversation import ConversationState
from domain.enforced.act_rules import (
    act_facts,
    completion_note,
    created_a_copy,
    created_beside,
    created_for_a_change,
    hold_act,
    idle_read,
    moved_as_said,
    moved_elsewhere,
    others_read,
    read_its_own,
    read_made,
    repeated_call,
    scaled_left,
    system_read,
    uncalled_note,
    unchanged,
    unchanged_block,
    unlinked,
    unnamed_meal,
    updated_for_a_removal,
    updated_for_an_add,
)
from domain.enforced.copied import held_to_the_words, other_recipe_note
from domain.enforced.plan_rules import (
    as_question,
    ask_again,
    generates_unasked,
    hold_plan,
    hold_understand,
    meals_dropped,
    only_reads,
    read_first,
    read_moved,
    read_there,
    retrievable,
    revisable,
    saved_too,
    thought_up,
    ticked_too,
    undated_plan,
    where_asked,
    writes_unasked,
    written_instead,
)
from domain.enforced.profile import kept_in_profile
from domain.enforced.read_filters import (
    either,
    either_read,
    known_filters,
    one_day,
    one_day_read,
    said_names,
    said_read,
)
from domain.intent import names_change
from domain.modes import MAX_TOOL_CALLS_PER_STEP, mode_config
from domain.nodes import NODE_COMPLEXITY, STEP_COMPLEXITY, ActDecision, output_cap
from domain.plan_examples import (
    DEFAULT_EXAMPLES,
    ExampleSet,
    own_words,
    shown_entries,
    think_prompt,
)
from domain.prompts import PERSONAS, RenderedPrompt, act_templates, render, render_many
from domain.registry import RegistryDelta, SessionIdRegistry
from domain.step_checks import refs_claimed
from domain.tokens import MIN_ANSWER, Fitted, answer_room, estimate_tokens, within_window
from domain.tool_results import ToolEntry

_TRACER = trace.get_tracer("alfred.model")
"""Model-call spans (a no-op unless the process traces: ``api.telemetry``)."""
MAX_SENT_BACK = 2
"""Times one act activity asks Act again, each for another reason (``domain.enforced``):
a read sent again, then the write it was sent back to make naming no meal."""


def time_for_another(began: float, slowest: float) -> bool:
    """Whether this attempt has time left to ask the model once more: twice its slowest
    call so far (the same request with a note, and as long again for a repair). The
    attempt's start-to-close timeout (``workflows.policies.llm``) is sized for one call
    and its repairs; an ask that outlived it would be cut and the whole activity retried,
    its finished first answer lost."""
    timeout = activity.info().start_to_close_timeout
    if timeout is None:
        return True
    left = timeout.total_seconds() - (time.monotonic() - began)
    return left > 2 * slowest


async def call_node(
    gateway: LlmGateway,
    node: str,
    prompt: RenderedPrompt,
    user: str | Fitted,
    *,
    complexity: str | None = None,
    step: int | None = None,
    step_type: str | None = None,
    subdomain: str | None = None,
    max_steps: int | None = None,
    finished: tuple[int, ...] | None = None,
    saving: tuple[str, ...] | None = None,
    facts: BaseModel | None = None,
    shown: SessionIdRegistry | None = None,
    stream: AnswerStream | None = None,
    window: int | None = None,
) -> tuple[dict[str, Any], NodeCall]:
    """One node call; provider errors become ApplicationErrors (retryable or not).

    ``window`` is the model's context window (tokens), when set: the answer is asked for
    within what the prompt leaves of it (``domain.tokens.answer_room``).
    ``facts`` is the node's request model and ``shown`` the registry its prompt showed,
    passed as they are (``LlmRequest.facts``, ``LlmRequest.shown``) to a provider that
    reasons from structure rather than from the prompt (the offline demo model).
    """
    fitted = user if isinstance(user, Fitted) else None
    text = fitted.text if fitted is not None else str(user)
    if fitted is not None and (fitted.dropped or fitted.cut):
        activity.logger.info(
            "%s context over budget: dropped %s, cut %s",
            node,
            ", ".join(fitted.dropped) or "none",
            fitted.cut or "none",
        )
    request = LlmRequest(
        node=node,
        system=prompt.text,
        user=text,
        answer=answer_model(
            node,
            step_type=step_type,
            subdomain=subdomain,
            max_steps=max_steps,
            finished=finished,
            saving=saving,
        ),
        complexity=complexity or NODE_COMPLEXITY.get(node, "medium"),
        step=step,
        max_tokens=answer_room(output_cap(node, step_type), window, prompt.text, text),
        window=window,
        template=prompt.template,
        version=prompt.version,
        facts=facts,
        shown=shown,
        stream=stream,
    )
    if window is not None and request.max_tokens is not None and request.max_tokens < MIN_ANSWER:
        record_failure(node, "context_window")
        raise to_application_error(
            LlmError(
                f"{node}: its prompt (~{estimate_tokens(prompt.text) + estimate_tokens(text)} "
                f"estimated tokens) leaves no room for an answer in the model's {window}-token "
                "context window (ALFRED_LLM_CONTEXT_TOKENS)",
                kind="context_window",
                retryable=False,
            )
        )
    with _TRACER.start_as_current_span(f"model {node}") as span:
        span.set_attribute("alfred.node", node)
        span.set_attribute("alfred.template", f"{prompt.template} {prompt.version}")
        try:
            async with heartbeating():
                result: LlmResult = await gateway.call(request)
        except LlmError as error:
            record_failure(node, error.kind)
            span.set_attribute("alfred.failure", error.kind)
            raise to_application_error(error) from None
        record_call(node, result.model, result.usage)
        span.set_attribute("alfred.model", result.model)
        span.set_attribute("alfred.prompt_tokens", result.usage.prompt_tokens)
        span.set_attribute("alfred.completion_tokens", result.usage.completion_tokens)
        span.set_attribute("alfred.repairs", result.usage.repairs)
    info = activity.info()
    activity.logger.info(
        "node %s via %s (%s %s): %s+%s tokens",
        node,
        result.model,
        prompt.template,
        prompt.version,
        result.usage.prompt_tokens,
        result.usage.completion_tokens,
    )
    return result.output, NodeCall(
        usage=result.usage,
        model=result.model,
        price=result.price,
        template=prompt.template,
        version=prompt.version,
        attempt=info.attempt,
        llm_attempts=result.attempts,
        context_tokens=fitted.tokens if fitted is not None else estimate_tokens(text),
        context_dropped=list(fitted.dropped) if fitted is not None else [],
        context_cut=fitted.cut if fitted is not None else None,
    )


def _result(model: type[BaseModel], output: dict[str, Any], call: NodeCall) -> Any:
    return model.model_validate({**call.model_dump(), "output": output})


def _failed_cost(error: ApplicationError) -> dict[str, Any]:
    """The cost of the call that failed for good (``activities.failures``), as a
    ``NodeCall``'s fields: its tokens and repairs are spent whatever stands in for its
    answer."""
    if not error.details:
        return {}
    cost = FailedCallCost.model_validate(error.details[0])
    usage = Usage(**cost.model_dump(include=set(Usage.model_fields)))
    attempts = cost.repairs + 1
    return {"usage": usage, "model": cost.model, "price": cost.price, "llm_attempts": attempts}


class NodeActivities:
    """Understand, Think, Act, Act Quick and Reply (Summarize lives with the turn state)."""

    def __init__(
        self,
        gateway: LlmGateway,
        *,
        context_budget: int = context.CONDENSED_BUDGET,
        act_budget: int = context.ACT_BUDGET,
        window: int | None = None,
        states: SavedStates,
        think_examples: ExampleSet = DEFAULT_EXAMPLES,
    ) -> None:
        self.gateway = gateway
        self.context_budget = context_budget
        self.act_budget = act_budget
        self.window = window
        """The model's context window (tokens), when set: each budget is held within it."""
        self.think_examples = think_examples
        """Think's plan examples: fixed patterns, or library entries picked per request."""
        self.states = states
        """Saved conversation states: every request carries the state by reference."""

    async def _state(
        self, ref: StateRef
    ) -> tuple[ConversationState, SessionIdRegistry, SessionIdRegistry]:
        """The state the request names: the state as a prompt shows it, the registry's
        prompt copy (``for_prompt``) and the turn's whole registry."""
        state, registry = await self.states.read(ref)
        return state, registry.for_prompt(), registry

    def _budget(
        self, budget: int, node: str, prompt: RenderedPrompt, step_type: str | None = None
    ) -> int:
        """``budget``, or what the model's window leaves after the system prompt and the
        answer's cap (``domain.tokens.within_window``)."""
        return within_window(budget, self.window, prompt.text, output_cap(node, step_type))

    @staticmethod
    def _known(whole: SessionIdRegistry, said: Any) -> RegistryDelta | None:
        """The saved entries of the refs in ``said`` (what a model answered), for the
        workflow's working copy, which holds only the last turns' refs; None without a
        ref."""
        claimed = refs_claimed([said])
        return whole.entries_of(claimed) if claimed else None

    @activity.defn(name="understand")
    async def understand(self, request: UnderstandRequest) -> UnderstandResult:
        state, registry, whole = await self._state(request.state_ref)
        prompt = render("understand", mode_hint=mode_config(request.mode).understand_hint)
        user = context.understand_context(
            request.message,
            state,
            registry,
            request.pending,
            context=request.context,
            budget=self._budget(self.context_budget, "understand", prompt),
            clock=request.clock,
        )
        output, call = await call_node(
            self.gateway,
            "understand",
            prompt,
            user,
            facts=request,
            shown=registry,
            window=self.window,
        )
        result = _result(UnderstandResult, output, call)
        held = hold_understand(result.output, request.message)
        if held != result.output:
            changed = [
                f for f in type(held).model_fields if getattr(held, f) != getattr(result.output, f)
            ]
            activity.logger.info("understand: held by domain.enforced: %s", ", ".join(changed))
        result.output = held
        result.known = self._known(whole, result.output.model_dump())
        return result

    @activity.defn(name="think")
    async def think(self, request: ThinkRequest) -> ThinkResult:
        """Think's plan, held to the rules (``domain.enforced.plan_rules.hold_plan``); a plan that
        changes nothing for a request that asks for a change, or puts no meal on the day
        the words name, is asked for once more (``ask_again``), in this activity, so the
        history holds the plan that stands. When that second call fails, the first plan
        stands. A plan that still writes for a question runs its reads only
        (``only_reads``); one that still reads elsewhere than the question's words name
        reads there too (``read_there``); one that writes about a saved recipe it does not
        read first reads it first (``read_first``); one that still saves a recipe nothing
        thinks up for words that ask for a new one thinks it up (``thought_up``); one that
        still thinks up a recipe for a change to a saved one writes it instead
        (``written_instead``); one that thinks something up for a question that asks only
        what is stored runs its reads alone (``generates_unasked``); a recipe thought up
        that the words ask to save is saved (``saved_too``); one that moves dates from their
        own reads them first (``read_moved``); things got that are open on the list are
        ticked off it too (``ticked_too``); a plan for words that only state what the
        profile keeps writes there alone (``domain.enforced.profile``)."""
        config = mode_config(request.mode)
        named = [table for table, rows in request.context.dashboard.named.items() if rows]
        state, registry, _ = await self._state(request.state_ref)  # read once, for both calls
        unsaved = registry.unsaved_refs()
        to_revise = revisable(unsaved)
        prompt = think_prompt(
            request.mode, self.think_examples, request.message, request.clock, named, to_revise
        )

        async def plan(replan: str | None = None) -> ThinkResult:
            user = context.think_context(
                request.message,
                request.understand,
                state,
                registry,
                request.pending,
                context=request.context,
                budget=self._budget(self.context_budget, "think", prompt),
                clock=request.clock,
                replan=replan,
            )
            output, call = await call_node(
                self.gateway,
                "think",
                prompt,
                user,
                max_steps=config.max_steps,
                facts=request,
                shown=registry,
                window=self.window,
            )
            return _result(ThinkResult, output, call)

        result = await plan()
        today = local(request.clock).date() if request.clock else None
        resumed = request.pending is not None
        note = None
        if not resumed:  # after a pause, the plan the user answered stands as they saw it
            own = own_words(shown_entries(self.think_examples, request.message, named, to_revise))
            said = [request.message, *(e.label for e in registry.entries.values())]
            said += [f"{t.user_message} {t.assistant_response}" for t in state.recent_turns]
            dashboard = request.context.dashboard
            places = [p for p in dashboard.inventory_by_location if p != "unspecified"]
            held, note = held_to_the_words(
                result.output, request.message, own, " ".join(said), places
            )
            if held != result.output:
                activity.logger.info("think: reads nobody asked for dropped: %s", held.steps)
                result.output = held
            if (kept := kept_in_profile(result.output, request.message)) != result.output:
                activity.logger.info("think: a statement the profile keeps: %s", kept.steps)
                result.output = kept
        recipes = request.context.dashboard.named.get("recipes", [])
        tasks = request.context.dashboard.named.get("tasks", [])
        saved = [*recipes, *request.context.dashboard.planned_recipes]
        note = (
            note
            or (None if resumed else other_recipe_note(result.output, recipes, saved))
            or ask_again(
                result.output,
                request.message,
                today,
                unsaved,
                resumed,
                bool(recipes),
                tasks,
                request.context.dashboard.named.get("inventory", []),
            )
        )
        if note is not None:
            activity.logger.info("think: asked again: %s", note.split("\n", 1)[0])
            try:
                again = await plan(note)
            except ApplicationError as error:  # the first plan stands; Reply says so
                activity.logger.warning("think asked again failed (%s): first plan kept", error)
            else:
                again.usage = result.usage + again.usage
                again.llm_attempts += result.llm_attempts
                result = again
            if writes_unasked(result.output, request.message) and not names_change(
                request.message
            ):  # a question, still, with no word of a change in it
                result.output = only_reads(result.output, request.message)
            result.output = read_there(
                result.output, request.message, config.max_steps, recipes, tasks
            )
            result.output = thought_up(result.output, request.message)
            if today is not None:
                result.output = meals_dropped(result.output, request.message, today)
            result.output = written_instead(result.output, request.message, unsaved, bool(recipes))
        if not resumed and generates_unasked(result.output, request.message):
            activity.logger.info("think: a question's plan thinks something up: reads kept")
            result.output = only_reads(result.output)
        if request.pending is None and (
            question := where_asked(result.output, request.message, bool(recipes))
        ):
            activity.logger.info("think: the plan still changes elsewhere: asked where")
            result.output = as_question(result.output, question)
        if request.pending is None and today is not None:
            earlier = " ".join(t.user_message for t in state.recent_turns[-1:])
            if question := undated_plan(result.output, request.message, today, earlier):
                activity.logger.info("think: a meal plan with no day named: asked which")
                result.output = as_question(result.output, question)
        if request.pending is None:  # a write about a saved recipe reads it first
            known = [e.label for e in registry.entries.values() if e.type == "recipe"]
            planned = request.context.dashboard.planned_recipes
            result.output = read_first(
                result.output, request.message, recipes, known, config.max_steps, planned
            )
            result.output = saved_too(result.output, request.message, config.max_steps)
            result.output = read_moved(result.output, request.message, config.max_steps)
            listed = request.context.dashboard.named.get("shopping_list", [])
            result.output = ticked_too(result.output, request.message, listed, config.max_steps)
        answered = request.pending is not None and request.pending.kind == "proposal"
        held = hold_plan(result.output, request.mode, answered_proposal=answered)
        if held != result.output:
            activity.logger.info("think held: %s -> %s", result.output, held)
        result.output = held
        return result

    @activity.defn(name="act")
    async def act(self, request: ActRequest) -> ActResult:
        began = time.monotonic()
        step = request.plan[request.step_index]
        if (ours := system_read(step, request.tool_results)) is not None:
            activity.logger.info("act: the system's read step, no model asked: %s", ours.action)
            # no model call: the one the workflow counts up front is given back (0 attempts)
            return ActResult(output=ours, template="system", model="system", llm_attempts=0)
        state, registry, whole = await self._state(request.state_ref)
        state = state.for_act()
        prompt = render_many(
            act_templates(step.step_type),
            step_type=step.step_type,
            subdomain=step.subdomain,
            persona=PERSONAS.get(step.subdomain, "Assistant"),
            max_tool_calls=MAX_TOOL_CALLS_PER_STEP,
        )
        # unsaved content, read only: this activity's registry is its own copy
        pending = {ref: registry.artifacts[ref] for ref in registry.unsaved_refs()}

        async def decide(tool_results: list[ToolEntry]) -> ActResult:
            user = context.act_context(
                message=request.message,
                constraints=request.constraints,
                batch=request.batch,
                goal=request.goal,
                plan=request.plan,
                step_index=request.step_index,
                prior_results=request.prior_results,
                tool_results=tool_results,
                registry=registry,
                state=state,
                context=request.context,
                budget=self._budget(self.act_budget, "act", prompt, step.step_type),
                clock=request.clock,
            )
            streaming = (
                content_stream(request.step_index)
                if step.step_type == "generate"
                else contextlib.nullcontext(None)
            )
            async with streaming as stream:
                output, call = await call_node(
                    self.gateway,
                    "act",
                    prompt,
                    user,
                    complexity=STEP_COMPLEXITY[step.step_type],
                    step=request.step_index,
                    step_type=step.step_type,
                    subdomain=step.subdomain,
                    finished=retrievable(request.plan, request.step_index, tool_results),
                    saving=tuple(pending) if step.step_type == "write" else None,
                    facts=request,
                    shown=registry,
                    stream=stream,
                    window=self.window,
                )
            return _result(ActResult, output, call)

        def sent_back(output: ActDecision) -> ToolEntry | None:
            """Why this answer is sent back (``domain.enforced``), as the tool result Act
            is shown with it; None when it stands."""
            known = set(whole.known_refs()) if output.artifacts or output.tool_call else set()
            profile = request.context.profile
            if text := completion_note(output, pending, request.message, known, profile) or (
                uncalled_note(output, step.step_type, request.tool_results)
            ):
                return ToolEntry(tool="step_complete", error=text)
            saved = request.context.dashboard.named.get("recipes", [])
            stocked = request.context.dashboard.named.get("inventory", [])
            if text := (
                created_for_a_change(output, step)
                or created_a_copy(output, saved, request.message)
                or created_beside(output, stocked, request.message)
            ):
                return ToolEntry(tool="db_create", error=text)
            if text := updated_for_an_add(output, step) or updated_for_a_removal(output, step):
                return ToolEntry(tool="db_update", error=text)
            if text := moved_elsewhere(output, request.prior_results, request.message):
                return ToolEntry(tool="db_update", error=text)
            if left := scaled_left(
                output, request.prior_results, request.tool_results, step, request.message
            ):
                return left
            return (
                repeated_call(output, request.tool_results, step, request.message)
                or unnamed_meal(output, known)
                or idle_read(output)
                or others_read(output, request.plan, request.step_index, request.tool_results)
            )

        asked = time.monotonic()
        try:
            result = await decide(request.tool_results)
        except ApplicationError as error:
            made = read_made(request.tool_results, step)
            if error.type != "invalid_output" or made is None:
                raise
            activity.logger.warning("act: answer unusable (%s); the read step ends", error)
            return ActResult(output=made, **_failed_cost(error))
        slowest = time.monotonic() - asked
        told: list[str | None] = []
        while len(told) < MAX_SENT_BACK and (note := sent_back(result.output)) is not None:
            if note.error in told:
                break  # the same answer again: it stands, held below
            if not time_for_another(began, slowest):
                activity.logger.warning("act: no time left to send back: %s", note.error)
                break  # the answer so far stands, held below
            told.append(note.error)
            activity.logger.info("act: %s sent back: %s", note.tool, note.error)
            asked = time.monotonic()
            try:
                again = await decide([*request.tool_results, note])
            except ApplicationError as error:  # the answer so far stands, held below
                activity.logger.warning("act asked again failed (%s)", error)
                break
            slowest = max(slowest, time.monotonic() - asked)
            again.usage = result.usage + again.usage
            again.llm_attempts += result.llm_attempts
            result = again
        if told and (same := unchanged(result.output, pending, request.message)):
            result.output = unchanged_block(same, pending)
        facts = act_facts(
            request.message, state, pending, request.prior_results, request.tool_results, step
        )
        result.output = unlinked(result.output, set(whole.known_refs()))
        today = local(request.clock).date() if request.clock else None
        result.output = one_day_read(result.output, request.message, today)
        said = [request.message, step.description, request.goal]
        said += [r.model_dump_json() for r in [*request.prior_results, *request.tool_results]]
        result.output = said_read(result.output, "\n".join(said))
        result.output = known_filters(result.output, set(whole.known_refs()))
        result.output = either_read(result.output)
        result.output = moved_as_said(result.output, request.prior_results, request.message)
        result.output = read_its_own(
            result.output, request.plan, request.step_index, request.tool_results
        )
        held = hold_act(result.output, request.tool_results, facts)
        if held != result.output:
            activity.logger.info("act held: %s -> %s", result.output, held)
            result.output = held
        decided = result.output
        if decided.action == "step_complete":
            claims = [decided.result_summary, decided.data, decided.note_for_next_step]
            result.known = self._known(whole, claims)
        ref = request.state_ref
        if decided.action == "retrieve_archive":
            key = decided.archive_key or ""
            if key not in ref.unarchived:  # dropped by this turn: not in its archive
                result.archived = (await self.states.stored(ref)).content_archive.get(key)
        return result

    @activity.defn(name="act_quick")
    async def act_quick(self, request: ActQuickRequest) -> ActQuickResult:
        _, registry, _ = await self._state(request.state_ref)
        user = context.act_quick_context(
            request.intent,
            request.subdomain,
            request.message,
            registry,
            clock=request.clock,
            previous=request.previous,
        )
        output, call = await call_node(
            self.gateway,
            "act_quick",
            render("act_quick"),
            user,
            subdomain=request.subdomain,
            facts=request,
            shown=registry,
            window=self.window,
        )
        result = _result(ActQuickResult, output, call)
        said = f"{request.message}\n{request.intent}"
        result.output.params = either(said_names(result.output.params, said))
        if request.clock is not None:  # the one day the words name (``one_day``)
            today = local(request.clock).date()
            result.output.params = one_day(result.output.params, request.message, today)
        return result

    @activity.defn(name="reply")
    async def reply(self, request: ReplyRequest) -> ReplyResult:
        state, registry, _ = await self._state(request.state_ref)
        prompt = render("reply", verbosity=mode_config(request.mode).verbosity)
        user = context.reply_context(
            message=request.message,
            goal=request.goal,
            step_results=request.step_results,
            quick_result=request.quick_result,
            blocked=request.blocked,
            breakers=request.breakers,
            registry=registry,
            state=state,
            plan=request.plan,
            budget=self._budget(self.context_budget, "reply", prompt),
            clock=request.clock,
            written=request.written,
        )
        async with text_stream("reply") as stream:
            output, call = await call_node(
                self.gateway,
                "reply",
                prompt,
                user,
                facts=request,
                shown=registry,
                stream=stream,
                window=self.window,
            )
        return _result(ReplyResult, output, call)

    @activity.defn(name="bypass")
    async def bypass(self, request: BypassRequest) -> BypassResult:
        """cook or brainstorm: one answer from the mode's own session history."""
        prompt = render(request.mode)
        user = context.bypass_context(
            request.message,
            request.session,
            request.context,
            budget=self._budget(self.context_budget, request.mode, prompt),
            clock=request.clock,
        )
        async with text_stream(request.mode) as stream:
            output, call = await call_node(
                self.gateway,
                request.mode,
                prompt,
                user,
                facts=request,
                stream=stream,
                window=self.window,
            )
        return _result(BypassResult, output, call)
