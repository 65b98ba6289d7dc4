# Two entry points, both from a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)
PG_DIR ?= $(CURDIR)/.pgtest

.PHONY: demo test install lint typecheck check-system console bench clean

install: $(STAMP)

# pip, not uv/poetry: only pip sees the local CPU wheel of torch==2.13.0.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[executor,dev]'
	@rm -f $(VENV)/.installed-* && touch $@

check-system:
	@scripts/system-deps.sh

demo: install check-system
	$(BIN)/torchquiz db upgrade
	$(BIN)/torchquiz console

console: install
	$(BIN)/torchquiz console

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

typecheck: install
	$(BIN)/mypy

# Starts a throwaway PostgreSQL on 127.0.0.1, runs lint and the whole suite, stops the server.
test: install check-system
	@scripts/system-deps.sh --postgres
	$(BIN)/ruff check .
	$(BIN)/mypy
	@scripts/run-tests.sh "$(PG_DIR)" $(BIN)/python -m pytest $(PYTEST_ARGS)

bench: install
	$(BIN)/torchquiz bench executor

clean:
	rm -rf $(VENV) .pgtest var .pytest_cache .mypy_cache .ruff_cache
