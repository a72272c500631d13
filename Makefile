# mctslab — every set-up step lives here, so a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-slow test-all bench lint format clean

install: $(STAMP)

# Re-install only when the pinned dependencies change (idempotent and quick when done).
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip==26.3
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,bench]"
	@touch $(STAMP)

demo: install
	$(BIN)/mctslab demo

test: install
	$(BIN)/python -m pytest -m "not slow" -n 2 --dist loadfile

test-slow: install
	$(BIN)/python -m pytest -m slow -n 2 --dist loadfile

test-all: install
	$(BIN)/python -m pytest -n 2 --dist loadfile

bench: install
	$(BIN)/mctslab bench all

lint: install
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

format: install
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
