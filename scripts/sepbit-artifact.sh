#!/usr/bin/env bash
# Runs SepBIT's artifact (fallfish/sepbit, trace_replay/, commit 1e4b664) on the hot/cold trace of
# `scripts/validation-markdown.py sepbit-artifact` and prints docs/data/sepbit-artifact-runs.csv.
# Needs git, a JDK (17 was used), Maven, g++ and network access to GitHub and Maven Central; takes
# about a minute per scheme. Usage: scripts/sepbit-artifact.sh [WORKDIR] > docs/data/sepbit-artifact-runs.csv
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
[ -d sepbit ] || git clone -q https://github.com/fallfish/sepbit.git
git -C sepbit checkout -q 1e4b664
(cd sepbit/trace_replay && mvn -q -B package -DskipTests >&2 && mvn -q -B dependency:build-classpath -Dmdep.outputFile=cp.txt >&2)
python=${PYTHON:-$here/.venv/bin/python}
"$python" "$here/scripts/validation-markdown.py" --hot-cold-csv hc.csv
echo "$work/hc.csv" > group
echo "0 65536 268435456" > property          # volume, working set [blocks], max LBA [bytes]
echo "0 65536 65535" > property-blocks        # the oracle builder wants max LBA in blocks
# The oracle builder allocates a FIFO of 2^31 entries (16 GiB); 2^23 gives the same output for
# traces under 2^23 block writes.
a=sepbit/trace_replay/analyze_script/src
sed 's/uint64_t size_ = *2ull \* 1024 \* 1024 \* 1024;/uint64_t size_ = 1ull << 23;/' "$a/annotate_future_knowledge.cc" > annotate.cc
cp "$a/large_array.h" "$a/trace.h" .
g++ -O2 -std=c++17 -o annotate annotate.cc
mkdir -p oracle && ./annotate 0 hc.csv property-blocks > oracle/0.oracle 2>/dev/null
echo "# SepBIT artifact (fallfish/sepbit 1e4b664, trace_replay) on the trace of scripts/validation-markdown.py sepbit-artifact: 6 open segments, 512 KiB segments, GP threshold 0.15, one segment per GC; produced by scripts/sepbit-artifact.sh"
echo "scheme,selection,wa"
run() {
  out=$(mktemp -d "$work/out.XXXX"); mkdir -p "$out/segments" "$out/indexmap" "$out/ondiskfifo"
  (cd sepbit/trace_replay && java -cp "target/classes:$(cat cp.txt)" gcsimulator.Simulator --path "$work/group" \
    --outputPrefix "$out/" --propertyPath "$work/property" --oraclePath "$work/oracle" --selectionAlgorithm "$2" \
    --setSeparateMethod "$1" --setNumOpenSegments 6 --setSystemGarbageProportionThreshold 0.15 \
    --setSegmentSize 524288 --setPickSegAmount 1 > "$out/log.txt" 2>&1)
  echo "$1,$2,$(grep -a '\*\* WA \*\*' "$out/log.txt" | tail -1 | awk '{print $NF}')"
  rm -rf "$out"
}
for p in NoSep SepGC DAC SepBIT WARCIP MultiLog FK FADaC ETI MultiQueue SFR SFS UW GW; do run "$p" Greedy; done
for p in NoSep SepBIT; do run "$p" CostBenefit; done
for s in RandomGreedy Lru; do for p in NoSep SepBIT; do run "$p" "$s"; done; done
for p in SFS NoSep SepBIT; do run "$p" CostHotness; done
