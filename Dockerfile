# One image for the migration job, the worker and the API. No extras: the embedded
# PostgreSQL and the Temporal CLI (`make run`'s stack) are not in it.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain domain
COPY activities activities
COPY workflows workflows
COPY api api
COPY migrations migrations
COPY prompts prompts
COPY evals evals
# Editable install: migrations/ and prompts/ are read from the source tree.
RUN pip install --no-cache-dir -e .
# Bytecode now: the workflow sandbox imports the workflow's module afresh for every turn,
# and without a .pyc (PYTHONDONTWRITEBYTECODE, a read-only tree) it compiles it each time.
RUN python -m compileall -q domain activities workflows api
ENTRYPOINT ["alfred"]
