# mctslab — every set-up step lives here, so a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install system-deps demo compile test test-slow test-all bench reproduce report lint format clean

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

# Optional: compile every game's default agents now, so that no first move waits (README).
compile: install
	$(BIN)/mctslab compile

test: install system-deps
	$(BIN)/python -m pytest -m "not slow" -n 2 --dist loadfile

test-slow: install
	$(BIN)/python -m pytest -m slow -n 2 --dist loadfile

test-all: install system-deps
	$(BIN)/python -m pytest -n 2 --dist loadfile

bench: install
	$(BIN)/mctslab bench all

# The deciding-scale runs of every source table, in the order of the plan in
# experiments/reproduction-notes.md (cheap and diagnostic first; the timed tables, the Nim ones at
# 10 and 100 ms a move among them, last and unniced so their time per move is honest), then the
# page. Resumable: rerun to go on (docs/experiments.md).
REPRODUCE_FIXED := nogo_coin nogo_memory nogo_nf nogo_slow_nodes nogo_c_sweep nogo_antidecisive \
	nogo_go_playouts go_c_sweep go_slow_nodes \
	nogo_scalability_uct nogo_scalability nogo_rave mdp_2048_book nogo9_strong_enhancements \
	nogo_c_sweep_without_rave nogo_go_playouts_unadapted nogo_slow_nodes_with_rave \
	nogo_rave_uniform_playouts nogo_scalability_uct_with_uct nogo_rave_large_k \
	nogo_rave_without_exploration nogo_rave_without_exploration_large_k nogo_rave_rewards_pm1 \
	nogo_scalability_uct_rewards_pm1 nogo_antidecisive_rewards_pm1 \
	nogo_slow_nodes_time_fewer_sims nogo_scalability_cross_with_uct nogo_scalability_final_mean
REPRODUCE_TIMED := nim_report nim_strategic nim_coin nim_time hex_round_robin nogo_slow_nodes_time \
	go_slow_nodes_time
reproduce: install
	set -e; for n in $(REPRODUCE_FIXED); do nice -n 10 $(BIN)/mctslab experiment run $$n --scale decide; done
	set -e; for n in $(REPRODUCE_TIMED); do $(BIN)/mctslab experiment run $$n --scale decide; done
	$(BIN)/mctslab experiment report

report: install
	$(BIN)/mctslab experiment report

lint: install
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

format: install
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
