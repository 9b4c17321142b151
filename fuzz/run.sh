#!/usr/bin/env bash
# Coverage-guided fuzzing of every trace reader, one after another:
#   fuzz/run.sh [SECONDS per reader, default 600] [target …]
# Needs nightly Rust and cargo-fuzz (`cargo install cargo-fuzz --locked`). Each run starts from
# the committed seeds (fuzz/seeds/T) and the corpus of earlier runs (fuzz/corpus/T); a crash
# leaves its input in fuzz/artifacts/T and fails the script. A table of runs per reader ends it.
# No sanitizer: the readers are safe Rust, so a panic is the failure to find, and ASan halves
# the executions per second (measured on the msr target).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(msr spc fiu biotracer mqsim disksim blkparse alibaba csv vscsi oracle_general pages midas tectonic binary)
fi
cargo +nightly fuzz build -O -s none
status=0
summary=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log="fuzz/artifacts/$t/last-run.log"
    if cargo +nightly fuzz run -O -s none "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=4096 -max_len=4096 -timeout=10 \
        -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1; then
        crashes=0
    else
        crashes=$(find "fuzz/artifacts/$t" -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' | wc -l)
        crashes=$((crashes > 0 ? crashes : 1))
        status=1
    fi
    runs=$(grep -oE 'Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || echo "?")
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo "?")
    corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
    summary+=("$(printf '%-10s %8s s %12s runs %6s edges %7s inputs %4s crashes' "$t" "$secs" "$runs" "$cov" "$corpus" "$crashes")")
    echo "${summary[-1]}"
done
echo
echo "reader     time          executions  coverage   corpus    crashes"
printf '%s\n' "${summary[@]}"
exit $status
