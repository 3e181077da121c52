#!/usr/bin/env python3
"""A complete Stratego bot for stratego-host, in plain Python 3 (standard library only).

Run it against the sample bot:
    stratego-host match "python3 examples/python/bot.py" sample-bot

The protocol (protocol.md) in one breath: the host writes one JSON object per line to our
stdin; we answer with one JSON object per line on stdout. Logs go to stderr.
"""
import json
import random
import sys

# Strength of each rank (the protocol uses names; bigger wins).
STRENGTH = {"spy": 1, "scout": 2, "miner": 3, "sergeant": 4, "lieutenant": 5,
            "captain": 6, "major": 7, "colonel": 8, "general": 9, "marshal": 10}


def send(msg):
    # One object per line, and flush: a buffered answer never reaches the host in time.
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def log(text):
    # stdout is the protocol channel; anything for people goes to stderr.
    print(text, file=sys.stderr, flush=True)


def make_setup(request, rng):
    """Flag on the back rank with bombs beside it; the rest shuffled."""
    squares = list(request["squares"])          # our setup area, rank by rank
    color = request["color"]
    ranks = [int(sq[1:]) for sq in squares]
    back = min(ranks) if color == "red" else max(ranks)   # farthest from the enemy
    army = [rank for rank, n in request["pieces"].items() for _ in range(n)]
    placed = {}
    back_row = [sq for sq in squares if int(sq[1:]) == back]
    if "flag" in army:
        flag_sq = rng.choice(back_row)
        placed[flag_sq] = "flag"
        army.remove("flag")
        f, r = ord(flag_sq[0]), int(flag_sq[1:])
        neighbours = [chr(f - 1) + str(r), chr(f + 1) + str(r),
                      flag_sq[0] + str(r + 1 if color == "red" else r - 1)]
        for sq in neighbours:
            if sq in squares and sq not in placed and "bomb" in army:
                placed[sq] = "bomb"
                army.remove("bomb")
    free = [sq for sq in squares if sq not in placed]
    rng.shuffle(free)
    rng.shuffle(army)
    placed.update(zip(free, army))            # free setups may leave squares empty
    # The "pairs" form: square=piece, space separated. Piece names or codes both work.
    return " ".join(f"{sq}={rank}" for sq, rank in placed.items())


def fight_value(mine, theirs):
    """+1 if our piece wins the attack, -1 if it loses, 0 for a trade or an unknown."""
    if theirs is None:
        return 0
    if theirs == "flag":
        return 2
    if theirs == "bomb":
        return 1 if mine == "miner" else -1
    if mine == "spy" and theirs == "marshal":
        return 1                               # the spy wins only when it attacks
    a, d = STRENGTH[mine], STRENGTH[theirs]
    return (a > d) - (a < d)


def choose_move(turn, rng):
    board = {p["square"]: p for p in turn["pieces"]}
    forward = 1 if turn["color"] == "red" else -1
    best, best_score = None, None
    for move in turn["legal_moves"]:           # never empty; each one is legal
        src, dst = move.split("-")
        mine = board[src]["rank"]              # our own pieces always carry their rank
        target = board.get(dst)
        score = rng.random()                   # tie-break
        if target is not None:                 # an attack
            # Opponent ranks are present only once revealed by a fight (or a long
            # Scout move). "moved" pieces are never bombs or the flag.
            known = target.get("rank")
            v = fight_value(mine, known)
            if known is None:
                v = -0.5 if STRENGTH.get(mine, 0) >= 7 else 0.2
                if not target.get("moved") and mine != "miner":
                    v -= 0.3                   # might be a bomb
            score += 10 * v
        else:
            score += forward * (int(dst[1:]) - int(src[1:]))
        if best_score is None or score > best_score:
            best, best_score = move, score
    return best


def main():
    rng = random.Random()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            rng = random.Random(msg["seed"])   # same seed, same game
            send({"type": "ready", "name": "python-example", "version": "1",
                  "multi_game": True})         # we can play several games in one process
        elif kind == "setup_request":
            send({"type": "setup", "deployment": make_setup(msg, rng)})
        elif kind == "turn":
            # "plies" holds what happened since our last turn, fights included.
            for ply in msg["plies"]:
                if "combat" in ply:
                    c = ply["combat"]
                    log(f"{ply['move']}: {c['attacker']} x {c['defender']} -> {c['result']}")
            send({"type": "move", "move": choose_move(msg, rng)})
        elif kind == "game_over":
            log(f"game over: {msg['result']} ({msg['reason']})")
        elif kind == "quit":
            return
        # Unknown message types from a newer host are ignored.


if __name__ == "__main__":
    main()
