# Alfred on Temporal. `make test` and `make run` create the virtualenv themselves.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# uv installs the locked versions (requirements-dev.txt here; requirements.txt in the image,
# whose Dockerfile pins this same release) and refreshes the locks (`make lock`).
UV_VERSION := 0.13.9
UV     := $(BIN)/uv
UV_STAMP := $(VENV)/.uv-$(UV_VERSION)
# uv trusts the system's certificate store too, not only its own bundle (as pip does): a
# registry reached through a TLS-inspecting proxy works.
export UV_SYSTEM_CERTS ?= 1
CHROMIUM ?= /usr/bin/chromium
COMPOSE  ?= /usr/bin/docker-compose
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: test run lint bench clean bytecode lock lock-upgrade floors

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(UV_STAMP): | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	touch $(UV_STAMP)

# Exactly the lock's versions (what is not in it is removed), then the project, editable.
$(STAMP): $(UV_STAMP) requirements-dev.txt pyproject.toml
	$(UV) pip sync --quiet --compile-bytecode --python $(BIN)/python --require-hashes requirements-dev.txt
	$(UV) pip install --quiet --python $(BIN)/python --no-deps -e .
	touch $(STAMP)

# The locks, from pyproject.toml's ranges: requirements-dev.txt (dev and embedded extras,
# what `make` installs) and requirements.txt (no extras, what the image installs), the
# same versions in both, for Python 3.11 and up on every platform. `make lock` keeps every
# pin that still fits (after a change to pyproject.toml); `make lock-upgrade` takes the
# newest release each range allows.
LOCK := $(UV) pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock"
lock: $(UV_STAMP)
	$(LOCK) $(LOCK_FLAGS) pyproject.toml --extra dev --extra embedded -o requirements-dev.txt
	$(LOCK) pyproject.toml --constraint requirements-dev.txt -o requirements.txt
lock-upgrade: LOCK_FLAGS := --upgrade
lock-upgrade: lock

# pyproject.toml's floors tried: every direct dependency at the lowest release its range
# allows, in .floors/ (a venv of its own), then the tests that exercise them.
FLOORS_TESTS ?= tests/workflows/test_replay.py tests/workflows/test_turn_paths.py \
	tests/api/test_turns.py tests/api/test_streams.py tests/api/test_agui.py \
	tests/api/test_chat.py tests/api/test_kitchen.py tests/api/test_telemetry.py \
	tests/api/test_logs.py tests/api/test_docs_page.py tests/api/test_reply_streaming.py \
	tests/activities/llm/test_openai_provider.py tests/domain/crud/test_operators.py \
	tests/domain/db tests/migrations
floors: $(UV_STAMP)
	rm -rf .floors
	$(UV) venv --quiet --python $(BIN)/python .floors
	$(UV) pip compile --quiet --python-version 3.11 --resolution lowest-direct \
	  pyproject.toml --extra dev --extra embedded -o .floors/requirements.txt
	$(UV) pip sync --quiet --python .floors/bin/python .floors/requirements.txt
	$(UV) pip install --quiet --python .floors/bin/python --no-deps -e .
	.floors/bin/python -m pytest -q -p no:cacheprovider $(FLOORS_TESTS)

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
# In TEST_PROCESSES processes, a test file each at a time (pytest-xdist): most of the suite's
# time is waiting on servers, so three processes take ~3 min where one took ~7 on 2 cores.
TEST_PROCESSES ?= 3
test: $(STAMP) bytecode $(CHROMIUM) $(COMPOSE)
	$(BIN)/python -m pytest -n $(TEST_PROCESSES) --dist loadfile

## The main job on the embedded default stack.
run: $(STAMP) bytecode
	$(BIN)/alfred run

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .floors .pytest_cache
