#!/usr/bin/env bash
# The starter bots of examples/ (Java, C++, Go, Rust, C#): installs their compilers from the
# Debian packages when missing, builds each bot into a temporary folder, and runs
# `stratego-host check` on each (classic, isf and barrage, as Red and as Blue, quit,
# unknown fields, several games in one process), then two games whose seeds are above
# 2^63. Fails if any build, check or game fails.
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
# Beyond check: two games with --seed 3, whose seeds for the bot (12805832921873932841 and
# 10020971018570055624) are both above 2^63-1, the largest signed 64-bit integer. A bot
# that parses the seed as signed dies before `ready` there (exit 3), and the two games
# must end by the rules.
rule_ending='"result":\{"winner":[^,]*,"reason":"(flag_captured|no_legal_moves|neither_can_move|ply_limit|sealed_flags)"'
failed=()
n=0
for bot in "${bots[@]}"; do
  n=$((n + 1))
  echo "starter-bots: stratego-host check \"$bot\""
  if ! "$host" check "$bot"; then
    failed+=("check: $bot")
  fi
  echo "starter-bots: two games with seeds above 2^63"
  if ! "$host" match "$bot" sample-bot -n 2 --seed 3 -q --out "$work/seeds-$n" ||
    [ "$(grep -cE "$rule_ending" "$work/seeds-$n/games.jsonl")" != 2 ]; then
    failed+=("seeds above 2^63: $bot")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'starter-bots: FAILED %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "starter-bots: all ${#bots[@]} starter bots passed check and played two games with seeds above 2^63"
