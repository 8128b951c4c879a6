# Lumin: `make test` sets up everything and runs the whole suite; `make run` starts the server.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup run test lint typecheck unit bench-smoke clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/lumin serve --data data $(if $(wildcard clients/web/dist),--static clients/web/dist)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy -p engine $(if $(wildcard protocol/__init__.py),-p protocol)

unit: setup
	$(BIN)/pytest -n 2

bench-smoke: setup
	$(BIN)/python scripts/bench_smoke.py

test: lint typecheck unit bench-smoke

clean:
	rm -rf $(VENV)
