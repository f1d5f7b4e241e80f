"""What each model call did, as metrics through the SDK's activity metric meter (served on
the Prometheus endpoint of ``api.telemetry``; a no-op without one, or outside a worker)."""

from __future__ import annotations

from temporalio import activity

from activities.llm.provider import Usage


def record_call(node: str, model: str, usage: Usage) -> None:
    """One call's answer: the call, its tokens (prompt and completion), its repairs."""
    if not activity.in_activity():
        return
    meter = activity.metric_meter()
    labels = {"node": node, "model": model}
    meter.create_counter("alfred_model_calls", "model calls answered, by node and model").add(
        1, labels
    )
    tokens = meter.create_counter("alfred_model_tokens", "tokens by node, model and kind")
    tokens.add(usage.prompt_tokens, {**labels, "kind": "prompt"})
    tokens.add(usage.completion_tokens, {**labels, "kind": "completion"})
    if usage.repairs:
        meter.create_counter(
            "alfred_model_repairs", "outputs that failed validation and were asked again"
        ).add(usage.repairs, labels)


def record_failure(node: str, kind: str) -> None:
    """A call that failed (``invalid_output``, ``http_503``, ``timeout``...)."""
    if not activity.in_activity():
        return
    activity.metric_meter().create_counter(
        "alfred_model_failures", "model calls that failed, by node and kind"
    ).add(1, {"node": node, "kind": kind})
