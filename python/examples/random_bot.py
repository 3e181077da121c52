#!/usr/bin/env python3
"""The smallest bot on the stratego package: a random legal move every turn.

    pip install ./python          # from the repository root
    stratego-host check "python3 python/examples/random_bot.py"
"""
from stratego.bot import Bot, run


class RandomBot(Bot):
    name = "random-python-package"

    def move(self, turn, view):
        # Where to add your strategy: view holds everything you may know (pieces, their
        # known ranks, captures, history) and view.legal_moves is never empty.
        return self.rng.choice(view.legal_moves)


if __name__ == "__main__":
    run(RandomBot())
