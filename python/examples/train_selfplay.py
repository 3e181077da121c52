#!/usr/bin/env python3
"""A few minutes of self-play that beats a random player: a linear softmax policy over a
handful of features of each legal move, trained by REINFORCE (both sides share the
weights; +1 for the winner's moves, -1 for the loser's), on stratego.env.StrategoEnv.
numpy only.

    pip install './python[numpy]'
    python python/examples/train_selfplay.py --minutes 3 --rules barrage

It prints the weights as they learn, then plays the trained policy against uniformly
random moves (colours alternating) and prints the win rate with its 95 % confidence
interval (Wilson). python/README.md gives a measured run.
"""

import argparse
import math
import random
import time

import numpy as np

import stratego
from stratego.env import StrategoEnv

FEATURES = [
    "advance",            # squares gained towards the opponent's side
    "attack",             # the move attacks
    "attack_wins",        # attacks a piece of known rank that it beats (or the Flag)
    "attack_loses",       # attacks a piece of known rank that beats it
    "attack_unknown",     # attacks a piece of unknown rank that has not moved (a Bomb?)
    "attack_unknown_moved",
    "strength",           # the mover's strength / 10 (Bomb, Flag never move)
    "miner",              # the mover is a Miner
    "long_scout_move",    # a Scout moving more than one square
    "closer",             # gets nearer to the nearest opponent piece
]


def features(view, moves):
    """One row of features per legal move, from what the mover may know."""
    sign = 1 if view.color == "red" else -1
    mine = {}
    theirs = {}
    for p in view.pieces:
        (mine if p.color == view.color else theirs)[p.square] = p
    enemy = [(ord(s[0]), int(s[1:])) for s in theirs]
    x = np.zeros((len(moves), len(FEATURES)), dtype=np.float64)
    for i, m in enumerate(moves):
        a, b = m.from_square, m.to_square
        rank = mine[a].rank
        fa, ra, fb, rb = ord(a[0]), int(a[1:]), ord(b[0]), int(b[1:])
        x[i, 0] = sign * (rb - ra)
        x[i, 6] = (stratego.strength(rank) or 0) / 10
        x[i, 7] = rank == "miner"
        x[i, 8] = m.distance > 1
        target = theirs.get(b)
        if target is not None:
            x[i, 1] = 1
            if target.rank is None:
                x[i, 5 if target.moved else 4] = 1
            elif target.rank == "flag" or stratego.Combat.resolve(rank, target.rank).result == "attacker_wins":
                x[i, 2] = 1
            elif stratego.Combat.resolve(rank, target.rank).result == "defender_wins":
                x[i, 3] = 1
        if enemy:
            before = min(abs(fa - f) + abs(ra - r) for f, r in enemy)
            after = min(abs(fb - f) + abs(rb - r) for f, r in enemy)
            x[i, 9] = before - after
    return x


def softmax(z):
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def self_play_game(env, w, rng, seed):
    """One game of the policy against itself; returns the plies' (color, x, chosen, p)
    and the winner."""
    env.reset(seed=seed)
    trace = []
    while not (env.terminations["red"] or env.truncations["red"]):
        view = env.view()
        moves = view.legal_moves
        x = features(view, moves)
        p = softmax(x @ w)
        k = rng.choice(len(moves), p=p)
        trace.append((view.color, x, k, p))
        env.step(env.move_to_action(moves[k]))
    outcome = env.game.outcome
    return trace, (outcome.winner if outcome is not None else None)


def train(rules, minutes, lr, seed, games_limit=None, quiet=False):
    """Self-play for ``minutes`` (or exactly ``games_limit`` games, for a repeatable run);
    returns the weights and the number of games."""
    env = StrategoEnv(rules, max_plies=1000)
    rng = np.random.default_rng(seed)
    w = np.zeros(len(FEATURES))
    end = time.monotonic() + 60 * minutes
    games = plies = 0
    started = time.monotonic()
    next_report = started + 10
    while (time.monotonic() < end) if games_limit is None else (games < games_limit):
        trace, winner = self_play_game(env, w, rng, seed * 1_000_003 + games)
        games += 1
        plies += len(trace)
        if winner is None:
            continue  # a draw teaches nothing here
        grad = np.zeros_like(w)
        for color, x, k, p in trace:
            g = 1.0 if color == winner else -1.0
            grad += g * (x[k] - p @ x)
        w += lr * grad / max(1, len(trace))
        if not quiet and time.monotonic() >= next_report:
            next_report += 10
            rate = plies / (time.monotonic() - started)
            print(f"{games} games, {rate:.0f} plies/s: " + ", ".join(f"{n}={v:+.2f}" for n, v in zip(FEATURES, w)))
    return w, games


def wilson(wins, n, z=1.96):
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def evaluate(rules, w, games, seed):
    """The greedy policy (``None``: random moves) against uniformly random moves;
    colours alternate."""
    env = StrategoEnv(rules)
    rnd = random.Random(seed)
    wins = draws = losses = 0
    for i in range(games):
        me = "red" if i % 2 == 0 else "blue"
        env.reset(seed=seed * 7919 + i)
        while not env.terminations["red"]:
            view = env.view()
            moves = view.legal_moves
            if view.color == me and w is not None:
                k = int(np.argmax(features(view, moves) @ w))
            else:
                k = rnd.randrange(len(moves))
            env.step(env.move_to_action(moves[k]))
        winner = env.game.outcome.winner
        if winner == me:
            wins += 1
        elif winner is None:
            draws += 1
        else:
            losses += 1
    return wins, draws, losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="barrage")
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--games", type=int, default=None, help="train on exactly this many games (repeatable)")
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--eval-games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.monotonic()
    w, games = train(args.rules, args.minutes, args.lr, args.seed, args.games)
    print(f"trained on {games} self-play games in {time.monotonic() - t0:.0f} s")
    print("weights: " + ", ".join(f"{n}={v:+.2f}" for n, v in zip(FEATURES, w)))
    for label, weights in (("random", None), ("trained", w)):
        wins, draws, losses = evaluate(args.rules, weights, args.eval_games, args.seed + 1)
        n = wins + draws + losses
        lo, hi = wilson(wins, n)
        print(
            f"{label} vs random, {n} games: {wins} won, {draws} drawn, {losses} lost; "
            f"win rate {wins / n:.1%} (95 % CI {lo:.1%}-{hi:.1%})"
        )


if __name__ == "__main__":
    main()
