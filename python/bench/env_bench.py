#!/usr/bin/env python3
"""Steps per second of stratego.env.StrategoEnv (a benchmark, not a test: the figures
depend on the machine and its load).

    python python/bench/env_bench.py [--rules classic] [--seconds 10]

Random legal actions, games to their end, one process, three ways:
1. the full AEC loop: ``last()`` (observation planes as numpy and the action mask) and
   ``step`` every ply;
2. ``step`` with the mask only (``last(observe=False)``);
3. ``step`` alone (the legal actions from ``legal_actions()``).
Each figure is the best of three rounds (the least disturbed by other processes).
"""
import argparse
import random
import time

import numpy as np

from stratego.env import StrategoEnv


def run(rules, seconds, mode, seed):
    env = StrategoEnv(rules)
    rng = random.Random(seed)
    steps, games = 0, 0
    end = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < end:
        env.reset(seed=seed + games)
        games += 1
        while not env.terminations["red"]:
            if mode == "full":
                obs, _, _, _, info = env.last()
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            elif mode == "mask":
                _, _, _, _, info = env.last(observe=False)
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            else:
                action = rng.choice(env.legal_actions())
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start), games


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    for mode, label in (("full", "last() + step: planes, mask"), ("mask", "mask + step"), ("step", "step only")):
        best = max(run(args.rules, args.seconds / 3, mode, k)[0] for k in range(3))
        print(f"{args.rules}: {label}: {best:,.0f} steps/s")


if __name__ == "__main__":
    main()
