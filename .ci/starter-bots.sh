#!/usr/bin/env bash
# The starter bots of examples/ (Java, C++, Go, Rust, C#): installs their compilers from the
# Debian packages when missing, builds each bot into a temporary folder, and runs
# `stratego-host check` on each (classic, isf and barrage, as Red and as Blue, quit,
# unknown fields, several games in one process), then two games whose seeds are above
# 2^63. Fails if any build, check or game fails.
#
# STRATEGO_HOST=PATH uses that host binary (in .ci/run: the one `cargo test --workspace`
# built); without it the release host is built. The Rust starter is built (debug) in
# CARGO_TARGET_DIR when set, else in the temporary folder.
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
# The Rust starter has its own Cargo.lock (the workspace's versions). If --locked fails
# after a change of the protocol crate's dependencies, refresh it with
# `cargo update --manifest-path examples/rust/Cargo.toml --workspace` and commit it.
rust_target=${CARGO_TARGET_DIR:-$work/rust-target}
rustfmt --check --edition 2024 --config-path rustfmt.toml examples/rust/src/main.rs
CARGO_PROFILE_DEV_DEBUG=0 cargo build -q --locked --manifest-path examples/rust/Cargo.toml --target-dir "$rust_target"
mcs -warnaserror -r:System.Runtime.Serialization -out:"$work/csharp-starter.exe" examples/csharp/StarterBot.cs

# The command lines of examples/README.md.
bots=(
  "java -XX:+UseSerialGC -cp $work/java StarterBot"
  "$work/cpp-starter"
  "env GOMAXPROCS=1 $work/go-starter"
  "$rust_target/debug/stratego-starter-bot"
  "env MONO_GC_PARAMS=major=marksweep mono $work/csharp-starter.exe"
)
# Beyond check: two games with --seed 3, whose seeds for the bots (12805832921873932841 and
# 10020971018570055624 with this host) are above 2^63-1, the largest signed 64-bit
# integer; the protocol log shows they are. A bot that parses the seed as signed dies
# before `ready` there (exit 3), and the two games must end by the rules.
rule_ending='"result":\{"winner":[^,]*,"reason":"(flag_captured|no_legal_moves|neither_can_move|ply_limit|sealed_flags)"'
# True when every game's hello in protocol log $1 carries a seed above 2^63-1 (and there are
# some); the preflight hello (game "preflight", seed 0: the host's start-up probe, not a game)
# is left out.
big_seeds() {
  local seeds seed
  seeds=$(grep -v '"game_id":"preflight"' "$1" | grep -o '"type":"hello".*"seed":[0-9]*' | grep -o '"seed":[0-9]*$' | cut -d: -f2) || return 1
  [ -n "$seeds" ] || return 1
  for seed in $seeds; do
    # 20 digits, or 19 that sort after 2^63-1 = 9223372036854775807.
    [ ${#seed} -eq 20 ] || { [ ${#seed} -eq 19 ] && [[ $seed > 9223372036854775807 ]]; } || return 1
  done
}
failed=()
n=0
for bot in "${bots[@]}"; do
  n=$((n + 1))
  echo "starter-bots: stratego-host check \"$bot\""
  if ! "$host" check "$bot"; then
    failed+=("check: $bot")
  fi
  if "$host" match "$bot" sample-bot -n 2 --seed 3 -q --out "$work/seeds-$n" --log-protocol "$work/seeds-$n.log" \
    >"$work/seeds-$n.txt" 2>&1 &&
    [ "$(grep -cE "$rule_ending" "$work/seeds-$n/games.jsonl")" = 2 ] && big_seeds "$work/seeds-$n.log"; then
    echo "  PASS  two games with seeds above 2^63, ended by the rules"
  else
    cat "$work/seeds-$n.txt"
    echo "  FAIL  two games with seeds above 2^63 (stratego-host match \"$bot\" sample-bot -n 2 --seed 3)"
    failed+=("seeds above 2^63: $bot")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'starter-bots: FAILED %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "starter-bots: all ${#bots[@]} starter bots passed check and played two games with seeds above 2^63"
