#!/usr/bin/env python3
"""Speed of the stratego package from Python (a benchmark, not a test: numbers depend on
the machine and its load).

    python python/bench/bench.py [--quick]

1. Legal moves of a middle-game classic position (100 random plies in), per call of
   Game.legal_moves() (goal: at most 2 us), and the other per-position calls a search
   makes.
2. Random playouts through the batch API, the loop in Rust (goal: at least 1 M plies/s),
   and the same playouts driven ply by ply from Python for comparison.

Each figure is the best of several rounds (the least disturbed by other processes).
"""
import argparse
import random
import time
import timeit

import stratego


def best_per_call(stmt, number, rounds=7):
    return min(timeit.repeat(stmt, number=number, repeat=rounds)) / number


def middle_game(seed=7, plies=100):
    rules = stratego.Ruleset.preset("classic")
    while True:
        g = stratego.Game(rules, stratego.Deployment.random(rules, "red", seed), stratego.Deployment.random(rules, "blue", seed + 1))
        if g.playout(seed=seed, max_plies=plies) == plies and not g.is_over:
            return g
        seed += 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    scale = 0.1 if args.quick else 1.0

    g = middle_game()
    moves = g.legal_moves()
    print(f"middle-game classic position: ply {g.ply}, {len(moves)} legal moves, {len(g.board())} pieces")
    n = int(200_000 * scale)
    rows = [
        ("Game.legal_moves() (list of Move)", lambda: g.legal_moves()),
        ("Game.legal_move_count()", lambda: g.legal_move_count()),
        ("Game.copy()", lambda: g.copy()),
        ("Game.view(to_move)", lambda: g.view(g.to_move)),
    ]
    for name, f in rows:
        print(f"  {name:<40} {best_per_call(f, n if 'view' not in name else n // 10) * 1e9:8.0f} ns/call")
    mv = moves[0]

    def copy_and_play():
        g.copy().play(mv)

    print(f"  {'copy + Game.play(move)':<40} {best_per_call(copy_and_play, n // 2) * 1e9:8.0f} ns/call")

    games = int(2000 * scale) or 20
    best = None
    for r in range(3):
        t0 = time.perf_counter()
        stats = stratego.random_playouts("classic", games, seed=r)
        dt = time.perf_counter() - t0
        rate = stats["plies"] / dt
        best = max(best or 0, rate)
    print(f"random_playouts(classic, {games} games): {stats['plies']} plies, best {best / 1e6:.2f} M plies/s (loop in Rust, GIL released)")

    pos_best = None
    for r in range(3):
        t0 = time.perf_counter()
        s = g.random_playouts(max(1, games // 4), seed=r)
        dt = time.perf_counter() - t0
        pos_best = max(pos_best or 0, s["plies"] / dt)
    print(f"Game.random_playouts from the middle game: best {pos_best / 1e6:.2f} M plies/s")

    rng = random.Random(1)
    plies, t0 = 0, time.perf_counter()
    for i in range(max(2, games // 100)):
        h = stratego.Game("classic", stratego.Deployment.random("classic", "red", i), stratego.Deployment.random("classic", "blue", i + 1000))
        while not h.is_over:
            h.play(rng.choice(h.legal_moves()))
            plies += 1
    dt = time.perf_counter() - t0
    print(f"the same loop driven from Python (legal_moves + play per ply): {plies / dt / 1e3:.0f} k plies/s")


if __name__ == "__main__":
    main()
