# Two commands matter: `make up` (run the platform on embedded defaults) and
# `make test` (set up and pass the whole suite). Everything installs from this
# repository's own files.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
DATA_DIR ?= data/local
PORT ?= 8000
DAGSTER_PORT ?= 3000
DAGSTER_HOST ?= 127.0.0.1
export DATA_DIR PORT
export DBT_SEND_ANONYMOUS_USAGE_STATS := false
export DAGSTER_DISABLE_TELEMETRY := true

.PHONY: up test test-unit check fmt install install-node console migrate bootstrap serve bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e ".[dev]"
	touch $@

install: $(VENV)/.installed

tests/e2e/node/node_modules/.package-lock.json: tests/e2e/node/package-lock.json
	npm ci --prefix tests/e2e/node --no-audit --no-fund --loglevel=error

console/node_modules/.package-lock.json: console/package-lock.json
	npm ci --prefix console --no-audit --no-fund --loglevel=error

## install-node: the Node packages of the end-to-end tests (@trpc/client, Playwright, axe-core) and of the
## web console's build (console/: only to rebuild it; `make up` serves the committed console/dist)
install-node: tests/e2e/node/node_modules/.package-lock.json console/node_modules/.package-lock.json

## console: rebuild the web console after changing a screen or a procedure (types from the contract,
## type check, bundle); commit console/src/gen and console/dist with the change
console: install install-node
	$(PY) -m launcher.cli console

migrate: install
	$(PY) -m launcher.cli migrate

bootstrap: migrate
	$(PY) -m launcher.cli bootstrap

## up: set up and run the platform on embedded defaults (SQLite + DuckDB under DATA_DIR):
## migrate, bootstrap, serve the API and the Dagster UI, then load generated demo data and
## build the marts in the background. Ctrl-C stops everything.
up: install
	$(PY) -m launcher.cli up --port $(PORT) --dagster-host $(DAGSTER_HOST) --dagster-port $(DAGSTER_PORT)

# The suite runs on every core (pytest-xdist), a test file per worker at a time, so a module's fixtures
# (a pipeline build, a hand-made world) are built once; the files of a shared world (the hand world, the
# serving world) run on one worker, so it is built once per backend (tests/conftest.py). Every worker has
# its own databases and data directories; `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= auto

## test: set up and run the whole suite (SQLite and PostgreSQL)
test: install install-node
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

## test-unit: the fast inner loop (pure logic, no database server, no running processes)
test-unit: install
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup tests/unit

## check: the quality gate run before every commit and in CI: lint, format, types, SQL
check: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/sqlfluff lint dbt_project/models

## fmt: apply the formatter and the linter's safe fixes
fmt: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install
	$(PY) bench/rpc_overhead.py

clean:
	rm -rf $(VENV) data/local tests/e2e/node/node_modules console/node_modules
