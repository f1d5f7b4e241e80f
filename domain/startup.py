"""Why a process could not start (a missing extra, a port in use, a server that never
came up): the command says so in one line, without a traceback (``api.cli``)."""

from __future__ import annotations


class CannotStart(RuntimeError):
    pass
