# mctslab — every set-up step lives here, so a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install system-deps demo test test-slow test-all bench lint format clean

install: $(STAMP)

# Re-install only when the pinned dependencies change (idempotent and quick when done).
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip==26.3
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,bench,ray,az]"
	@touch $(STAMP)

# Debian packages the tests use: chromium (the browser tests drive it with Playwright; browser
# downloads do not work here), graphviz (`dot`, for the search-tree pictures) and gnugo (the GTP
# game against GNU Go, tests/test_gtp_gnugo.py). Installed with
# apt-get only when missing (as root, e.g. in CI); quickly skipped when present.
system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v dot >/dev/null 2>&1 || missing="$$missing graphviz"; \
	test -x /usr/games/gnugo || missing="$$missing gnugo"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	  else echo "warning: not root: cannot install$$missing; tests that need them are skipped" >&2; fi; \
	fi

demo: install
	$(BIN)/mctslab demo

test: install system-deps
	$(BIN)/python -m pytest -m "not slow" -n 2 --dist loadfile

test-slow: install
	$(BIN)/python -m pytest -m slow -n 2 --dist loadfile

test-all: install system-deps
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
