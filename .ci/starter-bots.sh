#!/usr/bin/env bash
# The starter bots of examples/ (Java, C++, Go, Rust, C#): installs their compilers from the
# Debian packages when missing, builds each bot into a temporary folder, and runs
# `stratego-host check` on each (classic, isf and barrage, as Red and as Blue, quit,
# unknown fields, several games in one process). Fails if any build or check fails.
#
# STRATEGO_HOST=PATH uses that host binary (in .ci/run: the one `cargo test --workspace`
# built); without it the release host is built. The Rust starter is built with cargo in
# CARGO_TARGET_DIR when set (reusing the workspace's dependencies), else in the temporary
# folder.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

export CARGO_TERM_COLOR=never

# The compilers, from Debian 12's packages.
need_apt=()
command -v javac >/dev/null 2>&1 || need_apt+=(default-jdk-headless)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
command -v go >/dev/null 2>&1 || need_apt+=(golang-go)
command -v mcs >/dev/null 2>&1 || need_apt+=(mono-mcs)
# DataContractJsonSerializer, the C# starter's JSON reader.
dpkg -s libmono-system-runtime-serialization4.0-cil >/dev/null 2>&1 ||
  need_apt+=(libmono-system-runtime-serialization4.0-cil)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "starter-bots: installing ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" </dev/null >/dev/null
fi

host=${STRATEGO_HOST:-}
if [ -z "$host" ]; then
  cargo build --release -q -p stratego-host
  host=${CARGO_TARGET_DIR:-$repo/target}/release/stratego-host
fi
if [ ! -x "$host" ]; then
  echo "starter-bots: no host binary at $host" >&2
  exit 1
fi

work=$(mktemp -d /tmp/stratego-starters.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "starter-bots: building into $work"
javac -Xlint:all -Werror -d "$work/java" examples/java/StarterBot.java
g++ -std=c++17 -O2 -Wall -Wextra -Werror -o "$work/cpp-starter" examples/cpp/starter_bot.cpp
go build -o "$work/go-starter" examples/go/starter_bot.go
rust_target=${CARGO_TARGET_DIR:-$work/rust-target}
rustfmt --check --edition 2024 --config-path rustfmt.toml examples/rust/src/main.rs
cargo build -q --locked --manifest-path examples/rust/Cargo.toml --target-dir "$rust_target"
mcs -warnaserror -r:System.Runtime.Serialization -out:"$work/csharp-starter.exe" examples/csharp/StarterBot.cs

# The command lines of examples/README.md.
bots=(
  "java -XX:+UseSerialGC -cp $work/java StarterBot"
  "$work/cpp-starter"
  "env GOMAXPROCS=1 $work/go-starter"
  "$rust_target/debug/stratego-starter-bot"
  "env MONO_GC_PARAMS=major=marksweep mono $work/csharp-starter.exe"
)
failed=()
for bot in "${bots[@]}"; do
  echo "starter-bots: stratego-host check \"$bot\""
  if ! "$host" check "$bot"; then
    failed+=("$bot")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'starter-bots: check FAILED for: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "starter-bots: all ${#bots[@]} starter bots passed check"
