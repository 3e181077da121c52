"""The bot loop (stratego.bot): driven line by line in-process, and as real bot processes
under stratego-host (`check`, and a match with a setup book whose records are replayed to
check the View every turn gave the bot)."""

import io
import json
import sys

import pytest

import stratego
from stratego import Deployment, Game
from stratego.bot import Bot, run
from stratego.data import read_records

from conftest import CALM_CLOCK, PYTHON_DIR, SETUP_BOOK, bot_command, run_host

sys.path.insert(0, str(PYTHON_DIR / "tests" / "bots"))
from digest import digest  # noqa: E402

EXAMPLES = PYTHON_DIR / "examples"
VIEW_BOT = PYTHON_DIR / "tests" / "bots" / "view_bot.py"


def hello(color: str, game_id: str, ruleset: str = "barrage", seed: int = 5) -> str:
    return json.dumps(
        {
            "type": "hello", "protocol": 1, "game_id": game_id, "color": color,
            "ruleset": stratego.Ruleset.preset(ruleset).to_dict(),
            "time_control": {"startup_ms": 1000, "setup_ms": 1000, "move_ms": 100, "bank_ms": None, "increment_ms": 0},
            "seed": seed, "max_line_bytes": 1 << 20,
        }
    )


def setup_request(color: str, game_id: str, fixed=None, ruleset: str = "barrage") -> str:
    r = stratego.Ruleset.preset(ruleset)
    msg = {
        "type": "setup_request", "game_id": game_id, "color": color, "squares": r.setup_squares(color),
        "pieces": r.pieces, "exact_counts": r.exact_counts, "time_ms": 1000,
    }
    if fixed is not None:
        msg["fixed"] = fixed
    return json.dumps(msg)


def turn_line(game: Game, color: str, game_id: str, plies, full: bool, first: bool = False) -> str:
    """A turn as the host writes it, made from the rules crate's view."""
    view = game.view(color)
    msg = {
        "type": "turn", "game_id": game_id, "ply": game.ply, "color": color,
        "plies": [p.to_dict() for p in plies],
        "legal_moves": [str(m) for m in view.legal_moves],
        "clock": {"move_ms": 100, "remaining_ms": None, "opponent_remaining_ms": None},
    }
    if full:
        msg["pieces"] = [p.to_dict() for p in view.pieces]
        msg["captured"] = view.captured
    elif first:
        other = stratego.opponent(color)
        msg["opponent_squares"] = [sq for sq, _ in game.deployments[0 if other == "red" else 1].pieces]
    return json.dumps(msg)


class Recorder(Bot):
    """Plays the first legal move, remembers every view, resigns at ply 9."""

    name = "recorder"
    version = "1.0"

    def __init__(self):
        self.views, self.games, self.overs = [], [], []

    def new_game(self, hello):
        self.games.append((hello.game_id, self.color, self.rules.name))

    def move(self, turn, view):
        self.views.append((view, digest(view)))
        self.info(f"seen {view.ply}")
        return None if view.ply >= 9 else view.legal_moves[0]

    def game_over(self, over):
        self.overs.append(over.result)


def drive(bot, lines):
    out = io.StringIO()
    run(bot, io.StringIO("".join(line + "\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_loop_plays_full_and_moves_view_games_in_one_process():
    rules = stratego.Ruleset.preset("barrage")
    red = Deployment.random(rules, "red", 1)
    blue = Deployment.random(rules, "blue", 2)
    bot = Recorder()

    # Game 1: Blue, full view, setup left to the loop (random), the opponent plays along.
    lines = [hello("blue", "g1"), setup_request("blue", "g1"), '{"type":"from_the_future","x":1}']
    out = drive(bot, lines)
    assert out[0] == {"type": "ready", "name": "recorder", "version": "1.0", "multi_game": True, "single_threaded": True}
    own = Deployment.parse(rules, "blue", out[1]["deployment"])
    assert bot.deployment == own
    assert len(out) == 2  # the unknown message type was ignored

    game = Game(rules, red, own)
    lines = [hello("blue", "g1"), setup_request("blue", "g1")]
    pending = []
    for _ in range(4):
        pending.append(game.play(game.legal_moves()[-1]))  # Red's move
        lines.append(turn_line(game, "blue", "g1", pending, full=True))
        pending = [game.play(game.legal_moves()[0])]  # what the bot will answer
    lines.append(json.dumps({
        "type": "game_over", "game_id": "g1", "result": "draw", "winner": None, "reason": "ply_limit",
        "message": "", "plies": [], "total_plies": game.ply, "opponent_setup": [],
    }))
    bot.views.clear()
    out = drive(bot, lines)
    moves = [m for m in out if m["type"] == "move"]
    assert [m["ply"] for m in moves] == [1, 3, 5, 7]
    assert [m["move"] for m in moves] == [str(p.move) for p in game.history[1::2]]
    assert [m["text"] for m in out if m["type"] == "info"] == ["seen 1", "seen 3", "seen 5", "seen 7"]
    # Each view is the rules crate's view of that position, history included.
    replay = Game(rules, red, own)
    for view, d in bot.views:
        while replay.ply < view.ply:
            replay.play(game.history[replay.ply].move)
        assert d == digest(replay.view("blue"))
    assert bot.overs == ["draw"]

    # Game 2: Red, moves view, a fixed setup: the loop answers it without asking the bot.
    bot.view = "moves"
    game = Game(rules, red, blue)
    lines = [hello("red", "g2"), setup_request("red", "g2", fixed=red.to_rows())]
    lines.append(turn_line(game, "red", "g2", [], full=False, first=True))
    game.play(game.legal_moves()[0])
    for _ in range(5):
        reply = game.play(game.legal_moves()[0])
        lines.append(turn_line(game, "red", "g2", [game.history[-2], reply], full=False))
        if game.ply >= 9:
            break
        game.play(game.legal_moves()[0])
    lines += ['{"type":"quit"}', turn_line(game, "red", "g2", [], full=False)]
    bot.views.clear()
    out = drive(bot, lines)
    assert out[0]["view"] == "moves" and out[1] == {"type": "setup", "deployment": red.to_rows()}
    assert bot.deployment == red
    replay = Game(rules, red, blue)
    for view, d in bot.views:
        while replay.ply < view.ply:
            replay.play(game.history[replay.ply].move)
        assert d == digest(replay.view("red"))
    assert out[-1] == {"type": "resign"}  # at ply 10, and nothing after quit
    assert [g[0] for g in bot.games] == ["g1", "g1", "g2"]


def test_check_passes_for_bots_on_the_package(host):
    for script, args in [(EXAMPLES / "random_bot.py", ()), (EXAMPLES / "bot.py", ()), (VIEW_BOT, ("moves",))]:
        proc = run_host(host, "check", bot_command(script, *args), check=False)
        assert proc.returncode == 0, f"{script}:\n{proc.stdout}\n{proc.stderr}"
        last = proc.stdout.strip().splitlines()[-1]
        assert last.startswith("27 passed, 0 failed"), proc.stdout


@pytest.mark.parametrize("view", ["full", "moves"])
def test_views_in_a_real_match_with_a_setup_book_are_the_rules_view(host, tmp_path, view):
    out = tmp_path / "out"
    run_host(
        host, "match", *CALM_CLOCK, bot_command(VIEW_BOT, view), "sample-bot", "--games", "2", "--seed", "3",
        "--setups", str(SETUP_BOOK), "--out", str(out), "-q",
        # The view bot is told by its command's name (not its ready.name).
        "--names-from-commands",
    )
    records = list(read_records(out))
    assert len(records) == 2
    checked = 0
    for rec in records:
        color = "red" if rec.bots["red"].startswith("view_bot") else "blue"
        assert rec.faulty is None
        rec.replay()  # every ply legal, with its recorded fight
        info = rec.info[color]
        assert info[0] == f"setup {rec.deployments[color]}"  # the book's setup, fixed
        expected = info[1:]
        game = rec.start()
        got = []
        for ply in rec.plies:
            if game.to_move == color and len(got) < len(expected):
                got.append(f"view {game.ply} {digest(game.view(color))}")
            game.play(ply.move)
        assert got == expected, rec.game_id
        checked += len(got)
    assert checked > 10
