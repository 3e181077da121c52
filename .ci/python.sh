#!/usr/bin/env bash
# The Python package (python/): install it the way a user does (`pip install ./python`,
# maturin as the build backend) into a fresh virtual environment under a temporary
# directory, check its stubs against the compiled module (mypy.stubtest) and type-check its
# Python modules (mypy), then run its pytest suite (2 s more than before these checks and
# issue #46's tests: 1 min 29 s against 1 min 27 s with a warm cargo target and
# STRATEGO_HOST given, on the shared 2-core machine). The tests that run bots under
# stratego-host take it from $STRATEGO_HOST; without it this script builds the release
# host first.
# Runs as root on Debian 12 (apt installs python3-venv if missing); idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

export CARGO_TERM_COLOR=never
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"

need_apt=()
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
# Debian's python3 makes virtual environments only with python3-venv (ensurepip).
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then need_apt+=(python3-venv); fi
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" </dev/null
fi

# The native half is Rust outside the workspace (its own Cargo.lock): `cargo fmt --all` at
# the root does not see it.
cargo fmt --check --manifest-path python/Cargo.toml

if [ -z "${STRATEGO_HOST:-}" ]; then
  cargo build --release -q -p stratego-host
  export STRATEGO_HOST="$CARGO_TARGET_DIR/release/stratego-host"
fi
if [ ! -x "$STRATEGO_HOST" ]; then
  echo "ci/python: STRATEGO_HOST=$STRATEGO_HOST is not an executable" >&2
  exit 1
fi

work=$(mktemp -d /tmp/stratego-python.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
py="$work/venv/bin/python"
# gymnasium: the environment's optional spaces are tested; mypy: stubtest below.
"$py" -m pip install -q --disable-pip-version-check maturin pytest numpy gymnasium mypy </dev/null
"$py" -m pip install -q --disable-pip-version-check ./python </dev/null
# From the repository root, so that the source folder python/stratego (no compiled module
# in it) cannot shadow the installed package.
"$py" -c 'import stratego, sys; print("ci/python: stratego from", stratego.__file__, "on Python", sys.version.split()[0])'
# The stubs say what the native module is: every name, every parameter name and kind.
(cd "$work" && "$py" -m mypy.stubtest stratego._stratego --allowlist "$repo/python/stubtest-allowlist.txt")
# The pure-Python modules type-check against those stubs.
"$py" -m mypy --no-incremental python/stratego
"$work/venv/bin/pytest" -q -p no:cacheprovider python/tests
