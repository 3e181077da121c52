#!/usr/bin/env bash
# The project's test command (README, "Test"): checks the toolchain, installs what the
# end-to-end tests need and this machine lacks, then runs `cargo test --workspace` with any
# arguments given (e.g. `tests/run.sh --test replay_tui`).
#
# The tests need, beyond Rust: python3 and node (the example bots; node also drives the
# browser), Debian's chromium (the HTML viewer's and the live page's tests), tmux (the
# terminal replay's test), bubblewrap and util-linux's setpriv (the --sandbox tests). What is
# missing is installed with apt-get, as root or through passwordless sudo; when neither is
# possible the script names the packages and the command, and stops before building.
# STRATEGO_NO_INSTALL=1 only checks (and stops if something is missing).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "tests/run.sh: $*" >&2; }

# The workspace is edition 2024: Rust 1.85 or newer. Debian 12's packaged rustc (1.63)
# cannot build it, and cargo's own message about `edition2024` does not say what to do.
need_rust="1.85"
if ! command -v cargo >/dev/null 2>&1 || ! command -v rustc >/dev/null 2>&1; then
  say "no Rust toolchain on PATH: this workspace needs Rust $need_rust or newer (edition 2024)."
  say "install it with rustup (https://rustup.rs): curl -sSf https://sh.rustup.rs | sh -s -- -y"
  exit 1
fi
have=$(rustc --version | awk '{print $2}')
if [ "$(printf '%s\n%s\n' "$need_rust" "${have%%-*}" | sort -V | head -n1)" != "$need_rust" ]; then
  say "rustc $have is too old: this workspace needs Rust $need_rust or newer (edition 2024)."
  say "Debian's packaged rustc is older; install rustup (https://rustup.rs) and run: rustup default stable"
  exit 1
fi

# command -> Debian package
missing=()
declare -A pkg=([python3]=python3 [node]=nodejs [chromium]=chromium [tmux]=tmux [bwrap]=bubblewrap [setpriv]=util-linux)
for cmd in python3 node chromium tmux bwrap setpriv; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${pkg[$cmd]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  install=(apt-get install -y -qq "${missing[@]}")
  if [ "${STRATEGO_NO_INSTALL:-}" = 1 ]; then
    say "missing: ${missing[*]}; install them (${install[*]}) and run again (STRATEGO_NO_INSTALL=1 is set)"
    exit 1
  fi
  if [ "$(id -u)" = 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    say "the tests need ${missing[*]}, which this machine lacks, and this user cannot install"
    say "packages (not root, no passwordless sudo). As root, run:"
    say "  apt-get update && ${install[*]}"
    say "then run tests/run.sh again."
    exit 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    say "the tests need ${missing[*]} (Debian package names) and this machine has no apt-get: install them with its package manager, then run again"
    exit 1
  fi
  say "installing what the tests need: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "${install[@]}" </dev/null
fi

exec cargo test --workspace "$@"
