# reclaim: the two commands of README.md are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.deps-installed

.PHONY: run test lint build reproduce validate bench fuzz msrv clean

$(STAMP): requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	touch $(STAMP)

# Builds the engine (release) into the virtual environment.
build: $(STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH $(BIN)/maturin develop --release --quiet

# The main job: compares cleaning policies on uniform and hot/cold writes.
run: build
	$(BIN)/reclaim demo

# Every test (Debian's chromium is installed first, for the report tests): the linters, the stubs, Rust unit, property and integration tests, then the Python suite.
# RECLAIM_REQUIRE_SHARED=1 turns a missing ../shared into failures instead of skips.
test: build lint
	scripts/setup-test-browser.sh
	$(BIN)/python -m mypy.stubtest reclaim._core
	cargo test --release --workspace --exclude reclaim-py
	$(BIN)/python -m pytest -q

# rustfmt, clippy (warnings are errors), ruff over the Python package, tests, examples and benchmarks, and
# mypy over the package (`make test` adds stubtest: the engine's stubs against the built module).
lint: $(STAMP)
	cargo fmt --all --check
	cargo clippy --release --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests examples benchmarks scripts
	$(BIN)/mypy python

# Full-length reproductions of the seeds' tables (long).
reproduce: build
	$(BIN)/reclaim reproduce vanhoudt-table1
	$(BIN)/reclaim reproduce vanhoudt-table2
	$(BIN)/reclaim reproduce lomet-table1
	$(BIN)/reclaim reproduce lomet
	$(BIN)/reclaim reproduce li-greedy
	$(BIN)/reclaim reproduce stockmeyer --figures results/figures

# Every analytical model against the simulator (full length), with a figure.
validate: build
	$(BIN)/reclaim validate --plot validation.png

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
