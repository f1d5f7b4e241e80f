"""The benchmarks' scripts run through the same workflow fixtures as the workflow tests."""

from tests.workflows.conftest import turns, wire  # noqa: F401
