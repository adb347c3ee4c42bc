# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= config/table.toml

.PHONY: run test check check-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/dealer-assist run --config $(CONFIG)

check: $(VENV)/.installed-test
	$(BIN)/ruff check dealer_assist hardware tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

check-fast: $(VENV)/.installed-test
	$(BIN)/ruff check dealer_assist hardware tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

test: check
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.installed-test
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
