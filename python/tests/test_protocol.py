"""Protocol messages parsed into the package's objects: protocol.md's own examples, both
turn views checked against the rules crate's view of the same game, and the moves-view
Tracker against Game.view over whole random games."""

import json

import pytest

import stratego
from stratego import (
    Deployment,
    Game,
    GameOver,
    Hello,
    PlyNotice,
    ProtocolError,
    Quit,
    RulesetError,
    SetupRequest,
    Tracker,
    Turn,
    parse_message,
)

from conftest import REPO


def doc_examples():
    """Every one-line host message of protocol.md, by type (in document order)."""
    out = {}
    for line in (REPO / "protocol.md").read_text().splitlines():
        if line.startswith('{"type":'):
            msg = json.loads(line)
            out.setdefault(msg["type"], []).append(line)
    return out


EXAMPLES = doc_examples()
# The barrage game of protocol.md's turn, ply and game_over examples.
RED_SETUP = ".......S../.....22.../..39X...../FB........"


def example_game():
    over = parse_message(EXAMPLES["game_over"][0])
    rules = stratego.Ruleset.preset("barrage")
    blue = Deployment(rules, "blue", over.opponent_setup)
    return Game(rules, Deployment.parse(rules, "red", RED_SETUP), blue), blue


def test_hello_example():
    h = parse_message(EXAMPLES["hello"][0])
    assert isinstance(h, Hello) and h.type == "hello"
    assert (h.protocol, h.game_id, h.color, h.seed, h.opponent) == (1, "0000000000000007-1", "red", 1234567890123, "sample-bot")
    assert h.rules == stratego.Ruleset.preset("classic")
    assert h.time_control == {
        "startup_ms": 10000, "setup_ms": 10000, "move_ms": 1000, "bank_ms": None, "increment_ms": 0, "margin_ms": 3,
    }
    assert h.max_line_bytes == 1048576


def test_seeds_beyond_two_to_the_53_are_exact():
    line = EXAMPLES["hello"][0].replace('"seed":1234567890123', '"seed":18446744073709551615')
    assert parse_message(line).seed == 2**64 - 1


def test_setup_request_examples():
    plain, fixed = (parse_message(line) for line in EXAMPLES["setup_request"])
    assert isinstance(plain, SetupRequest) and plain.fixed is None
    assert plain.squares == stratego.Ruleset.preset("classic").setup_squares("blue")
    assert plain.pieces == stratego.Ruleset.preset("classic").pieces
    assert (plain.exact_counts, plain.time_ms, plain.color) == (True, 10000, "blue")
    assert fixed.fixed == "FB3B333B2B/BX98877766/6655554444/B32222222S"


def test_full_view_turn_example_is_the_rules_crates_view():
    turn = parse_message(EXAMPLES["turn"][0])
    assert isinstance(turn, Turn) and turn.is_full_view
    assert (turn.ply, turn.color, turn.clock["move_ms"]) == (4, "red", 1000)
    game, _ = example_game()
    game.play_all("c2-c3 f8-f6 e2-e3 e7-e3")
    history = game.history[:2]
    assert turn.plies == game.history[2:]
    view = turn.view("barrage", history)
    truth = game.view("red")
    assert view.pieces == truth.pieces
    assert view.captured == truth.captured == {"red": {}, "blue": {"scout": 1}}
    assert view.legal_moves == truth.legal_moves
    assert view.history == truth.history
    assert view == truth
    e3 = view.piece_at("e3")
    assert (e3.rank, e3.moved, e3.revealed, e3.origin) == ("marshal", True, True, "e2")
    assert view.piece_at("f6").rank == "scout" and view.piece_at("h7").rank is None
    assert "f3-f6" in view.legal_moves and "h4-h5" not in view.legal_moves


def test_moves_view_turn_example_through_a_tracker():
    turn = parse_message(EXAMPLES["turn"][1])
    assert not turn.is_full_view and turn.pieces == [] and turn.captured is None
    assert turn.opponent_squares == ["a1", "b1", "c2", "d2", "e2", "f3", "g3", "h4"]
    with pytest.raises(ValueError, match="Tracker"):
        turn.view("barrage")
    game, blue = example_game()
    game.play("c2-c3")
    tracker = Tracker("barrage", "blue", blue, turn.opponent_squares)
    view = turn.view_with(tracker)
    assert view == game.view("blue")
    # A second turn that skipped a ply is refused.
    with pytest.raises(ProtocolError, match="missed plies"):
        parse_message(EXAMPLES["turn"][0].replace('"plies":[', '"plies":[],"x":[')).view_with(tracker)


def test_ply_game_over_and_quit_examples():
    notice = parse_message(EXAMPLES["ply"][0])
    assert isinstance(notice, PlyNotice) and notice.number == 4
    c = notice.ply.combat
    assert (notice.ply.color, notice.ply.move, c.attacker, c.defender, c.result) == ("blue", "e7-e3", "scout", "marshal", "defender_wins")
    over = parse_message(EXAMPLES["game_over"][0])
    assert isinstance(over, GameOver)
    assert (over.result, over.winner, over.reason, over.total_plies, over.plies) == ("loss", "blue", "illegal_move", 4, [])
    assert over.opponent_setup[0] == ("e7", "scout") and len(over.opponent_setup) == 8
    assert isinstance(parse_message(EXAMPLES["quit"][0]), Quit)
    assert isinstance(parse_message(b'{"type":"quit"}\n'), Quit)


def test_lines_that_are_not_host_messages_are_refused():
    for bad in ["", "not json", '{"type":"dance"}', '{"type":"turn"}', '{"no_type":1}']:
        with pytest.raises(ProtocolError):
            parse_message(bad)
    hello = json.loads(EXAMPLES["hello"][0])
    hello["ruleset"]["lakes"] = ["k5"]
    with pytest.raises(RulesetError, match="lakes: square k5 is outside the 10x10 board"):
        parse_message(json.dumps(hello))
    # Unknown fields are ignored (forward compatibility).
    assert isinstance(parse_message('{"type":"quit","x_future":1}'), Quit)


@pytest.mark.parametrize("preset", ["classic", "isf", "barrage"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tracker_follows_whole_games_exactly_as_the_rules_view(preset, seed):
    rules = stratego.Ruleset.preset(preset)
    red, blue = Deployment.random(rules, "red", seed), Deployment.random(rules, "blue", seed + 100)
    game = Game(rules, red, blue)
    trackers = {
        "red": Tracker(rules, "red", red, [sq for sq, _ in blue.pieces]),
        "blue": Tracker(rules, "blue", blue, [sq for sq, _ in red.pieces]),
    }
    import random

    rng = random.Random(seed)
    plies = 0
    while not game.is_over and plies < 600:
        for color, t in trackers.items():
            truth = game.view(color)
            mine = t.view(truth.legal_moves)
            assert mine == truth, f"{preset} seed {seed} ply {game.ply} {color}"
        ply = game.play(rng.choice(game.legal_moves()))
        for t in trackers.values():
            t.apply(ply)
        plies += 1
    assert plies > 0
    # After the last ply too (the rules' view then also carries the outcome).
    for color, t in trackers.items():
        truth, mine = game.view(color).to_dict(), t.view(game.view(color).legal_moves).to_dict()
        truth.pop("outcome", None)
        assert mine == truth


def test_tracker_refuses_plies_that_do_not_fit_the_board():
    rules = stratego.Ruleset.preset("barrage")
    red = Deployment.parse(rules, "red", RED_SETUP)
    t = Tracker(rules, "red", red, ["e7", "h7"])
    g = Game.from_position(rules, [("e5", "red", "scout"), ("a1", "red", "flag"), ("e6", "blue", "scout"), ("j10", "blue", "flag")])
    ply = g.play("e5-e6")
    with pytest.raises(ProtocolError, match="no piece on e5"):
        t.apply(ply)
    with pytest.raises(ValueError, match="two pieces on e7"):
        Tracker(rules, "red", red, ["e7", "e7"])
