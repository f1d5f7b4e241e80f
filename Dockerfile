# One image for the migration job, the worker and the API. No extras: the embedded
# PostgreSQL and the Temporal CLI (`make run`'s stack) are not in it.
# tests/test_deployment.py builds this install outside Docker (the same files, these RUN
# steps) and runs the commands compose runs.
FROM python:3.11-slim
# uv installs the locked versions; the release the Makefile uses (UV_VERSION there).
RUN pip install --no-cache-dir uv==0.13.9
WORKDIR /app
# Copies, not links, from uv's cache (a mount of its own); never a Python of uv's own.
ENV UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never
COPY pyproject.toml README.md requirements.txt ./
COPY domain domain
COPY activities activities
COPY workflows workflows
COPY api api
COPY migrations migrations
COPY prompts prompts
COPY evals evals
# The base dependencies at their locked versions (requirements.txt: no extras, hashes
# checked), then the package itself, editable: migrations/ and prompts/ are read from the
# source tree.
RUN --mount=type=cache,target=/root/.cache/uv \
    uv venv .venv && \
    uv pip sync --require-hashes requirements.txt && \
    uv pip install --no-deps -e .
ENV PATH=/app/.venv/bin:$PATH
# Bytecode now: the workflow sandbox imports the workflow's module afresh for every turn,
# and without a .pyc (PYTHONDONTWRITEBYTECODE, a read-only tree) it compiles it each time.
RUN python -m compileall -q domain activities workflows api
ENTRYPOINT ["alfred"]
