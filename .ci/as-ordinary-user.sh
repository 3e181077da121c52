#!/usr/bin/env bash
# The README's test suite run by an ordinary user (issue #31): builds the workspace's test
# executables as the caller (root), then runs each of them as the unprivileged user
# $STRATEGO_TEST_USER (default `tester`, made with useradd when missing) from its package's
# directory, as `cargo test` would, with a minimal environment (no pyenv, no root HOME).
# Doc-tests are left out (they need rustc and the target directory, which that user may not
# write). Prints each binary's result line and any `skipped:` line, then the totals; exits 1
# when a binary failed. Not part of .ci/run (a second pass of the suite); run it by hand:
#   sudo bash .ci/as-ordinary-user.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
user="${STRATEGO_TEST_USER:-tester}"
if [ "$(id -u)" -ne 0 ]; then
  echo "as-ordinary-user: run as root (it switches to $user with setpriv)" >&2
  exit 2
fi
id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
home=$(getent passwd "$user" | cut -d: -f6)
list=$(mktemp)
trap 'rm -f "$list"' EXIT
cargo test --workspace --no-run --message-format=json 2>/dev/null | python3 -c '
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(os.path.dirname(m["manifest_path"]), m["executable"])
' > "$list"
failing=0 passed=0 failed=0 ignored=0
while read -r dir exe; do
  set +e
  out=$(cd "$dir" && setpriv --reuid="$user" --regid="$user" --init-groups \
    env -i HOME="$home" USER="$user" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "$exe" 2>&1)
  rc=$?
  set -e
  name=$(basename "$exe")
  echo "$out" | grep -E "^test result|^skipped:|FAILED|panicked" | sed "s|^|$name: |" || true
  if [ $rc -ne 0 ]; then failing=$((failing + 1)); fi
  read -r p f i < <(echo "$out" | awk '/^test result/ {p+=$4; f+=$6; i+=$8} END {print p+0, f+0, i+0}')
  passed=$((passed + p)) failed=$((failed + f)) ignored=$((ignored + i))
done < "$list"
echo "as $user: $(wc -l < "$list") test executables, $passed passed, $failed failed, $ignored ignored; $failing failing"
[ "$failing" -eq 0 ]
