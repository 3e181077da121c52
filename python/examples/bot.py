#!/usr/bin/env python3
"""examples/python/bot.py rewritten on the stratego package: the same policy (attack
pieces known to be weaker, keep strong pieces away from unknown ones, don't walk into
unmoved pieces, which may be bombs, except with Miners, and advance), with the rules
crate's fights instead of a hand-written table.

    pip install ./python          # from the repository root
    stratego-host match "python3 python/examples/bot.py" sample-bot
"""
import stratego
from stratego.bot import Bot, run, random_setup


def fight_value(mine, theirs):
    """+2 a flag, +1 a win, -1 a loss, 0 a trade; by the rule book (Combat.resolve)."""
    if theirs == "flag":
        return 2
    result = stratego.Combat.resolve(mine, theirs).result
    return {"attacker_wins": 1, "defender_wins": -1, "both_removed": 0}[result]


class ExampleBot(Bot):
    name = "python-package-example"
    version = "1"

    def setup(self, request):
        # Flag on the back rank with bombs beside it when the ruleset has bombs; the rest
        # random. Any valid Deployment (or its text) will do; None asks for a random one.
        rules, color = self.rules, self.color
        squares = request.squares
        back = min(int(s[1:]) for s in squares) if color == "red" else max(int(s[1:]) for s in squares)
        army = [rank for rank, n in request.pieces.items() for _ in range(n)]
        placed = {}
        flag_sq = self.rng.choice([s for s in squares if int(s[1:]) == back])
        placed[flag_sq] = army.pop(army.index("flag"))
        f, r = flag_sq[0], int(flag_sq[1:])
        for sq in (chr(ord(f) - 1) + str(r), chr(ord(f) + 1) + str(r), f + str(r + 1 if color == "red" else r - 1)):
            if sq in squares and sq not in placed and "bomb" in army:
                placed[sq] = army.pop(army.index("bomb"))
        free = [s for s in squares if s not in placed]
        self.rng.shuffle(free)
        placed.update(zip(free, army))
        try:
            return stratego.Deployment(rules, color, placed)
        except stratego.DeploymentError:
            return random_setup(rules, color, self.rng)

    def move(self, turn, view):
        forward = 1 if view.color == "red" else -1
        best, best_score = None, None
        for move in view.legal_moves:
            mine = view.piece_at(move.from_square).rank
            target = view.piece_at(move.to_square)
            score = self.rng.random()
            if target is not None:
                if target.rank is not None:
                    v = fight_value(mine, target.rank)
                else:
                    v = -0.5 if (stratego.strength(mine) or 0) >= 7 else 0.2
                    if not target.moved and mine != "miner":
                        v -= 0.3  # might be a bomb
                score += 10 * v
            else:
                score += forward * (int(move.to_square[1:]) - int(move.from_square[1:]))
            if best_score is None or score > best_score:
                best, best_score = move, score
        return best


if __name__ == "__main__":
    run(ExampleBot())
