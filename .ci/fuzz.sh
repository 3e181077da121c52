#!/usr/bin/env bash
# The fuzz targets (rules/fuzz, host/fuzz): each is built with libFuzzer's coverage
# instrumentation on the stable toolchain (the sanitizer-coverage passes cargo-fuzz turns on;
# no address sanitizer, which needs nightly) and run for a short fixed time from an empty
# corpus in a temporary directory. A target that does not compile, panics or finds a crash
# fails this step. Longer runs, by hand: `cargo fuzz run parse_and_play` in rules/ (cargo-fuzz,
# RUSTC_BOOTSTRAP=1 on stable).
#
# FUZZ_SECONDS sets each target's run (30 by default). Needs a C++ compiler (libFuzzer is
# built from source by libfuzzer-sys): .ci/run installs g++.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
seconds="${FUZZ_SECONDS:-30}"

export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
# Its own target directory: the instrumentation flags change every crate's build.
target="${CARGO_TARGET_DIR:-$repo/target}/fuzz"
export RUSTFLAGS="--cfg fuzzing -Cdebug-assertions -Coverflow-checks -Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares"

# An explicit --target keeps these flags off build scripts and proc macros (as cargo-fuzz does).
triple=$(rustc -vV | sed -n 's/^host: //p')

work=$(mktemp -d /tmp/stratego-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

run() {
  local dir=$1 bin=$2
  echo "fuzz: building $dir $bin" >&2
  # opt-level 1 (cargo-fuzz's release profile is 3): a third of the build time on CI's two
  # cores, and a short run does not need the last factor of speed.
  cargo build -q --release --config profile.release.opt-level=1 --config profile.release.codegen-units=16 --manifest-path "$dir/Cargo.toml" --target-dir "$target" --target "$triple" --bin "$bin"
  mkdir -p "$work/$bin"
  echo "fuzz: running $bin for ${seconds} s" >&2
  # -close_fd_mask=3: the targets print nothing worth keeping; libFuzzer's own lines go to stderr.
  "$target/$triple/release/$bin" "$work/$bin" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -artifact_prefix="$work/" -print_final_stats=1 2>"$work/$bin.log" || {
    tail -n 40 "$work/$bin.log" >&2
    echo "fuzz: $bin FAILED (its crash input and log are above)" >&2
    exit 1
  }
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/$bin.log" | sed "s/^/fuzz: $bin /" >&2
}

run rules/fuzz parse_and_play
run host/fuzz decode_bot_output
echo "fuzz: both targets built and ran ${seconds} s each without a finding" >&2
