#!/usr/bin/env python3
"""A test bot on stratego.bot: plays random moves and sends, as info lines, its setup and
a digest of the View the loop gave it at each turn, so that a test can check them against
the rules crate's own view of the recorded game. Argument: "full" or "moves"."""
import sys

from stratego.bot import Bot, run

sys.path.insert(0, __import__("os").path.dirname(__file__))
from digest import digest  # noqa: E402


class ViewBot(Bot):
    name = "view-bot"

    def __init__(self, view):
        self.view = view

    def new_game(self, hello):
        self.turns = 0

    def move(self, turn, view):
        if self.turns == 0:
            self.info(f"setup {self.deployment.to_rows()}")
        if self.turns < 150:
            self.info(f"view {view.ply} {digest(view)}")
        self.turns += 1
        return self.rng.choice(view.legal_moves)


if __name__ == "__main__":
    run(ViewBot(sys.argv[1] if len(sys.argv) > 1 else "full"))
