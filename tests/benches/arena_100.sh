#!/bin/bash
# The arena with N remote bots (default 100) connected, on this machine: host CPU and peak
# RSS over a measured window (default 60 s), games saved in it. Each bot is the sample bot
# behind `stratego-host connect` (niced 10), all on 127.0.0.1.
#
#   tests/benches/arena_100.sh [HOST [N [SECONDS [J]]]]
#
# HOST: the host binary (default target/release/stratego-host: `cargo build --release -p
# stratego-host` first). J: games at once (default N/2: every entrant busy). Prints one
# Markdown row: bots, games at once, games saved in the window, games a second, host CPU
# seconds and % of a core, CPU ms a game, host peak RSS (VmHWM) MiB, load average.
set -euo pipefail
HOST=${1:-target/release/stratego-host}
HOST=$(readlink -f "$HOST")
N=${2:-100}
SECS=${3:-60}
J=${4:-$((N / 2))}
DIR=$(mktemp -d /tmp/arena-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT
DB=$DIR/arena.db
for i in $(seq 1 "$N"); do
    "$HOST" arena token "$DB" "r$i" --out "$DIR/r$i.token" >/dev/null 2>&1
done
"$HOST" arena run "$DB" -j "$J" --move-time 60 --max-plies 40 -q --listen 127.0.0.1:0 \
    >"$DIR/stdout" 2>"$DIR/stderr" &
ARENA=$!
PORT=
for _ in $(seq 1 600); do
    PORT=$(grep -o 'ws://127.0.0.1:[0-9]*' "$DIR/stderr" | head -1 | sed 's/.*://') || true
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "$PORT" ] || { echo "the arena did not listen: $(cat "$DIR/stderr")" >&2; exit 1; }
for i in $(seq 1 "$N"); do
    nice -n 10 "$HOST" connect "ws://127.0.0.1:$PORT" --token-file "$DIR/r$i.token" --retry-s 60 \
        -- "$HOST" sample-bot >/dev/null 2>&1 &
done
# All connected and playing: the running list holds J games.
for _ in $(seq 1 1200); do
    [ "$(wc -l <"$DB.running" 2>/dev/null || echo 0)" -ge "$J" ] && break
    sleep 0.1
done
games() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from games').fetchone()[0])" "$DB"; }
cpu() { awk '{print $14 + $15}' "/proc/$ARENA/stat"; }
TICK=$(getconf CLK_TCK)
G0=$(games); C0=$(cpu)
sleep "$SECS"
G1=$(games); C1=$(cpu)
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$ARENA/status")
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
kill -INT "$ARENA"
wait "$ARENA" || true
python3 - "$N" "$J" "$SECS" "$G0" "$G1" "$C0" "$C1" "$TICK" "$HWM" "$LOAD" <<'PY'
import sys
n, j, secs, g0, g1, c0, c1, tick, hwm = (int(x) for x in sys.argv[1:10])
load = sys.argv[10]
games = g1 - g0
cpu = (c1 - c0) / tick
print(f"| {n} | {j} | {games:,} in {secs} s | {games / secs:.1f} | {cpu:.1f} s ({100 * cpu / secs:.0f} % of a core) | {1000 * cpu / max(games, 1):.1f} | {hwm / 1024:.0f} | {load} |")
PY
