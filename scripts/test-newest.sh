#!/usr/bin/env bash
# reclaim as a user gets it today, not as the lock pins it:
#  1. a fresh virtual environment resolved from pyproject.toml alone (the newest release of every
#     dependency within its stated range, the build backend too), the package built from this
#     checkout and installed with its Dask extra, then a smoke run from an empty folder: a simulation, a generated trace
#     replayed, two quick reproductions that write a results database, a sweep and its rerun, a report;
#  2. the Rust workspace in a scratch copy after `cargo update`: it builds and its unit tests pass.
# `make test-newest` runs it; .ci/run runs it after `make test`. `scripts/test-newest.sh python`
# or `… cargo` runs one part.
set -euo pipefail
PART=${1:-all}
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}
WORK=$ROOT/target/newest
rm -rf "$WORK/venv" "$WORK/smoke" "$WORK/cargo"
mkdir -p "$WORK/smoke" "$WORK/cargo"

step() { printf '\n== %s\n' "$*"; }

if [ "$PART" = all ] || [ "$PART" = python ]; then
step "fresh environment from pyproject.toml (no lock)"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --upgrade pip
# The newest build backend within pyproject.toml's [build-system] range builds the wheel, in this
# checkout's target/ (so a `make build` before it leaves little to compile); the wheel is then
# installed with its dependencies resolved from its metadata, i.e. from pyproject.toml.
mapfile -t BACKEND < <("$PYTHON" -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
"$WORK/venv/bin/pip" install --quiet "${BACKEND[@]}"
rm -rf "$WORK/wheels"
"$WORK/venv/bin/maturin" build --release --quiet --out "$WORK/wheels"
WHEEL=$(ls "$WORK"/wheels/reclaim-*.whl)
"$WORK/venv/bin/pip" install --quiet "$WHEEL[dask]"
"$WORK/venv/bin/pip" freeze | grep -iE '^(maturin|duckdb|numpy|pandas|pyarrow|scipy|typer|click|rich|matplotlib|plotly|dask|distributed)==' | tr '\n' ' '
echo

step "smoke run (from an empty folder, no checkout on the path)"
cd "$WORK/smoke"
R="$WORK/venv/bin/reclaim"
"$R" simulate --segments 256 --pages-per-segment 32 --spare 0.1 --policy greedy --writes 3x --quiet --json > sim.json
"$WORK/venv/bin/python" -c "import json; d = json.load(open('sim.json')); assert d['wa'] > 1 and d['simulated_segments'] == 256, d"
"$R" trace stand-in -o standin.rtr --tracks 20000 --writes 400000 > standin.txt
"$R" trace evaluate standin.rtr --warmup-writes 200000 > evaluate.txt
"$R" reproduce li-greedy --db smoke.duckdb --workers 2 > li.txt
"$R" reproduce lomet-table1 --quick --db smoke.duckdb --workers 2 > lomet.txt
# A timed run (the device model) and a timed reproduction, into the same database.
"$R" simulate --segments 128 --device femu:channels=2,dies=2 --arrivals closed:iodepth=8 --reads 0.3 --writes 1x --quiet --json > timed.json
"$WORK/venv/bin/python" -c "import json; t = json.load(open('timed.json'))['time']; assert t['iops'] > 0 and t['read_requests'] > 0 and t['write_latency']['p99'] > 0, t"
"$R" reproduce latency --quick --db smoke.duckdb --workers 2 > latency.txt
cat > sweep.toml <<'EOF'
name = "smoke"
replications = 2
[base]
segments = 64
pages_per_segment = 32
warmup = "fill+1x"
writes = "3x"
[axes]
policy = ["fifo", "greedy"]
spare = [0.1, 0.2]
EOF
"$R" sweep run sweep.toml --db sweep.duckdb --workers 2
"$R" sweep run sweep.toml --db sweep.duckdb --workers 2 2>&1 | tee rerun.txt
grep -q "8 already in" rerun.txt
"$R" results query sweep.duckdb "SELECT count(*) AS tasks, count(DISTINCT simulated_logical_pages) AS geometries FROM tasks"
"$R" report sweep.duckdb -o report.html
"$R" report smoke.duckdb -o reproductions.html
test -s report.html && test -s reproductions.html
cd "$ROOT"
fi

if [ "$PART" = all ] || [ "$PART" = cargo ]; then
step "Rust workspace after cargo update (scratch copy)"
cp -r Cargo.toml Cargo.lock clippy.toml crates "$WORK/cargo/"
if [ -d fuzz ]; then cp -r fuzz "$WORK/cargo/"; fi
cd "$WORK/cargo"
cargo update 2>&1 | grep -E "Updating|Locking|Adding|Removing" | head -n 40 || true
# The checkout's target/: dependencies whose version did not move are not compiled again.
CARGO_TARGET_DIR=$ROOT/target cargo test --profile test-release --workspace --exclude reclaim-py --lib --quiet
cd "$ROOT"
fi
step "newest dependencies ($PART): passed"
