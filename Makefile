# reclaim: the two commands of README.md are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.deps-installed

.PHONY: run test test-browser test-newest lint build reproduce validate validation-tables bench fuzz msrv clean

$(STAMP): requirements.lock
	@echo "setting up $(VENV) from requirements.lock"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install --quiet --upgrade pip
	@$(BIN)/pip install --quiet -r requirements.lock
	@touch $(STAMP)

# The engine is rebuilt only when a Rust source, a manifest or the lock changed (the Python
# package is installed editable: its edits need no rebuild).
ENGINE_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock pyproject.toml
ENGINE := $(VENV)/.engine-built

$(ENGINE): $(STAMP) $(ENGINE_SOURCES)
	@echo "building the engine (release; a few minutes the first time; log in $(VENV)/build.log)"
	@VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH $(BIN)/maturin develop --release > $(VENV)/build.log 2>&1 \
		|| { tail -n 40 $(VENV)/build.log; exit 1; }
	@touch $(ENGINE)

# Builds the engine (release) into the virtual environment.
build: $(ENGINE)

# The main job: compares cleaning policies on uniform and hot/cold writes.
run: build
	@$(BIN)/reclaim demo

# Every test: the linters, the stubs, Rust unit, property and integration tests, then the Python
# suite. RECLAIM_REQUIRE_SHARED=1 turns a missing ../shared into failures instead of skips. The
# report's browser tests use a chromium on PATH; without one they are skipped (said below), and
# RECLAIM_INSTALL_BROWSER=1 installs Debian's package first (apt; `make test-browser` does that).
test: build lint
	@if [ "$${RECLAIM_INSTALL_BROWSER:-0}" = 1 ]; then scripts/setup-test-browser.sh; \
	elif ! command -v chromium >/dev/null 2>&1; then \
		echo "note: no chromium on PATH: the report's browser tests will be skipped (make test-browser installs Debian's chromium and runs them)"; fi
	$(BIN)/python -m mypy.stubtest reclaim._core
	cargo test --profile test-release --workspace --exclude reclaim-py
	$(BIN)/python -m pytest -q

# Installs Debian's chromium (apt, with sudo when not root) and runs the report's browser tests.
test-browser: build
	RECLAIM_INSTALL_BROWSER=1 scripts/setup-test-browser.sh
	RECLAIM_INSTALL_BROWSER=1 $(BIN)/python -m pytest -q tests/test_report.py

# The package built in a fresh environment from pyproject.toml alone (today's newest releases of
# every dependency, not the lock), a smoke run of it, and the Rust workspace after `cargo update`.
test-newest:
	scripts/test-newest.sh

# rustfmt, clippy (warnings are errors), ruff over the Python package, tests, examples, benchmarks and scripts, and
# mypy over the same (`make test` adds stubtest: the engine's stubs against the built module).
lint: $(STAMP)
	cargo fmt --all --check
	cargo clippy --release --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests examples benchmarks scripts
	$(BIN)/mypy python tests examples benchmarks scripts

# Full-length reproductions of every table (long): the seeds', SepBIT's, and read latency under cleaning
# against offered load (`latency`, ttFlash's comparison, about 2 minutes).
reproduce: build
	$(BIN)/reclaim reproduce all --figures results/figures

# Every analytical model against the simulator (full length), with a figure.
validate: build
	$(BIN)/reclaim validate --plot validation.png

# The tables of docs/validation.md rebuilt by the current engine (full length: hours; ONLY=text
# limits it to the blocks whose command contains the text, CHECK=1 rewrites nothing and fails
# when a table differs).
validation-tables: build
	$(BIN)/python scripts/validation-tables.py $(if $(ONLY),--only $(ONLY)) $(if $(CHECK),--check)

bench: build
	$(BIN)/reclaim bench
	cargo bench -p reclaim-core

# Coverage-guided fuzzing of every trace reader, FUZZ_SECONDS each (nightly Rust, cargo-fuzz);
# RECLAIM_FUZZ_CASES=N cargo test --release --test fuzz_traces is the same properties in proptest.
FUZZ_SECONDS ?= 600
fuzz:
	fuzz/run.sh $(FUZZ_SECONDS)

# The minimum Rust that Cargo.toml states (rust-version) builds every target of the workspace.
MSRV := $(shell sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
msrv:
	rustup toolchain install $(MSRV) --profile minimal
	CARGO_TARGET_DIR=target/msrv cargo +$(MSRV) check --workspace --all-targets --locked

clean:
	rm -rf $(VENV) target
