"""The process's Temporal runtime: with ``ALFRED_METRICS_ADDRESS``, a Prometheus endpoint
serving the SDK's metrics (workflow and activity task latencies, slots, polls...) and
Alfred's own, which workflows and activities record through the SDK's metric meters
(``workflows.turn_metrics``, ``activities.model_metrics``)."""

from __future__ import annotations

from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig

from domain.settings import Settings

_RUNTIMES: dict[str, Runtime] = {}


def runtime_for(settings: Settings) -> Runtime | None:
    """The runtime with a Prometheus endpoint on ``settings.metrics_address`` (one per
    address and process: the endpoint is bound when it is made); None without one."""
    address = settings.metrics_address
    if not address:
        return None
    if address not in _RUNTIMES:
        _RUNTIMES[address] = Runtime(
            telemetry=TelemetryConfig(
                metrics=PrometheusConfig(
                    bind_address=address, counters_total_suffix=True, durations_as_seconds=True
                )
            )
        )
    return _RUNTIMES[address]
