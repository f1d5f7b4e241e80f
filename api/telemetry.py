"""The process's telemetry.

- **Metrics**: with ``ALFRED_METRICS_ADDRESS``, the Temporal runtime serves a Prometheus
  endpoint with the SDK's metrics (workflow and activity task latencies, slots, polls...)
  and Alfred's own, which workflows and activities record through the SDK's metric meters
  (``ProgressLog.count_turn``..., ``activities.model_metrics``).
- **Traces**: with ``ALFRED_TRACES`` (``console``: JSON on stdout; ``otlp``: OpenTelemetry's
  OTLP/HTTP exporter, configured by the standard ``OTEL_EXPORTER_OTLP_*`` variables), a
  turn is a trace: starting it, its workflow, each activity (``temporalio.contrib
  .opentelemetry``), each model call inside an activity (``activities.model_nodes``) and each
  SQL statement (OpenTelemetry's SQLAlchemy instrumentation).
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from sqlalchemy.ext.asyncio import AsyncEngine
from temporalio.contrib.opentelemetry import TracingInterceptor
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


def _exporter(kind: str) -> SpanExporter:
    if kind == "console":
        return ConsoleSpanExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def start_tracing(settings: Settings, exporter: SpanExporter | None = None) -> bool:
    """Install the process's tracer provider (once) when traces are on; True if they are.
    ``exporter`` replaces the configured one (tests keep spans in memory)."""
    if settings.traces == "off" and exporter is None:
        return False
    current = trace.get_tracer_provider()
    if not isinstance(current, TracerProvider):
        provider = TracerProvider(resource=Resource.create({"service.name": "alfred"}))
        provider.add_span_processor(BatchSpanProcessor(exporter or _exporter(settings.traces)))
        trace.set_tracer_provider(provider)
    return True


def client_interceptors(settings: Settings) -> list[Any]:
    """The Temporal client's interceptors: tracing when traces are on (workers built on
    the client inherit them)."""
    return [TracingInterceptor()] if start_tracing(settings) else []


def trace_sql(engine: AsyncEngine, settings: Settings) -> None:
    """A span per SQL statement on ``engine`` when traces are on."""
    if start_tracing(settings):
        # The instrumentation declares SQLAlchemy < 2.1; the 2.1 engine events it hooks are
        # the same (the test checks the spans arrive).
        SQLAlchemyInstrumentor().instrument(engine=engine.sync_engine, skip_dep_check=True)
