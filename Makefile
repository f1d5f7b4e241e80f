# Alfred on Temporal. `make test` and `make run` create the virtualenv themselves.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CHROMIUM ?= /usr/bin/chromium
COMPOSE  ?= /usr/bin/docker-compose
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: test run lint bench clean bytecode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,embedded]'
	touch $(STAMP)

# The workflow sandbox imports the workflow's modules afresh for every turn: without
# bytecode on disk (PYTHONDONTWRITEBYTECODE, as on many machines and images) each turn
# compiles them from source again (~13 ms of a plan turn here; docs/BENCHMARKS.md).
# compileall writes only what is missing or stale.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q domain activities workflows api bench tests

# Headless Chromium for the chat page's browser test, from Debian's packages.
$(CHROMIUM):
	$(SUDO) apt-get install -y --no-install-recommends chromium || \
	  { $(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends chromium; }

# Debian's docker-compose parses docker-compose.yml in tests/test_deployment.py (no engine).
$(COMPOSE):
	$(SUDO) apt-get install -y --no-install-recommends docker-compose || \
	  { $(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends docker-compose; }

## The whole test suite (real PostgreSQL: ALFRED_TEST_DATABASE_URL, else an embedded server).
test: $(STAMP) bytecode $(CHROMIUM) $(COMPOSE)
	$(BIN)/python -m pytest

## The main job on the embedded default stack.
run: $(STAMP) bytecode
	$(BIN)/alfred run

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache
