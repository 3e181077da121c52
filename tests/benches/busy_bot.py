#!/usr/bin/env python3
"""Clock benchmark bot in Python: from the moment it has read a turn, it busy-waits 90 %
of the turn's `clock.move_ms` (parsing included), then answers a random legal move.
Compact turns ("view": "moves"). Used by `cargo bench -p stratego-tests --bench clock`
to show what a Python bot author sees, beside the Rust test bot. Arguments: the share of
the limit to use (0.9), and `--single-threaded` to say so in `ready`."""
import json
import random
import sys
import time


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main():
    rng = random.Random(0)
    args = [a for a in sys.argv[1:] if a != "--single-threaded"]
    share = float(args[0]) if args else 0.9
    ready = {"type": "ready", "name": "busy-python", "view": "moves"}
    if "--single-threaded" in sys.argv[1:]:
        ready["single_threaded"] = True  # computes only on its own turn
    while True:
        line = sys.stdin.readline()
        read_at = time.perf_counter()
        if not line:
            return
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            rng = random.Random(msg["seed"])
            send(ready)
        elif kind == "setup_request":
            army = [rank for rank, n in msg["pieces"].items() for _ in range(n)]
            rng.shuffle(army)
            send({"type": "setup", "deployment": " ".join(f"{sq}={r}" for sq, r in zip(msg["squares"], army))})
        elif kind == "turn":
            move = rng.choice(msg["legal_moves"])
            until = read_at + share * msg["clock"]["move_ms"] / 1000.0
            while time.perf_counter() < until:
                pass
            send({"type": "move", "move": move})
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
