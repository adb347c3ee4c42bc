# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= config/table.toml

.PHONY: run floor test check check-fast lint bench catalogs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The tests include a tiny training run of the camera's networks: [train] brings PyTorch's CPU build.
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,train]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/dealer-assist run --config $(CONFIG)

# The floor demo: a private PostgreSQL, the floor service and 8 emulated tables (docs/floor.md).
floor: $(VENV)/.installed-run
	$(BIN)/dealer-assist floor-demo

check: $(VENV)/.installed-test
	$(BIN)/ruff check dealer_assist hardware training tools tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

check-fast: $(VENV)/.installed-test
	$(BIN)/ruff check dealer_assist hardware training tools tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -m "not slow" -n auto $(PYTEST_ARGS)

test: check
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.installed-test
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

# The message catalogs' template (developers: after changing a page's words; dealer_assist/i18n/README.md).
catalogs: $(VENV)/.installed-test
	$(BIN)/python tools/update_catalogs.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
