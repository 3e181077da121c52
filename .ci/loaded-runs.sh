#!/usr/bin/env bash
# The README's test command run N times back to back on a loaded machine, as root, in a
# clone inside a directory only root may enter (issue #31's check that the default suite
# cannot flake): clones this checkout's HEAD into a new directory of mode 0700, builds the
# tests there (its own target directory), then runs `cargo test --workspace --no-fail-fast`
# N times (default 20), each while two `yes >/dev/null` keep two cores busy. One line per
# run in DIR/summary (commit, exit code, passed, failed, seconds), each run's output in
# DIR/run-K.log; exits 1 when a run failed. A file DIR/pause holds the next run back (for
# a measurement that needs the cores). Not part of .ci/run (an hour or more on 2 cores):
#   bash .ci/loaded-runs.sh [N] [DIR]     (DIR default: a new mktemp -d folder)
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
dir=${2:-$(mktemp -d /tmp/stratego-loaded.XXXXXX)}
mkdir -p "$dir" && chmod 700 "$dir"
rm -rf "$dir/clone"
git clone -q "$PWD" "$dir/clone" || exit 2
cd "$dir/clone" || exit 2
export CARGO_TARGET_DIR="$dir/clone/target" CARGO_INCREMENTAL=0
echo "loaded-runs: $n runs of the suite in $dir (mode $(stat -c %a "$dir"))" >&2
cargo test --workspace --no-run >"$dir/build.log" 2>&1 || { echo "loaded-runs: build failed, see $dir/build.log" >&2; exit 2; }
failed_runs=0
for i in $(seq 1 "$n"); do
  while [ -e "$dir/pause" ]; do sleep 5; done
  yes >/dev/null & y1=$!
  yes >/dev/null & y2=$!
  start=$(date +%s)
  cargo test --workspace --no-fail-fast >"$dir/run-$i.log" 2>&1
  rc=$?
  kill "$y1" "$y2"
  wait "$y1" "$y2" 2>/dev/null
  read -r passed failed < <(awk '/^test result/ {p+=$4; f+=$6} END {print p+0, f+0}' "$dir/run-$i.log")
  line="run $i $(git rev-parse --short HEAD) rc=$rc passed=$passed failed=$failed $(($(date +%s) - start)) s $(date -u +%H:%M)"
  echo "$line" | tee -a "$dir/summary" >&2
  [ "$rc" -eq 0 ] || failed_runs=$((failed_runs + 1))
done
echo "loaded-runs: $((n - failed_runs)) of $n runs green (commit $(git rev-parse --short HEAD)); logs in $dir" >&2
[ "$failed_runs" -eq 0 ]
