#!/usr/bin/env bash
# The timing tests, as their own CI step: the tests that milliseconds decide (the stall
# credit, answers around the deadline, the watchdogs' checkpoints, the CPUs the host infers
# bots should share, an honest bot's moves against busy processes a sandboxed bot left, cheating bots flagging with the honest control and full-view turns beside two busy loops (chaos_clock), a remote bot at 90 % of its time behind a lagging network), which `cargo test --workspace` ignores because other load on the
# machine moves those milliseconds (README, "Test"). Each test binary runs alone (cargo runs
# them one after the other); the tests that stall a CPU serialise themselves.
#
# Needs root or CAP_SYS_NICE (real-time priorities, as the host's stall watchdogs use):
# without them the stall, deadline and checkpoint tests print `skipped: …` and pass, and
# this script says so. Needs taskset (util-linux) and at least 2 CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

if ! command -v taskset >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq util-linux </dev/null
fi
if ! chrt -f 1 true 2>/dev/null; then
  echo "timing: no real-time priorities here (root or CAP_SYS_NICE): the stall, deadline and checkpoint tests will be skipped" >&2
fi

start=$(date +%s)
# The tests run the workspace's binaries (the host, the sample bot) as `cargo test
# --workspace` builds them (the test profile): built here first, a no-op after that command.
cargo test --workspace --no-run -q
# --workspace: the features of a whole-workspace build (-p alone would rebuild the host).
# --no-fail-fast: every timing test binary runs, whichever fails.
# --show-output: a skipped test's reason is printed even though it passes.
cargo test --workspace --no-fail-fast --test stalls --test deadlines --test checkpoints --test auto_pin --test sandbox --test remote --test chaos_clock -- --ignored --show-output
echo "timing: the timing tests passed in $(( $(date +%s) - start )) s"
